//! `expect.always`: the expectations that must hold on every variant of a
//! scenario that `hookharness explore` runs (other hook orders, other
//! confirmation answers, injected faults), beside the plain `expect`, which
//! holds for the scenario as written.

use super::{Expect, Expectation};
use crate::scenario::ScenarioErrorKind;
use crate::scenario::reading::{Field, Read};
use crate::state::SchemaEntry;
use indexmap::IndexMap;
use serde_json::{Value, json};

/// `expect.always`.
///
/// ```
/// use hookharness::expect::{Expectation, UnderFaults};
/// use hookharness::scenario::{Format, Scenario};
///
/// let scenario = Scenario::from_str(
///     "model: [{text: hi}]\nexpect:\n  always:\n    tool_call_counts: {delete_file: 0}\n    exit_reason: text\n    under_faults: [tool_call_counts]\n",
///     "always.yaml",
///     Format::Yaml,
/// )?;
/// let always = scenario.expect.always.as_deref().unwrap();
/// assert_eq!(always.expect.list[0], Expectation::ExitReason("text".into()));
/// assert_eq!(always.under_faults, UnderFaults::Keys(vec!["tool_call_counts".into()]));
/// assert_eq!(always.keys(), ["exit_reason", "tool_call_counts"]);
/// assert_eq!(always.under_faults().keys(), ["tool_call_counts"]);
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Always {
    /// The expectations, with the keys of `expect` (not `error`,
    /// `unused_replies` or `always`: a variant may fail or leave replies
    /// unused).
    pub expect: Expect,
    /// Which of them also hold when a fault is injected.
    pub under_faults: UnderFaults,
}

impl Always {
    /// `always` with these expectations, none of them held under faults.
    #[must_use]
    pub fn new(expect: Expect) -> Self {
        Always {
            expect,
            under_faults: UnderFaults::None,
        }
    }

    /// The expectation keys given, in the format's order.
    #[must_use]
    pub fn keys(&self) -> Vec<&'static str> {
        self.expect.keys()
    }

    /// The expectations that hold under faults: `always` without the keys
    /// `under_faults` leaves out (replies may be left unused).
    #[must_use]
    pub fn under_faults(&self) -> Expect {
        match &self.under_faults {
            UnderFaults::None => self.expect.only(&[] as &[&str]),
            UnderFaults::All => self.expect.only(&self.keys()),
            UnderFaults::Keys(keys) => self.expect.only(keys),
        }
    }
}

impl Always {
    /// The file's form of `always`.
    pub(crate) fn to_value(&self) -> Value {
        let mut map = self.expect.to_map();
        match &self.under_faults {
            UnderFaults::None => {}
            UnderFaults::All => {
                map.insert("under_faults".into(), json!("all"));
            }
            UnderFaults::Keys(keys) => {
                map.insert("under_faults".into(), json!(keys));
            }
        }
        Value::Object(map)
    }
}

/// `expect.always.under_faults`: which `always` expectations still hold
/// when `explore --faults` makes a tool, the model or a hook fail.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnderFaults {
    /// Absent: under a fault only the invariants are checked.
    #[default]
    None,
    /// `all`: every `always` expectation.
    All,
    /// A list of `always` keys.
    Keys(Vec<String>),
}

pub(crate) fn read_always(
    field: &Field<'_>,
    schema: &IndexMap<String, SchemaEntry>,
) -> Read<Always> {
    let mut map = field.map()?;
    let under = map.get("under_faults");
    let expect = Expect {
        list: Expectation::read_all(&mut map, schema, false)?,
        ..Expect::default()
    };
    map.finish()?;
    let keys: Vec<String> = expect.keys().into_iter().map(str::to_owned).collect();
    let under_faults = match under {
        None => UnderFaults::None,
        Some(f) if f.as_str() == Some("all") => UnderFaults::All,
        Some(f) => {
            let items = f
                .seq()
                .map_err(|_| f.wrong_type("`all` or a list of `always` keys"))?;
            let mut listed = Vec::with_capacity(items.len());
            for item in &items {
                let key = item.string()?;
                if !keys.contains(&key) {
                    return Err(item.error(ScenarioErrorKind::UnknownVariant {
                        suggestion: crate::wording::closest(&key, &keys),
                        value: key,
                        valid: keys.clone(),
                    }));
                }
                listed.push(key);
            }
            UnderFaults::Keys(listed)
        }
    };
    Ok(Always {
        expect,
        under_faults,
    })
}
