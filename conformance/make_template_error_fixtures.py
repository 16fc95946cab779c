"""Generate tests/fixtures/haystack/template_errors.json: what Jinja2 (as Haystack 3.4.1 sets it up) says
about generated broken templates.

Each case is a user prompt: a valid template from a fixed list (every Jinja2 construct a prompt can use:
loops, conditions, assignments, macros, call and filter blocks, raw blocks, comments, literals, filters,
tests, slices, the message tag), or one broken from it by a deterministic mutation (cut short, a character
removed or replaced, a tag or token inserted), or a hand-written error of every kind. For each, the fixture
records the text (`error`) and line (`line`) of the exception building Haystack's Agent with it raises
(`_validate_prompt_message_blocks`, then `ChatPromptBuilder(...)`, which parses the template and compiles it
to find its variables: a `TemplateSyntaxError`, or the `TemplateAssertionError` of an unknown filter or
test), both `null` when Haystack accepts the template.

`tests/template_errors.rs` builds the same prompts with the harness and compares.

Usage: /work/main/.venv-ref/bin/python conformance/make_template_error_fixtures.py [OUT_FILE]
"""

import json
import logging
import random
import sys
from pathlib import Path

from haystack.components.agents.utils import _template_for_role, _validate_prompt_message_blocks
from haystack.components.builders import ChatPromptBuilder

VALID = [
    "Hello {{ name }}!",
    "{% for x in items %}{{ loop.index }}. {{ x }}{% if not loop.last %}; {% endif %}{% endfor %}",
    "{% for k, v in d.items() if v recursive %}{{ k }}={{ v }}{% else %}none{% endfor %}",
    "{% if a %}A{% elif b %}B{% else %}C{% endif %}",
    "{% set total = namespace(n=0) %}{% for x in xs %}{% set total.n = total.n + x %}{% endfor %}{{ total.n }}",
    "{% set block_text %}inner {{ x }}{% endset %}{{ block_text|upper }}",
    "{% macro item(x, sep=', ') %}- {{ x }}{{ sep }}{% endmacro %}{{ item('a') }}{{ item(x='b', sep='') }}",
    "{% call(user) dump(users) %}{{ user }}{% endcall %}",
    "{% filter upper %}loud {{ word }}{% endfilter %}",
    "{% with a = 1, b = [2, 3] %}{{ a }}{{ b[0] }}{% endwith %}",
    "{% raw %}{{ not parsed }}{% endraw %} after",
    "{# a comment #}text{#- trimmed -#} more",
    "{{ 'single' ~ \"double\" ~ 'esc\\'aped' }} {{ 1 + 2 * 3 - 4 / 5 // 6 % 7 ** 2 }}",
    "{{ [1, 2, 3][1:] }} {{ {'a': 1, 'b': [2]}['b'] }} {{ (1, 2) }} {{ s[::2] }}",
    "{{ x|default('none')|title }} {{ xs|join(', ') }} {{ n|round(1, 'floor') }}",
    "{{ x is defined }} {{ x is not none }} {{ n is divisibleby 3 }} {{ n is divisibleby(3) }}",
    "{{ a if b else c }} {{ a if b }} {{ not a and b or c }} {{ a in b }} {{ a not in b }}",
    "{{ a == b }} {{ a != b }} {{ a < b }} {{ a >= b }} {{ -a }} {{ +a }}",
    "{%- if x -%}\n  trimmed\n{%- endif %}\n{{- y -}}",
    "line one\n{% for x in xs %}\n  {{ x.name }}: {{ x['value'] }}\n{% endfor %}\nend",
    '{% message role="user" %}Hi {{ name }}{% endmessage %}',
    '{% message role="user" name="bob" meta={"k": 1} %}Hi{% endmessage %}',
    "{{ f(1, *args, k=2, **kwargs) }} {{ obj.method().attr[0] }} {{ x.0 }}",
    "{{ 1.5e3 }} {{ 0x1F }} {{ 0b101 }} {{ 0o17 }} {{ 1_000 }} {{ true }} {{ None }}",
    "{% block content %}body{% endblock content %}",
    "{% print x, y %}",
    "{% autoescape true %}{{ x }}{% endautoescape %}",
    "{{ x|selectattr('ok')|map(attribute='name')|list|length }} {{ d|dictsort|first }}",
]

BROKEN = [
    "Summarize {{ topic",
    "{{ unclosed",
    "{% for x in items %}no end",
    "{% if x %}no end",
    "{% endif %}",
    "{% endfor %}",
    "{% for x in y %}{% endif %}",
    "{% if a %}{% for x in y %}{% endif %}",
    "{% if a %}{% endfor %}",
    "{% else %}",
    "{% foo %}",
    "{% for %}{% endfor %}",
    "{% for x %}{% endfor %}",
    "{% for x in %}{% endfor %}",
    "{% for 1 in y %}{% endfor %}",
    "{% for x.y in z %}{% endfor %}",
    "{% set %}",
    "{% set x %}",
    "{% set 'a' = 1 %}",
    "{% if %}{% endif %}",
    "{% if x %}{% elif %}{% endif %}",
    "{% macro %}{% endmacro %}",
    "{% macro m(a=1, b) %}{% endmacro %}",
    "{% call m() %}",
    "{% call x %}{% endcall %}",
    "{% filter %}{% endfilter %}",
    "{% block a-b %}{% endblock %}",
    "{% block %}{% endblock %}",
    "{% block required %}x{% endblock %}",
    "{% block b required %}text{% endblock %}",
    "{{ x | }}",
    "{{ x | 1 }}",
    "{{ x is }}",
    "{{ x is is y }}",
    "{{ x|nosuchfilter }}",
    "{{ x is nosuchtest }}",
    "{% if y %}{{ x|nosuchfilter }}{% endif %}",
    "{{ x|nosuchfilter if y else z }}",
    "{% for x in y %}{{ x|nosuchfilter }}{% endfor %}",
    "{{ x !}}",
    "{{ x $ y }}",
    "{{ x ? y }}",
    "{{ `x` }}",
    "{{ x ) }}",
    "{{ (x] }}",
    "{{ [x) }}",
    "{{ {x: 1] }}",
    "{{ 'unterminated }}",
    "{{ \"unterminated }}",
    "{{ 'bad \\x escape' }}",
    "{{ 'bad \\u12 escape' }}",
    "{# unclosed comment",
    "{% raw %}unclosed raw",
    "{{ }}",
    "{% %}",
    "{{ x. }}",
    "{{ x.'a' }}",
    "{{ x[ }}",
    "{{ x[1 }}",
    "{{ f(a=1, 2) }}",
    "{{ f(**k, *a) }}",
    "{{ f(1 2) }}",
    "{{ [1, 2 }}",
    "{{ {'a' 1} }}",
    "{{ a if }}",
    "{{ not }}",
    "{{ 1 + }}",
    "{{ x y }}",
    "{% print %}",
    "{% with %}{% endwith %}",
    "{% with a %}{% endwith %}",
    "{% from 'x' import _private %}",
    "{% import 'x' %}",
    "{% include %}",
    "{% extends %}",
    "{% message %}x{% endmessage %}",
    '{% message role="nobody" %}x{% endmessage %}',
    '{% message role="user" name=1 %}x{% endmessage %}',
    '{% message role="user" meta=1 %}x{% endmessage %}',
    '{% message role="user" %}x',
    "{% insert %}",
    "line one\nline two {{ x\nline three",
    "a\n{% for x in y %}\nb\n{% endif %}",
    "{{ x }}\n\n{% if %}",
    "{{ x.1a }}",
    "{{ 1.e5 }}",
    "{{ 01 }}",
    "{% for x in y %}{% break %}{% endfor %}",
    "{% do x %}",
    "{{ x|f(}} }}",
]

PIECES = [
    "{", "}", "%", "#", "(", ")", "[", "]", "'", '"', "|", "!", "$", "-", "+", ".", ",", "=", ":", "~",
    " ", "\n", "x", "1", "is", "if", "in", "not",
    "{% endfor %}", "{% endif %}", "{% else %}", "{% for x in y %}", "{% if x %}", "{{", "}}", "{%", "%}",
    "{#", "#}", "{% endmacro %}", "{% raw %}", "|upper", " is defined",
]


def outcome(template: str) -> dict:
    """What Haystack does with `template` as an Agent's user prompt."""
    try:
        _validate_prompt_message_blocks(template, None)
        ChatPromptBuilder(template=_template_for_role(template, "user"), required_variables=[])
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        return {"error": str(e), "line": getattr(e, "lineno", None)}
    return {"error": None, "line": None}


def mutations(rng: random.Random, base: str) -> list[str]:
    out = [base[:i] for i in range(1, len(base))]
    for _ in range(12):
        i = rng.randrange(len(base))
        out.append(base[:i] + base[i + 1 :])
        out.append(base[:i] + rng.choice(PIECES) + base[i + 1 :])
        j = rng.randrange(len(base) + 1)
        out.append(base[:j] + rng.choice(PIECES) + base[j:])
    return out


def main() -> None:
    logging.disable(logging.WARNING)
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "tests/fixtures/haystack/template_errors.json"
    rng = random.Random(27)
    templates: list[str] = []
    for base in VALID:
        templates.append(base)
        templates.extend(mutations(rng, base))
    templates.extend(BROKEN)
    seen: set[str] = set()
    cases = []
    for template in templates:
        if template in seen or not template.strip():
            continue
        seen.add(template)
        cases.append({"template": template, **outcome(template)})
    out.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    errors = sum(1 for c in cases if c["error"])
    print(f"{len(cases)} cases, {errors} of them errors -> {out}")


if __name__ == "__main__":
    main()
