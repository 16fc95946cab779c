use hookharness::HookPoint;
use hookharness::invariants::{Invariant, Invariants, Violation};
use hookharness::outcome::{
    ErrorKind, Outcome, RunError, RunResult, Status, TraceEvent, TraceKind,
};
use hookharness::replay::Replay;
use hookharness::scenario::{Action, Format, HookEntry, Scenario};
use hookharness::strategies::scenarios;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Generated scenarios: some as generated, the others changed by one
/// of `focuses` towards the situation a property is about.
pub fn focused(focuses: &[fn(&mut Scenario)]) -> BoxedStrategy<Scenario> {
    let mut arms = vec![scenarios()];
    for &focus in focuses {
        arms.push(
            scenarios()
                .prop_map(move |mut scenario| {
                    focus(&mut scenario);
                    scenario
                })
                .boxed(),
        );
    }
    proptest::strategy::Union::new(arms).boxed()
}

/// Makes the first reply call the first tool (when there is one), and
/// returns the tool's name.
pub fn call_first_tool(scenario: &mut Scenario) -> Option<String> {
    let tool = scenario.tools.first()?.name.clone();
    let text = format!("model: [{{tool_calls: [{{tool: {tool}}}]}}]\n");
    let template = Scenario::from_str(&text, "reply.yaml", Format::Yaml).unwrap();
    match scenario.model.first_mut() {
        Some(first) => *first = template.model[0].clone(),
        None => return None,
    }
    Some(tool)
}

/// `true` when a hook at a point other than on_exit and after_run has a
/// `continue_run: true` action.
pub fn sets_continue_run_outside_on_exit(scenario: &Scenario) -> bool {
    let resolve = |entry: &'_ HookEntry| match entry {
        HookEntry::Shared(key) => scenario.shared_hooks.get(key).cloned(),
        other => Some(other.clone()),
    };
    scenario
        .hooks
        .iter()
        .filter(|(point, _)| !matches!(point.as_str(), "on_exit" | "after_run"))
        .flat_map(|(_, entries)| entries.iter().filter_map(resolve))
        .any(|entry| match entry {
            HookEntry::Declarative { actions, .. } => actions
                .iter()
                .any(|a| matches!(a, Action::ContinueRun(true))),
            _ => false,
        })
}

/// Appends a hook, written as a scenario hook entry, at `point`.
pub fn add_hook(scenario: &mut Scenario, point: &str, entry: &str) {
    let text = format!("hooks: {{{point}: [{entry}]}}\nmodel: []\n");
    let mut template = Scenario::from_str(&text, "hook.yaml", Format::Yaml).unwrap();
    let entry = template.hooks[point].remove(0);
    scenario
        .hooks
        .entry(point.to_owned())
        .or_default()
        .push(entry);
}

/// A scenario from YAML text.
pub fn scenario(text: &str) -> Scenario {
    Scenario::from_str(text, "case.yaml", Format::Yaml).unwrap()
}

/// A run result from JSON; missing keys get empty values.
pub fn result(result: Value) -> RunResult {
    let mut map = result.as_object().cloned().unwrap_or_default();
    for (key, empty) in [
        ("messages", json!([])),
        ("last_message", json!(null)),
        ("exit_reason", json!(null)),
        ("step_count", json!(null)),
        ("token_usage", json!({})),
        ("tool_call_counts", json!({})),
        ("state", json!({})),
    ] {
        map.entry(key).or_insert(empty);
    }
    serde_json::from_value(Value::Object(map)).unwrap()
}

/// An outcome with this result (`null`: the run failed) and trace;
/// missing result keys get empty values.
pub fn outcome(result: Value, trace: Vec<TraceEvent>) -> Outcome {
    let result = (!result.is_null()).then(|| self::result(result));
    let status = if result.is_some() {
        Status::Pass
    } else {
        Status::Error
    };
    let mut outcome = Outcome::new("broken", "broken.yaml", status);
    outcome.result = result;
    outcome.trace = trace;
    outcome
}

/// A run error of this kind and text.
pub fn error(kind: ErrorKind, message: &str) -> Option<RunError> {
    Some(RunError::new(kind, message))
}

pub fn hook(point: &str, name: &str, step: i64) -> TraceEvent {
    TraceEvent::new(
        Some(json!(step)),
        TraceKind::HookStarted {
            point: point.parse::<HookPoint>().unwrap(),
            index: 0,
            hook: name.into(),
        },
    )
}

pub fn llm(step: i64) -> TraceEvent {
    TraceEvent::new(
        Some(json!(step)),
        TraceKind::LlmStarted {
            messages_in: 1,
            last: None,
            model: None,
        },
    )
}

pub fn tool(step: i64, name: &str, id: &str, error: bool) -> TraceEvent {
    TraceEvent::new(
        Some(json!(step)),
        TraceKind::ToolFinished {
            tool: name.into(),
            id: Some(id.into()),
            error,
            arguments: serde_json::Map::new(),
            output: None,
        },
    )
}

pub fn exit(step: i64, reason: &str, continues: bool) -> TraceEvent {
    TraceEvent::new(
        Some(json!(step)),
        TraceKind::Exit {
            reason: json!(reason),
            continues,
        },
    )
}

/// The first violation of `invariant`; fails when there is none.
#[track_caller]
pub fn reported(violations: &[Violation], invariant: Invariant) -> Violation {
    match violations.iter().find(|v| v.invariant == invariant) {
        Some(found) => found.clone(),
        None => panic!("{invariant} was not reported; reported: {violations:#?}"),
    }
}

/// Runs a scenario and checks every invariant.
pub fn run_checked(scenario: &Scenario) -> (Outcome, Vec<Violation>) {
    let outcome = Replay::new().run(scenario);
    let violations = Invariants::new().scenario(scenario).check(&outcome);
    (outcome, violations)
}

/// The violations of one invariant.
pub fn only(violations: &[Violation], invariant: Invariant) -> Vec<&Violation> {
    violations
        .iter()
        .filter(|v| v.invariant == invariant)
        .collect()
}

/// Counts the generated cases that reach a situation, so that a
/// property cannot pass by never meeting what it is about.
pub struct Coverage {
    what: &'static str,
    hits: AtomicUsize,
    cases: AtomicUsize,
}

impl Coverage {
    pub fn new(what: &'static str) -> Self {
        Coverage {
            what,
            hits: AtomicUsize::new(0),
            cases: AtomicUsize::new(0),
        }
    }

    pub fn hit_if(&self, hit: bool) {
        self.cases.fetch_add(1, Ordering::Relaxed);
        if hit {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn assert_hit(&self) {
        let (hits, cases) = (
            self.hits.load(Ordering::Relaxed),
            self.cases.load(Ordering::Relaxed),
        );
        eprintln!("coverage: {hits} of {cases} cases had {}", self.what);
        // Runs are seeded by the property's name, so this holds or
        // fails the same way every time (a PROPTEST_CASES below 32 may
        // legitimately miss).
        if cases >= 32 {
            assert!(
                hits > 0,
                "no generated case had {} ({cases} cases)",
                self.what
            );
        }
    }
}

/// Every file of the corpus (`scenarios/`), sorted.
pub fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from("scenarios")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
