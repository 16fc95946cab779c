//! Registration orders of a user's own hooks.

use crate::hook::{Hook, HookPoint, HookRegistration};
use crate::replay::Replay;
use crate::scenario::{HookEntry, Scenario};
use proptest::prelude::*;
use std::fmt;
use std::sync::Arc;

/// One hook at one point, under a name that is unique within its set.
///
/// ```
/// use hookharness::hook::HookRegistration;
/// use hookharness::{HookPoint, State, hook_fn};
/// use hookharness::strategies::permuted_registrations;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// use std::sync::Arc;
///
/// let hook: Arc<dyn hookharness::Hook> = Arc::new(hook_fn(|_: &mut State| {}).named("audit"));
/// let registrations = permuted_registrations(vec![(HookPoint::AfterRun, hook)])
///     .new_tree(&mut TestRunner::deterministic()).unwrap().current();
/// assert_eq!(format!("{registrations:?}"), "[after_run:audit]");
/// let registration: HookRegistration = registrations[0].clone().into();
/// assert_eq!(registration.point, HookPoint::AfterRun);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct Registration {
    /// The point.
    pub point: HookPoint,
    /// The hook.
    pub hook: Arc<dyn Hook>,
    /// The hook's name, with `#2`, `#3`, ... added when two distinct hook
    /// objects share a name; the same object keeps one name.
    pub name: String,
}

impl fmt::Debug for Registration {
    /// `point:name`, as `expect.hooks` writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.point, self.name)
    }
}

impl From<Registration> for HookRegistration {
    fn from(registration: Registration) -> Self {
        HookRegistration {
            point: registration.point,
            hook: registration.hook,
        }
    }
}

/// Names for the hooks: each distinct object once, duplicates numbered.
fn names(hooks: &[(HookPoint, Arc<dyn Hook>)]) -> Vec<String> {
    let mut seen: Vec<(&Arc<dyn Hook>, String)> = Vec::new();
    let mut names = Vec::with_capacity(hooks.len());
    for (_, hook) in hooks {
        if let Some((_, name)) = seen.iter().find(|(h, _)| Arc::ptr_eq(h, hook)) {
            names.push(name.clone());
            continue;
        }
        let base = hook.name().into_owned();
        let taken = |n: &str| seen.iter().any(|(_, name)| name == n);
        let mut name = base.clone();
        let mut k = 2;
        while taken(&name) {
            name = format!("{base}#{k}");
            k += 1;
        }
        seen.push((hook, name.clone()));
        names.push(name);
    }
    names
}

/// Every registration order of a set of hooks, within and across the
/// points each hook allows.
///
/// Each `(point, hook)` is registered once. A hook that declares
/// [`allowed_hook_points`](Hook::allowed_hook_points) including `point` may
/// move to any of its allowed points; any other hook stays at `point`. The
/// registrations then come in a random order, which is the order of the
/// hooks at each point. Shrinking moves hooks back to the given points and
/// towards the given order.
///
/// ```
/// use hookharness::{Hook, HookError, HookPoint, State, hook_fn};
/// use hookharness::strategies::permuted_registrations;
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// use std::sync::Arc;
///
/// struct Redact;
/// impl Hook for Redact {
///     fn run(&self, _: &mut State) -> Result<(), HookError> { Ok(()) }
///     fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
///         Some(&[HookPoint::BeforeLlm, HookPoint::AfterTool])
///     }
/// }
/// let hooks: Vec<(HookPoint, Arc<dyn Hook>)> = vec![
///     (HookPoint::BeforeLlm, Arc::new(Redact)),
///     (HookPoint::BeforeLlm, Arc::new(hook_fn(|_: &mut State| {}).named("audit"))),
///     (HookPoint::OnExit, Arc::new(hook_fn(|_: &mut State| {}).named("nudge"))),
/// ];
/// let mut runner = TestRunner::deterministic();
/// let strategy = permuted_registrations(hooks);
/// for _ in 0..16 {
///     let registrations = strategy.new_tree(&mut runner).unwrap().current();
///     assert_eq!(registrations.len(), 3);
///     let redact = registrations.iter().find(|r| r.name == "Redact").unwrap();
///     assert!(matches!(redact.point, HookPoint::BeforeLlm | HookPoint::AfterTool));
///     let nudge = registrations.iter().find(|r| r.name == "nudge").unwrap();
///     assert_eq!(nudge.point, HookPoint::OnExit);
/// }
/// ```
pub fn permuted_registrations(
    hooks: Vec<(HookPoint, Arc<dyn Hook>)>,
) -> BoxedStrategy<Vec<Registration>> {
    let names = names(&hooks);
    let choices: Vec<BoxedStrategy<Registration>> = hooks
        .into_iter()
        .zip(names)
        .map(|((point, hook), name)| {
            let mut points = vec![point];
            if let Some(allowed) = hook.allowed_hook_points() {
                if allowed.contains(&point) {
                    points.extend(allowed.iter().copied().filter(|p| *p != point));
                }
            }
            prop::sample::select(points)
                .prop_map(move |point| Registration {
                    point,
                    hook: Arc::clone(&hook),
                    name: name.clone(),
                })
                .boxed()
        })
        .collect();
    choices.prop_shuffle().boxed()
}

/// The scenario with the registrations appended as `custom:` hooks, in
/// order, and a replayer that knows them by name (on top of `replay`'s own
/// custom hooks). The scenario can be written out (see
/// [`Scenario::to_yaml`]) and replayed by a test that registers the same
/// hooks under the same names. A hook `replay` already registers (the very
/// object, or the one hook of its type) keeps the name it has there:
/// `Replay::new().custom_hook("block_dangerous", BlockDangerousCalls)`
/// makes `custom: block_dangerous`, not `custom: BlockDangerousCalls`.
///
/// ```
/// use hookharness::{HookPoint, State, hook_fn};
/// use hookharness::replay::Replay;
/// use hookharness::scenario::{Format, Scenario};
/// use hookharness::strategies::{install, permuted_registrations};
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// use std::sync::Arc;
///
/// let base = Scenario::from_str("model: [{text: hi}]", "base.yaml", Format::Yaml)?;
/// let hooks: Vec<(HookPoint, Arc<dyn hookharness::Hook>)> = vec![
///     (HookPoint::AfterRun, Arc::new(hook_fn(|_: &mut State| {}).named("a"))),
///     (HookPoint::AfterRun, Arc::new(hook_fn(|_: &mut State| {}).named("b"))),
/// ];
/// let registrations = permuted_registrations(hooks)
///     .new_tree(&mut TestRunner::deterministic()).unwrap().current();
/// let (scenario, replay) = install(&base, &registrations, Replay::new());
/// let outcome = replay.run(&scenario);
/// assert!(outcome.passed(), "{:?}", outcome.error);
/// assert_eq!(outcome.wire_trace().count(), 4); // llm, exit, then the two after_run hooks
/// # Ok::<(), hookharness::scenario::ScenarioError>(())
/// ```
#[must_use]
pub fn install(
    base: &Scenario,
    registrations: &[Registration],
    replay: Replay,
) -> (Scenario, Replay) {
    let mut scenario = base.clone();
    let mut installed = replay.clone();
    for registration in registrations {
        // A hook the given replayer knows goes by the name it was registered
        // under there: a written counterexample then replays in the user's
        // own test, which registers it under that name.
        let name = replay
            .registered_name(&registration.hook)
            .map_or_else(|| registration.name.clone(), str::to_owned);
        scenario
            .hooks
            .entry(registration.point.as_str().to_owned())
            .or_default()
            .push(HookEntry::Custom(name.clone()));
        installed = installed.custom_hook_arc(name, Arc::clone(&registration.hook));
    }
    (scenario, installed)
}

#[cfg(test)]
mod tests {
    use super::{Registration, install};
    use crate::hook::{Hook, HookError, HookPoint};
    use crate::replay::Replay;
    use crate::scenario::{Format, HookEntry, Scenario};
    use crate::state::State;
    use std::sync::Arc;

    struct BlockDangerousCalls;

    impl Hook for BlockDangerousCalls {
        fn run(&self, _: &mut State) -> Result<(), HookError> {
            Ok(())
        }
    }

    fn registration(hook: Arc<dyn Hook>) -> Registration {
        Registration {
            point: HookPoint::BeforeTool,
            name: hook.name().into_owned(),
            hook,
        }
    }

    fn installed_names(replay: Replay, hook: Arc<dyn Hook>) -> Vec<HookEntry> {
        let base = Scenario::from_str("model: [{text: hi}]", "base.yaml", Format::Yaml).unwrap();
        let (scenario, replay) = install(&base, &[registration(hook)], replay);
        assert!(replay.run(&scenario).passed());
        scenario.hooks["before_tool"].clone()
    }

    #[test]
    fn a_hook_the_replayer_registers_keeps_its_registered_name() {
        let by_type = Replay::new().custom_hook("block_dangerous", BlockDangerousCalls);
        assert_eq!(
            installed_names(by_type, Arc::new(BlockDangerousCalls)),
            [HookEntry::Custom("block_dangerous".into())]
        );
        let hook: Arc<dyn Hook> = Arc::new(BlockDangerousCalls);
        let same = Replay::new().custom_hook_arc("guard", Arc::clone(&hook));
        assert_eq!(
            installed_names(same, hook),
            [HookEntry::Custom("guard".into())]
        );
    }

    #[test]
    fn a_hook_the_replayer_does_not_know_goes_by_its_own_name() {
        assert_eq!(
            installed_names(Replay::new(), Arc::new(BlockDangerousCalls)),
            [HookEntry::Custom("BlockDangerousCalls".into())]
        );
        let closure = Replay::new().custom_hook("other", crate::hook_fn(|_: &mut State| {}));
        let named: Arc<dyn Hook> = Arc::new(crate::hook_fn(|_: &mut State| {}).named("audit"));
        assert_eq!(
            installed_names(closure, named),
            [HookEntry::Custom("audit".into())]
        );
    }
}
