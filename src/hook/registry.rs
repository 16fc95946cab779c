//! Hooks registered per point, validated as Haystack validates them.

use super::{Hook, HookPoint, short_type_name};
use std::sync::Arc;

/// One hook at one point.
#[derive(Clone)]
pub struct HookRegistration {
    /// The point.
    pub point: HookPoint,
    /// The hook (one object may be registered at several points).
    pub hook: Arc<dyn Hook>,
}

/// A hook that is registered where it does not belong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Hook of type '{hook_type}' is registered under hook point '{point}' but only supports: {allowed}."
)]
pub struct HookNotAllowed {
    /// The hook's type name.
    pub hook_type: String,
    /// Where it was registered.
    pub point: HookPoint,
    /// The points it supports, comma-separated.
    pub allowed: String,
}

/// The validated hooks of an Agent, by point, in registration order.
#[derive(Clone, Default)]
pub struct Hooks {
    by_point: [Vec<Arc<dyn Hook>>; 6],
    distinct: Vec<Arc<dyn Hook>>,
    /// The distinct hooks whose lifecycle methods the loop calls.
    lifecycle: Vec<Arc<dyn Hook>>,
}

impl Hooks {
    /// Validates registrations: each hook must allow its point.
    pub fn new(registrations: Vec<HookRegistration>) -> Result<Self, HookNotAllowed> {
        let mut hooks = Hooks::default();
        for registration in registrations {
            hooks.register(registration)?;
        }
        Ok(hooks)
    }

    /// Adds one registration; the hook must allow its point.
    pub fn register(&mut self, registration: HookRegistration) -> Result<(), HookNotAllowed> {
        let hooks = self;
        let HookRegistration { point, hook } = registration;
        {
            if let Some(allowed) = hook.allowed_hook_points() {
                if !allowed.contains(&point) {
                    return Err(HookNotAllowed {
                        hook_type: short_type_name(hook.type_name()).to_owned(),
                        point,
                        allowed: allowed
                            .iter()
                            .map(|p| p.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    });
                }
            }
            // Lifecycle methods run once per object, in first-seen order.
            if !hooks.distinct.iter().any(|seen| Arc::ptr_eq(seen, &hook)) {
                hooks.distinct.push(Arc::clone(&hook));
                if hook.has_lifecycle(super::LifecycleToken) {
                    hooks.lifecycle.push(Arc::clone(&hook));
                }
            }
            hooks.by_point[point.index()].push(hook);
        }
        Ok(())
    }

    /// The hooks at a point, in order.
    pub fn at(&self, point: HookPoint) -> &[Arc<dyn Hook>] {
        &self.by_point[point.index()]
    }

    /// Each distinct hook object once, in first-seen order.
    pub fn distinct(&self) -> &[Arc<dyn Hook>] {
        &self.distinct
    }

    /// The distinct hooks whose lifecycle methods do something (all but
    /// [`FunctionHook`](super::FunctionHook)s), in first-seen order.
    pub(crate) fn with_lifecycle(&self) -> &[Arc<dyn Hook>] {
        &self.lifecycle
    }

    /// `true` when no hook is registered.
    pub fn is_empty(&self) -> bool {
        self.distinct.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::{HookRegistration, Hooks};
    use crate::hook::{Hook, HookPoint, Opens, hook_fn};
    use crate::state::State;
    use std::sync::Arc;

    fn at_before_llm(hook: Arc<dyn Hook>) -> HookRegistration {
        HookRegistration {
            point: HookPoint::BeforeLlm,
            hook,
        }
    }

    #[test]
    fn only_hooks_with_lifecycle_methods_are_warmed_up_and_a_hook_fn_has_none() {
        let closure: Arc<dyn Hook> = Arc::new(hook_fn(|_: &mut State| ()));
        let custom: Arc<dyn Hook> = Arc::new(Opens);
        let hooks = Hooks::new(vec![
            at_before_llm(Arc::clone(&closure)),
            at_before_llm(Arc::clone(&custom)),
            at_before_llm(Arc::clone(&custom)),
        ])
        .unwrap();
        assert_eq!(hooks.distinct().len(), 2);
        assert_eq!(hooks.with_lifecycle().len(), 1);
        assert!(Arc::ptr_eq(&hooks.with_lifecycle()[0], &custom));
    }
}
