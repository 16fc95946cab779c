//! `run`'s report as the scenarios finish: the human and JSON reports print
//! each outcome as soon as it is known (in file order, the order they run
//! in, so the output is the same from run to run), JUnit, a single XML
//! document, at the end. On a terminal, a progress line on stderr shows the
//! count while a long run goes on, and is cleared before each report line.

use super::Format;
use super::output::{err, out, outln};
use crate::outcome::Outcome;
use crate::report::{Summary, human_outcome, human_summary, junit};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The progress line appears once a run has taken this long.
const PROGRESS_AFTER: Duration = Duration::from_millis(300);

pub(super) struct Stream {
    format: Format,
    /// JSON lines hold the complete outcome (`--trace full`).
    full: bool,
    started: Instant,
    on_terminal: bool,
    progress_shown: bool,
}

impl Stream {
    pub(super) fn new(format: Format, full: bool) -> Self {
        Stream {
            format,
            full,
            started: Instant::now(),
            on_terminal: std::io::stderr().is_terminal(),
            progress_shown: false,
        }
    }

    /// Reports one finished scenario, the `done`-th of `total` files.
    pub(super) fn outcome(&mut self, outcome: &Outcome, done: usize, total: usize) {
        self.clear_progress();
        match self.format {
            Format::Human => out!("{}", human_outcome(outcome)),
            Format::Json if self.full => outln!("{}", outcome.to_full_value()),
            Format::Json => outln!("{}", outcome.to_json_line()),
            Format::Junit => {}
        }
        self.progress(done, total);
    }

    /// Shows the count of files done, on a terminal, for a long run.
    pub(super) fn progress(&mut self, done: usize, total: usize) {
        if self.on_terminal && self.started.elapsed() > PROGRESS_AFTER {
            err!("\rrunning scenarios: {done}/{total}");
            self.progress_shown = true;
        }
    }

    /// Ends the report: JUnit's document, or the human summary line.
    pub(super) fn finish(mut self, outcomes: &[Outcome], summary: &Summary) {
        self.clear_progress();
        match self.format {
            Format::Human => outln!("\n{}", human_summary(summary)),
            Format::Json => {}
            Format::Junit => out!("{}", junit(outcomes)),
        }
    }

    fn clear_progress(&mut self) {
        if self.progress_shown {
            err!("\r\x1b[2K");
            self.progress_shown = false;
        }
    }
}
