"""Which core a scenario is held on (`placement.py`): the core the worker is on when it is first held, kept across
scenarios until `KEEP_SECONDS` have passed, then chosen again where the scheduler has the worker."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hookharness.engine import placement


@pytest.fixture
def scheduler(monkeypatch):
    """A clock the test moves, a scheduler that has the worker on the core the test says, and the affinity calls
    recorded instead of made."""
    now, on, calls = [100.0], [0], []
    monkeypatch.setattr(placement, "_monotonic", lambda: now[0])
    monkeypatch.setattr(placement, "_CPU", lambda: on[0])
    monkeypatch.setattr(placement, "_ALL", {0, 1})
    monkeypatch.setattr(placement, "_HELD", [None])
    monkeypatch.setattr(placement.os, "sched_setaffinity", lambda pid, cores: calls.append(set(cores)))
    return now, on, calls


def test_scenarios_keep_to_one_core_until_its_time_is_up_then_the_scheduler_places_the_worker(scheduler):
    now, on, calls = scheduler
    placement.hold()
    assert calls == [{0}]
    placement.let_go(unless_recent=True)  # the scenario ended quickly: the next one keeps to the core
    on[0] = 1
    placement.hold()
    assert calls == [{0}], "a scenario within the time moved the worker off the core the one before it warmed"
    now[0] += placement.KEEP_SECONDS + 0.01
    placement.let_go(unless_recent=True)
    assert calls == [{0}, {0, 1}], "past its time the worker was not given its cores back"
    placement.hold()
    assert calls[-1] == {1}, "the next scenario was not held where the scheduler had the worker"


def test_a_core_the_system_refuses_leaves_the_worker_free_and_is_asked_again(scheduler, monkeypatch):
    calls = scheduler[2]

    def refuse(pid, cores):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(placement.os, "sched_setaffinity", refuse)
    placement.hold()
    assert placement._HELD[0] is None
    monkeypatch.setattr(placement.os, "sched_setaffinity", lambda pid, cores: calls.append(set(cores)))
    placement.hold()
    assert calls == [{0}] and placement._HELD[0] is not None


def test_building_a_factory_is_never_held(scheduler):
    calls = scheduler[2]
    placement.hold()
    placement.let_go()  # what `construct` requests do, however recent the hold
    assert calls == [{0}, {0, 1}] and placement._HELD[0] is None
