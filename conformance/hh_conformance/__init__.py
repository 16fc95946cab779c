"""Reference runner for hookharness scenario files.

Replays scenario files (see the scenario-format contract) through the real
Haystack 3.4.1 `Agent` and reports outcomes in the same JSON form as the Rust
`hookharness run --format json`, so the two can be compared field by field.

Modules:
- `source`: reading YAML/JSON with key positions, duplicate-key detection.
- `scenario`: validating a file into a `Scenario` (file errors name key and position).
- `values`: JSON-value equality, message specs -> ChatMessage, JSON rendering of results.
- `scripted`: the mock chat generator and the scripted tools.
- `hooks`: declarative hooks and the supported ready-made hooks.
- `instrument`: the trace recorder and the Haystack call sites it observes.
- `run`: running one scenario and checking its expectations.
"""

from .run import run_file

__all__ = ["run_file"]
