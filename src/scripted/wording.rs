//! What a scenario's model script says when the run and the script
//! disagree, each message with its fix: one more call than scripted, or
//! fewer.

/// The run asked for LLM call `call` (0-based) and the script holds
/// `scripted` replies.
pub(crate) fn exhausted(call: usize, scripted: usize) -> String {
    format!(
        "{MODEL_EXHAUSTED} {call} (the scenario scripts {scripted} replies); \
         script one more reply under `model`, or expect this error with `expect.error`"
    )
}

/// The start of [`exhausted`]'s text.
const MODEL_EXHAUSTED: &str = "model script exhausted at LLM call";

/// The fix a tool called more often than scripted names (`tool.rs`).
pub(crate) const TOOL_EXHAUSTED: &str = "add results to the tool's `results`";

/// What a run asked of the file that the file does not script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unscripted {
    /// One more model reply than `model` holds.
    Reply,
    /// One more call of a tool than its `results` hold.
    Result,
    /// One more question than a scripted confirmation UI has answers.
    Answer,
    /// A reply answered another conversation than the one its `sees`
    /// says it was written for: the file scripts no reply to this one.
    Conversation,
}

impl Unscripted {
    /// What to add to the file: `a reply`, `a result`, `an answer`, `a
    /// reply for this conversation`.
    pub fn what(self) -> &'static str {
        match self {
            Unscripted::Reply => "a reply",
            Unscripted::Result => "a result",
            Unscripted::Answer => "an answer",
            Unscripted::Conversation => "a reply for this conversation",
        }
    }

    /// The run error's cause, when the run failed because it went past
    /// the script: the model script, a tool's results or a scripted
    /// confirmation UI's answers ran out.
    pub fn of(error: &crate::outcome::RunError) -> Option<Self> {
        use crate::outcome::ErrorKind;
        let text = error.message.as_str();
        match error.kind {
            ErrorKind::Generator { .. } if text.contains(MODEL_EXHAUSTED) => {
                Some(Unscripted::Reply)
            }
            ErrorKind::Tool if text.contains(TOOL_EXHAUSTED) => Some(Unscripted::Result),
            ErrorKind::Hook { .. } if text.contains(crate::hooks::confirmation::NO_ANSWER_LEFT) => {
                Some(Unscripted::Answer)
            }
            _ => None,
        }
    }
}

/// The run ended after `made` LLM calls with `scripted` replies scripted
/// (more than `made`).
///
/// ```text
/// unused_replies: the scenario scripts 4 replies but the run made 3 LLM calls; remove the
/// 1 unused reply from `model`, or set `expect.unused_replies: allow` if the run is meant to
/// stop before them
/// ```
pub(crate) fn unused(scripted: usize, made: usize) -> String {
    let unused = scripted.saturating_sub(made);
    format!(
        "unused_replies: the scenario scripts {scripted} replies but the run made {made} LLM \
         calls; remove the {unused} unused {} from `model`, or set `expect.unused_replies: \
         allow` if the run is meant to stop before {}",
        if unused == 1 { "reply" } else { "replies" },
        if unused == 1 { "it" } else { "them" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_replies_say_how_many_and_both_fixes() {
        assert_eq!(
            unused(4, 3),
            "unused_replies: the scenario scripts 4 replies but the run made 3 LLM calls; remove \
             the 1 unused reply from `model`, or set `expect.unused_replies: allow` if the run is \
             meant to stop before it"
        );
        assert!(unused(5, 1).contains("remove the 4 unused replies"));
        assert!(unused(5, 1).ends_with("stop before them"));
    }
}
