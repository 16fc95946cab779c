"""The JSON Schema of scenario files, checked by an independent validator.

Python's `jsonschema` validates every corpus file (they must all pass) and
every file of tests/invalid_scenarios that is invalid by its shape (each
must fail); the files invalid for another reason are listed below with that
reason, and must still pass, so the list stays exact. Files are read with
PyYAML under the YAML 1.2 core schema (hookharness/_yaml12.py), as the loader and editors
read them. When a `hookharness` binary is at hand (HOOKHARNESS_BIN, or on
PATH), the scenarios it generates over the whole contract must validate too,
and `hookharness schema` must print the committed copy.
"""

import functools
import json
import pathlib
import subprocess
import sys

import jsonschema
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from hookharness import _yaml12 as yaml12

SCHEMA_FILE = ROOT / "schema" / "scenario.schema.json"
INVALID = ROOT / "tests" / "invalid_scenarios"
EXTENSIONS = {".yaml", ".yml", ".json"}

# Invalid files whose fault a schema of the parsed value cannot see.
NOT_BY_SHAPE = {
    "duplicate_key.json": "a duplicate key is gone once the file is parsed",
    "duplicate_key.yaml": "a duplicate key is gone once the file is parsed",
    "infinite_number.json": "a number JSON cannot hold: a fault of the text",
    "nan_value.yaml": "a number JSON cannot hold: a fault of the text",
    "non_string_key.yaml": "a YAML key that is not a string: a fault of the text",
    "unsupported_tag.yaml": "a YAML tag outside the core schema: a fault of the text",
    "too_deep.json": "the nesting limit of the loader, not a shape",
    "expect_matcher_on_wrong_type.yaml": "whether `gte` applies depends on the key's `state_schema` type elsewhere in the file",
    "run_state_key_not_in_schema.yaml": "a `run.state` key is checked against `agent.state_schema`",
    "run_variable_also_in_state.yaml": "a cross-reference between `run.variables` and `run.state`",
    "run_variable_is_run_parameter.yaml": "a variable named as an `Agent.run` parameter is a rule on the name",
    "unknown_shared_hook.yaml": "a `shared:` name must be a `shared_hooks` key: a cross-reference",
    "python_models_unknown_script.yaml": "a `models` mapping must name a script of the top-level `models`: a cross-reference",
}

# Files that are not a document at all (the schema has nothing to check).
UNREADABLE = {
    "invalid_utf8.yaml",
    "json_syntax_error.json",
    "multiple_documents.yaml",
    "over_indented_key.yaml",
    "yaml_syntax_error.yaml",
    "unsupported_extension.toml",
}


@functools.cache
def schema():
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


@functools.cache
def validator():
    return jsonschema.Draft7Validator(schema())


def read(path):
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml12.load(text)


def files(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in EXTENSIONS)


def problems(instance):
    errors = sorted(validator().iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors]


def test_the_schema_is_a_valid_draft_7_schema():
    jsonschema.Draft7Validator.check_schema(schema())


# scenarios/**, and the scenarios of every example (examples/scenarios,
# examples/haystack_project/scenarios, ...).
CORPUS_FILES = files(ROOT / "scenarios") + [
    p for p in files(ROOT / "examples") if "scenarios" in p.relative_to(ROOT / "examples").parts[:-1]
]


def test_the_corpus_is_there():
    assert len(CORPUS_FILES) > 200


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_corpus_file_validates(path):
    assert problems(read(path)) == []


INVALID_FILES = sorted(p for p in INVALID.iterdir() if p.is_file())


@pytest.mark.parametrize(
    "path",
    [p for p in INVALID_FILES if p.name not in NOT_BY_SHAPE and p.name not in UNREADABLE],
    ids=lambda p: p.name,
)
def test_every_file_invalid_by_shape_fails(path):
    instance = read(path) if path.suffix in EXTENSIONS else path.read_text(encoding="utf-8")
    assert problems(instance), f"{path.name} is invalid, and the schema accepts it"


@pytest.mark.parametrize("name", sorted(NOT_BY_SHAPE), ids=str)
def test_the_files_invalid_otherwise_pass_the_shape_check(name):
    # When the schema learns to reject one, move it out of NOT_BY_SHAPE.
    assert problems(read(INVALID / name)) == [], f"{name} now fails by shape: remove it from NOT_BY_SHAPE"


@pytest.mark.parametrize("name", sorted(UNREADABLE), ids=str)
def test_the_unreadable_files_are_not_documents(name):
    path = INVALID / name
    if path.suffix not in EXTENSIONS:
        return
    with pytest.raises((ValueError, yaml12.yaml.YAMLError)):
        read(path)


def test_the_lists_name_existing_files():
    names = {p.name for p in INVALID_FILES}
    assert set(NOT_BY_SHAPE) | UNREADABLE <= names


def test_a_typo_is_reported_at_its_place():
    found = problems({"agent": {"exit_condition": ["text"]}, "model": []})
    assert found == ["agent: Additional properties are not allowed ('exit_condition' was unexpected)"]


def test_descriptions_reach_the_keys():
    top = schema()["properties"]
    assert top["model"]["description"].startswith("the mock chat generator's replies")
    assert schema()["definitions"]["when"]["properties"]["times"]["description"] == (
        "holds when this hook has fired fewer than N times in this run"
    )


def binary():
    import hookharness

    try:
        return hookharness.binary()
    except hookharness.BinaryNotFound as error:
        pytest.skip(str(error))


def test_the_command_prints_the_committed_copy():
    printed = subprocess.run([binary(), "schema"], capture_output=True, check=True, timeout=60)
    assert printed.stdout.decode("utf-8") == SCHEMA_FILE.read_text(encoding="utf-8")


def test_generated_scenarios_validate(tmp_path):
    command = [binary(), "generate", "--out", str(tmp_path), "--count", "300", "--seed", "30"]
    done = subprocess.run(command, check=False, capture_output=True, timeout=120)
    if done.returncode != 0 and b"generate" in done.stderr and b"unrecognized" in done.stderr:
        pytest.skip("this hookharness binary was built without `generate`")
    assert done.returncode == 0, done.stderr.decode()
    generated = files(tmp_path)
    assert len(generated) == 300
    failing = {str(p.name): problems(read(p)) for p in generated}
    assert {name: found for name, found in failing.items() if found} == {}


ENGINE_CASES = {
    "a factory agent with its args and models": (
        {"agent": {"python": "pkg.agents:make", "args": {"topic": "x"}, "models": {"planner": "judge"}},
         "models": {"judge": {"replies": [{"text": "PASS"}], "replaces": "haystack.components.generators.chat:OpenAIChatGenerator"}},
         "python_path": [".", "src"], "clock": "2026-03-01T09:00:00+00:00", "model": [],
         "hooks": {"after_run": [{"python": "pkg.hooks:Grade", "args": {"model": "m"}, "models": {"judge": "judge"}, "name": "grade"}]},
         "expect": {"printed": ["audit: search"]}},
        True,
    ),
    "a factory agent beside Agent settings": ({"agent": {"python": "pkg:make", "max_agent_steps": 3}, "model": []}, False),
    "factory args without a factory": ({"agent": {"args": {"topic": "x"}}, "model": []}, False),
    "a Python hook with a misspelled key": ({"hooks": {"before_run": [{"python": "pkg:h", "arg": {}}]}, "model": []}, False),
    "a named model without replies": ({"models": {"judge": {"replaces": "a:B"}}, "model": []}, False),
    "a script name that is not a string": ({"agent": {"python": "pkg:make", "models": {"planner": 3}}, "model": []}, False),
}


@pytest.mark.parametrize("case", sorted(ENGINE_CASES), ids=str)
def test_the_haystack_engine_keys(case):
    instance, valid = ENGINE_CASES[case]
    assert (problems(instance) == []) is valid, problems(instance)
