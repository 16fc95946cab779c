//! Progress of long CLI work (`run` over a big corpus, `mutate`,
//! `explore`): a bar on stderr when stderr is a terminal, nothing on a pipe
//! or a file, so logs and CI output hold only the report.
//!
//! ```text
//! mutants [##########..........] 12/24
//! ```
//!
//! The bar appears once the work has taken [`SHOW_AFTER`] (short work shows
//! none), is redrawn at most every [`REDRAW_EVERY`], and is cleared before
//! every report line ([`Progress::clear`]) so that the two never mix.
//! `HOOKHARNESS_PROGRESS=always` draws it on every update whatever stderr is
//! (for a terminal that is not detected as one); `never` turns it off.

use std::fmt;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Work shorter than this shows no bar.
pub(crate) const SHOW_AFTER: Duration = Duration::from_millis(300);
/// The bar is redrawn at most this often.
pub(crate) const REDRAW_EVERY: Duration = Duration::from_millis(100);
/// The environment variable that overrides terminal detection.
pub(crate) const ENV: &str = "HOOKHARNESS_PROGRESS";
/// Cells of the bar.
const WIDTH: usize = 20;

/// When the bar is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Never (stderr is not a terminal, or `never`).
    Off,
    /// On a terminal, after [`SHOW_AFTER`], throttled.
    Terminal,
    /// On every update (`always`).
    Always,
}

/// A count of `total` units of work, drawn as a bar on stderr.
pub(crate) struct Progress {
    label: &'static str,
    total: usize,
    done: usize,
    mode: Mode,
    started: Instant,
    drawn_at: Option<Instant>,
    shown: bool,
    /// Where the bar goes: stderr, through [`super::output`].
    sink: fn(fmt::Arguments<'_>),
}

impl Progress {
    /// A bar for `total` units labelled `label` (`scenarios`, `mutants`),
    /// drawn only where the module docs say.
    pub(crate) fn new(label: &'static str, total: usize) -> Self {
        let mode = match std::env::var(ENV).as_deref() {
            Ok("always") => Mode::Always,
            Ok("never") => Mode::Off,
            _ if std::io::stderr().is_terminal() => Mode::Terminal,
            _ => Mode::Off,
        };
        Progress {
            label,
            total,
            done: 0,
            mode,
            started: Instant::now(),
            drawn_at: None,
            shown: false,
            sink: super::output::stderr_raw,
        }
    }

    /// Records that `done` units are finished, and redraws when due.
    pub(crate) fn set(&mut self, done: usize) {
        self.done = done.min(self.total);
        let now = Instant::now();
        let due = match self.mode {
            Mode::Off => false,
            Mode::Always => true,
            Mode::Terminal => {
                now.duration_since(self.started) >= SHOW_AFTER
                    && self
                        .drawn_at
                        .is_none_or(|at| now.duration_since(at) >= REDRAW_EVERY)
            }
        };
        if due {
            (self.sink)(format_args!(
                "\r\x1b[2K{}",
                bar(self.label, self.done, self.total)
            ));
            self.drawn_at = Some(now);
            self.shown = true;
        }
    }

    /// Records one more finished unit.
    pub(crate) fn advance(&mut self) {
        self.set(self.done + 1);
    }

    /// Erases the bar, if drawn, so that a report line can be written; the
    /// next update draws it again.
    pub(crate) fn clear(&mut self) {
        if self.shown {
            (self.sink)(format_args!("\r\x1b[2K"));
            self.shown = false;
            self.drawn_at = None;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// `label [#####...............] done/total`.
fn bar(label: &str, done: usize, total: usize) -> String {
    let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH);
    format!(
        "{label} [{}{}] {done}/{total}",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bar whose drawing goes nowhere, in `mode`.
    fn quiet(total: usize, mode: Mode) -> Progress {
        let mut progress = Progress::new("scenarios", total);
        progress.mode = mode;
        progress.sink = |_| {};
        progress
    }

    #[test]
    fn the_bar_fills_in_proportion_to_the_work_done() {
        assert_eq!(bar("mutants", 0, 4), "mutants [....................] 0/4");
        assert_eq!(bar("mutants", 1, 4), "mutants [#####...............] 1/4");
        assert_eq!(bar("mutants", 4, 4), "mutants [####################] 4/4");
    }

    #[test]
    fn no_work_at_all_is_a_full_bar_rather_than_a_division_by_zero() {
        assert_eq!(
            bar("scenarios", 0, 0),
            "scenarios [####################] 0/0"
        );
    }

    #[test]
    fn a_count_past_the_total_is_held_at_the_total() {
        let mut progress = quiet(2, Mode::Off);
        progress.set(5);
        assert_eq!(progress.done, 2);
    }

    #[test]
    fn on_a_terminal_short_work_draws_nothing() {
        let mut progress = quiet(3, Mode::Terminal);
        progress.advance();
        assert!(!progress.shown, "drawn before {SHOW_AFTER:?}");
    }

    #[test]
    fn on_a_terminal_long_work_draws_the_bar_and_clearing_hides_it() {
        let mut progress = quiet(3, Mode::Terminal);
        progress.started -= SHOW_AFTER;
        progress.advance();
        assert!(progress.shown);
        progress.clear();
        assert!(!progress.shown);
    }

    #[test]
    fn off_a_terminal_nothing_is_ever_drawn() {
        let mut progress = quiet(3, Mode::Off);
        progress.started -= SHOW_AFTER;
        progress.advance();
        assert!(!progress.shown);
    }
}
