"""Fixtures hand a scenario what its file cannot hold: hooks registered by name (`custom: NAME`), a pre-built Agent
(`agent: {custom: NAME}`) and live objects in `hook_context`. Such a scenario runs on a worker forked from the
pytest process; each failure of user code costs its own test only and says what happened."""

import importlib.util
import textwrap

import pytest
from plugin_support import binary, plugin_args, source_path

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("haystack") is None,
    reason="fixture objects run on the Haystack engine: install hookharness[haystack] (haystack-ai 3.4.1)",
)

CONFTEST = '''
import os
import sqlite3
import time

import pytest
from haystack.components.agents import Agent
from haystack.components.agents.state import State
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.hooks import hook
from haystack.tools import tool


@tool
def lookup(user: str) -> str:
    """Look a user up."""
    return "user " + user + " exists"


@hook
def tier(state: State) -> None:
    context = state.data["hook_context"]
    (plan,) = context["db"].execute("SELECT plan FROM plans WHERE user = ?", (context["user"],)).fetchone()
    print("plan:", plan)


@hook
def hangs(state: State) -> None:
    time.sleep(600)


@hook
def dies(state: State) -> None:
    os._exit(3)


@hook
def aborts(state: State) -> None:
    os.abort()


@hook
def scribbles(state: State) -> None:
    for fd in range(3, 100):
        try:
            os.write(fd, b"SCRIBBLED\\n")
        except OSError:
            pass


@pytest.fixture
def db():
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE plans (user TEXT, plan TEXT)")
    connection.execute("INSERT INTO plans VALUES ('u1', 'gold')")
    yield connection
    connection.close()


@pytest.fixture
def hookharness_hook_context(db):
    return {"db": db}


@pytest.fixture
def hookharness_hooks():
    return {"tier": tier, "hangs": hangs, "dies": dies, "aborts": aborts, "scribbles": scribbles}


@pytest.fixture
def hookharness_agents():
    return {"support": Agent(chat_generator=OpenAIChatGenerator(model="gpt-5.4-nano"), tools=[lookup])}
'''

GOLD = """\
name: gold
agent: {custom: support}
hooks:
  before_run: [{custom: tier}]
model:
  - tool_calls: [{tool: lookup, arguments: {user: u1}}]
  - text: done
run:
  messages: [{role: user, text: hi}]
  hook_context: {user: u1}
expect:
  printed: ["plan: gold"]
  tools_run: [lookup]
  llm_calls: 2
"""


def scenario(name, hook, expect="exit_reason: text"):
    return textwrap.dedent(f"""\
        name: {name}
        hooks:
          before_run: [{{custom: {hook}}}]
        model:
          - text: done
        run:
          hook_context: {{user: u1}}
        expect:
          {expect}
        """)


def project(pytester, monkeypatch, files, conftest=CONFTEST):
    monkeypatch.setenv("HOOKHARNESS_BIN", binary())
    source_path(monkeypatch)
    pytester.makeini("[pytest]\nhookharness_paths = scenarios\nhookharness_engine = haystack\n")
    pytester.makeconftest(conftest)
    folder = pytester.path / "scenarios"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


def run(pytester, *args):
    return pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rf", *args)


def test_a_prebuilt_agent_a_hook_by_name_and_a_database_client_reach_the_scenario(pytester, monkeypatch):
    project(pytester, monkeypatch, {"gold.yaml": GOLD})
    run(pytester).assert_outcomes(passed=1)


def test_what_the_hook_does_with_the_fixture_object_is_checked(pytester, monkeypatch):
    project(pytester, monkeypatch, {"gold.yaml": GOLD.replace("plan: gold", "plan: silver")})
    result = run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "printed: expected 'plan: silver'; the run printed 'plan: gold\\n'" in out
    assert "it takes objects from your fixtures, so it runs under pytest only: pytest scenarios/gold.yaml::gold" in out


def test_an_unregistered_name_lists_the_registered_ones(pytester, monkeypatch):
    project(pytester, monkeypatch, {"typo.yaml": scenario("typo", "teir"), "gold.yaml": GOLD})
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    assert (
        "`custom: teir`: your conftest.py's `hookharness_hooks` fixture (a dict: name -> hook) gives `aborts`, `dies`, `hangs`, "
        "`scribbles`, `tier`, not `teir`; did you mean `tier`?"
    ) in result.stdout.str()


def test_a_hung_hook_costs_its_scenario_and_says_where_it_hung(pytester, monkeypatch):
    project(pytester, monkeypatch, {"a_hangs.yaml": scenario("a-hangs", "hangs"), "gold.yaml": GOLD})
    result = run(pytester, "--hookharness-timeout", "5")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "timed out after 5 s in " in out
    assert "conftest.py:" in out and " in hangs" in out
    assert "under pytest `--hookharness-timeout SECONDS`" in out


def test_a_hook_that_ends_the_worker_costs_its_scenario_only(pytester, monkeypatch):
    project(pytester, monkeypatch, {"a_dies.yaml": scenario("a-dies", "dies"), "gold.yaml": GOLD})
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "the Haystack engine's worker died while running this scenario: it exited with status 3 (it was this " in out
    assert "restarted" not in out


def test_a_hook_that_crashes_the_worker_is_named_with_the_signal_and_its_own_frame(pytester, monkeypatch):
    project(pytester, monkeypatch, {"a_aborts.yaml": scenario("a-aborts", "aborts"), "gold.yaml": GOLD})
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "it was killed by signal 6 (it was this scenario's own fork of the pytest process)" in out
    assert "Fatal Python error: Aborted" in out
    assert 'conftest.py", line' in out and "in aborts" in out


def test_a_hook_writing_to_descriptors_it_did_not_open_reaches_none_of_pytests(pytester, monkeypatch):
    """The fork holds pytest's descriptors (its terminal, its captured output, pytest-xdist's channel to its
    controller, where a stray line hung the whole session); it closes them, as a worker of the command's has none."""
    files = {"a_scribbles.yaml": scenario("a-scribbles", "scribbles"), "gold.yaml": GOLD}
    project(pytester, monkeypatch, files)
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rA", timeout=120)
    result.assert_outcomes(passed=2)
    assert "SCRIBBLED" not in result.stdout.str() + result.stderr.str()
    if importlib.util.find_spec("xdist") is not None:
        result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-n", "2", timeout=120)
        result.assert_outcomes(passed=2)


def test_a_stray_attach_variable_is_no_worker_of_a_batch(pytester, monkeypatch):
    """`HOOKHARNESS_ENGINE_ATTACH` hands one command its fork; left in pytest's environment it would make every
    batch take the process it names for its worker, and kill it."""
    import subprocess

    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        monkeypatch.setenv("HOOKHARNESS_ENGINE_ATTACH", f"{bystander.pid},1,0,2")
        project(pytester, monkeypatch, {"plain.yaml": "name: plain\nmodel:\n  - text: done\n"}, conftest="")
        run(pytester).assert_outcomes(passed=1)
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


def test_a_parametrized_fixture_runs_the_scenario_once_per_parameter(pytester, monkeypatch):
    conftest = CONFTEST + """

@hook
def silver(state: State) -> None:
    print("plan: silver")


@pytest.fixture(params=["tier", "silver"])
def hookharness_hooks(request):
    return {"tier": {"tier": tier, "silver": silver}[request.param]}
"""
    project(pytester, monkeypatch, {"gold.yaml": GOLD}, conftest=conftest)
    result = run(pytester, "-v")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "scenarios/gold.yaml::gold[tier] PASSED" in out
    assert "printed: expected 'plan: gold'; the run printed 'plan: silver\\n'" in out
    assert "runs under pytest only: pytest 'scenarios/gold.yaml::gold[silver]'" in out


def test_a_scenario_with_fixture_objects_runs_once_and_not_also_in_a_batch(pytester, monkeypatch):
    """The batch a plain scenario starts leaves out the files whose fixtures a conftest overrides: run there,
    without their objects, their code ran twice (what it writes, written twice)."""
    plain = "name: {}\nmodel:\n  - text: done\n"
    project(pytester, monkeypatch, {"a.yaml": plain.format("a"), "z.yaml": plain.format("z")}, conftest="")
    log = pytester.path / "ran.log"
    monkeypatch.setenv("RAN_LOG", str(log))
    folder = pytester.path / "scenarios" / "objects"
    folder.mkdir()
    (folder / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef hookharness_hook_context():\n    return {'db': object()}\n",
        encoding="utf-8",
    )
    (folder / "writes.py").write_text(
        textwrap.dedent("""\
            import os

            from haystack.components.agents.state import State
            from haystack.hooks import hook


            @hook
            def writes(state: State) -> None:
                with open(os.environ["RAN_LOG"], "a", encoding="utf-8") as log:
                    log.write(f"db: {'db' in state.data['hook_context']}\\n")
            """),
        encoding="utf-8",
    )
    (folder / "m.yaml").write_text(
        'name: m\npython_path: ["."]\nhooks:\n  before_run: [{python: "writes:writes"}]\nmodel:\n  - text: done\n',
        encoding="utf-8",
    )
    run(pytester).assert_outcomes(passed=3)
    assert log.read_text(encoding="utf-8") == "db: True\n"


def test_an_object_working_through_a_thread_of_pytests_hangs_and_the_failure_says_why(pytester, monkeypatch):
    """A fork has only the thread that forked: a client whose event loop runs in a thread of the pytest process
    waits forever in the scenario; its timeout names the thread."""
    conftest = CONFTEST + """

import asyncio
import threading


class LoopClient:
    def __init__(self):
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="client-loop", daemon=True).start()

    def plan(self):
        async def query():
            return "gold"

        return asyncio.run_coroutine_threadsafe(query(), self.loop).result()


@hook
def via_loop(state: State) -> None:
    print("plan:", state.data["hook_context"]["client"].plan())


@pytest.fixture
def hookharness_hook_context(db):
    client = LoopClient()
    assert client.plan() == "gold"
    return {"db": db, "client": client}


@pytest.fixture
def hookharness_hooks():
    return {"via_loop": via_loop}
"""
    project(pytester, monkeypatch, {"loop.yaml": scenario("loop", "via_loop")}, conftest=conftest)
    result = run(pytester, "--hookharness-timeout", "2")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "timed out after 2 s in " in out
    assert "note: the pytest process ran threads its fixtures started (`client-loop`), and a fork has none" in out


def test_a_fixture_that_gives_no_dict_is_named(pytester, monkeypatch):
    conftest = CONFTEST + "\n\n@pytest.fixture\ndef hookharness_hooks():\n    return [tier]\n"
    project(pytester, monkeypatch, {"gold.yaml": GOLD}, conftest=conftest)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "the `hookharness_hooks` fixture gave list; give a dict (name -> object)" in result.stdout.str()


def test_a_fixture_that_gives_an_empty_list_is_named_too(pytester, monkeypatch):
    conftest = "import pytest\n\n\n@pytest.fixture\ndef hookharness_hooks():\n    return []\n"
    project(pytester, monkeypatch, {"plain.yaml": scenario("plain", "tier")}, conftest=conftest)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert "the `hookharness_hooks` fixture gave list; give a dict (name -> object)" in result.stdout.str()


def test_without_fixtures_a_custom_name_says_where_to_register_it(pytester, monkeypatch):
    project(pytester, monkeypatch, {"plain.yaml": scenario("plain", "tier")}, conftest="")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "`custom: tier` is a hook your test registers, and none is registered here" in out
    assert "`hookharness_hooks` fixture" in out


def test_the_same_verdicts_under_xdist(pytester, monkeypatch):
    pytest.importorskip("xdist")
    files = {"gold.yaml": GOLD, "typo.yaml": scenario("typo", "teir")}
    for i in range(4):
        files[f"gold_{i}.yaml"] = GOLD.replace("name: gold", f"name: gold-{i}")
    project(pytester, monkeypatch, files)
    run(pytester, "-n", "2").assert_outcomes(passed=5, failed=1)


def test_the_excerpts_in_docs_pytest_md_are_the_example_files():
    """Each block of docs/pytest.md that names an example file (`# PATH (abridged)`) holds that file's lines, in
    order, so the docs show the code that runs."""
    import re

    from plugin_support import ROOT

    text = (ROOT / "docs" / "pytest.md").read_text(encoding="utf-8")
    checked = 0
    for block in re.findall(r"```\w+\n(.*?)```", text, re.DOTALL):
        first, *lines = block.splitlines()
        named = re.fullmatch(r"# (examples/\S+) \(abridged\)", first)
        if not named:
            continue
        source = (ROOT / named.group(1)).read_text(encoding="utf-8").splitlines()
        at = 0
        for line in lines:
            while at < len(source) and source[at] != line:
                at += 1
            assert at < len(source), f"{named.group(1)} has no line {line!r} (in this order)"
            at += 1
        checked += 1
    assert checked == 2
