//! What a hook's async methods return: a result already there, or a future.

use super::HookError;
use crate::future::BoxFuture;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The future a hook's async methods ([`Hook::run_async`](super::Hook::run_async),
/// [`warm_up_async`](super::Hook::warm_up_async),
/// [`close_async`](super::Hook::close_async)) return.
///
/// It is either a result the call already has (what the default methods
/// return: they call the sync method) or a boxed future. A finished result
/// costs no allocation, and the loop takes it without polling, so a sync
/// hook costs the same on the async path as on the sync path.
///
/// ```
/// use hookharness::{Hook, HookError, HookFuture, State};
///
/// struct Lookup;
/// impl Hook for Lookup {
///     fn run(&self, state: &mut State) -> Result<(), HookError> {
///         state.set_continue_run(true);
///         Ok(())
///     }
///
///     fn run_async<'a>(&'a self, state: &'a mut State) -> HookFuture<'a> {
///         HookFuture::new(async move {
///             // An await point: a client call, a channel receive...
///             std::future::ready(()).await;
///             state.set_continue_run(true);
///             Ok(())
///         })
///     }
/// }
///
/// # let _ = Lookup;
/// ```
#[must_use = "a hook future does nothing unless awaited"]
pub struct HookFuture<'a>(
    // `None`: the call finished with `Ok(())` (two words in all, so a hook
    // hands it back in registers and the loop checks it with one test).
    Option<BoxFuture<'a, Result<(), HookError>>>,
);

impl<'a> HookFuture<'a> {
    /// A call that has finished: the future is ready at its first poll.
    /// Success (the common case) allocates nothing.
    #[inline]
    pub fn ready(result: Result<(), HookError>) -> Self {
        match result {
            Ok(()) => HookFuture(None),
            Err(error) => HookFuture(Some(Box::pin(std::future::ready(Err(error))))),
        }
    }

    /// A call that awaits: the future is boxed.
    pub fn new(future: impl Future<Output = Result<(), HookError>> + Send + 'a) -> Self {
        HookFuture(Some(Box::pin(future)))
    }

    /// The future still to await, or `None` when the call finished with
    /// `Ok(())`: the loop takes a finished call this way, without polling.
    #[inline]
    pub(crate) fn into_pending(self) -> Option<BoxFuture<'a, Result<(), HookError>>> {
        self.0
    }
}

impl<'a> From<BoxFuture<'a, Result<(), HookError>>> for HookFuture<'a> {
    fn from(future: BoxFuture<'a, Result<(), HookError>>) -> Self {
        HookFuture(Some(future))
    }
}

impl Future for HookFuture<'_> {
    type Output = Result<(), HookError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().0 {
            None => Poll::Ready(Ok(())),
            Some(future) => future.as_mut().poll(cx),
        }
    }
}

impl std::fmt::Debug for HookFuture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            None => f.write_str("HookFuture(finished)"),
            Some(_) => f.write_str("HookFuture(pending)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HookFuture;
    use crate::future::block_on;
    use crate::hook::HookError;

    #[test]
    fn a_finished_call_has_nothing_to_await() {
        assert!(HookFuture::ready(Ok(())).into_pending().is_none());
        assert_eq!(block_on(HookFuture::ready(Ok(()))), Ok(()));
    }

    #[test]
    fn a_failed_call_hands_its_error_back_when_awaited() {
        let future = HookFuture::ready(Err(HookError::new("no")));
        let pending = future.into_pending().expect("an error is awaited");
        assert_eq!(block_on(pending), Err(HookError::new("no")));
    }

    #[test]
    fn a_boxed_future_is_awaited() {
        let future = HookFuture::new(async { Err(HookError::new("later")) });
        assert_eq!(block_on(future), Err(HookError::new("later")));
    }

    #[test]
    fn a_hook_future_is_two_words() {
        assert_eq!(
            std::mem::size_of::<HookFuture<'_>>(),
            2 * std::mem::size_of::<usize>()
        );
    }
}
