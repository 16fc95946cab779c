//! Hook dispatch: running the hooks of one point on the live State.
//!
//! This is the hot path the benchmarks and the instruction-count gate
//! watch: with no observer and no tracing subscriber, an invocation is the
//! call itself plus a few branches.

use super::AgentError;
use super::run::Run;
use crate::hook::{Hook, HookPoint};
use crate::observe::Event;
use futures_util::FutureExt;
use std::panic::AssertUnwindSafe;
use tracing::Instrument;

impl Run<'_, '_> {
    /// Runs the hooks of a point. On the sync path this is a plain loop
    /// (no future state to carry between hooks); with no observer and no
    /// tracing subscriber an invocation is the call itself plus a few
    /// branches: no event is built, no name rendered.
    pub(super) async fn run_hooks(&mut self, point: HookPoint) -> Result<(), AgentError> {
        if !self.is_async {
            return self.run_hooks_sync(point);
        }
        let agent = self.agent;
        let traced = tracing::dispatcher::has_been_set();
        for (index, hook) in agent.hooks.at(point).iter().enumerate() {
            let hook = &**hook;
            if self.observer.is_some() {
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
                Ok(Ok(())) if self.observer.is_none() => {}
                outcome => self.hook_finished(point, index, hook, outcome)?,
            }
        }
        Ok(())
    }

    fn run_hooks_sync(&mut self, point: HookPoint) -> Result<(), AgentError> {
        let agent = self.agent;
        // One load decides for the whole point: with no subscriber anywhere,
        // no span is built at all.
        let traced = tracing::dispatcher::has_been_set();
        for (index, hook) in agent.hooks.at(point).iter().enumerate() {
            let hook = &**hook;
            if self.observer.is_some() {
                self.hook_started(point, index, hook);
            }
            let state = &mut self.state;
            let outcome = if traced {
                hook_span(point, hook)
                    .in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(|| hook.run(state))))
            } else {
                std::panic::catch_unwind(AssertUnwindSafe(|| hook.run(state)))
            };
            match outcome {
                Ok(Ok(())) if self.observer.is_none() => {}
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
        outcome: std::thread::Result<Result<(), crate::hook::HookError>>,
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
                    .unwrap_or_else(|| crate::value::step_number(&self.counter)),
                message,
                panicked,
            }),
        }
    }
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
