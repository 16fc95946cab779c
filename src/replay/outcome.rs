//! The outcome of one scenario: status, failures, result and trace.

use super::trace::TraceEvent;
use serde_json::{Map, Value};

/// How a scenario ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Every expectation holds.
    Pass,
    /// An expectation does not hold.
    Fail,
    /// The run failed unexpectedly, or the file is invalid.
    Error,
}

impl Status {
    /// `pass`, `fail` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
        }
    }
}

/// One unmet expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The readable line (as the outcome JSON lists it).
    pub message: String,
    /// The expected value, when the failure compares values.
    pub expected: Option<Value>,
    /// The actual value, when the failure compares values.
    pub actual: Option<Value>,
}

impl Failure {
    pub(crate) fn line(message: String) -> Self {
        Failure {
            message,
            expected: None,
            actual: None,
        }
    }

    pub(crate) fn compare(message: String, expected: Value, actual: Value) -> Self {
        Failure {
            message,
            expected: Some(expected),
            actual: Some(actual),
        }
    }
}

/// The outcome of a scenario, as `hookharness run --format json` writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The scenario's `name`, else the file stem.
    pub scenario: String,
    /// The file, as given.
    pub file: String,
    /// pass, fail or error.
    pub status: Status,
    /// Unmet expectations.
    pub failures: Vec<Failure>,
    /// The run's error text, when it failed (or the file error).
    pub error: Option<String>,
    /// Haystack's return value in JSON form (`None` when the run failed).
    pub result: Option<Value>,
    /// Every event, in order.
    pub trace: Vec<TraceEvent>,
}

impl Outcome {
    /// `true` when the status is pass.
    pub fn passed(&self) -> bool {
        self.status == Status::Pass
    }

    /// The outcome as a JSON value with keys sorted at every level.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("scenario".into(), self.scenario.clone().into());
        map.insert("file".into(), self.file.clone().into());
        map.insert("status".into(), self.status.as_str().into());
        map.insert(
            "failures".into(),
            Value::Array(
                self.failures
                    .iter()
                    .map(|f| f.message.clone().into())
                    .collect(),
            ),
        );
        map.insert(
            "error".into(),
            self.error.clone().map_or(Value::Null, Value::String),
        );
        map.insert("result".into(), self.result.clone().unwrap_or(Value::Null));
        map.insert(
            "trace".into(),
            Value::Array(self.trace.iter().map(TraceEvent::to_value).collect()),
        );
        sorted(Value::Object(map))
    }

    /// One JSON line: keys sorted, non-ASCII kept, no trailing newline.
    pub fn to_json_line(&self) -> String {
        self.to_value().to_string()
    }
}

/// The value with object keys sorted at every level.
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}
