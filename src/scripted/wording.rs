//! What a scenario's model script says when the run and the script
//! disagree, each message with its fix: one more call than scripted, or
//! fewer.

/// The run asked for LLM call `call` (0-based) and the script holds
/// `scripted` replies.
pub(crate) fn exhausted(call: usize, scripted: usize) -> String {
    format!(
        "model script exhausted at LLM call {call} (the scenario scripts {scripted} replies); \
         script one more reply under `model`, or expect this error with `expect.error`"
    )
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
