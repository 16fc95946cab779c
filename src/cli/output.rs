//! Writing a command's report to stdout and stderr as Unix tools do.
//!
//! A reader that goes away (`hookharness check scenarios | head -1`) ends
//! the process quietly with [`ExitCode::BrokenPipe`], the status a shell
//! reports for a tool stopped by `SIGPIPE`. Any other write error (a full
//! disk, `> /dev/full`) is reported on stderr when stderr can be written, and
//! ends the process with [`ExitCode::OutputFailed`]: a report that could not
//! be written is never mistaken for a failed scenario, and never a panic
//! (which `println!` would give).
//!
//! Control characters from the input (a scenario name or a model's text
//! holding ESC, BEL, an OSC sequence that sets the clipboard or the title)
//! never reach the terminal raw: every control character but newline and
//! tab is written as `\u001b` ([`terminal_safe`]). That form is also JSON's
//! escape, and JSON output holds control characters only inside strings, so
//! a JSON line stays the same JSON.

use super::ExitCode;
use std::fmt;
use std::io::{self, Write};

/// Writes to stdout and flushes, or ends the process (see the module docs).
pub(crate) fn stdout(args: fmt::Arguments<'_>) {
    let text = fmt::format(args);
    let mut out = io::stdout().lock();
    let safe = terminal_safe(&text);
    // Colour goes on after the escaping: its codes are the command's own.
    let written = if super::color::on() {
        out.write_all(super::color::paint(&safe).as_bytes())
    } else {
        out.write_all(safe.as_bytes())
    };
    if let Err(error) = written.and_then(|()| out.flush()) {
        exit_on_write_error(&error, "stdout");
    }
}

/// Writes to stderr, or ends the process (see the module docs).
pub(crate) fn stderr(args: fmt::Arguments<'_>) {
    let text = fmt::format(args);
    if let Err(error) = io::stderr()
        .lock()
        .write_all(terminal_safe(&text).as_bytes())
    {
        exit_on_write_error(&error, "stderr");
    }
}

/// Writes the command's own terminal codes (the progress bar's) to stderr
/// as they are.
pub(crate) fn stderr_raw(args: fmt::Arguments<'_>) {
    if let Err(error) = io::stderr().lock().write_fmt(args) {
        exit_on_write_error(&error, "stderr");
    }
}

/// `text` with every C0 and C1 control character but `\n` and `\t`, and
/// DEL, written as `\u` and four hex digits (ESC as `\u001b`).
pub(crate) fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Ends the process after `error` writing to `stream`.
pub(crate) fn exit_on_write_error(error: &io::Error, stream: &str) -> ! {
    if error.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(ExitCode::BrokenPipe as i32);
    }
    if stream != "stderr" {
        let _ = writeln!(
            io::stderr(),
            "hookharness: cannot write the report to {stream}: {error}"
        );
    }
    std::process::exit(ExitCode::OutputFailed as i32);
}

/// `print!` that never panics: see [`stdout`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::output::stdout(format_args!($($arg)*)) };
}

/// `println!` that never panics: see [`stdout`].
macro_rules! outln {
    () => { $crate::cli::output::stdout(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::cli::output::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics: see [`stderr`].
macro_rules! err {
    ($($arg:tt)*) => { $crate::cli::output::stderr(format_args!($($arg)*)) };
}

/// `eprintln!` that never panics: see [`stderr`].
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::output::stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {err, errln, out, outln};

#[cfg(test)]
mod tests {
    use super::terminal_safe;

    #[test]
    fn control_characters_are_escaped_and_json_stays_json() {
        assert_eq!(
            terminal_safe("a\u{1b}]52;c;aGk=\u{7}b\u{9b}c\r\n\td\u{7f}"),
            "a\\u001b]52;c;aGk=\\u0007b\\u009bc\\u000d\n\td\\u007f"
        );
        assert!(matches!(
            terminal_safe("plain\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        let json = serde_json::json!({"name": "x\u{9b}\u{1b}y"}).to_string();
        let safe = terminal_safe(&json);
        assert!(!safe.chars().any(char::is_control), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["name"], "x\u{9b}\u{1b}y");
    }
}
