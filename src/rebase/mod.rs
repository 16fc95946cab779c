//! Rebasing: accepting that the model is now sent another conversation, the
//! way `cargo insta review` accepts a new snapshot. The scenario runs once,
//! each reply's `sees` is rewritten from the request it answered, and the
//! file keeps everything else.
//!
//! ```text
//!  Scenario ──Replay::run_seeing──▶ the requests, one per LLM call
//!     │                                   │ per reply whose `sees` fails: the facts it lists
//!     ▼                                   ▼ (messages, message_count, roles, tools) anew;
//!  Rebase { scenario with new sees,        its matchers (contains, last_message) kept
//!           changes: what each reply sees now, outcome: the rebased run }
//! ```
//!
//! ```
//! use hookharness::rebase::{Change, rebase};
//! use hookharness::replay::Replay;
//! use hookharness::scenario::{Format, Scenario};
//!
//! let scenario = Scenario::from_str(
//!     "model:\n  - text: hi\n    sees: {message_count: 2}\nrun: {messages: [{role: user, text: Hello}]}\n",
//!     "hi.yaml",
//!     Format::Yaml,
//! )?;
//! assert!(!Replay::new().run(&scenario).passed());
//! let rebased = rebase(&Replay::new(), &scenario, false);
//! assert_eq!(rebased.scenario.sees[&0].message_count, Some(1));
//! assert_eq!(rebased.changes[0].change, Change::Changed("message_count: expected 2, got 1".into()));
//! assert!(rebased.outcome.passed());
//! # Ok::<(), hookharness::scenario::ScenarioError>(())
//! ```

mod text;

use crate::replay::{Outcome, Replay, SeenRequest, SeesListed, sees_difference, sees_listed};
use crate::scenario::{Format, KeyPath, Located, MessageSpec, Scenario, Sees};

/// A scenario rebased on its current run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Rebase {
    /// The scenario with each `sees` rewritten.
    pub scenario: Scenario,
    /// What changed, one entry per reply whose `sees` was looked at, in
    /// `model` order.
    pub changes: Vec<SeesChange>,
    /// The run of the rebased scenario.
    pub outcome: Outcome,
}

/// What one reply's `sees` became.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SeesChange {
    /// The reply's index in `model`.
    pub reply: usize,
    /// What happened to its `sees`.
    pub change: Change,
}

/// What happened to one `sees`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// It held already.
    Unchanged,
    /// It did not hold: the first difference, as a failure names it.
    Changed(String),
    /// Written on a reply that had none (`all`).
    Added,
    /// The run made fewer LLM calls: nothing to see, kept as it was.
    NotReached,
    /// A matcher (`contains`, `last_message`) no longer holds: it is the
    /// user's claim, kept as written, to edit by hand. `facts` is the
    /// difference in the listed facts when those were rewritten as well.
    MatcherFails {
        /// What the matcher found.
        matcher: String,
        /// The facts' first difference, when they were rewritten too.
        facts: Option<String>,
    },
}

/// Rebases `scenario` on its run through `replay`: each reply's `sees` that
/// no longer holds lists what its request showed (one that holds is kept
/// as written). `all`: replies without `sees` get `sees: {messages, tools}`,
/// as a recording writes.
pub fn rebase(replay: &Replay, scenario: &Scenario, all: bool) -> Rebase {
    let (_, requests) = replay.run_seeing(scenario);
    let mut rebased = scenario.clone();
    let mut changes = Vec::new();
    // The conversation the reply before lists, in the scenario as written
    // and as rebased (a `previous_messages` reads it), and whether its
    // `sees` was rewritten.
    let mut old_before: Option<(usize, SeesListed)> = None;
    let mut new_before: Option<(usize, SeesListed)> = None;
    let mut before_rewritten = false;
    for reply in 0..scenario.model.len() {
        let old = scenario.sees.get(&reply);
        let old_list =
            old.and_then(|o| sees_listed(o, reply, old_before.as_ref().map(|(r, l)| (*r, l))));
        let request = requests.get(reply);
        let previous_request = reply.checked_sub(1).and_then(|p| requests.get(p));
        // The reply before lists its request's conversation once rebased.
        let previous_lists = reply
            .checked_sub(1)
            .and_then(|p| rebased.sees.get(&p))
            .is_some_and(|s| s.listed_count().is_some());
        let mut rewritten = false;
        let change = match (old, request) {
            (None, Some(request)) if all => {
                let sees = if previous_lists {
                    request.to_sees_after(previous_request)
                } else {
                    request.to_sees()
                };
                rebased.sees.insert(reply, sees);
                rewritten = true;
                Some(Change::Added)
            }
            (None, _) => None,
            (Some(_), None) => Some(Change::NotReached),
            // A `sees` that holds is kept as written.
            (Some(old), Some(request)) => {
                let old_listed = old_list
                    .as_ref()
                    .map(|r| r.as_ref().map_err(String::as_str));
                match sees_difference(old, old_listed, request) {
                    Some(what) => {
                        let previous = previous_request.filter(|_| previous_lists);
                        let new = refreshed(old, request, previous);
                        let new_list =
                            sees_listed(&new, reply, new_before.as_ref().map(|(r, l)| (*r, l)));
                        let new_listed = new_list
                            .as_ref()
                            .map(|r| r.as_ref().map_err(String::as_str));
                        // The facts now hold: what still differs is a matcher's.
                        let matcher = sees_difference(&new, new_listed, request);
                        // A `previous_messages` reads the reply before: when
                        // that was rewritten, so is this conversation.
                        let inherited =
                            old.previous_messages.is_some_and(|n| n > 0) && before_rewritten;
                        let facts = (new != *old || inherited).then_some(what);
                        if facts.is_some() {
                            rebased.sees.insert(reply, new);
                            rewritten = true;
                        }
                        Some(match (matcher, facts) {
                            (Some(matcher), facts) => Change::MatcherFails { matcher, facts },
                            (None, Some(what)) => Change::Changed(what),
                            // Unreachable: a difference that refreshing the facts
                            // does not change is a matcher's.
                            (None, None) => Change::Unchanged,
                        })
                    }
                    None => Some(Change::Unchanged),
                }
            }
        };
        new_before = rebased
            .sees
            .get(&reply)
            .and_then(|s| sees_listed(s, reply, new_before.as_ref().map(|(r, l)| (*r, l))))
            .and_then(Result::ok)
            .map(|l| (reply, l));
        old_before = old_list.and_then(Result::ok).map(|l| (reply, l));
        before_rewritten = rewritten;
        if let Some(change) = change {
            changes.push(SeesChange { reply, change });
        }
    }
    let outcome = replay.run(&rebased);
    Rebase {
        scenario: rebased,
        changes,
        outcome,
    }
}

/// `old` with the facts it lists read from `request`; its matchers kept.
/// A conversation written as `previous_messages` + `new_messages` is
/// written so again after `previous`, the request of the reply before when
/// that reply's `sees` lists its conversation (else in full).
fn refreshed(old: &Sees, request: &SeenRequest, previous: Option<&SeenRequest>) -> Sees {
    let mut new = old.clone();
    if old.messages.is_some() {
        new.messages = Some(
            request
                .messages
                .iter()
                .map(|m| MessageSpec::of_message(m))
                .collect(),
        );
    }
    if old.previous_messages.is_some() {
        let listed = request.to_sees_after(previous);
        new.messages = listed.messages;
        new.previous_messages = listed.previous_messages;
        new.new_messages = listed.new_messages;
    }
    if old.message_count.is_some() {
        new.message_count = i64::try_from(request.messages.len()).ok();
    }
    if old.roles.is_some() {
        new.roles = Some(request.messages.iter().map(|m| m.role()).collect());
    }
    if old.tools.is_some() {
        new.tools = Some(request.tools.clone());
    }
    if old.tool_results.is_some() {
        new.tool_results = Some(request.tool_results());
    }
    new
}

/// How a rebased file was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Written {
    /// Only `sees` changed (values replaced, new ones added as the last key
    /// of their reply); comments and layout are as they were.
    SeesOnly,
    /// The whole file was written by the scenario writer (a JSON file that
    /// the writer did not write, or a YAML layout whose `sees` this cannot
    /// edit in place): comments are lost, keys come in the format's order.
    Whole,
}

/// The text of the rebased file: `original` (the file's text, in `format`)
/// with only the `sees` values that changed replaced, when that loads as
/// `rebased`, else the whole scenario as the writer writes it.
pub fn rebased_text(original: &str, format: Format, rebased: &Scenario) -> (String, Written) {
    let original_sees = Scenario::from_str(original, "original", format)
        .map(|s| s.sees)
        .unwrap_or_default();
    let origin = rebased
        .file
        .as_ref()
        .map_or_else(|| "rebased".to_owned(), |f| f.display().to_string());
    if format == Format::Yaml {
        let located = Located::parse(original, format);
        let values: Vec<_> = rebased
            .sees
            .iter()
            .filter(|(reply, sees)| original_sees.get(reply) != Some(*sees))
            .map(|(reply, sees)| (*reply, sees.at, sees.to_value()))
            .collect();
        let edits: Option<Vec<_>> = values
            .iter()
            .map(|(reply, at, value)| match at {
                Some((line, column)) => Some(text::Edit::Replace {
                    line: *line,
                    column: *column,
                    value,
                }),
                None => {
                    let item = KeyPath::default().key("model").index(*reply);
                    let located = located.as_ref()?;
                    Some(text::Edit::Insert {
                        item: located.position(&item)?,
                        first_key: located.first_key_position(&item),
                        value,
                    })
                }
            })
            .collect();
        if let Some(text) = edits.and_then(|edits| text::apply(original, &edits)) {
            if Scenario::from_str(&text, &origin, format).is_ok_and(|s| same(&s, rebased)) {
                return (text, Written::SeesOnly);
            }
        }
        return (rebased.to_yaml(), Written::Whole);
    }
    let text = rebased.to_json();
    let only_sees = Scenario::from_str(original, &origin, format)
        .is_ok_and(|before| before.to_json() == original);
    let written = if only_sees {
        Written::SeesOnly
    } else {
        Written::Whole
    };
    (text, written)
}

/// Equal, wherever each was loaded from.
fn same(a: &Scenario, b: &Scenario) -> bool {
    let mut a = a.clone();
    a.file.clone_from(&b.file);
    a == *b
}
