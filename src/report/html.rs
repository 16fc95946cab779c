//! The timeline as one self-contained HTML page (`hookharness explain
//! --format html`): steps as sections, each hook firing with what it
//! changed, the model's input and replies, the tool calls with arguments
//! and results, the exit and why; failures highlighted. Inline CSS only:
//! no script, no network, no external asset. Read from the outcome alone,
//! as [`explain`](super::explain) is.

use super::timeline::{self, Detail, Piece, Shown};
use crate::message::ChatMessage;
use crate::outcome::{Outcome, TraceKind};
use serde_json::Value;
use std::fmt::Write;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}\
h1{font-size:1.3em}.pass{color:#17692c}.fail,.error{color:#a4161a}\
ol.timeline{list-style:none;padding-left:0;border-left:3px solid #ccd;margin-left:.5em}\
section.step{margin:0 0 1.2em 1em}section.step>h2{font-size:1.05em;margin:.3em 0}\
.event{margin:.3em 0;padding:.35em .6em;border-radius:4px;background:#f4f5f8}\
.hook{background:#eef4ff}.llm{background:#f3f0ff}.tool{background:#eefaf1}.exit{background:#fff7e6}\
.failed,.failure{background:#ffe3e3;border-left:4px solid #a4161a}\
pre{white-space:pre-wrap;margin:.2em 0;font-size:12px}ul.failures{padding-left:1.2em}";

/// The page for one outcome. Full detail
/// ([`Detail::Full`](crate::outcome::Detail::Full)) adds each hook's State
/// changes.
///
/// ```
/// use hookharness::outcome::Detail;
/// use hookharness::replay::Replay;
/// use hookharness::report::explain_html;
/// use hookharness::scenario::{Format, Scenario};
///
/// let scenario = Scenario::from_str("model: [{text: hi}]\nexpect: {exit_reason: stop}", "s.yaml", Format::Yaml)?;
/// let page = explain_html(&Replay::new().detail(Detail::Full).run(&scenario));
/// assert!(page.starts_with("<!DOCTYPE html>"));
/// // before the first step, step 0 (the model call), step 1 (the exit)
/// assert_eq!(page.matches("<section class=\"step\"").count(), 3);
/// assert!(page.contains("<li class=\"failure\">"));
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
pub fn explain_html(outcome: &Outcome) -> String {
    let mut out = String::new();
    let status = outcome.status.as_str();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{} — hookharness</title><style>{STYLE}</style></head><body>\n\
         <h1>{} <span class=\"{status}\" id=\"status\">{status}</span></h1>\n<p>{}</p>\n",
        escape(&outcome.scenario),
        escape(&outcome.scenario),
        escape(&outcome.file)
    );
    if !outcome.failures.is_empty() || outcome.error.is_some() {
        out.push_str("<ul class=\"failures\">\n");
        for failure in &outcome.failures {
            let _ = writeln!(
                out,
                "<li class=\"failure\">{}</li>",
                escape(&failure.message)
            );
        }
        if let Some(error) = &outcome.error {
            let _ = writeln!(
                out,
                "<li class=\"failure\">{}</li>",
                escape(&error.to_string())
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<ol class=\"timeline\">\n");
    let mut open: Option<String> = None;
    let mut calls: Vec<&crate::message::ToolCall> = Vec::new();
    for event in &outcome.trace {
        let Some(shown) = timeline::describe(event) else {
            continue;
        };
        let step = timeline::step(event);
        if open.as_deref() != Some(step.as_str()) {
            if open.is_some() {
                out.push_str("</section></li>\n");
            }
            let title = if step == "-" {
                "before the first step".to_owned()
            } else {
                format!("step {step}")
            };
            let _ = writeln!(
                out,
                "<li><section class=\"step\" data-step=\"{}\"><h2>{title}</h2>",
                escape(&step)
            );
            open = Some(step);
        }
        if let TraceKind::LlmFinished { replies, .. } = &event.kind {
            calls = replies.iter().flat_map(ChatMessage::tool_calls).collect();
        }
        event_html(&shown, &calls, outcome, &mut out);
    }
    if open.is_some() {
        out.push_str("</section></li>\n");
    }
    out.push_str("</ol>\n</body></html>\n");
    out
}

fn event_html(
    shown: &Shown<'_>,
    calls: &[&crate::message::ToolCall],
    outcome: &Outcome,
    out: &mut String,
) {
    let failed = if shown.failed { " failed" } else { "" };
    let _ = write!(out, "<div class=\"event {}{failed}\">", shown.class);
    for piece in &shown.headline {
        let _ = match piece {
            Piece::Words(words) => write!(out, "{}", escape(words)),
            Piece::Name(name) => write!(out, "<code>{}</code>", escape(name)),
            Piece::Point(point) => write!(out, "<b>{point}</b>"),
            Piece::Json(value) => write!(out, "{}", escape(&value.to_string())),
            Piece::TextOnly(_) => Ok(()),
        };
    }
    for detail in &shown.details {
        let _ = match detail {
            Detail::Changes(changes) => {
                let lines = super::changes::lines(changes, describe);
                if lines.is_empty() {
                    Ok(())
                } else {
                    write!(
                        out,
                        "<pre class=\"changes\">{}</pre>",
                        escape(&lines.join("\n"))
                    )
                }
            }
            Detail::Message { label, message } => {
                let message = message.map(describe).unwrap_or_default();
                write!(out, "<pre>{label}: {}</pre>", escape(&message))
            }
            Detail::Messages(messages) => {
                let text: Vec<_> = messages.iter().map(describe).collect();
                write!(out, "<pre>{}</pre>", escape(&text.join("\n")))
            }
            Detail::Error { label, text } => {
                let label = label.map(|l| format!("{l}: ")).unwrap_or_default();
                write!(out, "<pre>{label}{}</pre>", escape(text))
            }
            Detail::Call { id } => {
                let arguments = calls
                    .iter()
                    .find(|c| c.id.as_deref() == *id)
                    .map(|c| Value::Object(c.arguments.clone()).to_string())
                    .unwrap_or_default();
                let result = tool_result(outcome, *id).unwrap_or_default();
                write!(
                    out,
                    "<pre>arguments: {}\nresult: {}</pre>",
                    escape(&arguments),
                    escape(&result)
                )
            }
        };
    }
    let _ = writeln!(out, "</div>");
}

/// The text of the tool result with this call id, from the final messages.
fn tool_result(outcome: &Outcome, id: Option<&str>) -> Option<String> {
    let id = id?;
    outcome
        .result
        .as_ref()?
        .messages
        .iter()
        .flat_map(ChatMessage::tool_call_results)
        .find(|r| r.origin.id.as_deref() == Some(id))
        .map(|r| r.result.as_text().unwrap_or("<parts>").to_owned())
}

fn describe(message: &ChatMessage) -> String {
    super::message::describe(message, |text| format!("{text:?}"))
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Shown, not obeyed: a bidi override or isolate would reorder
            // the text around it (a character reference would still be
            // obeyed), and a control character has no place in a page.
            c if is_bidi_control(c) || (c.is_control() && c != '\n' && c != '\t') => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// The bidi embeddings, overrides and isolates (U+202A-U+202E,
/// U+2066-U+2069) and the directional marks (U+200E, U+200F, U+061C).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_the_run_is_escaped_so_it_cannot_become_markup() {
        assert_eq!(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
    }

    #[test]
    fn bidi_and_control_characters_are_shown_not_obeyed() {
        assert_eq!(
            escape("a\u{202e}b\u{2066}c\u{2069}\u{1b}[31m\n\td"),
            "a\\u202eb\\u2066c\\u2069\\u001b[31m\n\td"
        );
    }
}
