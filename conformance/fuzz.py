"""Differential fuzzing: generated scenarios through hookharness and Haystack 3.4.1.

Usage:
    python conformance/fuzz.py [--count N] [--seed S] [--hookharness BIN] [--out DIR]
                               [--batch B] [--max-seconds T] [--keep] [--mix MIX]

Generates N scenarios over the whole scenario contract from a seed
(`hookharness generate`, `hookharness::strategies::contract_scenarios`), replays
each batch through the Rust harness (`hookharness run --format json`) and through
the real haystack-ai 3.4.1 Agent (in this process: one Python process for the
whole campaign), and compares the outcomes as `compare.py` does, documented
deviations included; a difference in `failures` (the expectations' verdicts, which the
generated scenarios state for failed runs and construction errors too) is a difference like any
other. Some empty `outputs_to_state` options are written as `null`. `--mix` keeps only some of the
generator's feature groups (the ready-made hooks; the newer keys: prompt templates, variables and the
tools' State mappings): `core` neither, `ready-made` or `newer` one, `all` (the default) both. Each undocumented difference is shrunk: list items and map
keys of the scenario are removed while the scenario still shows an undocumented
difference in the same outcome field. The shrunk scenario, the original one and
both outcomes go to `DIR/<scenario name>/`.

The seed is printed first; the same seed and count give the same scenarios, so
any campaign can be rerun. The last lines are the counts and, for the documented scenarios, how many showed each
deviation id (a scenario can show several). Progress goes to stderr. Exit status: 0 when every
difference is documented, 1 when one is not, 2 when a runner crashes.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from compare import DEVIATIONS, RUST_OK_CODES, Deviations, RunnerCrash, Verdict, _file_key, compare  # noqa: E402


class Campaign:
    """Runs batches through both implementations and shrinks what differs."""

    def __init__(self, hookharness: str, deviations: Deviations, mix: str = "all"):
        self.hookharness = hookharness
        self.deviations = deviations
        self.mix = mix
        from hh_conformance import run_file

        self.run_python = run_file

    def generate(self, folder: Path, seed: int, start: int, count: int) -> list[Path]:
        argv = [self.hookharness, "generate", "--out", str(folder), "--seed", str(seed)]
        argv += ["--start", str(start), "--count", str(count), "--format", "json"]
        proc = subprocess.run(argv, capture_output=True, text=True, encoding="utf-8")
        if proc.returncode != 0:
            raise RunnerCrash(f"hookharness generate exited with status {proc.returncode}:\n{proc.stderr}")
        paths = sorted(folder.glob("*.json"))
        for path in paths:
            _keep_mix(path, self.mix)
            _null_options(path)
        return paths

    def rust(self, paths: list[Path]) -> dict[str, dict]:
        argv = [self.hookharness, "run", *map(str, paths), "--format", "json"]
        proc = subprocess.run(argv, capture_output=True, text=True, encoding="utf-8")
        if proc.returncode not in RUST_OK_CODES or (proc.returncode and not proc.stdout.strip()):
            raise RunnerCrash(f"hookharness run exited with status {proc.returncode}:\n{proc.stderr[-2000:]}")
        outcomes = {}
        for line in proc.stdout.split("\n"):
            if line.strip():
                outcome = json.loads(line)
                outcomes[_file_key(outcome["file"])] = outcome
        return outcomes

    def python(self, paths: list[Path]) -> dict[str, dict]:
        # A round trip through JSON text, as runner.py prints it, so that both
        # sides are compared in the same (parsed) form.
        return {
            _file_key(str(p)): json.loads(json.dumps(self.run_python(str(p)), sort_keys=True, ensure_ascii=False))
            for p in paths
        }

    def verdicts(self, paths: list[Path]) -> tuple[list[Verdict], dict[str, dict], dict[str, dict]]:
        rust, python = self.rust(paths), self.python(paths)
        return compare(rust, python, self.deviations), rust, python

    def differs(self, path: Path, field: str | None) -> bool:
        """`True` when `path` shows an undocumented difference (in `field`, when given); a candidate
        that crashes either runner is no smaller version of the difference."""
        try:
            verdicts, _, _ = self.verdicts([path])
        except Exception:  # noqa: BLE001 - any crash rejects the candidate
            return False
        verdict = verdicts[0]
        return verdict.kind != "identical" and verdict.kind != "documented" and (
            field is None or _field(verdict) == field
        )


# The generator's feature mixes (`--mix`): which of the two feature groups a campaign keeps.
MIXES = {
    "all": {"ready-made", "newer"},
    "core": set(),
    "ready-made": {"ready-made"},
    "newer": {"newer"},
}
# The ready-made hooks' keys in a hook entry or a shared hook's definition.
READY_MADE_KEYS = ("confirmation", "token_budget", "tool_result_offload", "compaction")
# The newer keys: prompt templates and their variables, and the tools' State mappings.
NEWER_AGENT_KEYS = ("system_prompt", "user_prompt", "required_variables")
NEWER_RUN_KEYS = ("variables",)
NEWER_TOOL_KEYS = ("inputs_from_state", "outputs_to_state", "outputs_to_string")


def _keep_mix(path: Path, mix: str) -> None:
    """Removes from the generated file the feature groups its campaign's mix leaves out: `ready-made`
    (the ready-made hooks, in `hooks` and `shared_hooks`, and the entries naming a removed shared hook)
    and `newer` (prompt templates, `required_variables`, `run.variables`, the tools' State mappings)."""
    keep = MIXES[mix]
    if keep == MIXES["all"]:
        return
    scenario = json.loads(path.read_text(encoding="utf-8"))
    if "ready-made" not in keep:
        shared = scenario.get("shared_hooks")
        removed = set()
        if isinstance(shared, dict):
            removed = {name for name, d in shared.items() if isinstance(d, dict) and any(k in d for k in READY_MADE_KEYS)}
            for name in removed:
                del shared[name]
        for point, entries in (scenario.get("hooks") or {}).items():
            if isinstance(entries, list):
                scenario["hooks"][point] = [
                    e
                    for e in entries
                    if not (isinstance(e, dict) and (any(k in e for k in READY_MADE_KEYS) or e.get("shared") in removed))
                ]
    if "newer" not in keep:
        for section, keys in (("agent", NEWER_AGENT_KEYS), ("run", NEWER_RUN_KEYS)):
            for key in keys if isinstance(scenario.get(section), dict) else ():
                scenario[section].pop(key, None)
        for tool in scenario.get("tools") or []:
            for key in NEWER_TOOL_KEYS if isinstance(tool, dict) else ():
                tool.pop(key, None)
    scenario["description"] = f"{scenario.get('description', '')} (campaign mix `{mix}`: conformance/fuzz.py --mix {mix})"
    path.write_text(json.dumps(scenario, indent=2, ensure_ascii=False), encoding="utf-8")


def _null_options(path: Path) -> None:
    """Writes some of the file's empty `outputs_to_state` options as `null` (`received:` alone), which
    the contract reads as `{}`: every other file, by the scenario's number, so a campaign is the same
    on every run."""
    number = int(path.stem.rsplit("_", 1)[1]) if path.stem.rsplit("_", 1)[-1].isdigit() else 0
    if number % 2:
        return
    scenario = json.loads(path.read_text(encoding="utf-8"))
    changed = False
    for tool in scenario.get("tools") or []:
        outputs = tool.get("outputs_to_state") if isinstance(tool, dict) else None
        for key, options in (outputs or {}).items():
            if options == {}:
                outputs[key] = None
                changed = True
    if changed:
        path.write_text(json.dumps(scenario, indent=2, ensure_ascii=False), encoding="utf-8")


def _field(verdict: Verdict) -> str:
    """The outcome field of a verdict's first difference (`error`, `result`, `trace`, ...)."""
    if not verdict.diffs:
        return verdict.kind
    path = verdict.diffs[0].path
    return path.split(".")[0].split("[")[0]


# ---------------------------------------------------------------- shrinking


def _candidates(value: Any) -> list[Callable[[], Any]]:
    """Smaller versions of `value`, each with one list item or map key removed (or an item shrunk)."""
    out: list[Callable[[], Any]] = []
    if isinstance(value, list):
        for i in range(len(value)):
            out.append(lambda i=i: value[:i] + value[i + 1 :])
        for i, item in enumerate(value):
            for smaller in _candidates(item):
                out.append(lambda i=i, smaller=smaller: value[:i] + [smaller()] + value[i + 1 :])
    elif isinstance(value, dict):
        keys = list(value)
        for key in keys:
            if key not in ("name", "model"):
                out.append(lambda key=key: {k: v for k, v in value.items() if k != key})
        for key in keys:
            for smaller in _candidates(value[key]):
                out.append(lambda key=key, smaller=smaller: {**value, key: smaller()})
    return out


def shrink(campaign: Campaign, scenario: dict, field: str, folder: Path, budget_seconds: float) -> tuple[dict, int]:
    """Greedy removal until no single removal keeps the difference (or the time budget ends)."""
    path = folder / "candidate.json"
    started = time.monotonic()
    steps = 0
    progress = True
    while progress and time.monotonic() - started < budget_seconds:
        progress = False
        for make in _candidates(scenario):
            if time.monotonic() - started >= budget_seconds:
                break
            candidate = make()
            path.write_text(json.dumps(candidate, indent=2, ensure_ascii=False), encoding="utf-8")
            if campaign.differs(path, field):
                scenario, progress, steps = candidate, True, steps + 1
                break
    path.unlink(missing_ok=True)
    return scenario, steps


def record(campaign: Campaign, verdict: Verdict, source: Path, out: Path, shrink_seconds: float) -> Path:
    """Shrinks one difference and writes it with both outcomes to `out/<name>/`."""
    original = json.loads(source.read_text(encoding="utf-8"))
    folder = out / source.stem
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, folder / "original.json")
    shrunk, steps = shrink(campaign, original, _field(verdict), folder, shrink_seconds)
    scenario = folder / "scenario.json"
    scenario.write_text(json.dumps(shrunk, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    verdicts, rust, python = campaign.verdicts([scenario])
    key = _file_key(str(scenario))
    for name, outcomes in (("hookharness", rust), ("haystack", python)):
        text = json.dumps(outcomes.get(key), indent=2, sort_keys=True, ensure_ascii=False)
        (folder / f"outcome.{name}.json").write_text(text + "\n", encoding="utf-8")
    (folder / "difference.txt").write_text(
        f"shrunk in {steps} steps\n{verdicts[0].line(show_all=True)}\n", encoding="utf-8"
    )
    return folder


# ---------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000, help="how many scenarios (default 1000)")
    parser.add_argument("--seed", type=int, help="the seed (default: a random one, printed)")
    parser.add_argument("--hookharness", default="target/release/hookharness", help="the Rust binary")
    parser.add_argument("--out", default="target/fuzz", help="where differences are written (default target/fuzz)")
    parser.add_argument("--batch", type=int, default=500, help="scenarios per batch (default 500)")
    parser.add_argument("--max-seconds", type=float, help="stop starting batches after this long")
    parser.add_argument("--shrink-seconds", type=float, default=60.0, help="time budget per shrink (default 60)")
    parser.add_argument("--keep", action="store_true", help="keep the generated scenarios under OUT/scenarios")
    parser.add_argument("--deviations", default=str(DEVIATIONS), help="the documented deviations")
    parser.add_argument(
        "--mix",
        choices=list(MIXES),
        default="all",
        help="the generator's feature mix: all (default, every feature), core (no ready-made hooks, no prompt "
        "templates or variables, no tool State mappings), ready-made (core and the ready-made hooks), newer "
        "(core and the prompt templates, variables and tool State mappings)",
    )
    args = parser.parse_args(argv)

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**63)
    print(
        f"seed {seed}: rerun with `bash conformance/fuzz.sh --seed {seed} --count {args.count}"
        + (f" --mix {args.mix}`" if args.mix != "all" else "`"),
        flush=True,
    )
    logging.getLogger("haystack").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    campaign = Campaign(args.hookharness, Deviations.load(Path(args.deviations)), args.mix)

    counts = {"identical": 0, "documented": 0, "different": 0}
    by_id: dict[str, int] = {}
    started = time.monotonic()
    done = 0
    found: list[Path] = []
    try:
        while done < args.count:
            if args.max_seconds is not None and time.monotonic() - started >= args.max_seconds:
                print(f"time limit reached after {done} scenarios", file=sys.stderr)
                break
            size = min(args.batch, args.count - done)
            with tempfile.TemporaryDirectory(prefix="hh-fuzz-") as tmp:
                folder = Path(tmp)
                if args.keep:
                    folder = out / "scenarios"
                    folder.mkdir(exist_ok=True)
                paths = campaign.generate(folder, seed, done, size)
                paths = [p for p in paths if done <= int(p.stem.rsplit("_", 1)[1]) < done + size]
                verdicts, _, _ = campaign.verdicts(paths)
                by_key = {_file_key(str(p)): p for p in paths}
                for verdict in verdicts:
                    kind = verdict.kind if verdict.kind in counts else "different"
                    counts[kind] += 1
                    for dev_id in verdict.ids if kind == "documented" else ():
                        by_id[dev_id] = by_id.get(dev_id, 0) + 1
                    if kind == "different":
                        print(verdict.line(show_all=False), flush=True)
                        found.append(record(campaign, verdict, by_key[verdict.file], out, args.shrink_seconds))
            done += size
            rate = done / max(time.monotonic() - started, 1e-9)
            print(
                f"{done}/{args.count} scenarios, {counts['different']} different, {rate:.0f} scenarios/s",
                file=sys.stderr,
                flush=True,
            )
    except RunnerCrash as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    elapsed = time.monotonic() - started
    print(
        f"{done} scenarios in {elapsed:.1f} s ({done / max(elapsed, 1e-9):.0f}/s), seed {seed}, mix {args.mix}: "
        f"{counts['identical']} identical, {counts['documented']} documented, {counts['different']} different"
    )
    if by_id:
        print("documented: " + ", ".join(f"{dev_id} {n}" for dev_id, n in sorted(by_id.items(), key=lambda i: (-i[1], i[0]))))
    for folder in found:
        print(f"  shrunk difference: {folder}/scenario.json (both outcomes beside it)")
    return 1 if counts["different"] else 0


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":
        # The reference runs in this process (hh_conformance.run_file), and Haystack prints sets of
        # names in its error texts in the order of their string hashes, salted at random per process
        # unless PYTHONHASHSEED is set: 0 is the seed the Rust engine reproduces (src/pyfmt/pyset.rs).
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])
    sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(main())
