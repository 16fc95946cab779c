//! Hooks made from closures: Haystack's `FunctionHook` and `@hook`.

use super::{Hook, HookError, HookFuture, short_type_name};
use crate::future::BoxFuture;
use crate::state::State;
use std::borrow::Cow;
use std::sync::Arc;

type AsyncFn = dyn for<'a> Fn(&'a mut State) -> BoxFuture<'a, Result<(), HookError>> + Send + Sync;

/// An async function's call, out of line: `run_async` of a sync hook then
/// keeps no registers for the allocation only an async one makes.
#[inline(never)]
fn run_async_function<'a>(function: &Arc<AsyncFn>, state: &'a mut State) -> HookFuture<'a> {
    function(state).into()
}

/// The sync function of a hook that has only an async one: it fails a sync
/// run with Haystack's error.
type AsyncOnly = fn(&mut State) -> Result<(), HookError>;

/// What a hook closure may return: `()` or a `Result`.
pub trait IntoHookResult {
    /// Converts into the hook's result.
    fn into_hook_result(self) -> Result<(), HookError>;
}

impl IntoHookResult for () {
    fn into_hook_result(self) -> Result<(), HookError> {
        Ok(())
    }
}

impl<E: Into<HookError>> IntoHookResult for Result<(), E> {
    fn into_hook_result(self) -> Result<(), HookError> {
        self.map_err(Into::into)
    }
}

/// The `type_name` of every [`FunctionHook`], whatever its function.
pub(crate) const FUNCTION_HOOK_TYPE: &str = "hookharness::FunctionHook";

/// A hook built from a sync function, an async function, or both.
///
/// `F` is the sync function's type: a hook calls it directly, with no
/// allocation or indirection of its own. A hook with only an async function
/// is a plain `FunctionHook` (its `F` is a function that fails a sync run).
///
/// As in Haystack, a hook with only an async function fails when a sync run
/// reaches it, and a sync-only hook runs inline on the async path.
///
/// ```
/// use hookharness::{FunctionHook, State};
///
/// let both = FunctionHook::from_fn(|state: &mut State| state.set_continue_run(true))
///     .with_async(|state| Box::pin(async move {
///         state.set_continue_run(true);
///         Ok(())
///     }))
///     .named("keep_going");
/// # let _ = both;
/// ```
#[derive(Clone)]
pub struct FunctionHook<F = AsyncOnly> {
    name: Cow<'static, str>,
    function: F,
    async_function: Option<Arc<AsyncFn>>,
}

impl<F, R> FunctionHook<F>
where
    F: Fn(&mut State) -> R + Send + Sync + 'static,
    R: IntoHookResult,
{
    /// A hook with a sync function.
    pub fn from_fn(function: F) -> Self {
        FunctionHook {
            name: Cow::Borrowed(short_type_name(std::any::type_name::<F>())),
            function,
            async_function: None,
        }
    }
}

impl FunctionHook {
    /// A hook with only an async function.
    pub fn from_async<A>(function: A) -> Self
    where
        A: for<'a> Fn(&'a mut State) -> BoxFuture<'a, Result<(), HookError>>
            + Send
            + Sync
            + 'static,
    {
        FunctionHook {
            name: Cow::Borrowed(short_type_name(std::any::type_name::<A>())),
            function: async_only,
            async_function: Some(Arc::new(function)),
        }
    }
}

impl<F> FunctionHook<F> {
    /// Adds (or replaces) the async function.
    pub fn with_async<A>(mut self, function: A) -> Self
    where
        A: for<'a> Fn(&'a mut State) -> BoxFuture<'a, Result<(), HookError>>
            + Send
            + Sync
            + 'static,
    {
        self.async_function = Some(Arc::new(function));
        self
    }

    /// Sets the name shown in traces and errors.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Cow::Owned(name.into());
        self
    }
}

/// Haystack's `RuntimeError` for an async-only `FunctionHook` in a sync run.
fn async_only(_: &mut State) -> Result<(), HookError> {
    Err(HookError::new(
        "This FunctionHook only has an `async_function` and cannot run in a synchronous Agent run. \
         Use the Agent's async run methods, or provide a synchronous `function`.",
    ))
}

/// Wraps a sync closure into a hook (Haystack's `@hook` on a function).
pub fn hook_fn<F, R>(function: F) -> FunctionHook<F>
where
    F: Fn(&mut State) -> R + Send + Sync + 'static,
    R: IntoHookResult,
{
    FunctionHook::from_fn(function)
}

/// Wraps an async closure into a hook (Haystack's `@hook` on a coroutine).
///
/// ```
/// use hookharness::async_hook_fn;
///
/// let hook = async_hook_fn(|state| Box::pin(async move {
///     state.set_stop_run("enough");
///     Ok(())
/// }));
/// # let _ = hook;
/// ```
pub fn async_hook_fn<F>(function: F) -> FunctionHook
where
    F: for<'a> Fn(&'a mut State) -> BoxFuture<'a, Result<(), HookError>> + Send + Sync + 'static,
{
    FunctionHook::from_async(function)
}

impl<F, R> Hook for FunctionHook<F>
where
    F: Fn(&mut State) -> R + Send + Sync + 'static,
    R: IntoHookResult,
{
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        (self.function)(state).into_hook_result()
    }

    fn run_async<'a>(&'a self, state: &'a mut State) -> HookFuture<'a> {
        match &self.async_function {
            Some(function) => run_async_function(function, state),
            None => HookFuture::ready(self.run(state)),
        }
    }

    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }

    fn type_name(&self) -> &'static str {
        FUNCTION_HOOK_TYPE
    }

    fn has_lifecycle(&self, _: super::LifecycleToken) -> bool {
        false
    }
}
