//! Writing a command's report to stdout and stderr as Unix tools do.
//!
//! A reader that goes away (`hookharness check scenarios | head -1`) ends
//! the process quietly with [`ExitCode::BrokenPipe`], the status a shell
//! reports for a tool stopped by `SIGPIPE`. Any other write error (a full
//! disk, `> /dev/full`) is reported on stderr when stderr can be written, and
//! ends the process with [`ExitCode::OutputFailed`]: a report that could not
//! be written is never mistaken for a failed scenario, and never a panic
//! (which `println!` would give).

use super::ExitCode;
use std::fmt;
use std::io::{self, Write};

/// Writes to stdout and flushes, or ends the process (see the module docs).
pub(crate) fn stdout(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    let written = if super::color::on() {
        out.write_all(super::color::paint(&args.to_string()).as_bytes())
    } else {
        out.write_fmt(args)
    };
    if let Err(error) = written.and_then(|()| out.flush()) {
        exit_on_write_error(&error, "stdout");
    }
}

/// Writes to stderr, or ends the process (see the module docs).
pub(crate) fn stderr(args: fmt::Arguments<'_>) {
    if let Err(error) = io::stderr().lock().write_fmt(args) {
        exit_on_write_error(&error, "stderr");
    }
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
