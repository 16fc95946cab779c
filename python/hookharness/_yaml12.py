"""PyYAML reading YAML 1.2 core schema, as hookharness reads scenario files.

PyYAML implements YAML 1.1: `yes`/`no`/`on`/`off` are booleans there, `010`
is octal, `2024-01-01` a date and `<<` a merge key. Scenario files are YAML
1.2 core schema (docs/scenario-format.md), and so is what editors check
against the JSON Schema: this loader resolves plain scalars by the 1.2 core
rules and keeps `<<` an ordinary key.
"""

import math
import re

import yaml


class Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's plain-scalar resolution."""


Yaml12Loader.yaml_implicit_resolvers = {}

_RESOLVERS = [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", list("~nN") + [""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        (r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
        list("-+.0123456789"),
    ),
]
for _tag, _pattern, _first in _RESOLVERS:
    Yaml12Loader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text, 0)
    if text.startswith("0x"):
        return int(text, 0)
    return int(text, 10)


def _float(loader, node):
    text = loader.construct_scalar(node).lower()
    if text.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if text == ".nan":
        return math.nan
    return float(text)


def _mapping(loader, node):
    # No merge keys: with the 1.1 resolvers gone, `<<` is a plain string key,
    # as in YAML 1.2; the mapping is built without PyYAML's merge step.
    return {loader.construct_object(k, deep=True): loader.construct_object(v, deep=True) for k, v in node.value}


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _float)
Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _mapping)


def load(text):
    """One YAML 1.2 document as Python values."""
    return yaml.load(text, Loader=Yaml12Loader)
