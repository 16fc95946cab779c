"""The Haystack engine's worker: runs scenarios through the real haystack-ai `Agent`.

The Rust `hookharness` binary starts `python -m hookharness.engine.worker`, hands it each scenario (already
validated, in the scenario format's canonical JSON) and reads back one record per scenario: the trace, Haystack's
result or error, what was streamed and which scripted replies went unused. See `worker.py` for the protocol.

Modules:
- `worker`: the entry point, the handshake and the request loop.
- `protocol`: reading requests and writing responses on the worker's private channel.
- `spec`: the canonical scenario JSON as plain objects, with the format's defaults.
- `scripted`: scripted chat generators (the main `model`, named `models`), scripted tools, `replaces:`.
- `declarative`: `when`/`do` hooks; `ready_made`: Haystack's ready-made hooks from their parameters.
- `user_code`: importing `python:` objects, hooks and agent factories; user-code error texts.
- `recorder`: the trace, observed where Haystack does each thing (`observe` installs the observers).
- `sandbox`: the clock, the closed network, output capture and `python_path`.
- `run`: one request to one record.
- `values`: JSON helpers and message specs.
"""
