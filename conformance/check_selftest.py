"""Run the runner's own selftest scenarios and check their statuses and determinism.

Usage: python conformance/check_selftest.py

Each scenario under conformance/selftest/ has an expected status in
selftest_status.json (most pass; some are meant to fail or to be file
errors, to exercise those paths). The whole set is run twice and the two outputs
must be byte-identical. Then the comparison's own cases run (check_compare.py):
a Rust error text without Haystack's must be reported as different.
"""

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SELFTEST = HERE / "selftest"


def run_once() -> str:
    proc = subprocess.run(
        [sys.executable, str(HERE / "runner.py"), "selftest"], cwd=HERE, capture_output=True, text=True, encoding="utf-8"
    )
    if proc.returncode not in (0, 1):
        sys.exit(f"runner failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout


def main() -> int:
    expected = json.loads((HERE / "selftest_status.json").read_text(encoding="utf-8"))
    first, second = run_once(), run_once()
    problems = []
    if first != second:
        problems.append("two runs gave different output")
    seen = set()
    for line in first.split("\n"):
        if not line.strip():
            continue
        outcome = json.loads(line)
        rel = Path(outcome["file"]).relative_to("selftest").as_posix()
        seen.add(rel)
        want = expected.get(rel)
        mark = "ok " if want == outcome["status"] else "BAD"
        if want != outcome["status"]:
            problems.append(f"{rel}: expected status {want}, got {outcome['status']}")
        detail = outcome["error"] or "; ".join(outcome["failures"])
        print(f"{mark} {outcome['status']:<5} {rel}  {detail[:150]}")
    for rel in sorted(set(expected) - seen):
        problems.append(f"{rel}: listed in selftest_status.json but not run")
    for p in problems:
        print("PROBLEM:", p)
    sys.path.insert(0, str(HERE))
    import check_compare

    compare_status = check_compare.main()
    return 1 if problems or compare_status else 0


if __name__ == "__main__":
    sys.exit(main())
