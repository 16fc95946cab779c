//! Permuted registrations of a user's hooks.

use hookharness::replay::Replay;
use hookharness::strategies::{Registration, install, permuted_registrations};
use hookharness::{Hook, HookError, HookPoint, State, hook_fn};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::collections::BTreeSet;
use std::sync::Arc;

struct Anywhere;
impl Hook for Anywhere {
    fn run(&self, _: &mut State) -> Result<(), HookError> {
        Ok(())
    }
    fn allowed_hook_points(&self) -> Option<&[HookPoint]> {
        Some(&[HookPoint::BeforeLlm, HookPoint::AfterTool])
    }
}

fn hooks() -> Vec<(HookPoint, Arc<dyn Hook>)> {
    let a: Arc<dyn Hook> = Arc::new(hook_fn(|_: &mut State| {}).named("a"));
    let b: Arc<dyn Hook> = Arc::new(hook_fn(|_: &mut State| {}).named("a"));
    vec![
        (HookPoint::BeforeLlm, a.clone()),
        (HookPoint::BeforeLlm, b),
        (HookPoint::BeforeLlm, Arc::new(Anywhere)),
        (HookPoint::OnExit, a),
    ]
}

fn sample(n: usize) -> Vec<Vec<Registration>> {
    let strategy = permuted_registrations(hooks());
    let mut runner = TestRunner::deterministic();
    (0..n)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

#[test]
fn every_order_and_every_allowed_point_comes_up() {
    let seen: BTreeSet<String> = sample(400).iter().map(|regs| format!("{regs:?}")).collect();
    // 4! orders of the registrations, times 2 points for `Anywhere`; at
    // one point, what counts is the relative order.
    let at_points: BTreeSet<String> = sample(400)
        .iter()
        .map(|regs| {
            let mut by_point: Vec<String> = HookPoint::ALL
                .iter()
                .map(|p| {
                    regs.iter()
                        .filter(|r| r.point == *p)
                        .map(|r| r.name.clone())
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect();
            by_point.retain(|s| !s.is_empty());
            by_point.join(" | ")
        })
        .collect();
    assert!(seen.len() > 20, "{seen:#?}");
    assert_eq!(at_points.len(), 6 + 2, "{at_points:#?}");
}

#[test]
fn names_are_unique_per_hook_object_and_shared_by_one_object() {
    let regs = &sample(1)[0];
    let names: BTreeSet<&str> = regs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, BTreeSet::from(["Anywhere", "a", "a#2"]));
    let a: Vec<&Registration> = regs.iter().filter(|r| r.name == "a").collect();
    assert_eq!(a.len(), 2);
    assert!(Arc::ptr_eq(&a[0].hook, &a[1].hook));
}

#[test]
fn installed_registrations_run_in_their_order() {
    let base = crate::support::scenario("model: [{text: hi}]");
    for regs in sample(16) {
        let (scenario, replay) = install(&base, &regs, Replay::new());
        let outcome = replay.run(&scenario);
        assert!(outcome.passed(), "{:?}", outcome.error);
        let ran: Vec<String> = outcome
            .wire_trace()
            .filter(|e| e["point"] == "before_llm")
            .map(|e| e["hook"].as_str().unwrap_or_default().to_owned())
            .collect();
        let registered: Vec<String> = regs
            .iter()
            .filter(|r| r.point == HookPoint::BeforeLlm)
            .map(|r| r.name.clone())
            .collect();
        assert_eq!(ran, registered);
    }
}
