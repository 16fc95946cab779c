//! Hooks: your code at fixed points of the run loop.
//!
//! A hook receives the live [`State`] and influences the run by mutating it,
//! as Haystack's hooks do. Implement [`Hook`] for a type, or wrap a closure
//! with [`hook_fn`] / [`async_hook_fn`].
//!
//! ```
//! use hookharness::{hook_fn, Hook, HookError, HookPoint, State, ChatMessage};
//!
//! // A closure: append a nudge and keep the run going.
//! let nudge = hook_fn(|state: &mut State| -> Result<(), HookError> {
//!     state.append_messages(vec![ChatMessage::from_system("Search before answering.")])?;
//!     state.set_continue_run(true);
//!     Ok(())
//! });
//!
//! // A type of your own, limited to one hook point.
//! struct Audit;
//! impl Hook for Audit {
//!     fn run(&self, state: &mut State) -> Result<(), HookError> {
//!         let pending = state.messages().last().map_or(0, |m| m.tool_calls().count());
//!         if pending > 3 {
//!             return Err(HookError::new("too many tool calls"));
//!         }
//!         Ok(())
//!     }
//!     fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
//!         Some(&[HookPoint::BeforeTool])
//!     }
//! }
//! # let _ = (nudge, Audit);
//! ```

mod function;
mod point;
mod registry;

pub(crate) use function::FUNCTION_HOOK_TYPE;
pub use function::{FunctionHook, IntoHookResult, async_hook_fn, hook_fn};
pub use point::{HookPoint, InvalidHookPoint};
pub use registry::{HookNotAllowed, HookRegistration, Hooks};

pub use crate::future::BoxFuture;

/// What a hook's async methods return: a finished result, or a future to
/// await (see [`CallFuture`](crate::future::CallFuture)).
pub type HookFuture<'a> = crate::future::CallFuture<'a, Result<(), HookError>>;

use crate::state::State;
use std::borrow::Cow;

/// The error a hook returns. The run fails with it, and names the hook,
/// the point and the step.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HookError {
    // One word: `Result<(), HookError>` is a pointer, null for `Ok`, and a
    // `HookFuture` holding it is two words, which come back from a hook in
    // registers (a `String` or `Box<str>` would make both larger).
    #[expect(
        clippy::box_collection,
        reason = "a thin pointer: the error costs the success path nothing"
    )]
    message: Box<String>,
}

impl HookError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        HookError {
            message: Box::new(message.into()),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<crate::state::StateError> for HookError {
    fn from(error: crate::state::StateError) -> Self {
        HookError::new(error.to_string())
    }
}

impl From<String> for HookError {
    fn from(message: String) -> Self {
        HookError::new(message)
    }
}

impl From<&str> for HookError {
    fn from(message: &str) -> Self {
        HookError::new(message)
    }
}

/// Code that runs at a hook point with the live [`State`].
///
/// Only [`run`](Hook::run) is required. A run on the async path calls
/// [`run_async`](Hook::run_async), which by default calls `run` and hands
/// back its result as a finished [`HookFuture`]: a sync hook costs the same
/// on both paths. Override it only to await something.
/// The lifecycle methods are called once per distinct hook object, at the
/// start of every run, like Haystack's `warm_up`.
pub trait Hook: Send + Sync + 'static {
    /// Runs the hook on the live state.
    fn run(&self, state: &mut State) -> Result<(), HookError>;

    /// Runs the hook on the async path (defaults to [`run`](Hook::run)).
    fn run_async<'a>(&'a self, state: &'a mut State) -> HookFuture<'a> {
        HookFuture::ready(self.run(state))
    }

    /// The name shown in traces, spans and errors (defaults to the type's name).
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(short_type_name(std::any::type_name::<Self>()))
    }

    /// The qualified type name, for the `haystack.agent.hook.type` span tag.
    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }

    /// The points this hook may be registered at (`None`: anywhere).
    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        None
    }

    /// Prepares the hook; called at the start of every sync run.
    fn warm_up(&self) -> Result<(), HookError> {
        Ok(())
    }

    /// Prepares the hook on the async path (defaults to [`warm_up`](Hook::warm_up)).
    fn warm_up_async(&self) -> HookFuture<'_> {
        HookFuture::ready(self.warm_up())
    }

    /// Releases resources; called by [`Agent::close`](crate::Agent::close).
    fn close(&self) -> Result<(), HookError> {
        Ok(())
    }

    /// Releases resources on the async path (defaults to [`close`](Hook::close)).
    fn close_async(&self) -> HookFuture<'_> {
        HookFuture::ready(self.close())
    }

    /// `false` for this crate's hooks that keep the default lifecycle
    /// methods ([`FunctionHook`]): the loop then skips their calls, as
    /// Haystack skips a hook without `warm_up`. It cannot be overridden
    /// outside this crate (its argument's type cannot be named there), so a
    /// hook of your own always has its lifecycle methods called.
    #[doc(hidden)]
    fn has_lifecycle(&self, _: sealed::Token) -> bool {
        true
    }
}

/// What keeps [`Hook::has_lifecycle`] to this crate.
mod sealed {
    /// A type outside code cannot name.
    #[derive(Debug, Clone, Copy)]
    pub struct Token;
}

pub(crate) use sealed::Token as LifecycleToken;

/// The last path segment of a type name, generics kept: `a::b::Hook` and
/// Haystack-style `haystack.hooks.budget.TokenBudgetHook` both give the
/// class name.
pub(crate) fn short_type_name(full: &'static str) -> &'static str {
    let end = full.find('<').unwrap_or(full.len());
    let head = &full[..end];
    let start = match (head.rfind("::"), head.rfind('.')) {
        (Some(colons), Some(dot)) => (colons + 2).max(dot + 1),
        (Some(colons), None) => colons + 2,
        (None, Some(dot)) => dot + 1,
        (None, None) => 0,
    };
    &full[start..]
}

/// A custom hook that keeps the default lifecycle methods: unlike a
/// `hook_fn`, it is one the loop warms up and closes (unit tests of the
/// registry and of named hooks).
#[cfg(test)]
pub(crate) struct Opens;

#[cfg(test)]
impl Hook for Opens {
    fn run(&self, _: &mut State) -> Result<(), HookError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::short_type_name;

    #[test]
    fn short_type_names_drop_rust_and_python_module_paths() {
        assert_eq!(short_type_name("a::b::Audit"), "Audit");
        assert_eq!(
            short_type_name("haystack.hooks.budget.TokenBudgetHook"),
            "TokenBudgetHook"
        );
        assert_eq!(short_type_name("a::Wrap<b::C>"), "Wrap<b::C>");
        assert_eq!(short_type_name("Plain"), "Plain");
    }
}
