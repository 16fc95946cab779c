//! What the extension traits' async methods return: a result already there,
//! or a future.

use super::BoxFuture;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The future an async method of [`Hook`](crate::Hook),
/// [`ChatGenerator`](crate::ChatGenerator) or [`Tool`](crate::Tool)
/// returns; each trait names its own as an alias:
/// [`HookFuture`](crate::HookFuture),
/// [`GeneratorFuture`](crate::GeneratorFuture) and
/// [`ToolFuture`](crate::ToolFuture).
///
/// It is either a result the call already has ([`CallFuture::ready`], what
/// the default methods return: they call the sync method) or a boxed future
/// ([`CallFuture::new`]). A finished result is not boxed, and the loop takes
/// it without polling, so a sync hook, generator or tool costs the same on
/// the async path as on the sync path. Override an async method only to
/// await something:
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
#[must_use = "a call's future does nothing unless awaited"]
pub struct CallFuture<'a, T>(Call<'a, T>);

// A tag and one word for a hook (its result is a thin pointer, null for
// `Ok`, and the future to await sits behind one more box), so a
// `HookFuture` comes back from a hook in two registers; with the boxed
// future's two words beside the result it would take three, written to
// memory. Only a call that awaits pays for the second box.
enum Call<'a, T> {
    /// The call finished.
    Ready(T),
    /// The call awaits.
    Boxed(Box<BoxFuture<'a, T>>),
}

// The result is moved out, never pinned: the future is `Unpin` whatever it
// holds.
impl<T> Unpin for CallFuture<'_, T> {}

impl<'a, T> CallFuture<'a, T> {
    /// A call that has finished: the future is ready at its first poll, and
    /// allocates nothing.
    #[inline]
    pub fn ready(result: T) -> Self {
        CallFuture(Call::Ready(result))
    }

    /// A call that awaits: the future is boxed.
    pub fn new(future: impl Future<Output = T> + Send + 'a) -> Self {
        CallFuture(Call::Boxed(Box::new(Box::pin(future))))
    }

    /// The result of a call that finished, or the future still to await:
    /// the loop takes a finished call this way, without polling.
    #[inline]
    pub(crate) fn into_ready(self) -> Result<T, BoxFuture<'a, T>> {
        match self.0 {
            Call::Ready(result) => Ok(result),
            Call::Boxed(future) => Err(*future),
        }
    }
}

impl<'a, T> From<BoxFuture<'a, T>> for CallFuture<'a, T> {
    fn from(future: BoxFuture<'a, T>) -> Self {
        CallFuture(Call::Boxed(Box::new(future)))
    }
}

impl<'a, T: 'a> Future for CallFuture<'a, T> {
    type Output = T;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let call = &mut self.get_mut().0;
        match call {
            Call::Boxed(future) => future.as_mut().as_mut().poll(cx),
            Call::Ready(_) => {
                // What is left is a future that never finishes, as `Future`
                // allows for a future polled after it finished.
                let finished = Call::Boxed(Box::new(Box::pin(std::future::pending())));
                match std::mem::replace(call, finished) {
                    Call::Ready(result) => Poll::Ready(result),
                    Call::Boxed(_) => unreachable!("matched as ready above"),
                }
            }
        }
    }
}

impl<T> std::fmt::Debug for CallFuture<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Call::Ready(_) => f.write_str("CallFuture(finished)"),
            Call::Boxed(_) => f.write_str("CallFuture(pending)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CallFuture;
    use crate::future::block_on;
    use crate::hook::{HookError, HookFuture};

    #[test]
    fn a_finished_call_hands_its_result_back_without_a_future() {
        assert!(matches!(HookFuture::ready(Ok(())).into_ready(), Ok(Ok(()))));
        assert_eq!(
            CallFuture::ready(Err::<(), _>(HookError::new("no")))
                .into_ready()
                .ok(),
            Some(Err(HookError::new("no")))
        );
        assert_eq!(block_on(CallFuture::ready(7)), 7);
    }

    #[test]
    fn a_boxed_future_is_awaited() {
        let future = HookFuture::new(async { Err(HookError::new("later")) });
        assert_eq!(block_on(future), Err(HookError::new("later")));
        let pending = CallFuture::new(async { 3 }).into_ready().err();
        assert_eq!(pending.map(block_on), Some(3));
    }

    #[test]
    fn a_finished_future_polled_again_stays_pending() {
        use std::future::Future;
        use std::task::{Context, Poll, Waker};
        let mut future = CallFuture::ready(1);
        let mut context = Context::from_waker(Waker::noop());
        assert_eq!(
            std::pin::Pin::new(&mut future).poll(&mut context),
            Poll::Ready(1)
        );
        assert!(
            std::pin::Pin::new(&mut future)
                .poll(&mut context)
                .is_pending()
        );
    }

    #[test]
    fn a_hook_future_is_two_words() {
        assert_eq!(
            std::mem::size_of::<HookFuture<'_>>(),
            2 * std::mem::size_of::<usize>()
        );
    }
}
