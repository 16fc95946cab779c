//! Scenarios over the whole scenario contract, for differential testing
//! against Haystack: every hook point and action, every condition, ready-made
//! hooks, tools with every result kind and their State and string mappings,
//! schemas with handlers, and odd-typed values written into the run-metadata
//! keys.

use super::Shape;
use super::model::UNKNOWN_TOOL;
use super::scenario::scenarios_shaped;
use super::tools::TOOL_NAMES;
use crate::expect::Expectation;
use crate::hook::HookPoint;
use crate::message::ChatRole;
use crate::prompt::RequiredVariables;
use crate::scenario::{
    Action, Expect, HookEntry, LastMessageCondition, ListExpect, MessageSpec, ReadyMadeKind,
    ResultRewrite, Scenario, StateValue, StepCountCondition, ToolSelection, UnusedReplies, When,
};
use crate::scripted::{ModelReply, ScriptedResult, ScriptedToolCall};
use crate::state::{Handler, SchemaEntry, ValueType};
use crate::tool::{OutputsToString, StateOutput};
use indexmap::IndexMap;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// The run-metadata and control keys hooks write odd-typed values into.
///
/// ```
/// use hookharness::strategies::METADATA_KEYS;
/// assert!(METADATA_KEYS.contains(&"tool_call_counts"));
/// ```
pub const METADATA_KEYS: &[&str] = &[
    "step_count",
    "tool_call_counts",
    "hook_context",
    "token_usage",
    "exit_reason",
    "context_tokens",
    "continue_run",
    "stop_run",
];

/// The user keys contract scenarios declare (with [`ValueType`]s of every
/// kind), besides those of [`state_schemas`](super::state_schemas).
const USER_KEYS: &[(&str, ValueType)] = &[
    ("notes", ValueType::List),
    ("count", ValueType::Int),
    ("flag", ValueType::Bool),
    ("label", ValueType::Str),
    ("score", ValueType::Float),
    ("info", ValueType::Dict),
    ("blob", ValueType::Any),
];

/// A JSON value of any type, as hooks write into keys whose Python type
/// nobody checks: `null`, booleans, integers (one beyond 64 bits), floats,
/// strings, lists and maps (some shaped like `tool_call_counts`).
///
/// ```
/// use hookharness::strategies::odd_value;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// let kinds: std::collections::BTreeSet<&str> = (0..200)
///     .map(|_| match odd_value().new_tree(&mut runner).unwrap().current() {
///         serde_json::Value::Null => "null",
///         serde_json::Value::Bool(_) => "bool",
///         serde_json::Value::Number(_) => "number",
///         serde_json::Value::String(_) => "string",
///         serde_json::Value::Array(_) => "list",
///         serde_json::Value::Object(_) => "map",
///     })
///     .collect();
/// assert_eq!(kinds.len(), 6);
/// ```
pub fn odd_value() -> BoxedStrategy<Value> {
    let big: Value = "100000000000000000000"
        .parse::<serde_json::Number>()
        .map_or(Value::Null, Value::Number);
    prop::sample::select(vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(-1),
        json!(2),
        json!(1.0),
        json!(1.5),
        big,
        json!("x"),
        json!(""),
        json!("halt"),
        json!([]),
        json!([1]),
        json!({}),
        json!({"search": "x"}),
        json!({"search": 1.5}),
        json!({"search": 2, "ghost": 1}),
        json!({"user": "u1"}),
        json!({"prompt_tokens": 3}),
    ])
    .boxed()
}

/// The [`USER_KEYS`] name `key` is, if any.
fn user_key(key: &str) -> Option<&'static str> {
    USER_KEYS.iter().map(|(k, _)| *k).find(|k| *k == key)
}

fn message(role: ChatRole, text: &str) -> MessageSpec {
    MessageSpec::Simple {
        role,
        text: Some(text.to_owned()),
        tool_calls: Vec::new(),
        meta: Map::new(),
        name: None,
    }
}

fn messages() -> BoxedStrategy<Vec<MessageSpec>> {
    let with_call = MessageSpec::Simple {
        role: ChatRole::Assistant,
        text: None,
        tool_calls: vec![
            ScriptedToolCall::new(
                "search",
                [("query".to_owned(), Value::from("late"))]
                    .into_iter()
                    .collect(),
            )
            .with_id("hook_call"),
        ],
        meta: Map::new(),
        name: None,
    };
    let one = prop_oneof![
        3 => Just(message(ChatRole::User, "Search before answering.")),
        1 => Just(message(ChatRole::System, "Be brief.")),
        1 => Just(message(ChatRole::Assistant, "Noted.")),
        1 => Just(message(ChatRole::User, "Ünïcode \"quotes\" 'and' \\ tabs\t\nnew line ✓")),
        1 => Just(with_call),
    ];
    prop::collection::vec(one, 0..=2).boxed()
}

fn set_one(key: &str, value: StateValue) -> IndexMap<String, StateValue> {
    let mut values = IndexMap::new();
    values.insert(key.to_owned(), value);
    values
}

/// The actions of a contract hook at `point`, weighted.
fn contract_actions(point: HookPoint) -> BoxedStrategy<Vec<Action>> {
    let user_key = prop::sample::select(USER_KEYS).prop_map(|(key, _)| key);
    let odd_metadata = (
        prop::sample::select(METADATA_KEYS),
        odd_value(),
        any::<bool>(),
    )
        .prop_map(|(key, value, replace)| {
            let values = set_one(key, StateValue::Value(value));
            vec![if replace {
                Action::Replace(values)
            } else {
                Action::Set(values)
            }]
        });
    let user_value = (user_key, odd_value(), any::<bool>()).prop_map(|(key, value, replace)| {
        let values = set_one(key, StateValue::Value(value));
        vec![if replace {
            Action::Replace(values)
        } else {
            Action::Set(values)
        }]
    });
    let message_ops = (messages(), 0u8..4).prop_map(|(specs, op)| {
        vec![match op {
            0 => Action::AppendMessages(specs),
            1 => Action::PrependMessages(specs),
            2 => Action::ReplaceMessages(specs),
            _ => Action::Set(set_one("messages", StateValue::Messages(specs))),
        }]
    });
    let tool_names: Vec<String> = TOOL_NAMES
        .iter()
        .map(|n| (*n).to_owned())
        .chain([UNKNOWN_TOOL.to_owned()])
        .collect();
    let set_arguments =
        (prop::sample::select(tool_names.clone()), odd_value()).prop_map(|(tool, value)| {
            let mut arguments = Map::new();
            arguments.insert("query".into(), value);
            vec![Action::SetToolArguments { tool, arguments }]
        });
    let drop = prop_oneof![
        Just(ToolSelection::All),
        prop::sample::subsequence(tool_names, 1..=2).prop_map(ToolSelection::Named),
    ]
    .prop_map(|selection| vec![Action::DropToolCalls(selection)]);
    let rewrite = prop_oneof![
        (0usize..6).prop_map(ResultRewrite::Truncate),
        prop::sample::select(&["redacted", ""][..]).prop_map(|t| ResultRewrite::Replace(t.into())),
    ]
    .prop_map(|rewrite| vec![Action::RewriteToolResults(rewrite)]);
    let stop = prop_oneof![
        Just(Action::StopRun(Some("halt".to_owned()))),
        Just(Action::StopRun(None)),
    ]
    .prop_map(|action| vec![action]);
    let continue_run = any::<bool>().prop_map(|flag| vec![Action::ContinueRun(flag)]);
    let mut choices: Vec<(u32, BoxedStrategy<Vec<Action>>)> = vec![
        (4, odd_metadata.boxed()),
        (3, user_value.boxed()),
        (3, message_ops.boxed()),
        (1, stop.boxed()),
    ];
    match point {
        HookPoint::BeforeTool => {
            choices.push((3, set_arguments.boxed()));
            choices.push((2, drop.boxed()));
        }
        HookPoint::AfterTool => choices.push((3, rewrite.boxed())),
        HookPoint::OnExit => choices.push((3, continue_run.boxed())),
        _ => {}
    }
    proptest::strategy::Union::new_weighted(choices).boxed()
}

/// Conditions over every `when` key.
fn contract_when() -> BoxedStrategy<When> {
    prop_oneof![
        4 => Just(When::default()),
        1 => (0i64..3).prop_map(|n| When {
            step_count: Some(StepCountCondition::Eq(n)),
            ..When::default()
        }),
        1 => (0i64..3, 1i64..4).prop_map(|(gte, lt)| When {
            step_count: Some(StepCountCondition::Range { gte: Some(gte), lt: Some(lt) }),
            ..When::default()
        }),
        1 => (prop::sample::select(TOOL_NAMES), 0i64..3).prop_map(|(tool, n)| When {
            tool_call_counts: [(tool.to_owned(), n)].into_iter().collect(),
            ..When::default()
        }),
        1 => (prop::sample::select(&[None, Some(ChatRole::User), Some(ChatRole::Assistant), Some(ChatRole::Tool)][..]),
              prop::sample::select(&[None, Some("done"), Some("Search")][..]))
            .prop_map(|(role, text)| When {
                last_message: Some(LastMessageCondition {
                    role,
                    text_contains: text.map(str::to_owned),
                    ..LastMessageCondition::default()
                }),
                ..When::default()
            }),
        1 => (prop::sample::select(&["flag", "step_count", "continue_run", "label"][..]), odd_value())
            .prop_map(|(key, value)| When {
                state: [(key.to_owned(), value)].into_iter().collect(),
                ..When::default()
            }),
        1 => prop::sample::select(&["u1", "u2"][..]).prop_map(|user| When {
            hook_context: [("user".to_owned(), Value::from(user))].into_iter().collect(),
            ..When::default()
        }),
        1 => prop::sample::select(&["text", "halt", "search"][..]).prop_map(|reason| When {
            exit_reason: Some(Value::from(reason)),
            ..When::default()
        }),
        1 => (1i64..3).prop_map(|n| When { times: Some(n), ..When::default() }),
    ]
    .boxed()
}

/// One contract hook for `point`: a condition, one action, named `x<i>`.
/// A hook that sets `continue_run` gets `times: 1`, so runs stay short.
fn contract_hook(point: HookPoint) -> BoxedStrategy<HookEntry> {
    (contract_when(), contract_actions(point))
        .prop_map(|(mut when, actions)| {
            if actions.contains(&Action::ContinueRun(true)) {
                when.times = Some(1);
            }
            HookEntry::Declarative {
                name: None,
                when,
                actions,
                allowed_hook_points: None,
            }
        })
        .boxed()
}

fn component(type_name: &str, init: Value) -> Value {
    json!({"type": type_name, "init_parameters": init})
}

/// A ready-made hook entry with parameters Haystack accepts (and now and
/// then one it rejects), at the point where it belongs.
fn ready_made() -> BoxedStrategy<(HookPoint, ReadyMadeKind, Value)> {
    let max_tokens = prop_oneof![
        12 => prop::sample::select(&[1i64, 5, 40, 1000][..]),
        1 => Just(0i64),
    ];
    let budget = (max_tokens, any::<bool>()).prop_map(|(max, final_message)| {
        (
            HookPoint::BeforeLlm,
            ReadyMadeKind::TokenBudget,
            json!({"max_total_tokens": max, "add_final_message": final_message}),
        )
    });
    let offload_policy = prop_oneof![
        Just(component(
            "haystack.hooks.tool_result_offloading.policies.AlwaysOffload",
            json!({})
        )),
        Just(component(
            "haystack.hooks.tool_result_offloading.policies.NeverOffload",
            json!({})
        )),
        (0i64..30).prop_map(|threshold| component(
            "haystack.hooks.tool_result_offloading.policies.OffloadOverChars",
            json!({"threshold": threshold})
        )),
    ];
    let offload = (
        prop::sample::select(&["*", "search", "[\"search\", \"calc\"]"][..]),
        offload_policy,
        prop::sample::select(&[0i64, 5, 200][..]),
    )
        .prop_map(|(key, policy, preview)| {
            let mut strategies = Map::new();
            strategies.insert(key.to_owned(), policy);
            (
                HookPoint::AfterTool,
                ReadyMadeKind::ToolResultOffload,
                json!({
                    "store": {"type": "hookharness.hooks.offload.InMemoryToolResultStore"},
                    "offload_strategies": strategies,
                    "preview_chars": preview,
                }),
            )
        });
    let answer = prop_oneof![
        Just(json!({"action": "confirm"})),
        Just(json!({"action": "reject", "feedback": "Not now."})),
        Just(json!({"action": "reject"})),
        Just(json!({"action": "modify", "new_tool_params": {"query": "safe"}})),
    ];
    let confirm_policy =
        prop::sample::select(&["AlwaysAskPolicy", "NeverAskPolicy", "AskOncePolicy"][..]);
    let confirmation = (
        prop::sample::select(&["*", "search"][..]),
        confirm_policy,
        prop::collection::vec(answer, 0..4),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(key, policy, answers, console)| {
            let (policy, ui) = if console {
                (
                    "NeverAskPolicy",
                    component("haystack.hooks.human_in_the_loop.user_interfaces.SimpleConsoleUI", json!({})),
                )
            } else {
                (
                    policy,
                    component(
                        "hookharness.hooks.confirmation.ScriptedConfirmationUI",
                        json!({"answers": answers}),
                    ),
                )
            };
            let strategy = component(
                "haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy",
                json!({
                    "confirmation_policy": {"type": format!("haystack.hooks.human_in_the_loop.policies.{policy}")},
                    "confirmation_ui": ui,
                }),
            );
            let mut strategies = Map::new();
            strategies.insert(key.to_owned(), strategy);
            (
                HookPoint::BeforeTool,
                ReadyMadeKind::Confirmation,
                json!({"confirmation_strategies": strategies}),
            )
        });
    let compactor = prop_oneof![
        Just(component(
            "haystack.hooks.compaction.sliding_window.SlidingWindowCompactor",
            json!({})
        )),
        Just(component(
            "haystack.hooks.compaction.tool_result_pruning.ToolResultPruningCompactor",
            json!({})
        )),
    ];
    let summarizer = (
        prop::collection::vec(
            prop_oneof![
                3 => Just(json!("- the user asked about fusion")),
                1 => Just(Value::Null),
                1 => Just(json!({"error": "rate limited"})),
            ],
            0..3,
        ),
        any::<bool>(),
    )
        .prop_map(|(replies, raise)| {
            component(
                "haystack.hooks.compaction.summarization.SummarizationCompactor",
                json!({
                    "chat_generator": component(
                        "hookharness.hooks.compaction.ScriptedSummarizer",
                        json!({"replies": replies})
                    ),
                    "approximate_summary_tokens": 8,
                    "raise_on_failure": raise,
                }),
            )
        });
    let compactor = prop_oneof![2 => compactor, 1 => summarizer];
    let compaction =
        (compactor, prop::sample::select(&[20i64, 60, 400][..])).prop_map(|(compactor, window)| {
            (
                HookPoint::BeforeLlm,
                ReadyMadeKind::Compaction,
                json!({"compactor": compactor, "context_window": window}),
            )
        });
    prop_oneof![
        2 => budget,
        2 => offload,
        3 => confirmation,
        1 => compaction,
    ]
    .boxed()
}

/// Per-tool additions: `echo_arguments` results and the State and string
/// mappings, drawn for each of [`TOOL_NAMES`] whether the scenario has it.
#[derive(Debug, Clone)]
struct ToolExtras {
    echo: bool,
    /// A result with escaped text, or a JSON result holding an odd value.
    odd_result: Option<ScriptedResult>,
    inputs_from_state: Option<(String, String)>,
    outputs_to_state: Option<(String, StateOutput)>,
    outputs_to_string: Option<OutputsToString>,
}

fn tool_extras() -> BoxedStrategy<ToolExtras> {
    let user_key = prop::sample::select(&["notes", "label", "blob", "count"][..]);
    // Tools also write the run-metadata keys (`step_count`, ...).
    let state_key = prop::sample::select(
        &[
            "notes",
            "label",
            "blob",
            "count",
            "step_count",
            "tool_call_counts",
            "exit_reason",
        ][..],
    );
    let handler = prop::sample::select(vec![
        None,
        Some(Handler::MergeLists),
        Some(Handler::ReplaceValues),
    ]);
    let source = prop::sample::select(&[None, Some("hits"), Some("query")][..]);
    let to_state = (state_key, source.clone(), handler).prop_map(|(key, source, handler)| {
        (
            key.to_owned(),
            StateOutput {
                source: source.map(str::to_owned),
                handler,
            },
        )
    });
    let to_string = prop_oneof![
        source.prop_map(|source| OutputsToString::Single {
            source: source.map(str::to_owned)
        }),
        Just(OutputsToString::Multiple(
            [("out".to_owned(), "hits".to_owned())]
                .into_iter()
                .collect()
        )),
    ];
    let odd_result = prop_oneof![
        text().prop_map(ScriptedResult::Text),
        (odd_value(), text())
            .prop_map(|(v, t)| ScriptedResult::Json(json!({"hits": v, "query": t}))),
        odd_value().prop_map(ScriptedResult::Json),
        text().prop_map(ScriptedResult::Error),
    ];
    (
        prop::bool::weighted(0.3),
        prop::option::weighted(0.3, odd_result),
        prop::option::weighted(
            0.2,
            user_key.prop_map(|key| (key.to_owned(), "query".to_owned())),
        ),
        prop::option::weighted(0.25, to_state),
        prop::option::weighted(0.2, to_string),
    )
        .prop_map(
            |(echo, odd_result, inputs_from_state, outputs_to_state, outputs_to_string)| {
                ToolExtras {
                    echo,
                    odd_result,
                    inputs_from_state,
                    outputs_to_state,
                    outputs_to_string,
                }
            },
        )
        .boxed()
}

/// Texts with what Python's `repr` and `json.dumps` escape: quotes, a
/// backslash, control characters, non-ASCII letters, an emoji.
fn text() -> BoxedStrategy<String> {
    prop::sample::select(
        &[
            "plain",
            "it's",
            "say \"hi\"",
            "both ' and \"",
            "back\\slash",
            "tab\tand\nnewline",
            "café ✓",
            "emoji 😀",
            "",
        ][..],
    )
    .prop_map(str::to_owned)
    .boxed()
}

/// System and user prompt templates with their variables.
#[derive(Debug, Clone)]
struct Prompts {
    system: Option<String>,
    user: Option<String>,
    required: RequiredVariables,
    variables: Map<String, Value>,
}

fn prompts() -> BoxedStrategy<Option<Prompts>> {
    let system = prop::sample::select(
        &[
            None,
            Some("You are a research assistant."),
            Some("Answer in {{ language }}."),
            Some("  Be brief, {{ name }}.  "),
        ][..],
    );
    let user = prop::sample::select(
        &[
            None,
            Some("Summarize {{ topic }}."),
            Some("Look up {{ topic }} for {{ name }}: {{ count }} items."),
            Some("{% message role=\"user\" %}About {{ topic }}{% endmessage %}"),
            // Loops over whatever `items` is (a string, a map, a list,
            // none), with every loop attribute.
            Some(
                "{% for x in items %}{{ loop.index }}. {{ x }}{% if not loop.last %}; {% endif %}{% endfor %}",
            ),
            Some(
                "{% for x in items %}[{{ loop.index0 }} {{ loop.revindex }} {{ loop.revindex0 }} \
                 {{ loop.first }} {{ loop.last }} {{ loop.length }} {{ loop.previtem }} \
                 {{ loop.nextitem }} {{ loop.cycle('a', 'b') }} {{ loop.changed(x) }}]{% else %}none{% endfor %}",
            ),
            Some(
                "{% for x in items|reverse %}{{ x }}/{{ loop.length }} {% endfor %}\
                 {% for i in range(3) %}{{ loop.revindex }}{% endfor %} \
                 {% for x in items if x %}{{ loop.last }}{% endfor %}",
            ),
            // Templates that do not parse, or name a filter Jinja2 lacks.
            Some("Summarize {{ topic"),
            Some("{% for x in items %}{{ x }}"),
            Some("{% if topic %}{{ topic }}{% endfor %}"),
            Some("{% for x in items %}{% endif %}{% endfor %}"),
            Some("{% unknown %}{{ topic }}"),
            Some("{{ topic | }}"),
            Some("{{ topic is }}"),
            Some("{{ topic ! }}"),
            Some("{{ topic|nosuchfilter }}"),
            Some("{% if topic %}{{ topic|nosuchfilter }}{% endif %}"),
            Some("{{ (topic] }}"),
            Some("{% endif %}"),
            // Python's str methods on whatever `topic` and `name` are,
            // with odd arguments: Python's results and TypeError texts.
            Some(
                "{{ topic.title() }} {{ topic.isalnum() }} {{ topic.rsplit(none, 1) }} \
                 {{ topic.count('', -2) }} {{ topic.startswith(('x', name), 1) }} {{ name.lower(1) }}",
            ),
            Some("{{ topic.split(x=1) }}{{ '-'.join(items) }}{{ ''.maketrans(topic, name) }}"),
            // Loading tags without a loader, and `%` of undefined or odd
            // operands: Jinja2's errors.
            Some("{% include 'prompt' %}{{ topic }}"),
            Some(
                "{% include items ignore missing %}{% if false %}{% include topic without context %}{% endif %}",
            ),
            Some(
                "{% from 'prompt' import x %}{{ count % 2 }} {{ 'a' % topic }} {{ items % count }}",
            ),
            // Operators over whatever `count`, `items` and `topic` are
            // (undefined too): Python's values, Jinja2's UndefinedError
            // where an undefined name is computed with, ordered or looked
            // into, and none where it is compared, tested or printed.
            Some(
                "{{ count == 2 }} {{ 1 in items }} {{ items|length }} {{ count + 1 }} {{ items * 2 }} \
                 {{ topic + topic }} {{ -count }} {{ count - 1 }} {{ count < 3 }} {{ items[0] }}",
            ),
            Some(
                "{{ [count] * 3 }} {{ items + items }} {{ count * topic }} {{ count // 2 }} {{ topic.k1 }}",
            ),
            Some(
                "{{ count / items|length }} {{ count ** 2 }} {{ -topic }} {{ count // 0.5 }} {{ items|sort }}",
            ),
            // Filters over whatever `count`, `items`, `topic` and `name`
            // are (undefined too): Python's `int()`/`float()` with Jinja2's
            // defaults, `tojson`'s indentation, `indent` and `replace` over
            // values that are not strings, and Jinja2's UndefinedError where
            // a filter computes with an undefined name.
            Some(
                "{{ topic|float }} {{ count|int }} {{ name|int(base=16) }} {{ items|tojson(indent=2) }} \
                 {{ topic|replace('a', count) }} {{ count|abs }} {{ items|length }}",
            ),
            Some("{{ topic|indent(count) }}|{{ items|indent(2, true) }}|{{ name|round(count) }}"),
            Some(
                "{{ topic|wordwrap(count) }}|{{ name|truncate(count) }}|{{ items|tojson(count) }}",
            ),
            // Python's textwrap (hyphenated words, runs of spaces, words
            // longer than the width), min/max/unique/sum as Python's, round
            // with its methods, and the filters that iterate their value
            // over values Python does not iterate.
            Some(
                "{{ (topic ~ ' well-known  re-use -- a ' ~ name ~ '-' ~ topic)|wordwrap(count|int(4) + 1, break_on_hyphens=true, wrapstring='/') }}",
            ),
            Some(
                "{{ items|min }}|{{ items|max }}|{{ items|unique|list }}|{{ items|sum }}|{{ [topic, name]|max }}|{{ [count, topic]|min }}",
            ),
            Some(
                "{{ count|round(1, 'floor') }}|{{ count|round(method='ceil') }}|{{ count|round(none) }}|{{ items|first }}|{{ count|list }}|{{ topic|join(',') }}|{{ name|last }}",
            ),
            // String literals with escapes Python's unicode-escape reads
            // and minijinja reads otherwise, and names Python lacks.
            Some(
                "{{ '[\\N{LATIN SMALL LETTER A}\\N{byte order mark}\\N{HANGUL SYLLABLE GAG}\\a\\v\\U0001F600\\101\\/\\q]' ~ topic }}",
            ),
            Some("{{ topic ~ '\\N{NO SUCH NAME}' }}"),
            Some("{{ '\\N' if topic else '\\N{}' }}"),
            // An empty subscript: Jinja2's subscript by the empty tuple.
            Some("[{{ items[] }}] {{ topic[] is defined }} {{ name[]|default('none') }}"),
            // dictsort and groupby as Python's sorted (positional
            // arguments, keys it does not order, integer attributes), their
            // tuples printed as Python's, and `==` between a group and a
            // tuple.
            Some(
                "{{ items|dictsort }}|{{ items|dictsort(false, 'value', true) }}|{{ items|groupby(0) }}|\
                 {{ [topic, name, count]|groupby(0) }}|{{ items|groupby('k1', default=count) }}|\
                 {% for g in [topic, name]|groupby(-1) %}{{ g }}{{ g == (g.grouper, g.list) }}{% endfor %}",
            ),
            // Attributes looked into further and items in operations: a
            // missing one raises Jinja2's UndefinedError naming it; the
            // last one missing prints as nothing.
            Some("{{ items.k2[0] }}|{{ items.k1.x }}|{{ topic.a.b }}|{{ [count, name]|max }}"),
            Some("{{ items['k1'] + 1 }}|{{ items[1] * 2 }}|{{ topic[-1] ~ name['k2'] }}"),
            // Tests with a bare argument, tuple subscripts, Python's slices
            // of whatever a value is, a dict's method names read as
            // attributes, default's and attr's keywords, Unicode names
            // and numbers compared exactly.
            Some(
                "{{ count is lt items.k1 }}|{{ topic is in items }}|{{ items[0, 1]|default('t') }}|\
                 {{ topic[1:] }}|{{ items[::-1] is sequence }}|{{ count[:1] }}",
            ),
            Some(
                "{% for i in items.items %}{{ i }}{% endfor %}|{{ items.get is callable }}|\
                 {{ name|default('n', boolean=true) }}|{{ items|attr('k1')|default('no') }}|{{ []|sum(start=name) }}",
            ),
            Some(
                "{% set café = topic %}{{ café }}|{{ count == 1.0 }}|{{ count > 2.5 }}|{{ count is ge 2 }}",
            ),
            // Chains of comparisons and `in` over whatever the values are:
            // each operand read once, stopping at the first that is false.
            Some(
                "{{ 1 > 2 < items.k1 }}|{{ count < 3 in items }}|{{ topic in items < count }}|\
                 {{ 0 == count < items.k2 }}|{{ name not in items not in topic }}",
            ),
            // Jinja2's own objects, `range`, and the filters that read their
            // value only when it is true, over whatever the values are.
            Some(
                "{% set ns = namespace(a=count) %}{{ ns }}|{{ range(3) }}|{{ range(count|int(2))[1:] }}|\
                 {{ items|select|list }}|{{ topic|map('upper')|list }}|{{ items|items|list }}|\
                 {{ [items] == [items] }}|{{ range(2) == [0, 1] }}|{{ ns is mapping }}",
            ),
            // Filters' iterators: true however empty, read once, no length.
            Some(
                "{{ 'y' if items|select else 'n' }}|{% set g = items|reverse %}{{ g|list }}{{ g|list }}|\
                 {{ topic|select|join(',') }}|{{ items|unique|list }}|{{ items|select|length }}",
            ),
            // Many variables in nested frames: a run missing one prints the
            // provided ones as a set, in Haystack's insertion order.
            Some(
                "Plan {{ goal }} for {{ name }} in {{ city }} on {{ date }}: {{ topic if style else tone }}\
                 {% for x in items if x != limit %}{{ x|default(count) }}{% endfor %}",
            ),
        ][..],
    );
    let required = prop_oneof![
        3 => Just(RequiredVariables::All),
        1 => Just(RequiredVariables::None),
        1 => Just(RequiredVariables::Listed(vec!["topic".to_owned()])),
    ];
    let variables = prop::collection::vec(
        (
            prop::sample::select(
                &[
                    "language", "topic", "name", "count", "items", "goal", "city", "date", "style",
                    "tone", "limit",
                ][..],
            ),
            prop_oneof![
                3 => prop::sample::select(&["French", "fusion", "ada", "abc", ""][..]).prop_map(Value::from),
                1 => prop::sample::select(&[" 12 ", "1_000", "2.5", "0x1f", "inf", "a\r\nb\u{2028}c"][..])
                    .prop_map(Value::from),
                1 => Just(json!({"k1": 1, "k2": [2]})),
                2 => odd_value(),
            ],
        ),
        0..=8,
    )
    .prop_map(|entries| {
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<Map<String, Value>>()
    });
    prop::option::weighted(
        0.3,
        (system, user, required, variables).prop_map(|(system, user, required, variables)| {
            Prompts {
                system: system.map(str::to_owned),
                user: user.map(str::to_owned),
                required,
                variables,
            }
        }),
    )
    .boxed()
}

/// `run.tools`: mostly every tool; sometimes a selection by name, an
/// unknown name among them, or none.
fn run_tools() -> BoxedStrategy<Option<Vec<String>>> {
    let names: Vec<String> = TOOL_NAMES
        .iter()
        .map(|n| (*n).to_owned())
        .chain([UNKNOWN_TOOL.to_owned()])
        .collect();
    prop_oneof![
        8 => Just(None),
        2 => prop::sample::subsequence(names[..TOOL_NAMES.len()].to_vec(), 0..=2).prop_map(Some),
        1 => prop::sample::subsequence(names, 1..=2).prop_map(Some),
    ]
    .boxed()
}

/// Messages given in Haystack's `to_dict()` form: a tool call with its
/// result, an image-less assistant text with meta, a named user message.
fn haystack_messages() -> BoxedStrategy<Vec<MessageSpec>> {
    let call = json!({"tool_name": "search", "arguments": {"query": "fusion"}, "id": "old_1", "extra": null});
    let options = vec![
        json!({"role": "user", "content": [{"text": "Earlier question"}], "meta": {}, "name": "ada"}),
        json!({"role": "assistant", "content": [{"tool_call": call}], "meta": {"usage": {"prompt_tokens": 4}}, "name": null}),
        json!({"role": "tool", "content": [{"tool_call_result": {"result": "old result", "origin": call, "error": false}}], "meta": {}, "name": null}),
        json!({"role": "assistant", "content": [{"text": "Earlier answer"}, {"reasoning": {"reasoning_text": "thinking", "extra": {}}}], "meta": {"finish_reason": "stop"}, "name": null}),
    ];
    prop::option::weighted(0.15, prop::sample::subsequence(options, 1..=4))
        .prop_map(|picked| {
            picked
                .unwrap_or_default()
                .into_iter()
                .map(MessageSpec::Haystack)
                .collect()
        })
        .boxed()
}

/// Expectations of every kind, so that the verdicts (`failures`) are
/// compared too, for failed runs and construction errors as well: how many
/// LLM calls, the exit reason, the step count, the message count, the tools
/// and hooks that ran, an error text.
fn expectations() -> BoxedStrategy<Option<Expect>> {
    let tools = prop::collection::vec(prop::sample::select(TOOL_NAMES), 0..=2)
        .prop_map(|names| ListExpect::Exact(names.into_iter().map(str::to_owned).collect()));
    let hooks = prop::sample::select(vec![
        Vec::new(),
        vec!["before_llm".to_owned()],
        vec!["on_exit".to_owned()],
    ])
    .prop_map(ListExpect::Exact);
    prop::option::weighted(
        0.35,
        (
            prop::option::of(0i64..=3),
            prop::option::of(prop::sample::select(&["text", "max_agent_steps"][..])),
            prop::option::weighted(0.3, 0i64..=3),
            prop::option::weighted(0.3, 1i64..=6),
            prop::option::weighted(0.3, tools),
            prop::option::weighted(0.2, hooks),
            prop::option::weighted(0.1, prop::sample::select(&["failed", "Invalid", "'"][..])),
        )
            .prop_map(
                |(llm_calls, exit_reason, step_count, message_count, tools_run, hooks, error)| {
                    let mut expect = Expect {
                        unused_replies: UnusedReplies::Allow,
                        ..Expect::default()
                    };
                    let given = [
                        llm_calls.map(Expectation::LlmCalls),
                        exit_reason.map(|r| Expectation::ExitReason(r.to_owned())),
                        step_count.map(Expectation::StepCount),
                        message_count.map(Expectation::MessageCount),
                        tools_run.map(Expectation::ToolsRun),
                        hooks.map(Expectation::Hooks),
                        error.map(|e| Expectation::Error(e.to_owned())),
                    ];
                    for expectation in given.into_iter().flatten() {
                        expect.set(expectation);
                    }
                    expect
                },
            ),
    )
    .boxed()
}

/// Scenarios over the whole scenario contract: the scenarios of
/// [`scenarios_shaped`] (model replies with text, several tool calls, usage
/// variants, finish reasons, empty replies and errors; exit conditions;
/// `max_agent_steps`; concurrency limits; shared hooks; sync and async runs)
/// with, on top and with weights: hooks at every point taking every action
/// (odd-typed values written into [`METADATA_KEYS`] and user keys, message
/// edits, tool-argument and result rewrites, stops, continues, failures)
/// under every condition; ready-made hooks (`token_budget`,
/// `tool_result_offload`, `confirmation` with scripted answers or Haystack's
/// `SimpleConsoleUI` under `NeverAskPolicy`, `compaction`); tools returning
/// their arguments and mapping State in and results out; schema keys of
/// every type with handlers; a `hook_context` and an initial `state`.
///
/// These are the scenarios `hookharness generate` writes for the
/// differential campaign against Haystack (`conformance/fuzz.sh`).
///
/// ```
/// use hookharness::replay::Replay;
/// use hookharness::strategies::contract_scenarios;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
///
/// let mut runner = TestRunner::deterministic();
/// for _ in 0..16 {
///     let scenario = contract_scenarios().new_tree(&mut runner).unwrap().current();
///     // Every generated scenario replays to an outcome (a pass, a failed
///     // expectation or a run error), never a panic.
///     let _ = Replay::new().run(&scenario);
/// }
/// ```
pub fn contract_scenarios() -> BoxedStrategy<Scenario> {
    let per_point = HookPoint::ALL
        .iter()
        .map(|&point| {
            prop::collection::vec(contract_hook(point), 0..=1).prop_map(move |hooks| (point, hooks))
        })
        .collect::<Vec<_>>();
    let extras = TOOL_NAMES.iter().map(|_| tool_extras()).collect::<Vec<_>>();
    let schema = prop::collection::vec(
        (
            prop::sample::select(
                USER_KEYS
                    .iter()
                    .cloned()
                    .chain([("messages", ValueType::ChatMessages)])
                    .collect::<Vec<_>>(),
            ),
            prop::sample::select(vec![
                None,
                Some(Handler::MergeLists),
                Some(Handler::ReplaceValues),
            ]),
        ),
        0..4,
    );
    let run_state = prop::option::weighted(
        0.2,
        (
            prop::sample::select(&["notes", "count", "label"][..]),
            odd_value(),
        ),
    );
    let hook_context = prop::option::weighted(
        0.3,
        odd_value().prop_map(|v| json!({"user": "u1", "extra": v})),
    );
    let run_extras = (
        prompts(),
        run_tools(),
        haystack_messages(),
        prop::collection::vec(prop::option::weighted(0.3, (odd_value(), text())), 6),
        prop::bool::weighted(0.15),
        expectations(),
    );
    (
        scenarios_shaped(Shape::default().hooks_per_point(1)),
        per_point,
        prop::collection::vec(ready_made(), 0..=2),
        extras,
        schema,
        run_state,
        hook_context,
        1i64..=4,
        run_extras,
    )
        .prop_map(
            |(
                mut scenario,
                hooks,
                ready,
                extras,
                schema,
                run_state,
                hook_context,
                limit,
                (prompts, run_tools, haystack_messages, arguments, stream, expect),
            )| {
                // Every user key a hook, a tool or the run names is declared
                // (the base scenarios cover the unknown-key errors).
                let mut used: Vec<&str> = Vec::new();
                for (point, entries) in hooks {
                    let list = scenario.hooks.entry(point.as_str().to_owned()).or_default();
                    for (i, entry) in entries.into_iter().enumerate() {
                        if let HookEntry::Declarative { actions, .. } = &entry {
                            for action in actions {
                                if let Action::Set(values) | Action::Replace(values) = action {
                                    used.extend(values.keys().filter_map(|k| user_key(k)));
                                }
                            }
                        }
                        list.push(match entry {
                            HookEntry::Declarative {
                                when,
                                actions,
                                allowed_hook_points,
                                ..
                            } => HookEntry::Declarative {
                                name: Some(format!("x{i}")),
                                when,
                                actions,
                                allowed_hook_points,
                            },
                            other => other,
                        });
                    }
                }
                for (i, (point, kind, params)) in ready.into_iter().enumerate() {
                    scenario
                        .hooks
                        .entry(point.as_str().to_owned())
                        .or_default()
                        .push(HookEntry::ReadyMade {
                            name: Some(format!("{}{i}", kind.as_str())),
                            kind,
                            params,
                        });
                }
                scenario.hooks.retain(|_, entries| !entries.is_empty());
                for (tool, extra) in scenario.tools.iter_mut().zip(extras) {
                    if let Some(result) = extra.odd_result {
                        tool.results.insert(0, result);
                    }
                    if extra.echo {
                        tool.results.insert(0, ScriptedResult::EchoArguments);
                    }
                    if let Some((key, param)) = extra.inputs_from_state {
                        used.extend(user_key(&key));
                        tool.inputs_from_state.insert(key, param);
                    }
                    if let Some((key, output)) = extra.outputs_to_state {
                        used.extend(user_key(&key));
                        tool.outputs_to_state.insert(key, output);
                    }
                    tool.outputs_to_string = extra.outputs_to_string;
                }
                if let Some((key, value)) = run_state {
                    used.extend(user_key(key));
                    scenario.run.state.insert(key.to_owned(), value);
                }
                let declared = schema
                    .into_iter()
                    .map(|((key, ty), handler)| (key, ty, handler))
                    .chain(used.into_iter().filter_map(|key| {
                        USER_KEYS
                            .iter()
                            .find(|(k, _)| *k == key)
                            .map(|(k, ty)| (*k, ty.clone(), None))
                    }));
                for (key, ty, handler) in declared {
                    if !scenario.agent.state_schema.contains_key(key) {
                        scenario
                            .agent
                            .state_schema
                            .insert(key.to_owned(), SchemaEntry { ty, handler });
                    }
                }
                if let Some(Value::Object(context)) = hook_context {
                    scenario.run.hook_context = context;
                }
                scenario.agent.tool_concurrency_limit = limit;
                if let Some(mut prompts) = prompts {
                    // A name in both would be a file error (both are
                    // keyword arguments of `Agent.run`).
                    prompts
                        .variables
                        .retain(|key, _| !scenario.run.state.contains_key(key));
                    scenario.agent.system_prompt = prompts.system;
                    scenario.agent.user_prompt = prompts.user;
                    scenario.agent.required_variables = prompts.required;
                    scenario.run.variables = prompts.variables;
                }
                scenario.run.tools = run_tools;
                scenario.run.stream = stream;
                // Odd-typed and odd-text arguments on the first call of some replies.
                for (reply, extra) in scenario.model.iter_mut().zip(arguments) {
                    if let (ModelReply::Reply { tool_calls, .. }, Some((value, text))) =
                        (reply, extra)
                    {
                        if let Some(call) = tool_calls.first_mut() {
                            let mut arguments = call.arguments.to_map();
                            arguments.insert("x".to_owned(), value);
                            arguments.insert("note".to_owned(), Value::from(text));
                            call.arguments = arguments.into();
                        }
                    }
                }
                scenario.run.messages.extend(haystack_messages);
                if let Some(expect) = expect {
                    scenario.expect = expect;
                }
                scenario
            },
        )
        .boxed()
}
