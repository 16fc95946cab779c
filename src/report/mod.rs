//! Reports of a replayed set of scenarios: for people, for machines, for CI.
//!
//! Every reporter reads [`Outcome`] values only, the
//! single source of truth; none reaches into the loop.

mod changes;
mod diff;
mod explain;
mod html;
mod human;
mod junit;
mod message;
mod timeline;

pub use explain::explain;
pub use html::explain_html;
pub use human::{human_outcome, human_summary};
pub use junit::junit;

use crate::outcome::{Outcome, Status};

/// Counts of a set of outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Scenarios that passed.
    pub passed: usize,
    /// Scenarios whose expectations did not hold.
    pub failed: usize,
    /// Scenarios that could not run (invalid file, unexpected failure).
    pub errors: usize,
    /// Of the errors, the invalid files.
    pub invalid: usize,
}

impl Summary {
    /// Counts the outcomes.
    pub fn of(outcomes: &[Outcome]) -> Self {
        let mut summary = Summary::default();
        for outcome in outcomes {
            match outcome.status {
                Status::Pass => summary.passed += 1,
                Status::Fail => summary.failed += 1,
                Status::Error => summary.errors += 1,
                Status::Invalid => {
                    summary.errors += 1;
                    summary.invalid += 1;
                }
            }
        }
        summary
    }
}
