//! `expect.printed`: texts that appear, in order, in what the user's code
//! printed or logged during the run (each hook and tool call's `output`).

use serde_json::json;

use crate::outcome::{Failure, TraceEvent, TraceKind};
use crate::pyfmt;

/// Every call's captured output, in trace order, joined.
pub(super) fn output(trace: &[TraceEvent]) -> String {
    trace
        .iter()
        .filter_map(|event| match &event.kind {
            TraceKind::HookFinished { output, .. } | TraceKind::ToolFinished { output, .. } => {
                output.as_deref()
            }
            _ => None,
        })
        .collect()
}

pub(super) fn check(want: &[String], trace: &[TraceEvent], failures: &mut Vec<Failure>) {
    let printed = output(trace);
    let mut from = 0;
    for text in want {
        match printed[from..].find(text.as_str()) {
            Some(at) => from += at + text.len(),
            None => {
                let place = if from == 0 {
                    String::new()
                } else {
                    " after the texts before it".to_owned()
                };
                let got = if printed.is_empty() {
                    "no hook or tool call printed anything (what Python code prints is captured \
                     by `--engine haystack`; the Rust engine's hooks print nothing)"
                        .to_owned()
                } else {
                    format!("the run printed {}", pyfmt::repr(&json!(printed)))
                };
                failures.push(Failure::compare(
                    "printed",
                    format!(
                        "printed: expected {}{place}; {got}",
                        pyfmt::repr(&json!(text))
                    ),
                    json!(want),
                    json!(printed),
                ));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::HookPoint;

    fn hook_output(text: &str) -> TraceEvent {
        TraceEvent::new(
            None,
            TraceKind::HookFinished {
                point: HookPoint::AfterTool,
                index: 0,
                hook: "audit".into(),
                error: None,
                tools: None,
                changes: None,
                output: Some(text.into()),
            },
        )
    }

    #[test]
    fn texts_must_appear_in_their_order() {
        let trace = [
            hook_output("audit: search\n"),
            hook_output("audit: fetch\n"),
        ];
        let mut failures = Vec::new();
        check(
            &["audit: search".into(), "audit: fetch".into()],
            &trace,
            &mut failures,
        );
        assert!(failures.is_empty());
        check(
            &["audit: fetch".into(), "audit: search".into()],
            &trace,
            &mut failures,
        );
        assert_eq!(failures.len(), 1);
        assert!(
            failures[0]
                .message
                .starts_with("printed: expected 'audit: search' after the texts before it"),
            "{}",
            failures[0].message
        );
    }

    #[test]
    fn nothing_printed_says_which_engine_captures_output() {
        let mut failures = Vec::new();
        check(&["x".into()], &[], &mut failures);
        assert!(
            failures[0].message.contains("--engine haystack"),
            "{}",
            failures[0].message
        );
    }
}
