//! The keys of per-tool maps (offload policies, confirmation strategies):
//! one tool name, `"*"` for any other tool, or several names sharing one entry.

use super::component::{FromValueError, format_error};

/// A key of a per-tool map, as Haystack's `str | tuple[str, ...]`.
///
/// ```
/// use hookharness::hooks::ToolKey;
///
/// assert_eq!(ToolKey::from("search").to_key_string(), "search");
/// assert_eq!(ToolKey::from(["read", "list"]).to_key_string(), r#"["read", "list"]"#);
/// assert_eq!(ToolKey::parse(r#"["a", "b"]"#).unwrap(), ToolKey::from(["a", "b"]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ToolKey {
    /// One tool name; `"*"` matches any tool without a more specific key.
    Name(String),
    /// Several tool names sharing one entry (Haystack's tuple key).
    Names(Vec<String>),
}

impl ToolKey {
    /// The key as Haystack serializes it: a name as is, a tuple as a JSON
    /// array string (`json.dumps(list(key))`, ASCII-escaped).
    pub fn to_key_string(&self) -> String {
        match self {
            ToolKey::Name(name) => name.clone(),
            ToolKey::Names(names) => {
                crate::pyfmt::json_dumps_ascii(&serde_json::Value::from(names.clone()))
            }
        }
    }

    /// Reads a serialized key: one starting with `[` is a JSON array of names.
    pub fn parse(key: &str) -> Result<ToolKey, FromValueError> {
        if !key.starts_with('[') {
            return Ok(ToolKey::Name(key.to_owned()));
        }
        match serde_json::from_str::<Vec<String>>(key) {
            Ok(names) => Ok(ToolKey::Names(names)),
            Err(_) => Err(format_error(
                "",
                format!("the key `{key}` starts with `[` but is not a JSON array of tool names"),
            )),
        }
    }
}

impl From<&str> for ToolKey {
    fn from(name: &str) -> Self {
        ToolKey::Name(name.to_owned())
    }
}

impl From<String> for ToolKey {
    fn from(name: String) -> Self {
        ToolKey::Name(name)
    }
}

impl<const N: usize> From<[&str; N]> for ToolKey {
    fn from(names: [&str; N]) -> Self {
        ToolKey::Names(names.iter().map(|n| (*n).to_owned()).collect())
    }
}

/// Haystack's lookup: the exact name, then the first tuple holding it, then `"*"`.
pub(crate) fn lookup<'a, T>(entries: &'a [(ToolKey, T)], tool: &str) -> Option<&'a T> {
    let name = |wanted: &str| {
        entries.iter().find_map(|(key, value)| match key {
            ToolKey::Name(n) if n == wanted => Some(value),
            _ => None,
        })
    };
    name(tool)
        .or_else(|| {
            entries.iter().find_map(|(key, value)| match key {
                ToolKey::Names(names) if names.iter().any(|n| n == tool) => Some(value),
                _ => None,
            })
        })
        .or_else(|| name("*"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuple_keys_are_ascii_escaped_as_python_json_dumps_writes_them() {
        // json.dumps(["b", "é", "𝄞"]) in Python 3.11.
        let key = ToolKey::Names(vec!["b".into(), "é".into(), "𝄞".into()]);
        assert_eq!(key.to_key_string(), r#"["b", "\u00e9", "\ud834\udd1e"]"#);
        assert_eq!(ToolKey::parse(&key.to_key_string()).unwrap(), key);
    }

    #[test]
    fn the_exact_name_wins_over_a_tuple_and_a_tuple_over_the_wildcard() {
        let entries = vec![
            (ToolKey::from("*"), 0),
            (ToolKey::from(["a", "b"]), 1),
            (ToolKey::from("a"), 2),
        ];
        assert_eq!(lookup(&entries, "a"), Some(&2));
        assert_eq!(lookup(&entries, "b"), Some(&1));
        assert_eq!(lookup(&entries, "c"), Some(&0));
        assert_eq!(lookup(&entries[1..], "c"), None);
    }
}
