//! The keys that bring the user's own Python code into a scenario (the
//! Haystack engine runs it; the Rust engine says it cannot): a hook entry
//! or an agent factory naming a Python object, named scripted models handed
//! to that code, the frozen clock and the import path.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::error::ScenarioErrorKind;
use super::model::read_reply;
use super::reader::{Field, Read};
use crate::scripted::ModelReply;
use crate::wording::suggest;

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

/// `clock`: an ISO 8601 date or date and time (`2026-03-01T09:00:00+00:00`),
/// in the forms Python's `datetime.fromisoformat` reads and with values it
/// accepts, so that the worker never meets a clock it cannot set: a date
/// `YYYY-MM-DD` (year 1 to 9999, a day of that month), optionally followed by
/// `T` or a space, `HH:MM`, optionally `:SS` and a fraction (`.` or `,` and 1
/// to 9 digits), and an offset (`Z`, `+HH`, `+HHMM`, `+HH:MM`, `+HH:MM:SS`,
/// or `-` for `+`; less than 24 hours).
pub(crate) fn read_clock(field: &Field<'_>) -> Read<String> {
    let text = field.string()?;
    if clock_is_valid(text.as_bytes()) {
        Ok(text)
    } else {
        Err(field.error(ScenarioErrorKind::ClockFormat { value: text }))
    }
}

fn clock_is_valid(bytes: &[u8]) -> bool {
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = bytes.get(range)?;
        part.iter().all(u8::is_ascii_digit).then(|| {
            part.iter()
                .fold(0, |n, digit| n * 10 + u32::from(digit - b'0'))
        })
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if year == 0 || bytes[4] != b'-' || bytes[7] != b'-' || day == 0 || day > days {
        return false;
    }
    if bytes.len() == 10 {
        return true;
    }
    let (Some(hour), Some(minute)) = (number(11..13), number(14..16)) else {
        return false;
    };
    if !matches!(bytes[10], b'T' | b' ') || bytes[13] != b':' || hour > 23 || minute > 59 {
        return false;
    }
    let mut at = 16;
    if bytes.get(at) == Some(&b':') {
        match number(at + 1..at + 3) {
            Some(second) if second <= 59 => at += 3,
            _ => return false,
        }
        if matches!(bytes.get(at), Some(b'.' | b',')) {
            let digits = bytes[at + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if !(1..=9).contains(&digits) {
                return false;
            }
            at += 1 + digits;
        }
    }
    match &bytes[at..] {
        [] | [b'Z'] => true,
        [b'+' | b'-', offset @ ..] => {
            let two = |part: &[u8]| -> Option<u32> {
                (part.len() == 2 && part.iter().all(u8::is_ascii_digit))
                    .then(|| u32::from(part[0] - b'0') * 10 + u32::from(part[1] - b'0'))
            };
            let fields: Option<Vec<u32>> = match offset {
                [h1, h2] => two(&[*h1, *h2]).map(|h| vec![h]),
                [h1, h2, m1, m2] => two(&[*h1, *h2])
                    .zip(two(&[*m1, *m2]))
                    .map(|(h, m)| vec![h, m]),
                [h @ .., b':', m1, m2] if h.len() == 2 => {
                    two(h).zip(two(&[*m1, *m2])).map(|(h, m)| vec![h, m])
                }
                [h1, h2, b':', m1, m2, b':', s1, s2] => two(&[*h1, *h2])
                    .zip(two(&[*m1, *m2]))
                    .zip(two(&[*s1, *s2]))
                    .map(|((h, m), s)| vec![h, m, s]),
                _ => None,
            };
            fields.is_some_and(|f| f[0] <= 23 && f.iter().skip(1).all(|&n| n <= 59))
        }
        _ => false,
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
