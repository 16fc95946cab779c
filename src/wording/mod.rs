//! Wording shared by the loader's errors (`crate::scenario`) and the
//! ready-made hooks' parameter errors (`crate::hooks`): a leaf both use, so
//! neither reaches into the other for a sentence.

pub(crate) mod suggest;
pub(crate) use suggest::closest;

/// The longest key a path or an error message shows whole.
pub(crate) const MAX_SHOWN_KEY: usize = 80;

/// A text from the file as a message shows it: cut past
/// [`MAX_SHOWN_KEY`] characters.
pub(crate) fn cut(text: &str) -> String {
    crate::elide::elide(text, MAX_SHOWN_KEY)
}

/// `` `a`, `b`, `c` ``
pub(crate) fn tick_list<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(|item| format!("`{}`", item.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// ``did you mean `s`?``, else the valid names, else that none are defined.
pub(crate) fn did_you_mean<S: AsRef<str>>(
    suggestion: Option<&String>,
    valid: &[S],
    what: &str,
) -> String {
    match suggestion {
        Some(s) => format!("did you mean `{s}`?"),
        None if valid.is_empty() => format!("no {what} are defined"),
        None => format!("valid {what} are {}", tick_list(valid)),
    }
}

/// ``unknown parameter `feedbak` in `ui`; did you mean `feedback`?``: a
/// ready-made hook's parameter outside `valid`, worded as an unknown key of
/// the file is.
pub(crate) fn unknown_parameter<S: AsRef<str>>(key: &str, parent: &str, valid: &[S]) -> String {
    let suggestion = closest(key, valid);
    format!(
        "unknown parameter `{}` in `{parent}`; {}",
        cut(key),
        did_you_mean(suggestion.as_ref(), valid, "parameters")
    )
}

/// ``invalid value `deny` for `path`; use one of `a`, `b` `` (or ``did you
/// mean `b`? (valid: ...)``): a value outside a fixed set, in the file's
/// own keys and in ready-made hooks' parameters alike.
pub(crate) fn invalid_value<S: AsRef<str>>(value: &str, path: &str, valid: &[S]) -> String {
    let suggestion = closest(value, valid);
    invalid_value_for(
        value,
        &format!("for `{path}`"),
        suggestion.as_deref(),
        valid,
    )
}

/// ``invalid value `v` FOR_PATH; ...``, with a suggestion when there is one.
pub(crate) fn invalid_value_for<S: AsRef<str>>(
    value: &str,
    for_path: &str,
    suggestion: Option<&str>,
    valid: &[S],
) -> String {
    let value = cut(value);
    match suggestion {
        Some(s) => format!(
            "invalid value `{value}` {for_path}; did you mean `{s}`? (valid: {})",
            tick_list(valid)
        ),
        None => format!(
            "invalid value `{value}` {for_path}; use one of {}",
            tick_list(valid)
        ),
    }
}
