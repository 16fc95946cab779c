"""Each misbehaviour of user code costs only its scenario, and says what happened."""

import json
import os
import signal
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine_driver import Worker
from engine_fixtures import hook_request, module_worker
from hookharness.engine import placement

worker = module_worker()

PLAIN = {
    "scenario": {"version": 1, "name": "plain", "model": [{"text": "hi"}], "run": {"messages": [{"role": "user", "text": "q"}]}},
    "file": "plain.yaml",
    "dir": os.getcwd(),
    "hook_names": {},
    "detail": "summary",
    "keep_requests": False,
}


def assert_still_serves(worker) -> None:
    record = worker.run(PLAIN)
    assert record["error"] is None
    assert record["result"]["last_message"]["content"] == [{"text": "hi"}]


def finished(record, hook):
    return [e for e in record["trace"] if e["event"] == "hook_finished" and e["hook"] == hook]


def test_handshake_names_the_versions(worker):
    assert worker.hello["hello"] == "hookharness-engine"
    assert worker.hello["protocol"] == 3
    assert worker.hello["haystack"] == version("haystack-ai")  # the worker runs in the tests' interpreter
    assert "python" in worker.hello


def test_printing_hook_keeps_the_protocol_and_its_output_is_captured(worker):
    record = worker.run(hook_request("before_llm", "misbehaving:loud"))
    assert record["error"] is None, record["error"]
    (event,) = finished(record, "loud")
    output = event["output"]
    for text in (
        "printed to sys.stdout",
        "printed to sys.stderr",
        "written to fd 1",
        "written to fd 2",
        "WARNING:misbehaving:logged a warning",
        '{"id": 1, "record": "a fake response line"}',
    ):
        assert text in output, (text, output)
    assert output.index("printed to sys.stdout") < output.index("printed to sys.stderr")
    assert_still_serves(worker)


def test_a_hook_closing_the_next_free_descriptors_leaves_the_capture_to_the_scenarios_after_it(worker):
    """The capture file sits far above them: closed, it took the output, and the run, of every later scenario."""
    record = worker.run(hook_request("before_llm", "misbehaving:close_descriptors"))
    assert record["error"] is None, record["error"]
    record = worker.run(hook_request("before_llm", "misbehaving:loud"))
    assert record["error"] is None, record["error"]
    (event,) = finished(record, "loud")
    assert "written to fd 1" in event["output"]
    assert_still_serves(worker)


def test_exception_in_user_code_is_the_runs_error_with_type_message_and_frame(worker):
    record = worker.run(hook_request("before_llm", "misbehaving:explode"))
    error = record["error"]
    assert error["kind"] == "hook"
    assert (error["hook"], error["point"], error["step"], error["panicked"]) == ("explode", "before_llm", 0, False)
    assert error["message"].startswith("ValueError: no answer at step 0 (at ")
    assert "misbehaving.py:" in error["message"] and error["message"].endswith(" in explode)")
    assert finished(record, "explode")[0]["error"] == error["message"]
    assert record["result"] is None
    assert_still_serves(worker)


def test_unscripted_model_call_names_the_caller_and_the_fix(worker):
    record = worker.run(hook_request("before_llm", "misbehaving:ask_openai"))
    error = record["error"]
    assert error["kind"] == "hook"
    message = error["message"]
    assert message.startswith("unscripted model call: `OpenAIChatGenerator.run` called at ")
    assert "misbehaving.py:" in message and "in ask_openai" in message
    assert 'replaces: "haystack.components.generators.chat.openai:OpenAIChatGenerator"' in message
    assert_still_serves(worker)


def test_network_attempt_names_host_and_port(worker):
    record = worker.run(hook_request("before_llm", "misbehaving:fetch"))
    message = record["error"]["message"]
    assert message.startswith("network access to example.com:8080 attempted at ")
    assert "in fetch" in message and "script the call instead" in message
    assert_still_serves(worker)


def test_a_broad_except_in_user_code_does_not_hide_the_closed_network(worker):
    record = worker.run(hook_request("before_llm", "misbehaving:swallow_fetch"))
    assert record["error"]["message"].startswith("network access to api.example.com:443 attempted at ")


def test_module_state_does_not_leak_between_scenarios(worker):
    for _ in range(2):
        record = worker.run(hook_request("before_llm", "misbehaving:count"))
        assert record["result"]["messages"][-2]["content"] == [{"text": "count=1"}]


def test_import_error_of_user_code_says_where_to_look(worker):
    record = worker.run(hook_request("before_llm", "no_such_module:hook"))
    error = record["error"]
    assert error["kind"] == "run"
    assert "cannot import `no_such_module`" in error["message"] and "python_path" in error["message"]
    assert_still_serves(worker)


def test_hung_hook_leaves_the_worker_killable_with_its_process_group(tmp_path, monkeypatch):
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("HH_TEST_CHILD_PID", str(pid_file))
    worker = Worker()
    worker.send({"id": 1, "run": hook_request("before_llm", "misbehaving:hang")})
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the hook never started"
        time.sleep(0.05)
    child = int(pid_file.read_text())
    os.killpg(worker.process.pid, signal.SIGKILL)  # what the Rust side does at its timeout
    assert worker.process.wait(timeout=5) == -signal.SIGKILL
    deadline = time.monotonic() + 5
    while _alive(child):
        assert time.monotonic() < deadline, "the hook's child survived the process group kill"
        time.sleep(0.05)
    for stream in (worker.process.stdin, worker.process.stdout, worker.process.stderr):
        stream.close()
    fresh = Worker()  # the next scenario runs in a new worker
    assert_still_serves(fresh)
    fresh.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie whose parent died is reaped by init; until then it counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_concurrent_tool_calls_each_get_their_own_output(worker):
    request = hook_request("before_llm", "misbehaving:loud")
    request["scenario"] = {
        "version": 1,
        "name": "shouting",
        "python_path": ["user_code"],
        "agent": {"python": "misbehaving:make_shouting_agent"},
        "model": [
            {"tool_calls": [{"tool": "shout", "arguments": {"word": "a"}}, {"tool": "shout", "arguments": {"word": "b"}}]},
            {"text": "done"},
        ],
        "run": {"messages": [{"role": "user", "text": "go"}]},
    }
    request["hook_names"] = {}
    record = worker.run(request)
    assert record["error"] is None, record["error"]
    tools = [e for e in record["trace"] if e["event"] == "tool_finished"]
    assert [(e["arguments"]["word"], e["output"]) for e in tools] == [
        ("a", "shout a start\nshout a end\n"),
        ("b", "shout b start\nshout b end\n"),
    ]


def test_a_replaced_generator_needs_no_api_key(worker, monkeypatch):
    request = hook_request(
        "before_llm",
        "misbehaving:JudgeWithKey",
        extra={"models": {"judge": {"replies": [{"text": "STOP"}], "replaces": "misbehaving:KeyedGenerator"}}},
    )
    record = worker.run(request)
    assert record["error"] is None, record["error"]
    assert record["result"]["exit_reason"] == "judged"
    assert record["unused"] == {"model": 1, "models": {"judge": 0}}
    judge = [e for e in record["trace"] if e["event"] == "llm_finished" and e.get("model") == "judge"]
    assert judge[0]["replies"][0]["content"] == [{"text": "STOP"}]


def test_credentials_in_the_shell_never_reach_user_code(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key")
    monkeypatch.setenv("MY_SERVICE_API_TOKEN", "real-token")
    monkeypatch.setenv("HH_TEST_KEPT", "kept")
    fresh = Worker()
    try:
        record = fresh.run(hook_request("before_llm", "misbehaving:read_credentials"))
    finally:
        fresh.close()
    assert record["error"] is None, record["error"]
    (event,) = finished(record, "read_credentials")
    placeholder = "hookharness-scripted-no-key"
    assert event["output"] == f"None None kept\n{placeholder}\n{placeholder}\n", event["output"]


def test_sys_exit_in_user_code_ends_the_scenario_not_the_worker(worker):
    record = worker.run(hook_request("before_llm", "misbehaving:leave"))
    error = record["error"]
    assert error["kind"] == "hook"
    assert error["message"].startswith("the code called sys.exit(3) at ")
    assert "in leave" in error["message"]
    assert_still_serves(worker)


def test_lines_that_are_not_requests_get_an_error_and_the_worker_goes_on():
    worker = Worker()
    try:
        worker.process.stdin.write(b"not json\n")
        worker.send({"id": 7, "what": "?"})
        worker.process.stdin.flush()
        first, second = worker._read(), worker._read()
        assert first["id"] is None and first["error"].startswith("a request line is not JSON")
        assert second == {
            "id": 7,
            "error": "a request is {id, run: REQUEST}, {id, construct: REQUEST} or {id, shutdown: true}",
        }
        assert_still_serves(worker)
    finally:
        assert worker.close() == 0


def _peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc/PID/status")


LIMIT = 1 << 20  # the documented default (docs/engines.md)


def marker(limit: int) -> str:
    return f"\n[hookharness: output cut at {limit} characters; set HOOKHARNESS_OUTPUT_LIMIT to keep more]\n"


def test_a_call_printing_100_mb_keeps_one_limit_of_it_and_says_so(worker):
    before = _peak_rss_kib(worker.process.pid)
    for target in ("misbehaving:flood_print", "misbehaving:flood_fd"):
        worker.next_id += 1
        worker.send({"id": worker.next_id, "run": hook_request("before_llm", target)})
        line = worker.process.stdout.readline()
        # The answer the Rust side reads holds the limit, not the 100 MB.
        assert len(line) < LIMIT + 64 * 1024, len(line)
        record = json.loads(line)["record"]
        assert record["error"] is None, record["error"]
        (event,) = finished(record, target.rpartition(":")[2])
        assert event["output"] == "x" * LIMIT + marker(LIMIT)
    # Nor does the worker hold it: its peak memory grows by a few limits at most, not by 100 MB.
    grown_mib = (_peak_rss_kib(worker.process.pid) - before) / 1024
    assert grown_mib < 40, f"the worker's peak memory grew by {grown_mib:.0f} MiB"
    assert_still_serves(worker)


def test_the_output_limit_is_configurable_and_a_bad_value_is_refused(monkeypatch):
    monkeypatch.setenv("HOOKHARNESS_OUTPUT_LIMIT", "5")
    small = Worker()
    try:
        record = small.run(hook_request("before_llm", "misbehaving:loud"))
        (event,) = finished(record, "loud")
        assert event["output"] == "print" + marker(5)
    finally:
        small.close()
    monkeypatch.setenv("HOOKHARNESS_OUTPUT_LIMIT", "lots")
    try:
        Worker().close()
    except RuntimeError as e:
        assert "HOOKHARNESS_OUTPUT_LIMIT='lots': expected a positive number of characters" in str(e), e
    else:
        raise AssertionError("a limit that is not a number was taken")


def _running(pid: int) -> bool:
    """Alive and not a zombie (a container's init may leave reparented zombies unreaped)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


def test_processes_a_hook_leaves_running_end_with_its_scenario_and_others_live(worker):
    import subprocess

    unrelated = subprocess.Popen(["sleep", "300"])
    try:
        record = worker.run(hook_request("before_llm", "misbehaving:leave_processes"))
        assert record["error"] is None, record["error"]
        (event,) = finished(record, "leave_processes")
        pids = [int(p) for p in event["output"].split()]
        assert len(pids) == 2, event["output"]
        for _ in range(100):
            if not any(_running(p) for p in pids):
                break
            time.sleep(0.02)
        assert not any(_running(p) for p in pids), [p for p in pids if _running(p)]
        assert unrelated.poll() is None, "a process the scenario did not start was killed"
        assert_still_serves(worker)
    finally:
        unrelated.kill()
        unrelated.wait()


def test_each_way_of_reaching_the_network_is_refused_naming_the_host(worker):
    import pytest

    for how, host in (
        ("create_connection", "db.example.net:5432"),
        ("getaddrinfo", "dns.example.org:53"),
        ("gethostbyname", "lookup.example.org:None"),
        ("udp", "192.0.2.7:9999"),
        ("asyncio", "stream.example.com:7000"),
        ("asyncio_ip", "192.0.2.9:7001"),
    ):
        request = hook_request("before_llm", "misbehaving:Reach")
        request["scenario"]["hooks"]["before_llm"][0]["args"] = {"how": how}
        record = worker.run(request)
        error = record["error"]
        if error is None:
            pytest.fail(f"{how}: the network was reached")
        assert error["message"].startswith(f"network access to {host} attempted at "), (how, error["message"])
    assert_still_serves(worker)


def test_random_draws_are_the_same_in_every_scenario_and_every_worker(worker):
    def printed(w):
        record = w.run(hook_request("before_llm", "misbehaving:draws_random"))
        assert record["error"] is None, record["error"]
        (event,) = finished(record, "draws_random")
        return event["output"]

    first = printed(worker)
    assert printed(worker) == first  # the next scenario of the same worker starts from the same state
    fresh = Worker()
    try:
        assert printed(fresh) == first  # and so does another command's worker
    finally:
        fresh.close()
    import random

    random.seed(0)
    assert first == f"{random.random()} {random.choice('abcdefgh')} {random.sample(range(100), 3)}\n"


def test_an_exception_with_a_huge_message_keeps_one_limit_of_it_and_its_frame(worker):
    record = worker.run(hook_request("before_llm", "misbehaving:raise_huge"))
    message = record["error"]["message"]
    limit = 1 << 20
    assert message.startswith("ValueError: " + "z" * 100), message[:200]
    assert f"[hookharness: the error's text cut at {limit} characters; set HOOKHARNESS_OUTPUT_LIMIT" in message
    assert message.endswith(" in raise_huge)"), message[-200:]
    assert len(message) < limit + 1000
    (event,) = finished(record, "raise_huge")
    assert len(event["error"]) < limit + 1000
    assert_still_serves(worker)


def test_code_is_not_imported_from_the_folder_the_command_runs_in(tmp_path, monkeypatch):
    # `python -m` puts the working directory first on sys.path; a module found there would make a scenario pass or
    # fail by where the command runs, and, not being under `python_path`, keep its state into the next scenario.
    (tmp_path / "only_in_cwd.py").write_text(
        "from haystack.hooks import hook\n\n@hook\ndef h(state: 'State') -> None:\n    pass\n"
    )
    monkeypatch.chdir(tmp_path)
    fresh = Worker()
    try:
        record = fresh.run(hook_request("before_llm", "only_in_cwd:h"))
        assert "cannot import `only_in_cwd`" in record["error"]["message"], record["error"]
        assert_still_serves(fresh)
    finally:
        fresh.close()


def test_models_replaces_naming_no_generator_class_is_the_runs_error_as_check_says_it(worker):
    # `check --engine haystack` refused these; `run` patched them: a builtin failed in the engine's own restore
    # ("the engine worker failed: Traceback ... immutable type 'dict'"), State or a hook had methods swapped silently.
    for target, kind in (("builtins:dict", "type"), ("misbehaving:loud", "FunctionHook")):
        request = hook_request(
            "before_llm", "misbehaving:loud", extra={"models": {"judge": {"replies": [{"text": "x"}], "replaces": target}}}
        )
        message = worker.run(request)["error"]["message"]
        assert message == (
            f"models.judge.replaces: `{target}` is {kind}, not a generator class; name the chat generator class your "
            "code builds (a class with `run(messages)`)"
        ), message
    assert_still_serves(worker)


def test_a_non_message_in_state_messages_is_named_as_such(worker):
    # It used to end the run with "'int' object has no attribute '_content'", the engine's own code.
    message = worker.run(hook_request("before_llm", "misbehaving:not_messages"))["error"]["message"]
    assert message.startswith("State `messages` holds int 1, not a ChatMessage (code that writes"), message
    # A string there was read as a record that does not parse ("a bug in hookharness").
    message = worker.run(hook_request("before_llm", "misbehaving:messages_a_string"))["error"]["message"]
    assert message.startswith("State `messages` "), message
    assert "not a ChatMessage" in message or "not a list of ChatMessage" in message, message
    assert_still_serves(worker)


def test_network_guards_a_scenario_replaced_are_back_in_the_next_one(worker):
    record = worker.run(hook_request("before_llm", "misbehaving:replace_socket"))
    assert record["error"] is None, record["error"]
    for how, host in (("create_connection", "db.example.net:5432"), ("getaddrinfo", "dns.example.org:53")):
        request = hook_request("before_llm", "misbehaving:Reach")
        request["scenario"]["hooks"]["before_llm"][0]["args"] = {"how": how}
        error = worker.run(request)["error"]
        assert error is not None, f"{how}: the network was reached"
        assert error["message"].startswith(f"network access to {host} attempted at "), (how, error["message"])
    assert_still_serves(worker)


def test_a_ready_made_hook_is_a_new_object_in_each_scenario(worker):
    """Its scripted confirmation UI has one answer per call: one UI shared by two runs would have none left for the
    second run's calls."""
    from engine_driver import ROOT, request

    scenario = request(ROOT / "scenarios/ready_made/confirmation_all_rejected.yaml", detail="full")
    first, second = worker.run(scenario), worker.run(scenario)
    assert first["error"] is None, first["error"]
    assert json.dumps(second, sort_keys=True) == json.dumps(first, sort_keys=True)


def test_a_ready_made_hook_copied_from_one_built_before_shares_no_object_with_it():
    import sys

    from engine_driver import PYTHON_DIR

    if str(PYTHON_DIR) not in sys.path:
        sys.path.insert(0, str(PYTHON_DIR))
    from hookharness.engine import ready_made
    from hookharness.engine.spec import HookDef

    ui = {"type": ready_made.SCRIPTED_UI, "init_parameters": {"answers": [{"action": "confirm"}]}}
    policy = {"type": ready_made.ASK_ONCE, "init_parameters": {}}
    strategy = {"type": ready_made.BLOCKING_STRATEGY, "init_parameters": {"confirmation_policy": policy, "confirmation_ui": ui}}
    confirmation = HookDef(kind="confirmation", name=None, params={"confirmation_strategies": {"rm": strategy}})
    first, second = ready_made.build(confirmation), ready_made.build(confirmation)
    a, b = first.confirmation_strategies["rm"], second.confirmation_strategies["rm"]
    assert first is not second and a is not b
    assert a.confirmation_policy is not b.confirmation_policy
    assert a.confirmation_ui is not b.confirmation_ui and a.confirmation_ui.answers is not b.confirmation_ui.answers

    store = {"type": ready_made.IN_MEMORY_STORE}
    compactor = {"type": ready_made.TOOL_RESULT_OFFLOAD_COMPACTOR, "init_parameters": {"store": store, "min_tokens": 10}}
    compaction = HookDef(kind="compaction", name=None, params={"compactor": compactor, "context_window": 250})
    first, second = ready_made.build(compaction), ready_made.build(compaction)
    assert first.compactor is not second.compactor and first.compactor.store is not second.compactor.store
    # Each copy counts its own store keys from 1 (`_counter_offload_keys`).
    assert first.compactor.__dict__["_offload"] is not second.compactor.__dict__["_offload"]


def test_process_starters_are_wrapped_around_what_code_outside_a_scenario_put_there():
    import subprocess

    from hookharness.engine.children import ended_children

    original = os.fork
    try:
        with ended_children():
            assert os.fork.__wrapped__ is original
        assert os.fork.__wrapped__ is original  # left in place between scenarios, noting nothing there

        def own_fork():  # a library's own, put there outside any scenario (as monkeypatching libraries do)
            return original()

        os.fork = own_fork
        with ended_children():
            assert os.fork.__wrapped__ is own_fork
            os.fork = lambda: 0  # code in the scenario replaces it: the next scenario does not see that
            subprocess.run(["true"], check=True)
        assert os.fork.__wrapped__ is own_fork
        with ended_children():
            assert os.fork.__wrapped__ is own_fork
    finally:
        os.fork = original


def _cores_of(record) -> dict[str, int]:
    assert record["error"] is None, record["error"]
    (event,) = finished(record, "count_cores")
    return {where: int(count) for where, count in (line.split("=") for line in event["output"].split())}


def _allowed_cores(pid: int) -> str:
    with open(f"/proc/{pid}/status") as f:
        return next(line.split(":", 1)[1].strip() for line in f if line.startswith("Cpus_allowed_list"))


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2, reason="holds a scenario on one of several cores"
)
def test_a_scenario_runs_on_one_core_and_the_processes_it_starts_on_all(worker, monkeypatch):
    cores = len(os.sched_getaffinity(0))
    every = _allowed_cores(os.getpid())  # the worker was started with this process's cores
    record = worker.run(hook_request("before_llm", "misbehaving:count_cores"))
    counts = _cores_of(record)
    assert counts == {"hook": 1, "thread": 1, "subprocess": cores, "fork": cores, "spawn": cores, "after": 1}, counts
    # The next scenario keeps to that core (its cache); the first to end `KEEP_SECONDS` after the hold began gives
    # the cores back (this one, when it took that long; else the next one that starts after a pause that long).
    for _ in range(3):
        time.sleep(placement.KEEP_SECONDS + 0.05)
        assert_still_serves(worker)
        deadline = time.monotonic() + 2
        while _allowed_cores(worker.process.pid) != every and time.monotonic() < deadline:
            time.sleep(0.01)
        if _allowed_cores(worker.process.pid) == every:
            break
    else:
        raise AssertionError(
            f"the worker's cores ({_allowed_cores(worker.process.pid)}) were not given back ({every}) after its time on one core"
        )
    monkeypatch.setenv("HOOKHARNESS_ONE_CORE", "0")
    unheld = Worker()
    try:
        counts = _cores_of(unheld.run(hook_request("before_llm", "misbehaving:count_cores")))
        assert set(counts.values()) == {cores}, counts
    finally:
        unheld.close()
    monkeypatch.setenv("HOOKHARNESS_ONE_CORE", "off")
    with pytest.raises(RuntimeError, match=r"HOOKHARNESS_ONE_CORE='off': expected 0 \(each scenario free"):
        Worker().close()
