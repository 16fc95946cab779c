#!/usr/bin/env bash
# Conformance with Haystack 3.4.1: replays every scenario through the Rust
# harness and through the real haystack-ai 3.4.1 Agent (conformance/runner.py),
# and compares the outcomes field by field (conformance/compare.py).
# Prints one line per scenario and a final "N identical, N documented, N different";
# exits non-zero on any difference not documented in docs/deviations.md.
#
# Environment: HOOKHARNESS_REF_VENV (default .venv-ref) is the Python venv with
# haystack-ai 3.4.1, created when missing; CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."

source conformance/venv.sh

cargo build --release --quiet

# The comparison's own cases first: it must still tell a real difference.
"$venv/bin/python" conformance/check_compare.py > /dev/null || "$venv/bin/python" conformance/check_compare.py
"$venv/bin/python" conformance/compare.py \
  --hookharness "${CARGO_TARGET_DIR:-target}/release/hookharness" \
  scenarios/ conformance/selftest/ conformance/deviations/
