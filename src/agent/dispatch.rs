//! Hook dispatch: running the hooks of one point on the live State.
//!
//! This is the hot path the benchmarks and the instruction-count gate
//! watch: with no observer and no tracing subscriber, an invocation is the
//! call itself plus a few branches.

use super::run::Run;
use super::{Agent, AgentError};
use crate::future::BoxFuture;
use crate::hook::{Hook, HookError, HookPoint};
use crate::observe::Event;
use futures_util::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tracing::Instrument;

impl Run<'_, '_> {
    /// Runs the hooks of a point. With no observer and no tracing
    /// subscriber (one check for the whole point) an invocation is the call
    /// itself plus a few branches: no event is built, no name rendered.
    ///
    /// The async path with nobody watching runs here, not in an `async fn`
    /// of its own, so a point whose hooks all finish in their calls builds
    /// no nested future. Hooks whose `run_async`
    /// finishes in the call (a sync hook's default) run in a plain loop,
    /// as on the sync path; it stops only at a hook that hands back a
    /// future to await, or panics.
    pub(super) async fn run_hooks(&mut self, point: HookPoint) -> Result<(), AgentError> {
        let watched = self.observer.is_some() || tracing::dispatcher::has_been_set();
        match (self.is_async, watched) {
            (false, false) => return self.run_hooks_plain(point),
            (false, true) => return self.run_hooks_watched(point),
            (true, true) => return self.run_hooks_async_watched(point).await,
            (true, false) => {}
        }
        let agent = self.agent;
        let hooks = agent.hooks.at(point);
        let mut next = 0;
        loop {
            let (at, outcome) = {
                // Locals of this block are not kept across the await, so
                // the loop below keeps them in registers.
                let (hooks, state) = (hooks, &mut self.state);
                let mut at = next;
                let (at, stopped) = loop {
                    let Some(hook) = hooks.get(at) else {
                        return Ok(());
                    };
                    // A default `run_async` runs the sync `run` in the call,
                    // so the call is guarded; the closure owns its reborrow
                    // of `state`, so a future it hands back keeps the borrow.
                    let reborrowed = &mut *state;
                    let call = move || {
                        let state = reborrowed;
                        hook.run_async(state).into_ready()
                    };
                    match std::panic::catch_unwind(AssertUnwindSafe(call)) {
                        Ok(Ok(Ok(()))) => at += 1,
                        Ok(Ok(Err(error))) => break (at, Ok(Ok(Err(error)))),
                        Ok(Err(future)) => break (at, Ok(Err(future))),
                        Err(payload) => break (at, Err(payload)),
                    }
                };
                let outcome = match stopped {
                    Ok(Ok(result)) => Ok(result),
                    Ok(Err(future)) => AssertUnwindSafe(future).catch_unwind().await,
                    Err(payload) => Err(payload),
                };
                (at, outcome)
            };
            self.hook_finished(point, at, &*hooks[at], outcome)?;
            next = at + 1;
        }
    }

    /// The sync path with nobody watching: one panic guard for the whole
    /// point, the index of the hook that failed kept beside it.
    fn run_hooks_plain(&mut self, point: HookPoint) -> Result<(), AgentError> {
        let agent = self.agent;
        let hooks = agent.hooks.at(point);
        let state = &mut self.state;
        let mut at = 0;
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            while let Some(hook) = hooks.get(at) {
                hook.run(state)?;
                at += 1;
            }
            Ok(())
        }));
        match outcome {
            Ok(Ok(())) => Ok(()),
            outcome => self.hook_finished(point, at, &*hooks[at], outcome),
        }
    }

    /// The sync path with an observer or a tracing subscriber: events and
    /// a span per hook.
    fn run_hooks_watched(&mut self, point: HookPoint) -> Result<(), AgentError> {
        let agent = self.agent;
        let traced = tracing::dispatcher::has_been_set();
        for (index, hook) in agent.hooks.at(point).iter().enumerate() {
            let hook = &**hook;
            self.hook_started(point, index, hook);
            let state = &mut self.state;
            let outcome = if traced {
                hook_span(point, hook)
                    .in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(|| hook.run(state))))
            } else {
                std::panic::catch_unwind(AssertUnwindSafe(|| hook.run(state)))
            };
            self.hook_finished(point, index, hook, outcome)?;
        }
        Ok(())
    }

    /// The async path with an observer or a tracing subscriber: events and
    /// a span per hook.
    async fn run_hooks_async_watched(&mut self, point: HookPoint) -> Result<(), AgentError> {
        let agent = self.agent;
        let traced = tracing::dispatcher::has_been_set();
        for (index, hook) in agent.hooks.at(point).iter().enumerate() {
            let hook = &**hook;
            self.hook_started(point, index, hook);
            let state = &mut self.state;
            // The call goes inside the future: a default `run_async` runs the
            // sync `run` in it, so the panic guard and the span cover it.
            let call = AssertUnwindSafe(async { hook.run_async(state).await }).catch_unwind();
            let outcome = if traced {
                call.instrument(hook_span(point, hook)).await
            } else {
                call.await
            };
            self.hook_finished(point, index, hook, outcome)?;
        }
        Ok(())
    }

    fn hook_started(&mut self, point: HookPoint, index: usize, hook: &dyn Hook) {
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.on_event(&Event::HookStarted {
                point,
                index,
                hook,
                state: &self.state,
            });
        }
    }

    fn hook_finished(
        &mut self,
        point: HookPoint,
        index: usize,
        hook: &dyn Hook,
        outcome: HookOutcome,
    ) -> Result<(), AgentError> {
        let (error, panicked) = match outcome {
            Ok(Ok(())) if self.observer.is_none() => return Ok(()),
            Ok(Ok(())) => (None, false),
            Ok(Err(error)) => (Some(error.message().to_owned()), false),
            Err(payload) => (Some(panic_message(payload.as_ref())), true),
        };
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.on_event(&Event::HookFinished {
                point,
                index,
                hook,
                state: &self.state,
                error: error.as_deref(),
            });
        }
        match error {
            None => Ok(()),
            Some(message) => Err(AgentError::Hook {
                hook: hook.name().into_owned(),
                point,
                step: self
                    .state
                    .step_count()
                    .unwrap_or_else(|| self.counter.number()),
                message,
                panicked,
            }),
        }
    }
}

type HookOutcome = std::thread::Result<Result<(), HookError>>;

/// Warms up each distinct hook once, as Haystack's `warm_up_hooks` does at
/// the start of every run (a hook that keeps the default `warm_up` is
/// skipped, as Haystack skips one without `warm_up`). Calls that finish at once (every sync
/// `warm_up`, and the default `warm_up_async`) run in a plain loop; only a
/// hook that hands back a future to await leaves it.
pub(super) async fn warm_up_hooks(agent: &Agent, is_async: bool) -> Result<(), AgentError> {
    let hooks = agent.hooks.with_lifecycle();
    let mut at = 0;
    while let Some((index, outcome)) = warm_up_until_pending(hooks, at, is_async) {
        let outcome = match outcome {
            Ok(future) => future.await,
            Err(error) => Err(error),
        };
        outcome.map_err(|error| {
            super::warm_up_error(&format!("hook `{}`", hooks[index].name()), error.message())
        })?;
        at = index + 1;
    }
    Ok(())
}

/// Where the plain warm-up loop stopped: the hook's index, with its future
/// to await or its error.
type Stopped<'a> = (
    usize,
    Result<BoxFuture<'a, Result<(), HookError>>, HookError>,
);

/// Warms up hooks from `at` on while each call finishes at once; `None`
/// when all of them are warmed up.
fn warm_up_until_pending(
    hooks: &[Arc<dyn Hook>],
    at: usize,
    is_async: bool,
) -> Option<Stopped<'_>> {
    let mut rest = hooks[at..].iter();
    // The index of the hook the loop has just taken.
    let taken = |rest: &std::slice::Iter<'_, Arc<dyn Hook>>| hooks.len() - rest.len() - 1;
    for hook in &mut rest {
        if is_async {
            match hook.warm_up_async().into_ready() {
                Ok(Ok(())) => {}
                Ok(Err(error)) => return Some((taken(&rest), Err(error))),
                Err(future) => return Some((taken(&rest), Ok(future))),
            }
        } else if let Err(error) = hook.warm_up() {
            return Some((taken(&rest), Err(error)));
        }
    }
    None
}

/// Haystack's `haystack.agent.hook` span; the name and type are rendered
/// only when a subscriber listens.
fn hook_span(point: HookPoint, hook: &dyn Hook) -> tracing::Span {
    let span = tracing::info_span!(
        "haystack.agent.hook",
        haystack.agent.hook.point = point.as_str(),
        haystack.agent.hook.name = tracing::field::Empty,
        haystack.agent.hook.type = tracing::field::Empty,
    );
    if !span.is_disabled() {
        span.record("haystack.agent.hook.name", &*hook.name());
        span.record("haystack.agent.hook.type", hook.type_name());
    }
    span
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    format!("the hook panicked: {}", crate::panic::payload_text(payload))
}
