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

Fixtures hand a scenario what cannot live in its file (docs/pytest.md). Override
them in a conftest.py; each gives a dict, name -> object:

    hookharness_hooks         # `custom: NAME` at a hook point is hooks[NAME] (a @hook function, a hook instance)
    hookharness_agents        # `agent: {custom: NAME}` is agents[NAME] (a haystack Agent built by your code)
    hookharness_hook_context  # joins the run's `hook_context`, by identity (a database client, a store)

A scenario whose fixtures give anything runs on the Haystack engine in a fork of
the pytest process (`hookharness._attached`), which holds those objects; the
others run in batches as above.
"""

import fnmatch
import json
import pathlib
import threading

import pytest

from hookharness import BinaryNotFound, _yaml12
from hookharness._batch import BatchFailed, Outcomes, report, run_attached, shown

DEFAULT_GLOB = ["*.yaml", "*.yml", "*.json"]
_OUTCOMES = pytest.StashKey()


def _descriptors_at_start():
    """The pipes and terminals this process had open before any conftest or fixture ran (pytest loads its plugins
    first): pytest-xdist's channel to its controller, what the shell handed pytest. Files and sockets are left out:
    were this plugin loaded late (a conftest's `pytest_plugins`), a database a conftest opened is one."""
    import os
    import stat

    if not hasattr(os, "fork"):
        return []
    from hookharness import _attached

    return [d for d in _attached.open_descriptors() if stat.S_ISFIFO(d.mode) or stat.S_ISCHR(d.mode)]


_AT_START = _descriptors_at_start()
# The threads running before any conftest or fixture ran (pytest-xdist's, say): not ones a fixture's object needs.
_THREADS_AT_START = {thread.ident for thread in threading.enumerate()}


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
    timeout = config.getoption("hookharness_timeout")
    if timeout is not None and not 0 < timeout < float("inf"):
        # 0 or less failed every scenario as "did not finish"; inf and nan broke the scenarios with objects.
        raise pytest.UsageError(
            f"--hookharness-timeout {timeout}: give the seconds a batch may take, above 0 (leave it out for no limit)"
        )
    config.stash[_OUTCOMES] = Outcomes(engine=engine, timeout=timeout)


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


@pytest.fixture
def hookharness_hooks():
    """Hooks by name: `custom: NAME` at a hook point of a scenario is `hookharness_hooks()[NAME]`. Override it in
    your conftest.py (any scope; it may take other fixtures)."""
    return {}


@pytest.fixture
def hookharness_agents():
    """Agents by name: a scenario's `agent: {custom: NAME}` is `hookharness_agents()[NAME]`, its chat generator
    replaced by the scenario's `model`. Override it in your conftest.py."""
    return {}


@pytest.fixture
def hookharness_hook_context():
    """Objects that join each scenario's `run.hook_context` by identity (over the file's entries of the same name).
    Override it in your conftest.py."""
    return {}


_FIXTURES = ("hookharness_hooks", "hookharness_agents", "hookharness_hook_context")


def _scenario(hookharness_hooks, hookharness_agents, hookharness_hook_context):
    """A scenario file's test: `ScenarioItem.runtest` runs it; this names the fixtures it takes."""


class ScenarioFile(pytest.File):
    """A scenario file: one item, its scenario; one per parameter when a fixture it takes has `params` (the
    scenario against each Agent, each database a parametrized fixture gives), named `NAME[ID]` as pytest names
    a test's."""

    def collect(self):
        name = scenario_name(self.path)
        calls, fixtureinfo = _fixture_params(self, name)
        if not calls:
            yield ScenarioItem.from_parent(self, name=name)
            return
        for callspec in calls:
            yield ScenarioItem.from_parent(
                self,
                name=f"{name}[{callspec.id}]",
                callspec=callspec,
                fixtureinfo=fixtureinfo,
                keywords={callspec.id: True},
                originalname=name,
            )


def _fixture_params(collector, name):
    """The parameter sets of the fixtures a scenario takes that have `params` (as pytest parametrizes a test by
    them), and the fixture closure they apply to: `([], None)` when none has any, or when pytest's internals
    are not the ones this reads (the file is then one item, and pytest says a parametrized fixture has no
    parameter for it)."""
    try:
        from _pytest.python import FunctionDefinition, Metafunc

        definition = FunctionDefinition.from_parent(collector, name=name, callobj=_scenario)
        fixtureinfo = definition._fixtureinfo
        metafunc = Metafunc(
            definition=definition, fixtureinfo=fixtureinfo, config=collector.config, cls=None, module=None, _ispytest=True
        )
        # Fixtures' params only: a conftest's own pytest_generate_tests is written for test functions.
        collector.session._fixturemanager.pytest_generate_tests(metafunc)
        if not metafunc._calls:
            return [], None
        fixtureinfo.prune_dependency_tree()
        return list(metafunc._calls), fixtureinfo
    except (ImportError, AttributeError, TypeError):
        return [], None


class ScenarioFailed(Exception):
    """A scenario did not pass; the message is hookharness's report."""


class ScenarioItem(pytest.Function):
    """One scenario, run by the `hookharness` command (a pytest Function, so fixtures, marks and `usefixtures`
    apply to it as to any test)."""

    def __init__(self, **kwargs):
        super().__init__(callobj=_scenario, **kwargs)
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
        # A scenario whose fixtures a conftest overrides runs in its own fork, with their objects: run in a batch,
        # without them, its code would run twice (what it writes, written twice) and might hang the batch.
        return [item.path for item in chosen if isinstance(item, ScenarioItem) and not item._overridden()]

    def _overridden(self):
        """Whether a conftest (or a plugin) overrides one of the fixtures that hand this scenario objects."""
        try:
            known = self._fixtureinfo.name2fixturedefs
            return any(
                getattr(known[name][-1].func, "__module__", __name__) != __name__ for name in _FIXTURES if known.get(name)
            )
        except (AttributeError, IndexError, TypeError):  # pytest's internals changed: batch it, as before
            return False

    def _objects(self):
        """What this test's fixtures hand the scenario, by fixture: none when every one gave nothing."""
        given = {name.removeprefix("hookharness_"): self.funcargs.get(name) for name in _FIXTURES}
        # Anything but a dict or None is a mistake `run_attached` names, an empty list as much as a full one.
        wrong = any(value is not None and not isinstance(value, dict) for value in given.values())
        return given if wrong or any(given.values()) else None

    def runtest(self):
        outcomes = self.config.stash[_OUTCOMES]
        objects = self._objects()
        threads = [] if objects is None else _fixture_threads()
        try:
            if objects is None:
                outcome, line = outcomes.get(self.path, self._batch())
            else:
                outcome, line = run_attached(
                    self.path, objects, timeout=outcomes.timeout, not_inherited=_pytest_descriptors(self.config)
                )
        except (BatchFailed, BinaryNotFound, TypeError) as error:
            raise ScenarioFailed(str(error)) from None
        if outcome.get("status") != "pass":
            text = report(line, self.path) or outcome.get("error") or json.dumps(outcome.get("failures"))
            rerun = self._rerun(outcomes) if objects is None else self._rerun_here()
            if threads and "timed out after" in text:
                rerun = _threads_note(threads) + "\n\n" + rerun
            raise ScenarioFailed(text.rstrip("\n") + "\n\n" + rerun)

    def _rerun(self, outcomes):
        command = " ".join(["hookharness", "explain", *outcomes.engine_args(), _quoted(shown(self.path))])
        return f"replay it step by step: {command}"

    def _rerun_here(self):
        return (
            "it takes objects from your fixtures, so it runs under pytest only: "
            f"pytest {_quoted(self.nodeid)}"
        )

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"scenario: {self.name}"


def _pytest_descriptors(config):
    """The descriptors of pytest's own machinery, which a scenario's fork closes (`_attached.run`): those open
    before any conftest ran (pytest-xdist's channel: a stray write there hangs the whole session) and those of
    pytest's output capture (the terminal, the files holding what tests print)."""
    from hookharness import _attached

    found = list(_AT_START)
    capture = getattr(config.pluginmanager.getplugin("capturemanager"), "_global_capturing", None)
    for stream in (getattr(capture, name, None) for name in ("in_", "out", "err")):
        for fd in (getattr(stream, "targetfd_save", None), getattr(stream, "targetfd_invalid", None)):
            if isinstance(fd, int):
                found.append(_attached.Descriptor(fd))
        try:
            found.append(_attached.Descriptor(stream.tmpfile.fileno()))
        except Exception:  # noqa: BLE001, S112 (no file, or pytest's capture changed: nothing to close)
            continue
    try:  # where pytest's faulthandler writes (the fork's worker writes its own crash text elsewhere)
        from _pytest.faulthandler import fault_handler_stderr_fd_key

        fd = config.stash.get(fault_handler_stderr_fd_key, None)
    except Exception:  # noqa: BLE001 (pytest's faulthandler changed: nothing to close)
        fd = None
    if isinstance(fd, int):
        found.append(_attached.Descriptor(fd))
    return found


def _fixture_threads():
    """The names of the threads this process runs that it did not run at start (a fixture's object's, most likely)."""
    main = threading.main_thread()
    return sorted(t.name for t in threading.enumerate() if t is not main and t.ident not in _THREADS_AT_START)


def _threads_note(names):
    shown_names = ", ".join(f"`{n}`" for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"note: the pytest process ran threads its fixtures started ({shown_names}), and a fork has none of them: "
        "an object that works through one (an event loop or a connection pool running in a thread) waits forever "
        "in the scenario; build such an object in the scenario's own code (a hook that makes it on first use)"
    )


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
