//! The keys that bring the user's own Python code into a scenario (the
//! Haystack engine runs it; the Rust engine says it cannot): a hook entry
//! or an agent factory naming a Python object, named scripted models handed
//! to that code, the frozen clock and the import path.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::ScenarioErrorKind;
use super::model::read_reply;
use super::reader::{Field, Read};
use super::suggest;
use crate::scripted::ModelReply;

/// The name of the main model script (`model`), as `models:` mappings name it.
pub const MAIN_MODEL: &str = "model";

/// A Python object a scenario names: `python: "pkg.module:name"`, called
/// with `args` when given, with scripted generators as `models`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PythonCall {
    /// `pkg.module:name` (the part after `:` may be dotted: `Class.factory`).
    pub target: String,
    /// `args`: keyword arguments; `None` uses the object as it is.
    pub args: Option<Map<String, Value>>,
    /// `models`: keyword argument -> script name (`model` or a `models` key).
    pub models: IndexMap<String, String>,
}

impl PythonCall {
    /// The name the trace shows for a hook built from it: the part after `:`.
    #[must_use]
    pub fn short_name(&self) -> &str {
        self.target
            .rsplit_once(':')
            .map_or(self.target.as_str(), |(_, name)| name)
    }

    /// The call as the scenario format writes it (without `name`).
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert("python".into(), self.target.clone().into());
        if let Some(args) = &self.args {
            out.insert("args".into(), Value::Object(args.clone()));
        }
        if !self.models.is_empty() {
            let models = self
                .models
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            out.insert("models".into(), Value::Object(models));
        }
        out
    }
}

/// A named model script: `models: {NAME: {replies, replaces}}`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NamedModel {
    /// `replies`, one per call, as `model`'s entries.
    pub replies: Vec<ModelReply>,
    /// `replaces`: a generator class (`pkg.module:Class`) whose instances,
    /// created by the user's code during the run, answer from this script.
    pub replaces: Option<String>,
}

/// The scenario's Python settings (all empty for a scenario without Python).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct PythonSpec {
    /// `python_path`: folders put first on `sys.path`, relative to the
    /// scenario's folder (default: the scenario's folder alone).
    pub python_path: Vec<String>,
    /// `clock`: the frozen wall-clock instant (ISO 8601), if any.
    pub clock: Option<String>,
    /// `models`, in file order.
    pub models: IndexMap<String, NamedModel>,
}

impl PythonSpec {
    /// `true` when no Python key is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.python_path.is_empty() && self.clock.is_none() && self.models.is_empty()
    }
}

/// `pkg.module:name`: a dotted module, a colon, a dotted attribute.
fn read_target(field: &Field<'_>) -> Read<String> {
    let target = field.string()?;
    let dotted = |s: &str| {
        !s.is_empty()
            && s.split('.').all(|part| {
                let mut chars = part.chars();
                chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && chars.all(|c| c.is_alphanumeric() || c == '_')
            })
    };
    match target.split_once(':') {
        Some((module, name)) if dotted(module) && dotted(name) => Ok(target),
        _ => Err(field.error(ScenarioErrorKind::PythonTarget { value: target })),
    }
}

/// `python`, `args` and `models` of a map being read.
pub(crate) fn read_python_keys(map: &mut super::reader::MapReader<'_>) -> Read<PythonCall> {
    let target = read_target(&map.required("python")?)?;
    let args = map.get("args").map(|f| f.json_map()).transpose()?;
    let mut models = IndexMap::new();
    if let Some(f) = map.get("models") {
        for (param, name) in f.entries()? {
            models.insert(param.to_owned(), name.string()?);
        }
    }
    Ok(PythonCall {
        target,
        args,
        models,
    })
}

/// `models: {NAME: {replies, replaces}}`.
pub(crate) fn read_models(field: &Field<'_>) -> Read<IndexMap<String, NamedModel>> {
    let mut models = IndexMap::new();
    for (name, entry) in field.entries()? {
        if name == MAIN_MODEL {
            return Err(entry.error(ScenarioErrorKind::ReservedModelName));
        }
        let mut map = entry.map()?;
        let replies = map.required("replies")?;
        let replaces = map.get("replaces");
        map.finish()?;
        let replies = replies.seq()?.iter().map(read_reply).collect::<Read<_>>()?;
        let replaces = replaces.map(|f| read_target(&f)).transpose()?;
        models.insert(name.to_owned(), NamedModel { replies, replaces });
    }
    Ok(models)
}

/// `clock`: an ISO 8601 date or date and time (`2026-03-01T09:00:00+00:00`).
pub(crate) fn read_clock(field: &Field<'_>) -> Read<String> {
    let text = field.string()?;
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    let date = digits(0..4)
        && bytes.get(4) == Some(&b'-')
        && digits(5..7)
        && bytes.get(7) == Some(&b'-')
        && digits(8..10);
    let rest_ok = bytes.len() == 10
        || (bytes.len() >= 16
            && matches!(bytes[10], b'T' | b' ')
            && digits(11..13)
            && bytes[13] == b':'
            && digits(14..16));
    if date && rest_ok {
        Ok(text)
    } else {
        Err(field.error(ScenarioErrorKind::ClockFormat { value: text }))
    }
}

/// Every `models` mapping names `model` or a defined script.
pub(crate) fn check_model_names(
    field: &Field<'_>,
    call: &PythonCall,
    defined: &IndexMap<String, NamedModel>,
) -> Read<()> {
    for name in call.models.values() {
        if name == MAIN_MODEL || defined.contains_key(name) {
            continue;
        }
        let mut names: Vec<String> = vec![MAIN_MODEL.to_owned()];
        names.extend(defined.keys().cloned());
        return Err(field.key_error(
            "models",
            ScenarioErrorKind::UnknownModel {
                suggestion: suggest::closest(name, &names),
                name: name.clone(),
                defined: names,
            },
        ));
    }
    Ok(())
}
