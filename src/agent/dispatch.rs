//! Hook dispatch: running the hooks of one point on the live State.
//!
//! This is the hot path the benchmarks and the instruction-count gate
//! watch: with no observer and no tracing subscriber, an invocation is the
//! call itself plus a few branches.

use super::AgentError;
use super::run::Run;
use crate::hook::{Hook, HookError, HookPoint};
use crate::observe::Event;
use futures_util::FutureExt;
use std::panic::AssertUnwindSafe;
use tracing::Instrument;

impl Run<'_, '_> {
    /// Runs the hooks of a point. With no observer and no tracing
    /// subscriber (one check for the whole point) an invocation is the call
    /// itself plus a few branches: no event is built, no name rendered.
    pub(super) async fn run_hooks(&mut self, point: HookPoint) -> Result<(), AgentError> {
        let watched = self.observer.is_some() || tracing::dispatcher::has_been_set();
        match (self.is_async, watched) {
            (false, false) => self.run_hooks_plain(point),
            (false, true) => self.run_hooks_watched(point),
            (true, _) => self.run_hooks_async(point, watched).await,
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
            for hook in hooks {
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

    async fn run_hooks_async(&mut self, point: HookPoint, watched: bool) -> Result<(), AgentError> {
        let agent = self.agent;
        let traced = watched && tracing::dispatcher::has_been_set();
        for (index, hook) in agent.hooks.at(point).iter().enumerate() {
            let hook = &**hook;
            if watched {
                self.hook_started(point, index, hook);
            }
            let state = &mut self.state;
            // The call goes inside the future: a default `run_async` runs the
            // sync `run` eagerly, and its panic must be caught too.
            let call = AssertUnwindSafe(async { hook.run_async(state).await }).catch_unwind();
            let outcome = if traced {
                call.instrument(hook_span(point, hook)).await
            } else {
                call.await
            };
            match outcome {
                Ok(Ok(())) if !watched => {}
                outcome => self.hook_finished(point, index, hook, outcome)?,
            }
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
