//! The mutation operators: every single change to a scenario's hooks, model
//! script and tool results, in the scenario's own order.

use super::Operator;
use super::baseline::Needs;
use crate::elide::elide;
use crate::hook::HookPoint;
use crate::scenario::{HookEntry, KeyPath, Scenario, StepCountCondition, When};
use crate::scripted::{ModelReply, ScriptedResult};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The text a changed string becomes.
const XYZZY: &str = "xyzzy";

/// The longest value a description shows whole.
const SHOWN: usize = 40;

/// How a change turns the scenario into its mutant: applied to a copy of
/// the scenario when the mutant is run, so that only one mutant is whole in
/// memory at a time.
pub(crate) type Edit = Arc<dyn Fn(&mut Scenario) + Send + Sync>;

/// One change, before its position is looked up.
pub(super) struct Change {
    pub(super) operator: Operator,
    pub(super) place: KeyPath,
    pub(super) description: String,
    pub(super) edit: Edit,
    /// What the unmutated run must have used for the change to matter.
    pub(super) needs: Needs,
}

/// Every change to `scenario` that gives a different scenario.
pub(super) fn all(scenario: &Scenario) -> Vec<Change> {
    let mut changes = Vec::new();
    hooks(scenario, &mut changes);
    shared_hooks(scenario, &mut changes);
    model(scenario, &mut changes);
    tool_results(scenario, &mut changes);
    // Each mutant is built once here and dropped at once: memory holds one
    // at a time.
    changes.retain(|change| {
        let mut mutant = scenario.clone();
        (change.edit)(&mut mutant);
        mutant != *scenario
    });
    changes
}

fn hooks(scenario: &Scenario, out: &mut Vec<Change>) {
    let top = KeyPath::default().key("hooks");
    for (point, entries) in &scenario.hooks {
        for (i, entry) in entries.iter().enumerate() {
            let place = top.key(point).index(i);
            // Every registration counts at construction; what is inside a
            // hook counts only when it ran.
            let ran = || Needs::Hook {
                point: point.clone(),
                index: i,
            };
            let at = point.clone();
            push(
                out,
                Operator::DropHook,
                Needs::Nothing,
                &place,
                "drop the hook".into(),
                move |s| {
                    s.hooks[&at].remove(i);
                },
            );

            for target in HookPoint::ALL.map(HookPoint::as_str) {
                if target == point || !allowed(scenario, entry, target) {
                    continue;
                }
                let description = format!("move the hook from `{point}` to `{target}`");
                let at = point.clone();
                push(
                    out,
                    Operator::MoveHook,
                    Needs::Nothing,
                    &place,
                    description,
                    move |s| {
                        let hook = s.hooks[&at].remove(i);
                        s.hooks.entry(target.to_owned()).or_default().push(hook);
                    },
                );
            }

            if i + 1 < entries.len() {
                let description = format!("swap the hook with `{point}[{}]`", i + 1);
                let at = point.clone();
                push(
                    out,
                    Operator::SwapHooks,
                    Needs::Nothing,
                    &place,
                    description,
                    move |s| s.hooks[&at].swap(i, i + 1),
                );
            }

            for (sub, description, changed) in declarative(entry) {
                let place = sub.1.prefixed(&place);
                let at = point.clone();
                push(out, sub.0, ran(), &place, description, move |s| {
                    s.hooks[&at][i] = changed.clone();
                });
            }
        }
    }
}

fn shared_hooks(scenario: &Scenario, out: &mut Vec<Change>) {
    let top = KeyPath::default().key("shared_hooks");
    for (name, entry) in &scenario.shared_hooks {
        let place = top.key(name);
        for (sub, description, changed) in declarative(entry) {
            let needs = Needs::Shared(name.clone());
            let at = name.clone();
            push(
                out,
                sub.0,
                needs,
                &sub.1.prefixed(&place),
                description,
                move |s| s.shared_hooks[&at] = changed.clone(),
            );
        }
    }
}

/// Whether `entry` (or the shared hook it names) declares `target` among
/// its `allowed_hook_points`; a hook that declares none may go anywhere, and
/// the Agent judges ready-made hooks (a refusal makes the mutant unviable).
fn allowed(scenario: &Scenario, entry: &HookEntry, target: &str) -> bool {
    let entry = match entry {
        HookEntry::Shared(name) => match scenario.shared_hooks.get(name) {
            Some(shared) => shared,
            None => return false,
        },
        other => other,
    };
    match entry {
        HookEntry::Declarative {
            allowed_hook_points: Some(points),
            ..
        } => points.iter().any(|p| p == target),
        _ => true,
    }
}

/// A place relative to the hook entry.
struct Relative(Vec<Step>);

enum Step {
    Key(&'static str),
    Index(usize),
}

impl Relative {
    fn prefixed(&self, entry: &KeyPath) -> KeyPath {
        self.0.iter().fold(entry.clone(), |path, step| match step {
            Step::Key(key) => path.key(key),
            Step::Index(index) => path.index(*index),
        })
    }
}

type EntryChange = ((Operator, Relative), String, HookEntry);

/// The changes inside one declarative hook: an action dropped, a condition
/// dropped, `step_count` shifted, `times` changed.
fn declarative(entry: &HookEntry) -> Vec<EntryChange> {
    let HookEntry::Declarative { when, actions, .. } = entry else {
        return Vec::new();
    };
    let mut out: Vec<EntryChange> = Vec::new();
    for (j, action) in actions.iter().enumerate() {
        let mut changed = entry.clone();
        if let HookEntry::Declarative { actions, .. } = &mut changed {
            actions.remove(j);
        }
        let place = Relative(vec![Step::Key("do"), Step::Index(j)]);
        let description = format!("drop `do[{j}]` (`{}`)", action.name());
        out.push(((Operator::DropAction, place), description, changed));
    }
    let with_when = |f: &dyn Fn(&mut When)| {
        let mut changed = entry.clone();
        if let HookEntry::Declarative { when, .. } = &mut changed {
            f(when);
        }
        changed
    };
    for key in present_conditions(when) {
        let changed = with_when(&|when: &mut When| drop_condition(when, key));
        let place = Relative(vec![Step::Key("when"), Step::Key(key)]);
        out.push((
            (Operator::DropCondition, place),
            format!("drop `when.{key}`"),
            changed,
        ));
    }
    for (shifted, description) in shifted_step_counts(when.step_count) {
        let changed = with_when(&|when: &mut When| when.step_count = Some(shifted));
        let place = Relative(vec![Step::Key("when"), Step::Key("step_count")]);
        out.push(((Operator::ShiftStepCount, place), description, changed));
    }
    if let Some(times) = when.times {
        let others = [
            times.checked_add(1),
            times.checked_sub(1).filter(|t| *t >= 0),
        ];
        for other in others.into_iter().flatten() {
            let changed = with_when(&|when: &mut When| when.times = Some(other));
            let place = Relative(vec![Step::Key("when"), Step::Key("times")]);
            let description = format!("`when.times` {times} -> {other}");
            out.push(((Operator::ChangeTimes, place), description, changed));
        }
    }
    out
}

/// The `when` keys a hook gives, in the format's order.
fn present_conditions(when: &When) -> Vec<&'static str> {
    [
        ("step_count", when.step_count.is_some()),
        ("exit_reason", when.exit_reason.is_some()),
        ("tool_call_counts", !when.tool_call_counts.is_empty()),
        ("last_message", when.last_message.is_some()),
        ("state", !when.state.is_empty()),
        ("hook_context", !when.hook_context.is_empty()),
        ("times", when.times.is_some()),
    ]
    .into_iter()
    .filter_map(|(key, present)| present.then_some(key))
    .collect()
}

fn drop_condition(when: &mut When, key: &str) {
    match key {
        "step_count" => when.step_count = None,
        "exit_reason" => when.exit_reason = None,
        "tool_call_counts" => when.tool_call_counts.clear(),
        "last_message" => when.last_message = None,
        "state" => when.state.clear(),
        "hook_context" => when.hook_context.clear(),
        _ => when.times = None,
    }
}

/// `step_count: N` as `N + 1`; each bound of a range moved up by one.
fn shifted_step_counts(condition: Option<StepCountCondition>) -> Vec<(StepCountCondition, String)> {
    match condition {
        None => Vec::new(),
        Some(StepCountCondition::Eq(n)) => n
            .checked_add(1)
            .map(|m| {
                (
                    StepCountCondition::Eq(m),
                    format!("`when.step_count` {n} -> {m}"),
                )
            })
            .into_iter()
            .collect(),
        Some(StepCountCondition::Range { gte, lt }) => {
            let mut out = Vec::new();
            if let Some(m) = gte.and_then(|g| g.checked_add(1)) {
                let description = format!("`when.step_count.gte` {} -> {m}", m - 1);
                out.push((StepCountCondition::Range { gte: Some(m), lt }, description));
            }
            if let Some(m) = lt.and_then(|l| l.checked_add(1)) {
                let description = format!("`when.step_count.lt` {} -> {m}", m - 1);
                out.push((StepCountCondition::Range { gte, lt: Some(m) }, description));
            }
            out
        }
    }
}

fn model(scenario: &Scenario, out: &mut Vec<Change>) {
    let top = KeyPath::default().key("model");
    let replies = &scenario.model;
    for (k, reply) in replies.iter().enumerate() {
        let place = top.index(k);
        push(
            out,
            Operator::DropReply,
            Needs::Reply(k),
            &place,
            format!("drop reply {k}"),
            move |s| {
                s.model.remove(k);
            },
        );

        if k + 1 < replies.len() {
            let description = format!("swap replies {k} and {}", k + 1);
            push(
                out,
                Operator::SwapReplies,
                Needs::Reply(k),
                &place,
                description,
                move |s| s.model.swap(k, k + 1),
            );
        }

        push(
            out,
            Operator::DuplicateReply,
            Needs::Reply(k + 1),
            &place,
            format!("give reply {k} twice"),
            move |s| {
                let reply = s.model[k].clone();
                s.model.insert(k + 1, reply);
            },
        );

        let ModelReply::Reply { tool_calls, .. } = reply else {
            continue;
        };
        for (c, call) in tool_calls.iter().enumerate() {
            for (key, value) in &call.arguments.to_map() {
                let changed = changed_value(value);
                let description = format!(
                    "argument `{key}` of the call to `{}`: {} -> {}",
                    call.tool,
                    shown(value),
                    shown(&changed)
                );
                let place = place.key("tool_calls").index(c).key("arguments").key(key);
                let key = key.clone();
                push(
                    out,
                    Operator::ChangeArgument,
                    Needs::Reply(k),
                    &place,
                    description,
                    move |s| {
                        if let ModelReply::Reply { tool_calls, .. } = &mut s.model[k] {
                            let call = &mut tool_calls[c];
                            let mut arguments = call.arguments.to_map();
                            if let Some(value) = arguments.get_mut(&key) {
                                *value = changed.clone();
                            }
                            call.arguments = arguments.into();
                        }
                    },
                );
            }
        }
    }
}

fn tool_results(scenario: &Scenario, out: &mut Vec<Change>) {
    let top = KeyPath::default().key("tools");
    for (t, tool) in scenario.tools.iter().enumerate() {
        for (r, result) in tool.results.iter().enumerate() {
            let (changed, what) = match result {
                ScriptedResult::Text(text) => {
                    let changed = changed_value(&Value::String(text.clone()));
                    let what = format!(
                        "{} -> {}",
                        shown(&Value::String(text.clone())),
                        shown(&changed)
                    );
                    (
                        ScriptedResult::Text(changed.as_str().unwrap_or_default().to_owned()),
                        what,
                    )
                }
                ScriptedResult::Json(value) => {
                    let changed = changed_value(value);
                    let what = format!("{} -> {}", shown(value), shown(&changed));
                    (ScriptedResult::Json(changed), what)
                }
                ScriptedResult::Error(message) => (
                    ScriptedResult::Text(message.clone()),
                    "the tool returns its error message instead of raising".to_owned(),
                ),
                ScriptedResult::EchoArguments => (
                    ScriptedResult::Json(Value::Object(Map::new())),
                    "the tool returns `{}` instead of its arguments".to_owned(),
                ),
            };
            let place = top.index(t).key("results").index(r);
            let description = format!("result {r} of `{}`: {what}", tool.name);
            let needs = Needs::ToolResult {
                tool: tool.name.clone(),
                result: r,
            };
            push(
                out,
                Operator::ChangeToolResult,
                needs,
                &place,
                description,
                move |s| s.tools[t].results[r] = changed.clone(),
            );
        }
    }
}

/// A value of the same type that differs: a string becomes `xyzzy` (as
/// cargo-mutants writes it: a check that reads only part of the text still
/// notices), a number
/// one more, a boolean its negation, a list loses its last item, a map
/// becomes empty (empty ones gain an item), null becomes a string.
fn changed_value(value: &Value) -> Value {
    match value {
        Value::Null => Value::String(XYZZY.into()),
        Value::Bool(b) => Value::Bool(!b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Value::from(i.checked_add(1).unwrap_or(i - 1)),
            None => changed_number(n),
        },
        Value::String(s) if s == XYZZY => Value::String(String::new()),
        Value::String(_) => Value::String(XYZZY.into()),
        Value::Array(items) if items.is_empty() => Value::Array(vec![Value::Null]),
        Value::Array(items) => Value::Array(items[..items.len() - 1].to_vec()),
        Value::Object(map) if map.is_empty() => {
            Value::Object(Map::from_iter([(XYZZY.to_owned(), Value::Bool(true))]))
        }
        Value::Object(_) => Value::Object(Map::new()),
    }
}

/// A number past 64 bits stays an integer (ten times itself, written
/// out, as exact as the scenario's own); a float is one more.
fn changed_number(n: &serde_json::Number) -> Value {
    let text = n.to_string();
    let integer = text
        .trim_start_matches('-')
        .bytes()
        .all(|b| b.is_ascii_digit());
    if integer {
        if let Ok(value) = serde_json::from_str::<Value>(&format!("{text}0")) {
            return value;
        }
    }
    match n.as_f64() {
        Some(f) if f.is_finite() && f + 1.0 != f => Value::from(f + 1.0),
        _ => Value::from(0),
    }
}

/// A value as JSON, elided for a one-line description.
fn shown(value: &Value) -> String {
    elide(&value.to_string(), SHOWN)
}

fn push(
    out: &mut Vec<Change>,
    operator: Operator,
    needs: Needs,
    place: &KeyPath,
    description: String,
    edit: impl Fn(&mut Scenario) + Send + Sync + 'static,
) {
    out.push(Change {
        operator,
        place: place.clone(),
        description,
        edit: Arc::new(edit),
        needs,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;

    fn scenario(text: &str) -> Scenario {
        Scenario::from_str(text, "m.yaml", Format::Yaml).unwrap()
    }

    fn described(text: &str) -> Vec<String> {
        all(&scenario(text))
            .into_iter()
            .map(|c| format!("{} {}: {}", c.operator.as_str(), c.place, c.description))
            .collect()
    }

    #[test]
    fn a_declarative_hook_loses_each_action_and_condition_and_shifts_its_numbers() {
        let mutants = described(
            "hooks:\n  before_llm:\n    - when: {step_count: 2, times: 1}\n      do: [{set: {a: 1}}, {stop_run: x}]\n      allowed_hook_points: [before_llm, on_exit]\nmodel: [{text: hi}]\n",
        );
        let hook: Vec<&String> = mutants.iter().filter(|m| m.contains("hooks.")).collect();
        assert_eq!(
            hook,
            [
                "drop_hook hooks.before_llm[0]: drop the hook",
                "move_hook hooks.before_llm[0]: move the hook from `before_llm` to `on_exit`",
                "drop_action hooks.before_llm[0].do[0]: drop `do[0]` (`set`)",
                "drop_action hooks.before_llm[0].do[1]: drop `do[1]` (`stop_run`)",
                "drop_condition hooks.before_llm[0].when.step_count: drop `when.step_count`",
                "drop_condition hooks.before_llm[0].when.times: drop `when.times`",
                "shift_step_count hooks.before_llm[0].when.step_count: `when.step_count` 2 -> 3",
                "change_times hooks.before_llm[0].when.times: `when.times` 1 -> 2",
                "change_times hooks.before_llm[0].when.times: `when.times` 1 -> 0",
            ]
        );
    }

    #[test]
    fn identical_neighbours_are_not_swapped_and_the_script_changes_reply_by_reply() {
        let mutants = described(
            "tools: [{name: t, results: [ok, {error: boom}]}]\nmodel:\n  - tool_calls: [{tool: t, arguments: {q: x, n: 1}}]\n  - text: a\n  - text: a\n",
        );
        assert_eq!(
            mutants,
            [
                "drop_reply model[0]: drop reply 0",
                "swap_replies model[0]: swap replies 0 and 1",
                "duplicate_reply model[0]: give reply 0 twice",
                "change_argument model[0].tool_calls[0].arguments.q: argument `q` of the call to `t`: \"x\" -> \"xyzzy\"",
                "change_argument model[0].tool_calls[0].arguments.n: argument `n` of the call to `t`: 1 -> 2",
                "drop_reply model[1]: drop reply 1",
                "duplicate_reply model[1]: give reply 1 twice",
                "drop_reply model[2]: drop reply 2",
                "duplicate_reply model[2]: give reply 2 twice",
                "change_tool_result tools[0].results[0]: result 0 of `t`: \"ok\" -> \"xyzzy\"",
                "change_tool_result tools[0].results[1]: result 1 of `t`: the tool returns its error message instead of raising",
            ]
        );
    }

    #[test]
    fn a_hook_that_declares_its_points_is_moved_only_among_them_and_others_everywhere() {
        let mutants = described(
            "hooks:\n  on_exit: [{do: [{stop_run: x}]}, {token_budget: {max_total_tokens: 5}}]\nmodel: []\n",
        );
        let moves = mutants
            .iter()
            .filter(|m| m.starts_with("move_hook"))
            .count();
        assert_eq!(moves, 2 * (HookPoint::ALL.len() - 1));
        assert!(
            mutants.contains(
                &"swap_hooks hooks.on_exit[0]: swap the hook with `on_exit[1]`".to_owned()
            )
        );
    }

    #[test]
    fn changed_values_keep_their_type_and_differ() {
        for value in [
            Value::Null,
            Value::Bool(true),
            Value::from(i64::MAX),
            serde_json::from_str("100000000000000000000").unwrap(),
            Value::from(1.5),
            Value::from(1e300),
            Value::from(""),
            Value::from("x"),
            Value::from("xyzzy"),
            serde_json::json!([]),
            serde_json::json!([1, 2]),
            serde_json::json!({}),
            serde_json::json!({"a": 1}),
        ] {
            assert_ne!(changed_value(&value), value);
        }
        assert_eq!(
            changed_value(&Value::from(i64::MAX)),
            Value::from(i64::MAX - 1)
        );
    }
}
