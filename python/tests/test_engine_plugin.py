"""The pytest plugin on the Haystack engine: the docs' hooks, verbatim in
examples/haystack/, run as pytest items through real Haystack; a planted bug
in one hook fails exactly the scenario that pins it, with hookharness's
report. Needs the release binary (`cargo build --release`, or
HOOKHARNESS_BIN) and an interpreter with haystack-ai (this one)."""

import os
import shutil
from pathlib import Path

import pytest
from engine_driver import release_binary
from plugin_support import ROOT, plugin_args, source_path

pytest_plugins = ["pytester"]

EXAMPLES = ROOT / "examples" / "haystack"
BINARY = release_binary()


@pytest.fixture
def project(pytester, monkeypatch):
    if not Path(BINARY).exists():
        pytest.fail(f"no hookharness binary at {BINARY}: run `cargo build --release` or set HOOKHARNESS_BIN")
    monkeypatch.setenv("HOOKHARNESS_BIN", BINARY)
    monkeypatch.setenv("HOOKHARNESS_PYTHON", os.environ.get("HOOKHARNESS_PYTHON", __import__("sys").executable))
    source_path(monkeypatch)
    for part in ("docs_hooks", "research_pack", "scenarios"):
        shutil.copytree(EXAMPLES / part, pytester.path / part)
    pytester.makeini("[pytest]\nhookharness_paths = scenarios\nhookharness_engine = haystack\n")
    return pytester


def scenario_count():
    return len(list((EXAMPLES / "scenarios").glob("*.yaml")))


def test_the_docs_hooks_pass_as_pytest_items_on_the_haystack_engine(project):
    result = project.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=scenario_count())


def test_a_bug_planted_in_a_python_hook_fails_exactly_the_scenarios_that_pin_it(project):
    hooks = project.path / "docs_hooks" / "research.py"
    text = hooks.read_text(encoding="utf-8")
    planted = text.replace('print(f"about to run: {[tc.tool_name for tc in pending]}")', 'print("about to run")')
    assert planted != text
    hooks.write_text(planted, encoding="utf-8")
    result = project.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rf")
    # The scenarios that expect the hook's printed line, and only they.
    pinning = sorted(p.name for p in (EXAMPLES / "scenarios").glob("*.yaml") if "about to run:" in p.read_text())
    assert len(pinning) >= 1
    result.assert_outcomes(passed=scenario_count() - len(pinning), failed=len(pinning))
    out = result.stdout.str()
    failed = sorted(line.split("::")[0].rpartition("/")[2] for line in out.splitlines() if line.startswith("FAILED scenarios/"))
    assert failed == pinning
    assert "printed: expected \"about to run: ['search']\"" in out
