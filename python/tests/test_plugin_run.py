"""The plugin's runs: verdicts, the report of a failure, pytest's selection
and sharding flags, one `hookharness run` per process."""

import xml.etree.ElementTree as ET

from plugin_support import (
    FAILS,
    INVALID,
    PASSES,
    binary,
    counting_binary,
    plugin_args,
    project,
    source_path,
)


def run(pytester, monkeypatch, *args, subprocess=False):
    monkeypatch.setenv("HOOKHARNESS_BIN", binary())
    if subprocess:
        source_path(monkeypatch)
    runner = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    cache = [] if "--lf" in args else ["-p", "no:cacheprovider"]
    return runner(*plugin_args(), *cache, *args)


def test_a_passing_and_a_failing_scenario(pytester, monkeypatch):
    project(pytester, {"greets.yaml": PASSES, "steps.yaml": FAILS})
    result = run(pytester, monkeypatch)
    result.assert_outcomes(passed=2, failed=1)
    text = result.stdout.str()
    # hookharness's own report: the expectation, expected against actual, the trace's end.
    assert "FAIL  scenarios/steps.yaml  (counts-steps)" in text
    assert "step_count" in text and "trace, last events:" in text
    assert "replay it step by step: hookharness explain scenarios/steps.yaml" in text
    assert "FAILED scenarios/steps.yaml::counts-steps" in text


def test_an_outcome_holding_a_unicode_line_separator_is_read_whole(pytester, monkeypatch):
    """JSON keeps U+2028 and U+2029 raw inside strings; Python's str.splitlines() ends a line there."""
    separated = PASSES.replace("Hello.", '"Hello\u2028there\u2029."').replace("name: greets", "name: separated")
    project(pytester, {"separated.yaml": separated})
    run(pytester, monkeypatch).assert_outcomes(passed=2)


def test_an_invalid_file_fails_with_the_loader_error(pytester, monkeypatch):
    project(pytester, {"nameless.yaml": INVALID})
    result = run(pytester, monkeypatch)
    result.assert_outcomes(passed=1, failed=1)
    assert "unknown key `txt`" in result.stdout.str()


def test_k_selects_scenarios_by_name(pytester, monkeypatch):
    project(pytester, {"greets.yaml": PASSES, "steps.yaml": FAILS})
    run(pytester, monkeypatch, "-k", "greets").assert_outcomes(passed=1, deselected=2)


def test_x_stops_at_the_first_failure(pytester, monkeypatch):
    project(pytester, {"a_steps.yaml": FAILS, "b_greets.yaml": PASSES})
    run(pytester, monkeypatch, "-x", "scenarios").assert_outcomes(failed=1)


def test_lf_reruns_the_failed_scenario(pytester, monkeypatch):
    project(pytester, {"greets.yaml": PASSES, "steps.yaml": FAILS})
    run(pytester, monkeypatch, "--lf").assert_outcomes(passed=2, failed=1)
    again = run(pytester, monkeypatch, "--lf")
    again.assert_outcomes(failed=1)
    assert "counts-steps" in again.stdout.str()


def test_junitxml_names_each_scenario(pytester, monkeypatch):
    project(pytester, {"greets.yaml": PASSES, "steps.yaml": FAILS})
    run(pytester, monkeypatch, "--junitxml=report.xml")
    cases = ET.parse(pytester.path / "report.xml").getroot().iter("testcase")
    by_name = {case.get("name"): case for case in cases}
    assert set(by_name) == {"greets", "counts-steps", "test_plain"}
    assert by_name["counts-steps"].find("failure") is not None
    assert "trace, last events:" in by_name["counts-steps"].find("failure").text


def test_one_hookharness_run_serves_a_process(pytester, monkeypatch, tmp_path):
    project(pytester, {f"s{i}.yaml": PASSES.replace("greets", f"greets-{i}") for i in range(5)})
    wrapper, log = counting_binary(tmp_path, binary())
    monkeypatch.setenv("HOOKHARNESS_BIN", str(wrapper))
    pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider").assert_outcomes(passed=6)
    runs = [line for line in log.read_text().splitlines() if line.startswith("run ")]
    assert len(runs) == 1, runs
    assert runs[0].count(".yaml") == 5


def test_xdist_gives_the_same_verdicts(pytester, monkeypatch):
    scenarios = {f"s{i}.yaml": PASSES.replace("greets", f"greets-{i}") for i in range(6)}
    scenarios["steps.yaml"] = FAILS
    project(pytester, scenarios)
    result = run(pytester, monkeypatch, "-n", "2", subprocess=True)
    result.assert_outcomes(passed=7, failed=1)
    assert "FAILED scenarios/steps.yaml::counts-steps" in result.stdout.str()


def test_an_engine_option_reaches_the_command(pytester, monkeypatch, tmp_path):
    project(pytester, {"greets.yaml": PASSES})
    wrapper, log = counting_binary(tmp_path, binary())
    monkeypatch.setenv("HOOKHARNESS_BIN", str(wrapper))
    pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider", "--hookharness-engine", "rust")
    assert "--engine rust" in log.read_text()


def test_a_timeout_that_is_no_time_is_a_usage_error(pytester, monkeypatch):
    project(pytester, {"greets.yaml": PASSES})
    for given in ("0", "-5", "inf", "nan"):
        result = run(pytester, monkeypatch, "--hookharness-timeout", given)
        assert result.ret == 4, given
        result.stderr.fnmatch_lines([f"*--hookharness-timeout {float(given)}: give the seconds a batch may take, above 0*"])


def test_a_missing_binary_fails_each_scenario_with_the_fix(pytester, monkeypatch, tmp_path):
    project(pytester, {"greets.yaml": PASSES})
    monkeypatch.setenv("HOOKHARNESS_BIN", str(tmp_path / "absent"))
    monkeypatch.setenv("PATH", str(tmp_path))
    result = pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert "HOOKHARNESS_BIN is" in result.stdout.str()
    assert "which is not an executable file" in result.stdout.str()


def test_pytest_split_groups_cover_each_scenario_once(pytester, monkeypatch):
    project(pytester, {f"s{i}.yaml": PASSES.replace("greets", f"greets-{i}") for i in range(6)})
    seen = []
    for group in ("1", "2"):
        result = run(pytester, monkeypatch, "--splits", "2", "--group", group, "-v")
        seen += [line.split(" ")[0] for line in result.stdout.lines if " PASSED" in line]
    scenarios = [node for node in seen if node.startswith("scenarios/")]
    assert sorted(scenarios) == sorted(f"scenarios/s{i}.yaml::greets-{i}" for i in range(6))
