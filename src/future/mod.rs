//! Futures: what the extension traits' async methods return, and the
//! driver of sync runs.
//!
//! The loop is written once, as an async function; a sync run polls it with
//! `block_on`. On the sync path every hook, generator and tool call is a
//! plain function call, so the future completes on its first poll; the
//! parking waker only matters if a user's sync code returns a future that is
//! not ready.
//!
//! Hooks, tools, generators and State all depend on this module, and it on
//! none of them.

mod call;

pub use call::CallFuture;

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

/// A boxed, sendable future: what a [`CallFuture`] holds when the call
/// awaits, and what [`async_hook_fn`](crate::async_hook_fn) closures return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}
