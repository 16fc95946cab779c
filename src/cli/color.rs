//! Colour on a terminal: `PASS` green, `FAIL` and `ERROR` red, diff lines
//! (`- ` removed, `+ ` added, indented under a failure or a hook) red and
//! green. `--color auto` (the default) colours only when stdout is a
//! terminal and `NO_COLOR` is unset or empty (<https://no-color.org>);
//! `always` and `never` decide alone. Machine formats (JSON, JUnit, HTML)
//! are never coloured. The colour is added as the report is written, so a
//! report's text is the same bytes with colour off.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

static ON: AtomicBool = AtomicBool::new(false);

/// Decides once, before the command writes: `machine` when the command's
/// format is JSON, JUnit or HTML.
pub(super) fn init(choice: ColorChoice, machine: bool) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    ON.store(
        enabled(choice, machine, no_color, std::io::stdout().is_terminal()),
        Ordering::Relaxed,
    );
}

fn enabled(choice: ColorChoice, machine: bool, no_color: bool, terminal: bool) -> bool {
    !machine
        && match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && !no_color,
        }
}

/// Whether stdout is coloured.
pub(super) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const BOLD_GREEN: &str = "\x1b[1;32m";
const BOLD_RED: &str = "\x1b[1;31m";
const RESET: &str = "\x1b[0m";

/// `text` with its status words and diff lines coloured.
pub(super) fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        out.push_str(&paint_line(body));
        out.push_str(end);
    }
    out
}

fn paint_line(line: &str) -> String {
    for (word, color) in [
        ("PASS ", BOLD_GREEN),
        ("FAIL ", BOLD_RED),
        ("ERROR ", BOLD_RED),
    ] {
        if let Some(rest) = line.strip_prefix(word) {
            return format!("{color}{}{RESET} {rest}", word.trim_end());
        }
    }
    let body = line.trim_start();
    let indented = body.len() < line.len();
    if indented && body.starts_with("- ") {
        return format!("{RED}{line}{RESET}");
    }
    if indented && body.starts_with("+ ") {
        return format!("{GREEN}{line}{RESET}");
    }
    line.to_owned()
}

#[cfg(test)]
mod tests {
    use super::{ColorChoice, enabled, paint};

    #[test]
    fn status_words_and_indented_diff_lines_are_coloured_and_nothing_else() {
        assert_eq!(
            paint(
                "PASS  a.yaml  (a)\nFAIL  b.yaml  (b)\n        - old\n        + new\n- not a diff\n"
            ),
            "\x1b[1;32mPASS\x1b[0m  a.yaml  (a)\n\x1b[1;31mFAIL\x1b[0m  b.yaml  (b)\n\
             \x1b[31m        - old\x1b[0m\n\x1b[32m        + new\x1b[0m\n- not a diff\n"
        );
        assert_eq!(paint("{\"status\": \"pass\"}"), "{\"status\": \"pass\"}");
    }

    #[test]
    fn auto_colours_a_terminal_unless_no_color_and_machine_formats_never() {
        assert!(enabled(ColorChoice::Auto, false, false, true));
        assert!(!enabled(ColorChoice::Auto, false, true, true));
        assert!(!enabled(ColorChoice::Auto, false, false, false));
        assert!(enabled(ColorChoice::Always, false, true, false));
        assert!(!enabled(ColorChoice::Never, false, false, true));
        assert!(!enabled(ColorChoice::Always, true, false, true));
    }
}
