"""Generate tests/fixtures/haystack/textwrap.json: lines wrapped by Python's own `textwrap`, as Jinja2's wordwrap calls it.

Jinja2's `wordwrap` filter wraps each line of its value with `textwrap.wrap(line, width=..., expand_tabs=False,
replace_whitespace=False, break_long_words=..., break_on_hyphens=...)`. Each case is a line drawn from an alphabet
that reaches every rule of `textwrap`'s chunking (letters, digits, `_`, hyphens, em-dashes, punctuation, tabs,
runs of spaces, non-ASCII letters and digits, a no-break space) with a width and the two flags, and the lines Python
returns (or `TypeError` where Python slices with a float width). `src/prompt/textwrap.rs` wraps the same cases and
compares.

Usage: /work/.venv-ref/bin/python conformance/make_textwrap_fixtures.py [OUT_FILE]
"""

import json
import random
import sys
import textwrap
from pathlib import Path

ALPHABET = ["a", "b", "Z", "é", "1", "٣", "²", "_", "-", "-", "--", " ", " ", "  ", "\t", ".", "!", ",", "'", "?",
            "\u00a0", "\u2003", "x-y", "ab-cd", "—"]
WIDTHS = [1, 2, 3, 4, 5, 7, 9, 12, 20, 0.5, 2.5, 6.0]
CASES = 600
SEED = 20261207


def case(rng):
    text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 24)))
    width = rng.choice(WIDTHS)
    break_long_words = rng.random() < 0.75
    break_on_hyphens = rng.choice([True, True, False, 1])
    try:
        lines = textwrap.wrap(text, width=width, expand_tabs=False, replace_whitespace=False,
                              break_long_words=break_long_words, break_on_hyphens=break_on_hyphens)
    except TypeError:
        lines = "TypeError"
    return {"text": text, "width": width, "break_long_words": break_long_words,
            "break_on_hyphens": "1" if type(break_on_hyphens) is int else break_on_hyphens, "lines": lines}


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        Path(__file__).resolve().parents[1] / "tests/fixtures/haystack/textwrap.json"
    rng = random.Random(SEED)
    cases = [case(rng) for _ in range(CASES)]
    out.write_text(json.dumps(cases, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
