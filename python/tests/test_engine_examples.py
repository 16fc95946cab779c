"""examples/haystack: every example scenario passes through the worker, and the factory example replays the same."""

import json
from pathlib import Path

import pytest
from engine_driver import ROOT, Worker, check, request, scenario_value
from engine_fixtures import module_worker

worker = module_worker()
EXAMPLES = sorted((ROOT / "examples/haystack/scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_example_scenario_passes(worker, path: Path, is_async: bool):
    scenario = scenario_value(path)
    if is_async:  # the same run on Haystack's async path (run_async, hooks' run_async, tools in tasks)
        scenario.setdefault("run", {})["async"] = True
    record = worker.run(request(path, scenario=scenario, keep_requests=True))
    assert check(scenario, record) == []


def test_examples_cover_the_docs_hooks():
    text = "".join(p.read_text() for p in EXAMPLES)
    for target in (
        "docs_hooks.research:build_context",
        "docs_hooks.research:make_agent",
        "docs_hooks.grading:GradeFinalAnswer",
        "docs_hooks.grading:make_agent",
        "docs_hooks.ready_made:make_confirmation_agent",
        "docs_hooks.ready_made:make_offload_agent",
        "research_pack.agents:make_research_agent",
    ):
        assert target in text, target


def test_a_fail_judge_and_a_pass_judge_grade_differently(worker):
    path = ROOT / "examples/haystack/scenarios/grade_final_answer_pass.yaml"
    scenario = scenario_value(path)
    scenario["models"]["judge"]["replies"] = [{"text": "FAIL"}]
    record = worker.run(request(path, scenario=scenario, keep_requests=True))
    # The judge says FAIL: the hook asks for more, and the script has no second answer.
    assert record["error"]["kind"] == "generator"
    assert record["error"]["message"].startswith("model script exhausted at LLM call 1")
    assert check(scenario_value(path), record) != []


def test_the_factory_example_replays_byte_identically(worker):
    path = ROOT / "examples/haystack/scenarios/research_factory.yaml"
    first = json.dumps(worker.run(request(path, keep_requests=True)), sort_keys=True)
    assert json.dumps(worker.run(request(path, keep_requests=True)), sort_keys=True) == first
    fresh = Worker()
    try:
        assert json.dumps(fresh.run(request(path, keep_requests=True)), sort_keys=True) == first
    finally:
        fresh.close()


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_a_broken_copy_of_the_examples_fails_the_scenario(worker, path: Path):
    scenario = scenario_value(path)
    assert scenario["python_path"] == [".."]
    scenario["python_path"] = ["../broken"]  # examples/haystack/broken: the same packages, each with one bug
    record = worker.run(request(path, scenario=scenario, keep_requests=True))
    assert record["error"] is None or record["error"]["kind"] != "run", record["error"]  # they import and build
    failures = check(scenario, record)
    assert failures, f"{path.name} still passes with the broken copies"
    assert all(": expected " in f or " not " in f or f.startswith("the run failed") for f in failures), failures


def test_a_sub_agent_past_its_script_is_the_runs_error_naming_the_script(worker):
    path = ROOT / "examples/haystack/scenarios/research_factory.yaml"
    scenario = scenario_value(path)
    scenario["models"]["researcher"]["replies"] = scenario["models"]["researcher"]["replies"][:1]
    error = worker.run(request(path, scenario=scenario))["error"]
    assert error["kind"] == "run"
    assert error["message"].startswith("model script `researcher` exhausted at call 1 from ")
    assert "script one more reply under `models.researcher.replies`" in error["message"]
