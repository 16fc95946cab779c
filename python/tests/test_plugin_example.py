"""examples/haystack_project as a user runs it, on the Haystack engine: `pytest`
in the project passes; a planted bug in one of its hooks fails exactly that
scenario's test, with hookharness's report; `-n 2` gives the same verdicts;
`--junitxml` names each scenario.

The scenarios import the project's package through `python_path: [".."]`, so a
copy of the project runs its own (planted) code, installed or not."""

import importlib.util
import shutil
import xml.etree.ElementTree as ET

import pytest
from plugin_support import ROOT, binary, plugin_args, source_path

EXAMPLE = ROOT / "examples" / "haystack_project"
# scenarios/accounts/ takes objects from its conftest.py's fixtures (a database client, hooks by name, the Agent).
SCENARIOS = sorted(p.name for p in (EXAMPLE / "scenarios").rglob("*.yaml"))

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("haystack") is None,
    reason="the example project runs on the Haystack engine: install hookharness[haystack] (haystack-ai 3.4.1)",
)


def copy(pytester, monkeypatch):
    monkeypatch.setenv("HOOKHARNESS_BIN", binary())
    source_path(monkeypatch)
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    return pytester.path


def plant_a_bug(project):
    """require_search forgets to send the model back: the run ends on its first answer."""
    hooks = project / "haystack_project" / "hooks.py"
    text = hooks.read_text(encoding="utf-8")
    planted = text.replace('        state.set("continue_run", True)\n', "        pass\n")
    assert planted != text
    hooks.write_text(planted, encoding="utf-8")


def test_the_example_project_passes_on_the_haystack_engine(pytester, monkeypatch):
    copy(pytester, monkeypatch)
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=len(SCENARIOS))


def test_a_planted_bug_in_a_hook_that_reads_a_fixture_object_fails_its_scenario(pytester, monkeypatch):
    project = copy(pytester, monkeypatch)
    accounts = project / "haystack_project" / "accounts.py"
    text = accounts.read_text(encoding="utf-8")
    planted = text.replace('plan = row[0] if row else "free"', 'plan = "free"')
    assert planted != text
    accounts.write_text(planted, encoding="utf-8")
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=len(SCENARIOS) - 1, failed=1)
    out = result.stdout.str()
    assert "FAILED scenarios/accounts/gold_customer.yaml::accounts-gold-customer" in out
    assert "printed: expected 'customer u1: gold'" in out


def test_a_planted_bug_in_a_hook_fails_exactly_its_scenario_with_the_report(pytester, monkeypatch):
    project = copy(pytester, monkeypatch)
    plant_a_bug(project)
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=len(SCENARIOS) - 1, failed=1)
    out = result.stdout.str()
    assert "FAILED scenarios/require_search.yaml::docs-require-search" in out
    assert "FAIL  scenarios/require_search.yaml  (docs-require-search)" in out
    assert "trace, last events:" in out
    assert "hookharness explain --engine haystack scenarios/require_search.yaml" in out


def test_xdist_gives_the_same_verdicts_and_junitxml_names_each_scenario(pytester, monkeypatch):
    project = copy(pytester, monkeypatch)
    plant_a_bug(project)
    result = pytester.runpytest_subprocess(
        *plugin_args(), "-p", "no:cacheprovider", "-n", "2", "-rf", "--junitxml=report.xml"
    )
    result.assert_outcomes(passed=len(SCENARIOS) - 1, failed=1)
    assert "FAILED scenarios/require_search.yaml::docs-require-search" in result.stdout.str()
    cases = {case.get("name"): case for case in ET.parse(project / "report.xml").getroot().iter("testcase")}
    assert set(cases) == {
        "accounts-gold-customer",
        "accounts-unknown-customer",
        "docs-audit-tool-calls",
        "docs-build-context",
        "docs-require-search",
        "docs-require-search-satisfied",
        "research-factory",
    }
    assert [name for name, case in cases.items() if case.find("failure") is not None] == ["docs-require-search"]
