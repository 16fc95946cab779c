"""Hooks and tools that misbehave, for the Haystack engine's tests (tests/engine_haystack.rs)."""
