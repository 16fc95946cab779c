//! Cutting long texts for error messages and warnings.

/// `text`, or its first `max_chars` characters followed by
/// `... (N more characters)`, so that a megabyte-long value does not fill a
/// report.
pub(crate) fn elide(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((at, _)) => {
            let rest = text[at..].chars().count();
            format!("{}... ({rest} more characters)", &text[..at])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_on_characters_with_the_count_of_what_was_left_out() {
        assert_eq!(elide("short", 5), "short");
        assert_eq!(elide("ééééééé", 5), "ééééé... (2 more characters)");
    }
}
