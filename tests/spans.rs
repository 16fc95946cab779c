//! The loop's `tracing` spans are named and nested like Haystack's.

use hookharness::scripted::{ModelReply, ScriptedChatGenerator, ScriptedResult, ScriptedTool};
use hookharness::{Agent, ChatMessage, HookPoint, RunOptions, State, ToolSpec, hook_fn};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A span as recorded: its name, its parent's name, and its fields.
#[derive(Debug, Clone)]
struct Recorded {
    name: String,
    parent: Option<String>,
    fields: HashMap<String, String>,
}

/// A minimal subscriber that records every span with its parent.
#[derive(Default)]
struct Recorder {
    next: AtomicU64,
    spans: Mutex<Vec<Recorded>>,
    metadata: Mutex<Vec<&'static Metadata<'static>>>,
    stack: Mutex<Vec<u64>>,
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        let parent_id = if let Some(parent) = attributes.parent() {
            Some(parent.into_u64())
        } else if attributes.is_contextual() {
            self.stack.lock().unwrap().last().copied()
        } else {
            None
        };
        self.metadata.lock().unwrap().push(attributes.metadata());
        let mut spans = self.spans.lock().unwrap();
        let parent = parent_id.map(|p| spans[(p - 1) as usize].name.clone());
        let mut fields = HashMap::new();
        attributes.record(&mut Fields(&mut fields));
        spans.push(Recorded {
            name: attributes.metadata().name().to_owned(),
            parent,
            fields,
        });
        Id::from_u64(id)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        values.record(&mut Fields(
            &mut spans[(span.into_u64() - 1) as usize].fields,
        ));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, span: &Id) {
        self.stack.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, _: &Id) {
        self.stack.lock().unwrap().pop();
    }

    fn current_span(&self) -> tracing_core::span::Current {
        match self.stack.lock().unwrap().last() {
            Some(&id) => {
                let metadata = self.metadata.lock().unwrap()[(id - 1) as usize];
                tracing_core::span::Current::new(Id::from_u64(id), metadata)
            }
            None => tracing_core::span::Current::none(),
        }
    }
}

#[test]
fn run_step_llm_tool_and_hook_spans_nest_like_haystacks() {
    let mut builder = Agent::builder()
        .chat_generator(ScriptedChatGenerator::new([
            ModelReply::tool_call("search", json!({"query": "fusion"})),
            ModelReply::text("done"),
        ]))
        .tool(ScriptedTool::new(
            ToolSpec::new("search").description("Search the web"),
            [ScriptedResult::Error("timeout".into())],
        ));
    for point in HookPoint::ALL {
        builder = builder.hook(
            point,
            hook_fn(|_: &mut State| ()).named(format!("{point}_hook")),
        );
    }
    let agent = builder.build().unwrap();
    let recorder = std::sync::Arc::new(Recorder::default());
    tracing::subscriber::with_default(recorder.clone(), || {
        agent
            .run(vec![ChatMessage::from_user("go")], RunOptions::new())
            .unwrap();
    });
    let spans = recorder.spans.lock().unwrap().clone();
    let shape: Vec<(String, Option<String>)> = spans
        .iter()
        .map(|s| (s.name.clone(), s.parent.clone()))
        .collect();
    let span = |name: &str, parent: Option<&str>| (name.to_owned(), parent.map(str::to_owned));
    assert_eq!(
        shape,
        [
            span("haystack.agent.run", None),
            span("haystack.agent.hook", Some("haystack.agent.run")),
            span("haystack.agent.step", Some("haystack.agent.run")),
            span("haystack.agent.hook", Some("haystack.agent.step")),
            span("haystack.agent.step.llm", Some("haystack.agent.step")),
            span("haystack.agent.hook", Some("haystack.agent.step")),
            span("haystack.agent.step.tool", Some("haystack.agent.step")),
            span("haystack.agent.hook", Some("haystack.agent.step")),
            span("haystack.agent.step", Some("haystack.agent.run")),
            span("haystack.agent.hook", Some("haystack.agent.step")),
            span("haystack.agent.step.llm", Some("haystack.agent.step")),
            span("haystack.agent.hook", Some("haystack.agent.step")),
            span("haystack.agent.hook", Some("haystack.agent.run")),
        ]
    );
    let hook = &spans[1].fields;
    assert_eq!(hook["haystack.agent.hook.point"], "before_run");
    assert_eq!(hook["haystack.agent.hook.name"], "before_run_hook");
    assert_eq!(
        hook["haystack.agent.hook.type"],
        "hookharness::FunctionHook"
    );
    let tool = &spans[6].fields;
    assert_eq!(tool["haystack.tool.name"], "search");
    assert_eq!(tool["haystack.tool.description"], "Search the web");
    assert_eq!(tool["haystack.tool.error"], "true");
    assert_eq!(spans[2].fields["haystack.agent.step"], "0");
    assert_eq!(spans[0].fields["haystack.agent.steps_taken"], "2");
}
