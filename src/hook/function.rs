//! Hooks made from closures: Haystack's `FunctionHook` and `@hook`.

use super::{Hook, HookError, short_type_name};
use crate::future::{BoxFuture, ready};
use crate::state::State;
use std::borrow::Cow;
use std::sync::Arc;

type SyncFn = dyn Fn(&mut State) -> Result<(), HookError> + Send + Sync;
type AsyncFn = dyn for<'a> Fn(&'a mut State) -> BoxFuture<'a, Result<(), HookError>> + Send + Sync;

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

/// A hook built from a sync function, an async function, or both.
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
pub struct FunctionHook {
    name: Cow<'static, str>,
    function: Option<Arc<SyncFn>>,
    async_function: Option<Arc<AsyncFn>>,
}

impl FunctionHook {
    /// A hook with a sync function.
    pub fn from_fn<F, R>(function: F) -> Self
    where
        F: Fn(&mut State) -> R + Send + Sync + 'static,
        R: IntoHookResult,
    {
        FunctionHook {
            name: Cow::Borrowed(short_type_name(std::any::type_name::<F>())),
            function: Some(Arc::new(move |state: &mut State| {
                function(state).into_hook_result()
            })),
            async_function: None,
        }
    }

    /// A hook with only an async function.
    pub fn from_async<F>(function: F) -> Self
    where
        F: for<'a> Fn(&'a mut State) -> BoxFuture<'a, Result<(), HookError>>
            + Send
            + Sync
            + 'static,
    {
        FunctionHook {
            name: Cow::Borrowed(short_type_name(std::any::type_name::<F>())),
            function: None,
            async_function: Some(Arc::new(function)),
        }
    }

    /// Adds (or replaces) the async function.
    pub fn with_async<F>(mut self, function: F) -> Self
    where
        F: for<'a> Fn(&'a mut State) -> BoxFuture<'a, Result<(), HookError>>
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

/// Wraps a sync closure into a hook (Haystack's `@hook` on a function).
pub fn hook_fn<F, R>(function: F) -> FunctionHook
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

impl Hook for FunctionHook {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        match &self.function {
            Some(function) => function(state),
            None => Err(HookError::new(
                "This FunctionHook only has an `async_function` and cannot run in a synchronous Agent run. \
                 Use the Agent's async run methods, or provide a synchronous `function`.",
            )),
        }
    }

    fn run_async<'a>(&'a self, state: &'a mut State) -> BoxFuture<'a, Result<(), HookError>> {
        match &self.async_function {
            Some(function) => function(state),
            None => ready(self.run(state)),
        }
    }

    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }

    fn type_name(&self) -> &'static str {
        "hookharness::FunctionHook"
    }
}
