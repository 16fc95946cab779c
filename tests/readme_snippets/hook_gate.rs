use hookharness::bench::HookGate;
use hookharness::{HookPoint, State, hook_fn};

fn main() -> std::process::ExitCode {
    let audit = hook_fn(|state: &mut State| {
        let _pending = state.messages().last().map(|m| m.tool_calls().count());
    })
    .named("audit");
    HookGate::new("audit", HookPoint::BeforeTool, audit).main()
}
