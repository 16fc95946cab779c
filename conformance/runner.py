"""Replay hookharness scenario files through Haystack 3.4.1's real Agent.

Usage:
    python conformance/runner.py FILE_OR_DIR... [--format json]

Prints one outcome per scenario as a JSON line (keys sorted at every level, UTF-8,
non-ASCII not escaped), in the same form as `hookharness run --format json`.
Directories are searched recursively for *.yaml, *.yml and *.json; all files are
run in path order. Exit status: 0 if every scenario passed, 1 otherwise, 2 on
usage errors.
"""

import argparse
import json
import logging
import os
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SUFFIXES = (".yaml", ".yml", ".json")


def collect(paths: list[str]) -> list[str]:
    """Files to run: explicit files as given, directories searched recursively, joined onto the path given."""
    found: dict[str, None] = {}
    for given in paths:
        if os.path.isdir(given):
            for root, dirs, files in os.walk(given):
                dirs.sort()
                for name in files:
                    if name.lower().endswith(SUFFIXES):
                        found[os.path.join(root, name)] = None
        else:
            # A missing or unreadable file still gets an outcome (status error), like any invalid file.
            found[given] = None
    # Sorted by path components (as Rust's Path ordering does), so "a/b.yaml" comes before "a-c.yaml".
    return sorted(found, key=lambda p: Path(p).parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    parser.add_argument("--format", choices=["json"], default="json")
    parser.add_argument("--verbose", action="store_true", help="show Haystack's log output on stderr")
    args = parser.parse_args(argv)

    if not args.verbose:
        # Haystack logs every failed tool call and max-steps stop; the outcome already reports them.
        logging.getLogger("haystack").setLevel(logging.CRITICAL)
        warnings.simplefilter("ignore")

    from hh_conformance import run_file

    all_pass = True
    out = sys.stdout
    for file in collect(args.paths):
        outcome = run_file(file)
        all_pass = all_pass and outcome["status"] == "pass"
        try:
            out.write(json.dumps(outcome, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n")
            out.flush()
        except BrokenPipeError:  # the reader went away (e.g. `| head`)
            return 0 if all_pass else 1
    return 0 if all_pass else 1


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":
        # Haystack prints sets of names in its error texts (`The following tool names are not valid:
        # {'search', 'ghost'}`), in the order of their string hashes, which a process salts at random
        # unless PYTHONHASHSEED is set. With 0, the one seed the Rust engine reproduces
        # (src/pyfmt/pyset.rs), the same file gives the same text here and there, run after run.
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])
    # UTF-8 output whatever the locale: outcomes keep non-ASCII text unescaped.
    sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(main())
