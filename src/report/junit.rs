//! JUnit XML, the format CI systems read.
//!
//! Written by hand rather than with a JUnit crate: the document is small,
//! and hand-writing keeps it free of timestamps and host names, so the same
//! outcomes always give the same bytes.

use super::Summary;
use super::human::{failure_text, trace_text};
use crate::outcome::{Outcome, Status};
use std::fmt::Write;

/// A JUnit document with one `<testcase>` per scenario; a failure carries
/// the text of the human report (each line, with its diff), an error its
/// message; both end with the last events of the run's trace, as the human
/// report shows them.
pub fn junit(outcomes: &[Outcome]) -> String {
    let summary = Summary::of(outcomes);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"hookharness\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        outcomes.len(),
        summary.failed,
        summary.errors
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"scenarios\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        outcomes.len(),
        summary.failed,
        summary.errors
    );
    for outcome in outcomes {
        let _ = write!(
            out,
            "    <testcase name=\"{}\" classname=\"{}\"",
            escape(&outcome.scenario),
            escape(&outcome.file)
        );
        match outcome.status {
            Status::Pass => out.push_str("/>\n"),
            Status::Fail => {
                let first = outcome.failures.first().map_or("", |f| f.message.as_str());
                let mut text: Vec<String> = outcome.failures.iter().map(failure_text).collect();
                text.extend(trace_text(outcome));
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                    escape(first),
                    escape(&text.join("\n"))
                );
            }
            Status::Error | Status::Invalid => {
                let error = outcome.error.as_ref().map_or("", |e| e.message.as_str());
                let mut text = error.to_owned();
                if let Some(trace) = trace_text(outcome) {
                    text.push('\n');
                    text.push_str(&trace);
                }
                let _ = writeln!(
                    out,
                    ">\n      <error message=\"{}\">{}</error>\n    </testcase>",
                    escape(error.lines().next().unwrap_or("")),
                    escape(&text)
                );
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// XML-escapes text; characters XML 1.0 forbids become U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
