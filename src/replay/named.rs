//! A registered hook shown under the name the scenario gives it.

use crate::hook::{Hook, HookError, HookFuture, HookPoint};
use crate::state::State;
use std::borrow::Cow;
use std::sync::Arc;

/// Wraps a `custom:` hook so the trace shows its scenario name.
pub(crate) struct NamedHook {
    name: String,
    inner: Arc<dyn Hook>,
}

impl NamedHook {
    pub(crate) fn new(name: String, inner: Arc<dyn Hook>) -> Self {
        NamedHook { name, inner }
    }
}

impl Hook for NamedHook {
    fn run(&self, state: &mut State) -> Result<(), HookError> {
        self.inner.run(state)
    }

    fn run_async<'a>(&'a self, state: &'a mut State) -> HookFuture<'a> {
        self.inner.run_async(state)
    }

    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }

    fn type_name(&self) -> &'static str {
        self.inner.type_name()
    }

    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        self.inner.allowed_hook_points()
    }

    fn warm_up(&self) -> Result<(), HookError> {
        self.inner.warm_up()
    }

    fn warm_up_async(&self) -> HookFuture<'_> {
        self.inner.warm_up_async()
    }

    fn close(&self) -> Result<(), HookError> {
        self.inner.close()
    }

    fn close_async(&self) -> HookFuture<'_> {
        self.inner.close_async()
    }

    fn has_lifecycle(&self, token: crate::hook::LifecycleToken) -> bool {
        self.inner.has_lifecycle(token)
    }
}

#[cfg(test)]
mod tests {
    use super::NamedHook;
    use crate::hook::{Hook, LifecycleToken, Opens, hook_fn};
    use crate::state::State;
    use std::sync::Arc;

    #[test]
    fn a_named_hook_has_the_lifecycle_of_the_hook_it_wraps() {
        let closure = NamedHook::new("a".into(), Arc::new(hook_fn(|_: &mut State| ())));
        let custom = NamedHook::new("b".into(), Arc::new(Opens));
        assert!(!closure.has_lifecycle(LifecycleToken));
        assert!(custom.has_lifecycle(LifecycleToken));
    }
}
