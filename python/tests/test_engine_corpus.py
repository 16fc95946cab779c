"""The worker agrees with the Rust engine over the whole corpus, full trace included (`engine_corpus.py`).

Needs the release binary (`cargo build --release`, or `HOOKHARNESS_BIN`); without it the test is skipped, saying so.
`HOOKHARNESS_TOJSON` may name a program that prints each file's canonical JSON (`Scenario::to_value()`); without it
the files are read as YAML 1.2, which the worker reads the same.
"""

import os
from pathlib import Path

import engine_corpus
import pytest
from engine_driver import release_binary

BINARY = release_binary()


@pytest.mark.skipif(not Path(BINARY).exists(), reason=f"no hookharness binary at {BINARY}: run `cargo build --release`")
@pytest.mark.parametrize("detail", ["full", "summary"])
def test_every_corpus_scenario_is_identical_or_a_documented_deviation(capsys, detail):
    argv = ["scenarios", "conformance/selftest", "conformance/deviations", "--hookharness", BINARY, "--detail", detail]
    if os.environ.get("HOOKHARNESS_TOJSON"):
        argv += ["--tojson", os.environ["HOOKHARNESS_TOJSON"]]
    status = engine_corpus.main(argv)
    out = capsys.readouterr().out
    different = [line for line in out.splitlines() if ": different: " in line]
    assert status == 0 and not different, "\n".join(different)
    assert out.splitlines()[-1].endswith(" 0 different")
