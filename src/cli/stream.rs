//! `run`'s report as the scenarios finish: the human and JSON reports print
//! each outcome as soon as it is known (in file order, the order they run
//! in, so the output is the same from run to run), JUnit, a single XML
//! document, at the end. On a terminal, a progress bar on stderr
//! ([`Progress`]) shows the count while a long run goes on, and is cleared
//! before each report line.

use super::Format;
use super::output::{out, outln};
use super::progress::Progress;
use crate::outcome::Outcome;
use crate::report::{Summary, human_outcome, human_summary, junit};

pub(super) struct Stream {
    format: Format,
    /// JSON lines hold the complete outcome (`--trace full`).
    full: bool,
    progress: Progress,
}

impl Stream {
    /// A report of `files` scenario files.
    pub(super) fn new(format: Format, full: bool, files: usize) -> Self {
        Stream {
            format,
            full,
            progress: Progress::new("scenarios", files),
        }
    }

    /// Reports one finished scenario, the `done`-th file.
    pub(super) fn outcome(&mut self, outcome: &Outcome, done: usize) {
        self.progress.clear();
        match self.format {
            Format::Human => out!("{}", human_outcome(outcome)),
            Format::Json if self.full => outln!("{}", outcome.to_full_value()),
            Format::Json => outln!("{}", outcome.to_json_line()),
            Format::Junit => {}
        }
        self.progress.set(done);
    }

    /// Counts a file done without a report (outside `--filter`).
    pub(super) fn skipped(&mut self, done: usize) {
        self.progress.set(done);
    }

    /// Ends the report: JUnit's document, or the human summary line.
    pub(super) fn finish(mut self, outcomes: &[Outcome], summary: &Summary) {
        self.progress.clear();
        match self.format {
            Format::Human => outln!("\n{}", human_summary(summary)),
            Format::Json => {}
            Format::Junit => out!("{}", junit(outcomes)),
        }
    }
}
