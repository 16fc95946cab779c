#!/usr/bin/env bash
# Differential fuzzing against Haystack 3.4.1: generates scenarios over the
# whole scenario contract from a seed, replays them through the Rust harness
# and the real haystack-ai 3.4.1 Agent, and shrinks every undocumented
# difference into target/fuzz/<scenario>/ with both outcomes
# (conformance/fuzz.py; its options pass through: --count N --seed S
# --max-seconds T --out DIR).
# Prints the seed first; exits non-zero on any difference not documented in
# docs/deviations.md.
#
# Environment: HOOKHARNESS_REF_VENV (default .venv-ref) is the Python venv with
# haystack-ai 3.4.1, created when missing; CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."

source conformance/venv.sh

cargo build --release --quiet

exec "$venv/bin/python" conformance/fuzz.py \
  --hookharness "${CARGO_TARGET_DIR:-target}/release/hookharness" "$@"
