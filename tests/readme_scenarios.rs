//! The README's user-crate setup ("Every scenario a test"), compiled and run
//! as a test target of its own (`harness = false`): below the marker is the
//! README's snippet verbatim, which `tests/readme.rs` checks. Above it, the
//! example hook the snippet registers, in a module named `my_agent`, as a user's tests import the hooks of
//! their library `my_agent`.

#[path = "../examples/require_citation.rs"]
#[allow(dead_code)]
mod example;
mod my_agent {
    pub use super::example::RequireCitation;
}

// The README's snippet, verbatim:
use hookharness::replay::Replay;
use my_agent::RequireCitation;
use std::path::Path;

fn scenario(path: &Path) -> datatest_stable::Result<()> {
    Replay::new()
        .custom_hook("require_citation", RequireCitation::default())
        .test_file(path)?;
    Ok(())
}

datatest_stable::harness! {
    { test = scenario, root = "examples/scenarios", pattern = r"\.ya?ml$" },
}
