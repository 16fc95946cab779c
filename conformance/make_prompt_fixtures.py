"""Generate tests/fixtures/haystack/prompts.json: templates rendered by Haystack 3.4.1's ChatPromptBuilder.

Each case is a template from Haystack's docs and docstrings or a Jinja2 feature they use (loops, filters,
tests, macros, namespaces, arithmetic), with its variables and the text of the one user message Haystack
renders (or the error, as `ERROR <type>: <text>`). `tests/prompt_templates.rs` renders the same cases
with the harness's prompt engine and compares.

Usage: /work/.venv-ref/bin/python conformance/make_prompt_fixtures.py [OUT_FILE]
"""

import json
import logging
import sys
from pathlib import Path

from haystack.components.builders import ChatPromptBuilder

CASES = [
    ("Translate to {{ target_language }}. Context: {{ snippet }}; Translation:",
     {"target_language": "spanish", "snippet": "I can't speak spanish."}),
    ("Given these documents, answer the question.\nDocuments:\n{% for doc in documents %}\n    {{ doc.content }}\n"
     "{% endfor %}\n\nQuestion: {{question}}\nAnswer:",
     {"documents": [{"content": "Paris is the capital."}, {"content": "Berlin too."}], "question": "Capital?"}),
    ("{% if documents|length > 0 %}Use {{ documents|length }} docs{% else %}No docs{% endif %}", {"documents": [1, 2]}),
    ("{{ items|join(', ') }} {{ items|first }} {{ items|last }} {{ items|sort|list }} {{ items|reverse|list }}",
     {"items": ["b", "a", "c"]}),
    ("{{ name|default('anonymous') }} {{ name is defined }}", {}),
    ("{{ query|trim|title }}|{{ query|capitalize }}|{{ query|lower }}|{{ query|replace('o', '0') }}",
     {"query": "  hello world  "}),
    ("{{ n|round(1) }} {{ n|int }} {{ n|abs }} {{ (n * 2)|float }}", {"n": -2.46}),
    ("{%- for k, v in d.items() -%}\n{{ k }}={{ v }};\n{%- endfor %}", {"d": {"b": 1, "a": [True, None]}}),
    ("{% for x in xs %}{{ loop.index }}:{{ x }}{{ ',' if not loop.last }}{% endfor %} ({{ xs|length }})",
     {"xs": ["p", "q"]}),
    ("{{ data|tojson }}", {"data": {"b": 1, "a": "<x>"}}),
    ("{{ '%s has %d items'|format(who, n) }}", {"who": "cart", "n": 3}),
    ("{{ text|truncate(9) }}", {"text": "a long sentence here"}),
    ("{{ text|wordcount }} {{ text|center(30) }}|", {"text": "three small words"}),
    ("{{ xs|map(attribute='name')|join(',') }} {{ xs|selectattr('ok')|list|length }}",
     {"xs": [{"name": "a", "ok": True}, {"name": "b", "ok": False}]}),
    ("{{ d['key'] }} {{ d.key }} {{ d.get('missing', 'dflt') }}", {"d": {"key": "v"}}),
    ("{% set total = namespace(n=0) %}{% for x in xs %}{% set total.n = total.n + x %}{% endfor %}{{ total.n }}",
     {"xs": [1, 2, 3]}),
    ("{{ 10 / 4 }} {{ 10 // 4 }} {{ 10 % 4 }} {{ 2 ** 10 }} {{ 1e3 }} {{ 0.1 + 0.2 }}", {}),
    ("{{ xs|sum }} {{ xs|max }} {{ xs|min }} {{ xs|unique|list }}", {"xs": [3, 1, 3, 2]}),
    ("{{ s[0:3] }} {{ s[-1] }} {{ s|length }} {{ s.upper() }} {{ s.split(' ') }}", {"s": "fusion energy"}),
    ("{% macro item(x) %}- {{ x }}{% endmacro %}{% for x in xs %}{{ item(x) }}\n{% endfor %}", {"xs": ["a", "b"]}),
]


def render(template: str, variables: dict) -> str:
    builder = ChatPromptBuilder(template='{% message role="user" %}' + template + "{% endmessage %}",
                                required_variables=None)
    try:
        return builder.run(**variables)["prompt"][0].text
    except Exception as e:  # the error is the expected outcome
        return f"ERROR {type(e).__name__}: {e}"


def main() -> None:
    logging.disable(logging.WARNING)  # ChatPromptBuilder warns about required_variables=None
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "tests/fixtures/haystack/prompts.json"
    cases = [{"template": t, "variables": v, "text": render(t, v)} for t, v in CASES]
    out.write_text(json.dumps(cases, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
