//! Whole scenarios: agent settings, tools, hooks, model script and run.

use super::hooks::hook_registrations;
use super::model::{WORDS, model_reply};
use super::tools::{TOOL_NAMES, tool_scripts};
use crate::hook::HookPoint;
use crate::message::ChatRole;
use crate::scenario::{
    AgentSpec, Expect, HookEntry, MessageSpec, RunSpec, Scenario, UnusedReplies, When,
};
use crate::scripted::ModelReply;
use crate::state::keys::RESERVED_KEYS;
use crate::state::{SchemaEntry, ValueType};
use indexmap::IndexMap;
use proptest::prelude::*;
use serde_json::{Map, Value};
use std::ops::RangeInclusive;

/// What generated scenarios may contain. The default keeps runs short and
/// covers every ending: model exits, tool exits, stops, `max_agent_steps`,
/// hook, model and tool failures.
///
/// ```
/// use hookharness::strategies::{Shape, scenarios_shaped};
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// // Runs that never fail: no model errors, no failing hooks or tools,
/// // model scripts that never run out.
/// let shape = Shape::default().failures(false);
/// let scenario = scenarios_shaped(shape).new_tree(&mut TestRunner::deterministic()).unwrap().current();
/// assert!(scenario.model.len() as i64 >= scenario.agent.max_agent_steps);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shape {
    /// `max_agent_steps` is drawn from this range (default `0..=5`).
    pub max_agent_steps: RangeInclusive<i64>,
    /// At most this many tools (default 3).
    pub max_tools: usize,
    /// At most this many hooks at each point (default 2).
    pub hooks_per_point: usize,
    /// `before_run` hooks may set `step_count` (a resume; default true).
    pub resume: bool,
    /// Runs may fail: model errors, `fail` actions, tools that raise
    /// (`raise_on_tool_invocation_failure`), model scripts that run out,
    /// hooks outside their `allowed_hook_points` (default true).
    pub failures: bool,
    /// `state_schema` may hold a reserved key (default false).
    pub reserved_keys: bool,
}

impl Shape {
    /// Sets [`max_agent_steps`](Shape::max_agent_steps).
    ///
    /// ```
    /// use hookharness::strategies::Shape;
    /// assert_eq!(Shape::default().max_agent_steps(1..=2).max_agent_steps, 1..=2);
    /// ```
    #[must_use]
    pub fn max_agent_steps(mut self, range: RangeInclusive<i64>) -> Self {
        self.max_agent_steps = range;
        self
    }

    /// Sets [`max_tools`](Shape::max_tools).
    ///
    /// ```
    /// use hookharness::strategies::Shape;
    /// assert_eq!(Shape::default().max_tools(0).max_tools, 0);
    /// ```
    #[must_use]
    pub fn max_tools(mut self, max: usize) -> Self {
        self.max_tools = max;
        self
    }

    /// Sets [`hooks_per_point`](Shape::hooks_per_point).
    ///
    /// ```
    /// use hookharness::strategies::Shape;
    /// assert_eq!(Shape::default().hooks_per_point(3).hooks_per_point, 3);
    /// ```
    #[must_use]
    pub fn hooks_per_point(mut self, max: usize) -> Self {
        self.hooks_per_point = max;
        self
    }

    /// Sets [`resume`](Shape::resume).
    ///
    /// ```
    /// use hookharness::strategies::Shape;
    /// assert!(!Shape::default().resume(false).resume);
    /// ```
    #[must_use]
    pub fn resume(mut self, resume: bool) -> Self {
        self.resume = resume;
        self
    }

    /// Sets [`failures`](Shape::failures).
    ///
    /// ```
    /// use hookharness::strategies::Shape;
    /// assert!(!Shape::default().failures(false).failures);
    /// ```
    #[must_use]
    pub fn failures(mut self, failures: bool) -> Self {
        self.failures = failures;
        self
    }

    /// Sets [`reserved_keys`](Shape::reserved_keys).
    ///
    /// ```
    /// use hookharness::strategies::Shape;
    /// assert!(Shape::default().reserved_keys(true).reserved_keys);
    /// ```
    #[must_use]
    pub fn reserved_keys(mut self, reserved: bool) -> Self {
        self.reserved_keys = reserved;
        self
    }
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            max_agent_steps: 0..=5,
            max_tools: 3,
            hooks_per_point: 2,
            resume: true,
            failures: true,
            reserved_keys: false,
        }
    }
}

/// Scenarios of the default [`Shape`].
///
/// ```
/// use hookharness::invariants::check_invariants;
/// use hookharness::replay::Replay;
/// use hookharness::strategies::scenarios;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// for _ in 0..8 {
///     let scenario = scenarios().new_tree(&mut runner).unwrap().current();
///     let outcome = Replay::new().run(&scenario);
///     assert_eq!(check_invariants(&outcome), vec![]);
/// }
/// ```
pub fn scenarios() -> BoxedStrategy<Scenario> {
    scenarios_shaped(Shape::default())
}

/// A `state_schema` of user keys (`notes`, `count`, `flag`, sometimes
/// `messages` as a list); with `reserved`, one key of Haystack's reserved
/// keys is added at a random position.
///
/// ```
/// use hookharness::state::keys::is_reserved;
/// use hookharness::strategies::state_schemas;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// let schema = state_schemas(true).new_tree(&mut runner).unwrap().current();
/// assert_eq!(schema.keys().filter(|k| is_reserved(k)).count(), 1);
/// let schema = state_schemas(false).new_tree(&mut runner).unwrap().current();
/// assert!(!schema.keys().any(|k| is_reserved(k)));
/// ```
pub fn state_schemas(reserved: bool) -> BoxedStrategy<IndexMap<String, SchemaEntry>> {
    let user = prop::sample::subsequence(
        vec![
            ("notes", ValueType::List),
            ("count", ValueType::Int),
            ("flag", ValueType::Bool),
            ("messages", ValueType::ChatMessages),
        ],
        0..=3,
    );
    let extra = if reserved {
        (prop::sample::select(&RESERVED_KEYS[..]), 0usize..4)
            .prop_map(Some)
            .boxed()
    } else {
        Just(None).boxed()
    };
    (user, extra)
        .prop_map(|(user, extra)| {
            let mut entries: Vec<(String, SchemaEntry)> = user
                .into_iter()
                .map(|(key, ty)| (key.to_owned(), SchemaEntry::new(ty)))
                .collect();
            if let Some((key, at)) = extra {
                let entry = SchemaEntry::new(ValueType::Any);
                entries.insert(at.min(entries.len()), (key.to_owned(), entry));
            }
            entries.into_iter().collect()
        })
        .boxed()
}

/// `exit_conditions`: mostly `[text]` or `[text, <a tool>]`, sometimes any
/// selection of `text`, the tools and an unknown tool (or none).
fn exit_conditions(tools: Vec<String>) -> BoxedStrategy<Vec<String>> {
    let mut names = vec!["text".to_owned()];
    names.extend(tools.iter().cloned());
    names.push(super::model::UNKNOWN_TOOL.to_owned());
    let len = names.len();
    if tools.is_empty() {
        return prop_oneof![
            3 => Just(vec!["text".to_owned()]),
            1 => prop::sample::subsequence(names, 0..=len),
        ]
        .boxed();
    }
    let one_tool = prop::sample::select(tools).prop_map(|tool| vec!["text".to_owned(), tool]);
    prop_oneof![
        2 => Just(vec!["text".to_owned()]),
        2 => one_tool,
        1 => prop::sample::subsequence(names, 0..=len),
    ]
    .boxed()
}

/// A hook registered under `shared_hooks` and used at one or two points.
fn shared_hook() -> BoxedStrategy<Option<(HookEntry, Vec<HookPoint>)>> {
    let definition = (1i64..4, prop::bool::ANY).prop_map(|(times, named)| HookEntry::Declarative {
        name: named.then(|| "audit_hook".to_owned()),
        when: When {
            times: Some(times),
            ..When::default()
        },
        actions: Vec::new(),
        allowed_hook_points: None,
    });
    let points = prop::sample::subsequence(HookPoint::ALL.to_vec(), 1..=2);
    prop_oneof![3 => Just(None), 1 => (definition, points).prop_map(Some)].boxed()
}

fn run_spec() -> impl Strategy<Value = RunSpec> {
    let messages = prop_oneof![
        4 => prop::sample::select(WORDS).prop_map(|w| vec![MessageSpec::Simple {
            role: ChatRole::User,
            text: Some(format!("question {w}")),
            tool_calls: Vec::new(),
            meta: Map::new(),
            name: None,
        }]),
        1 => Just(Vec::new()),
    ];
    let hook_context = prop_oneof![
        Just(Map::new()),
        Just({
            let mut context = Map::new();
            context.insert("user".into(), Value::from("u1"));
            context
        }),
    ];
    (messages, hook_context, any::<bool>()).prop_map(|(messages, hook_context, is_async)| RunSpec {
        messages,
        hook_context,
        state: Map::new(),
        is_async,
        ..RunSpec::default()
    })
}

/// Scenarios of a [`Shape`]: random tools, exit conditions, hooks, a model
/// script sized to the steps, a tool concurrency limit from 1 to 4, an
/// optional system prompt, sync or async runs. `expect` only allows
/// unused replies, so the outcome's status shows whether the run failed.
///
/// ```
/// use hookharness::strategies::{Shape, scenarios_shaped};
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let shape = Shape::default().max_agent_steps(2..=2);
/// let scenario = scenarios_shaped(shape).new_tree(&mut TestRunner::deterministic()).unwrap().current();
/// assert_eq!(scenario.agent.max_agent_steps, 2);
/// ```
pub fn scenarios_shaped(shape: Shape) -> BoxedStrategy<Scenario> {
    let longest = usize::try_from(*shape.max_agent_steps.end()).unwrap_or(0);
    // Replies, hooks and exit conditions name tools from all of
    // TOOL_NAMES, whichever tools the scenario has: a call to a tool it
    // lacks is an unknown-tool call. Drawing them apart from the tools
    // keeps every part shrinking on its own.
    let names: Vec<String> = TOOL_NAMES[..shape.max_tools.min(TOOL_NAMES.len())]
        .iter()
        .map(|name| (*name).to_owned())
        .collect();
    // Up to one reply per step of the longest run, cut or padded with text
    // replies to the steps below. Each step makes at most one LLM call;
    // with failures, now and then the script is one reply short.
    let model = prop::collection::vec(model_reply(names.clone(), shape.failures), 0..=longest);
    let short = if shape.failures {
        prop::bool::weighted(0.1).boxed()
    } else {
        Just(false).boxed()
    };
    let raise = if shape.failures {
        prop::bool::weighted(0.2).boxed()
    } else {
        Just(false).boxed()
    };
    let settings = (
        raise,
        prop_oneof![3 => Just(4i64), 1 => 1i64..4],
        prop_oneof![3 => Just(None), 1 => Just(Some("You are a research assistant.".to_owned()))],
    );
    (
        hook_registrations(names.clone(), &shape),
        shared_hook(),
        model,
        (shape.max_agent_steps.clone(), short),
        exit_conditions(names),
        tool_scripts(shape.max_tools),
        run_spec(),
        state_schemas(shape.reserved_keys),
        settings,
    )
        .prop_map(
            |(
                mut hooks,
                shared,
                mut model,
                (max_agent_steps, short),
                exit_conditions,
                tools,
                run,
                state_schema,
                (raise, tool_concurrency_limit, system_prompt),
            )| {
                let steps = usize::try_from(max_agent_steps).unwrap_or(0);
                let len = if short {
                    steps.saturating_sub(1)
                } else {
                    steps
                };
                model.truncate(len);
                model.resize_with(len, || ModelReply::text("done"));
                let mut shared_hooks = IndexMap::new();
                if let Some((definition, points)) = shared {
                    shared_hooks.insert("audit".to_owned(), definition);
                    for point in points {
                        hooks
                            .entry(point.as_str().to_owned())
                            .or_default()
                            .push(HookEntry::Shared("audit".to_owned()));
                    }
                }
                Scenario {
                    version: 1,
                    name: "generated".to_owned(),
                    description: None,
                    file: None,
                    agent: AgentSpec {
                        max_agent_steps,
                        exit_conditions,
                        state_schema,
                        raise_on_tool_invocation_failure: raise,
                        tool_concurrency_limit,
                        system_prompt,
                        ..AgentSpec::default()
                    },
                    tools,
                    hooks,
                    shared_hooks,
                    model,
                    sees: std::collections::BTreeMap::new(),
                    python: crate::scenario::PythonSpec::default(),
                    source: crate::scenario::SourceMap::default(),
                    run,
                    expect: Expect {
                        unused_replies: UnusedReplies::Allow,
                        ..Expect::default()
                    },
                }
            },
        )
        .boxed()
}
