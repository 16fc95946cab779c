"""The plugin's collection: off unless configured, one item per scenario,
named by the scenario."""

from plugin_support import FAILS, INVALID, PASSES, plugin_args, project


def test_scenario_files_are_not_collected_unless_configured(pytester):
    project(pytester, {"greets.yaml": PASSES}, ini="")
    result = pytester.runpytest(*plugin_args(), "--collect-only", "-q")
    assert "greets" not in result.stdout.str()
    assert "test_plain.py::test_plain" in result.stdout.str()


def test_each_scenario_is_one_item_named_by_its_scenario(pytester):
    project(pytester, {"greets.yaml": PASSES, "steps.yml": FAILS, "nameless.yaml": INVALID})
    result = pytester.runpytest(*plugin_args(), "--collect-only", "-q")
    lines = result.stdout.lines
    assert "scenarios/greets.yaml::greets" in lines
    assert "scenarios/steps.yml::counts-steps" in lines
    # No `name`, or a file that does not read: the file stem, as hookharness names it.
    assert "scenarios/nameless.yaml::nameless" in lines


def test_the_glob_picks_the_files(pytester):
    project(
        pytester,
        {"greets.yaml": PASSES, "steps.yml": FAILS},
        ini="hookharness_paths = scenarios\nhookharness_glob = *.yml",
    )
    result = pytester.runpytest(*plugin_args(), "--collect-only", "-q")
    assert "scenarios/steps.yml::counts-steps" in result.stdout.lines
    assert "greets" not in result.stdout.str()


def test_files_outside_the_paths_are_left_alone(pytester):
    project(pytester, {"greets.yaml": PASSES}, ini="hookharness_paths = elsewhere")
    (pytester.path / "elsewhere").mkdir()
    (pytester.path / "config.yaml").write_text("key: value\n", encoding="utf-8")
    result = pytester.runpytest(*plugin_args(), "--collect-only", "-q")
    assert "greets" not in result.stdout.str()
    assert "config" not in result.stdout.str()


def test_the_ini_options_are_documented_in_help(pytester):
    result = pytester.runpytest(*plugin_args(), "--help")
    text = result.stdout.str()
    for option in ("hookharness_paths", "hookharness_glob", "hookharness_engine", "--hookharness-engine"):
        assert option in text
