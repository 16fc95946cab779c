"""examples/haystack_project as a user runs it: `pytest` in the project
passes; a planted bug in one hook fails exactly that scenario's test, with
hookharness's report."""

import shutil

from plugin_support import ROOT, binary, plugin_args

EXAMPLE = ROOT / "examples" / "haystack_project"


def copy(pytester):
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True)
    return pytester.path


def test_the_example_project_passes(pytester, monkeypatch):
    monkeypatch.setenv("HOOKHARNESS_BIN", binary())
    copy(pytester)
    result = pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(list((EXAMPLE / "scenarios").glob("*.yaml"))))


def test_a_planted_bug_fails_exactly_its_scenario_with_the_report(pytester, monkeypatch):
    monkeypatch.setenv("HOOKHARNESS_BIN", binary())
    project = copy(pytester)
    scenario = project / "scenarios" / "require_search.yaml"
    text = scenario.read_text(encoding="utf-8")
    # The hook forgets to send the model back: the run ends on its first answer.
    planted = text.replace("        - continue_run: true\n", "")
    assert planted != text
    scenario.write_text(planted, encoding="utf-8")
    result = pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider", "-rf")
    total = len(list((EXAMPLE / "scenarios").glob("*.yaml")))
    result.assert_outcomes(passed=total - 1, failed=1)
    out = result.stdout.str()
    assert "FAILED scenarios/require_search.yaml::docs-require-search" in out
    assert "FAIL  scenarios/require_search.yaml  (docs-require-search)" in out
    assert "trace, last events:" in out
    assert "hookharness explain scenarios/require_search.yaml" in out
