//! Hook registrations of declarative hooks: conditions and actions that
//! drop tool calls, continue, stop, append messages, resume or fail.

use super::Shape;
use super::model::UNKNOWN_TOOL;
use crate::hook::HookPoint;
use crate::message::ChatRole;
use crate::scenario::{
    Action, HookEntry, LastMessageCondition, MessageSpec, StateValue, StepCountCondition,
    ToolSelection, When,
};
use indexmap::IndexMap;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// The `stop_run` values generated hooks set.
///
/// ```
/// use hookharness::strategies::STOP_VALUES;
/// assert!(!STOP_VALUES.contains(&"max_agent_steps"));
/// ```
pub const STOP_VALUES: &[&str] = &["halt", "budget_exceeded"];

/// The message generated hooks append.
fn nudge() -> MessageSpec {
    MessageSpec::Simple {
        role: ChatRole::User,
        text: Some("Search before answering.".to_owned()),
        tool_calls: Vec::new(),
        meta: Map::new(),
        name: None,
    }
}

fn when() -> impl Strategy<Value = When> {
    prop_oneof![
        4 => Just(When::default()),
        1 => (0i64..4).prop_map(|n| When {
            step_count: Some(StepCountCondition::Eq(n)),
            ..When::default()
        }),
        1 => (0i64..3).prop_map(|n| When {
            step_count: Some(StepCountCondition::Range { gte: Some(n), lt: None }),
            ..When::default()
        }),
        1 => (1i64..3).prop_map(|n| When {
            times: Some(n),
            ..When::default()
        }),
        1 => any::<bool>().prop_map(|b| When {
            last_message: Some(LastMessageCondition {
                has_tool_calls: Some(b),
                ..LastMessageCondition::default()
            }),
            ..When::default()
        }),
        1 => Just(When {
            exit_reason: Some(Value::from("text")),
            ..When::default()
        }),
    ]
}

/// The actions a hook at `point` may take.
fn actions(point: HookPoint, tools: Vec<String>, shape: &Shape) -> BoxedStrategy<Vec<Action>> {
    let stop = prop::sample::select(STOP_VALUES)
        .prop_map(|v| vec![Action::StopRun(Some(v.to_owned()))])
        .boxed();
    let mut choices: Vec<(u32, BoxedStrategy<Vec<Action>>)> = vec![
        (6, Just(Vec::new()).boxed()),
        (4, Just(vec![Action::AppendMessages(vec![nudge()])]).boxed()),
        (2, stop.clone()),
    ];
    if shape.failures {
        choices.push((
            1,
            Just(vec![Action::Fail("hook failed".to_owned())]).boxed(),
        ));
    }
    match point {
        HookPoint::BeforeRun if shape.resume => {
            let resume = (0i64..4).prop_map(|n| {
                let mut values = IndexMap::new();
                values.insert("step_count".to_owned(), StateValue::Value(Value::from(n)));
                vec![Action::Set(values)]
            });
            choices.push((6, resume.boxed()));
        }
        HookPoint::BeforeTool => {
            let mut names = tools;
            names.push(UNKNOWN_TOOL.to_owned());
            let named = prop::sample::subsequence(names.clone(), 1..=names.len())
                .prop_map(|names| vec![Action::DropToolCalls(ToolSelection::Named(names))]);
            choices.push((
                6,
                Just(vec![Action::DropToolCalls(ToolSelection::All)]).boxed(),
            ));
            choices.push((4, named.boxed()));
        }
        HookPoint::BeforeLlm | HookPoint::AfterTool => {
            // Read only by exit handling, and only with on_exit hooks.
            choices.push((2, Just(vec![Action::ContinueRun(true)]).boxed()));
        }
        HookPoint::OnExit => {
            choices.push((
                8,
                Just(vec![
                    Action::AppendMessages(vec![nudge()]),
                    Action::ContinueRun(true),
                ])
                .boxed(),
            ));
            let stop_and_continue = stop.prop_map(|mut actions| {
                actions.push(Action::ContinueRun(true));
                actions
            });
            choices.push((2, stop_and_continue.boxed()));
        }
        _ => {}
    }
    proptest::strategy::Union::new_weighted(choices).boxed()
}

/// `allowed_hook_points` for a hook at `point`: mostly none; sometimes the
/// point and another; with `shape.failures`, now and then a list without
/// the point (a construction error).
fn allowed(point: HookPoint, shape: &Shape) -> BoxedStrategy<Option<Vec<String>>> {
    let other = prop::sample::select(&HookPoint::ALL[..])
        .prop_filter("another point", move |p| *p != point);
    let with = other
        .clone()
        .prop_map(move |p| Some(vec![point.as_str().to_owned(), p.as_str().to_owned()]));
    if !shape.failures {
        return prop_oneof![8 => Just(None), 1 => with].boxed();
    }
    let without = other.prop_map(|p| Some(vec![p.as_str().to_owned()]));
    prop_oneof![16 => Just(None), 2 => with, 1 => without].boxed()
}

/// One declarative hook for `point` (unnamed): a condition, actions, and
/// sometimes `allowed_hook_points`. A hook that sets `continue_run` always
/// has `times: 1` or `2`, so runs stay short.
///
/// ```
/// use hookharness::HookPoint;
/// use hookharness::scenario::{Action, HookEntry};
/// use hookharness::strategies::{Shape, hook_entry};
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// let strategy = hook_entry(HookPoint::OnExit, vec!["search".into()], &Shape::default());
/// for _ in 0..32 {
///     let HookEntry::Declarative { when, actions, .. } = strategy.new_tree(&mut runner).unwrap().current() else {
///         unreachable!()
///     };
///     if actions.contains(&Action::ContinueRun(true)) {
///         assert!(when.times.is_some());
///     }
/// }
/// ```
pub fn hook_entry(point: HookPoint, tools: Vec<String>, shape: &Shape) -> BoxedStrategy<HookEntry> {
    (
        when(),
        actions(point, tools, shape),
        allowed(point, shape),
        1i64..3,
    )
        .prop_map(|(mut when, actions, allowed_hook_points, times)| {
            if actions.contains(&Action::ContinueRun(true)) && when.times.is_none() {
                when.times = Some(times);
            }
            HookEntry::Declarative {
                name: None,
                when,
                actions,
                allowed_hook_points,
            }
        })
        .boxed()
}

/// A short name per point, for generated hook names (`bl0`, `oe1`, ...).
fn short(point: HookPoint) -> &'static str {
    match point {
        HookPoint::BeforeRun => "br",
        HookPoint::BeforeLlm => "bl",
        HookPoint::BeforeTool => "bt",
        HookPoint::AfterTool => "at",
        HookPoint::OnExit => "oe",
        HookPoint::AfterRun => "ar",
    }
}

/// Hooks for every point: up to `shape.hooks_per_point` declarative hooks
/// each (see [`hook_entry`]), most named `<point abbreviation><index>`,
/// some unnamed (the trace then shows `<point>#<index>`). Points without
/// hooks are left out.
///
/// ```
/// use hookharness::strategies::{Shape, hook_registrations};
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let shape = Shape::default().hooks_per_point(1);
/// let hooks = hook_registrations(vec![], &shape).new_tree(&mut TestRunner::deterministic()).unwrap().current();
/// assert!(hooks.values().all(|list| list.len() == 1));
/// ```
pub fn hook_registrations(
    tools: Vec<String>,
    shape: &Shape,
) -> BoxedStrategy<IndexMap<String, Vec<HookEntry>>> {
    let per_point: Vec<_> = HookPoint::ALL
        .iter()
        .map(|&point| {
            let entry = (
                hook_entry(point, tools.clone(), shape),
                prop::bool::weighted(0.8),
            );
            // Half the points get no hook, so that runs without hooks at a
            // point (no on_exit handling, no before_tool pass) stay common.
            let entries = prop_oneof![
                Just(Vec::new()),
                prop::collection::vec(entry, 1..=shape.hooks_per_point.max(1)),
            ];
            entries.prop_map(move |entries| {
                let entries: Vec<HookEntry> = entries
                    .into_iter()
                    .enumerate()
                    .map(|(index, (entry, named))| match entry {
                        HookEntry::Declarative {
                            when,
                            actions,
                            allowed_hook_points,
                            ..
                        } => HookEntry::Declarative {
                            name: named.then(|| format!("{}{index}", short(point))),
                            when,
                            actions,
                            allowed_hook_points,
                        },
                        other => other,
                    })
                    .collect();
                (point, entries)
            })
        })
        .collect();
    per_point
        .prop_map(|lists| {
            lists
                .into_iter()
                .filter(|(_, entries)| !entries.is_empty())
                .map(|(point, entries)| (point.as_str().to_owned(), entries))
                .collect()
        })
        .boxed()
}
