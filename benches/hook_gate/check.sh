#!/usr/bin/env bash
# The users' hook gate (examples/hook_gate.rs) passes on the committed
# baseline and fails both ways it should: a slower hook and a hook that
# behaves differently.
set -uo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --example hook_gate || exit 1
gate=target/release/examples/hook_gate
[ -n "${CARGO_TARGET_DIR:-}" ] && gate="$CARGO_TARGET_DIR/release/examples/hook_gate"

"$gate" || { echo "the hook gate fails on its own baseline" >&2; exit 1; }
expect_failure() {
  local variant=$1 wording=$2 output
  if output=$(HOOK_GATE_VARIANT=$variant "$gate" 2>&1); then
    echo "the hook gate passed a $variant hook:" >&2
    echo "$output" >&2
    exit 1
  fi
  if ! grep -q "$wording" <<<"$output"; then
    echo "the hook gate failed a $variant hook, but not for that reason:" >&2
    echo "$output" >&2
    exit 1
  fi
  echo "a $variant hook fails the gate: ok"
}
expect_failure slower "instructions per standard tool step"
expect_failure different "behaves differently"
