"""The pytest plugin: scenario files as pytest tests.

Off unless configured. In pytest.ini, or `[tool.pytest.ini_options]` of
pyproject.toml:

    hookharness_paths = ["scenarios"]     # folders (or files) whose scenario files are tests
    hookharness_glob = ["*.yaml"]         # which files count (default: *.yaml *.yml *.json)
    hookharness_engine = "haystack"       # optional: `hookharness run --engine` (or --hookharness-engine)

Each scenario file is one pytest item named by its scenario's `name` (else
the file stem), so `-k`, `--lf`, `-x`, `--junitxml`, pytest-xdist and
pytest-split see one test per scenario. The items run through the
`hookharness` command: the first item a process runs starts one
`hookharness run` over its file and every file the process has still to run
(with pytest-xdist: the items queued on that worker), so one engine worker
serves them; later items read their outcome from it. A failure shows
hookharness's report and the `hookharness explain` command that replays it.
"""

import fnmatch
import json
import pathlib

import pytest

from hookharness import BinaryNotFound, _yaml12
from hookharness._batch import BatchFailed, Outcomes, report, shown

DEFAULT_GLOB = ["*.yaml", "*.yml", "*.json"]
_OUTCOMES = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup("hookharness", "hookharness scenario files")
    group.addoption(
        "--hookharness-engine",
        dest="hookharness_engine",
        default=None,
        help="the engine scenarios run on (`hookharness run --engine`); overrides the hookharness_engine ini option",
    )
    group.addoption(
        "--hookharness-timeout",
        dest="hookharness_timeout",
        type=float,
        default=None,
        help="seconds one `hookharness run` batch may take (default: no limit)",
    )
    parser.addini(
        "hookharness_paths",
        type="paths",
        default=[],
        help="folders or files whose scenario files are collected as tests (relative to the ini file)",
    )
    parser.addini(
        "hookharness_glob",
        type="args",
        default=[],
        help="file name patterns of scenario files (default when hookharness_paths is set: *.yaml *.yml *.json)",
    )
    parser.addini("hookharness_engine", default="", help="the engine scenarios run on (`hookharness run --engine`)")


def _settings(config):
    paths = [pathlib.Path(p).resolve() for p in config.getini("hookharness_paths")]
    globs = config.getini("hookharness_glob")
    if not paths and not globs:
        return None
    return paths, globs or DEFAULT_GLOB


def pytest_configure(config):
    engine = config.getoption("hookharness_engine") or config.getini("hookharness_engine") or None
    config.stash[_OUTCOMES] = Outcomes(engine=engine, timeout=config.getoption("hookharness_timeout"))


def pytest_collect_file(file_path, parent):
    settings = _settings(parent.config)
    if settings is None:
        return None
    paths, globs = settings
    if not any(fnmatch.fnmatch(file_path.name, pattern) for pattern in globs):
        return None
    resolved = file_path.resolve()
    if paths and not any(resolved == p or p in resolved.parents for p in paths):
        return None
    return ScenarioFile.from_parent(parent, path=file_path)


def scenario_name(path):
    """The scenario's `name`, else the file stem (as hookharness names it);
    a file that does not read gets its stem, and its test reports why."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix.lower() == ".json" else _yaml12.load(text)
    except Exception:  # noqa: BLE001 (any unreadable file is named by its stem; its run says why)
        return path.stem
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else path.stem


class ScenarioFile(pytest.File):
    """A scenario file: one item, its scenario."""

    def collect(self):
        yield ScenarioItem.from_parent(self, name=scenario_name(self.path))


class ScenarioFailed(Exception):
    """A scenario did not pass; the message is hookharness's report."""


class ScenarioItem(pytest.Item):
    """One scenario, run by the `hookharness` command."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.user_properties.append(("hookharness_file", str(self.path)))

    def _batch(self):
        """The scenario files this process has still to run, this one first."""
        items = self.session.items
        queued = _xdist_queue(self.config)
        if queued is not None:
            chosen = [items[i] for i in queued if isinstance(i, int) and i < len(items)]
        else:
            start = items.index(self) if self in items else len(items)
            chosen = items[start:]
        return [item.path for item in chosen if isinstance(item, ScenarioItem)]

    def runtest(self):
        outcomes = self.config.stash[_OUTCOMES]
        try:
            outcome, line = outcomes.get(self.path, self._batch())
        except (BatchFailed, BinaryNotFound) as error:
            raise ScenarioFailed(str(error)) from None
        if outcome.get("status") != "pass":
            text = report(line, self.path) or outcome.get("error") or json.dumps(outcome.get("failures"))
            raise ScenarioFailed(text.rstrip("\n") + "\n\n" + self._rerun(outcomes))

    def _rerun(self, outcomes):
        command = " ".join(["hookharness", "explain", *outcomes.engine_args(), _quoted(shown(self.path))])
        return f"replay it step by step: {command}"

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"scenario: {self.name}"


def _quoted(text):
    safe = all(c.isalnum() or c in "/._-+:=@" for c in text)
    return text if safe else "'" + text.replace("'", "'\\''") + "'"


def _xdist_queue(config):
    """The indices of the items queued on this pytest-xdist worker, or None
    outside a worker (or when xdist keeps them elsewhere)."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        queue = getattr(plugin, "torun", None)
        lock = getattr(queue, "lock", None)
        if lock is None:
            continue
        # The worker has already taken this item and the next one off it.
        following = getattr(plugin, "nextitem_index", None)
        try:
            with lock() as items:
                return ([following] if isinstance(following, int) else []) + list(items)
        except Exception:  # noqa: BLE001 (xdist's internals changed: fall back to one item at a time)
            return None
    return None
