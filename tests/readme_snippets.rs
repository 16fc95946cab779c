//! The Rust blocks of README.md and docs/*.md, compiled (and the tests
//! among them run) as written: each block is a file under
//! `tests/readme_snippets/`, verbatim, which `tests/readme.rs` checks.
//!
//! The blocks are what a user's crate holds; their hooks come from the
//! user's library, `my_agent`. Here `my_agent` is this test crate itself,
//! holding the examples' hooks, so `use my_agent::RequireCitation;` reads
//! as it would in the user's tests.

extern crate self as my_agent;

#[path = "../examples/require_citation.rs"]
#[allow(dead_code)]
mod citation_hook;
#[cfg(feature = "proptest")]
#[path = "../examples/fuzz_hook_order.rs"]
#[allow(dead_code)]
mod fuzz_hooks;

pub use citation_hook::RequireCitation;
#[cfg(feature = "proptest")]
pub use fuzz_hooks::RedactSecrets;

#[path = "readme_snippets/citation.rs"]
mod citation;
#[path = "readme_snippets/hook_gate.rs"]
#[allow(dead_code)]
mod hook_gate;
#[cfg(feature = "proptest")]
#[path = "readme_snippets/hook_order.rs"]
mod hook_order;
#[cfg(feature = "http")]
#[path = "readme_snippets/record.rs"]
#[allow(dead_code)]
mod record;
