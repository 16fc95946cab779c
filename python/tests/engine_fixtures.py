"""Fixtures of the engine tests (imported by each test_engine_*.py): one worker per test module, inline scenarios."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_driver import Worker

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def module_worker():
    """A `worker` fixture for a test module: one worker process for all its tests (`worker = module_worker()`)."""

    @pytest.fixture(scope="module")
    def worker():
        w = Worker()
        yield w
        w.close()

    return worker


def hook_request(point: str, target: str, *, model=None, extra=None) -> dict:
    """A request whose scenario has one `python:` hook at `point`, importing from fixtures/user_code."""
    scenario = {
        "version": 1,
        "name": target.rpartition(":")[2],
        "python_path": ["user_code"],
        "hooks": {point: [{"python": target}]},
        "model": model if model is not None else [{"text": "done"}],
        "run": {"messages": [{"role": "user", "text": "go"}]},
        **(extra or {}),
    }
    return {
        "scenario": scenario,
        "file": str(FIXTURES / "inline.yaml"),
        "dir": str(FIXTURES),
        "hook_names": {point: [target.rpartition(":")[2]]},
        "detail": "summary",
        "keep_requests": False,
    }
