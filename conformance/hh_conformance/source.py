"""Reading scenario files into plain values, remembering where every value came from.

YAML is read with the YAML 1.2 core schema rather than PyYAML's default YAML 1.1
rules, so that `yes`/`no`/`on`/`off` stay strings, `1e20` is a float and `010`
is the integer 10: the Rust harness reads YAML 1.2, and the same file must mean
the same run to both. Duplicate keys are errors (PyYAML silently keeps the last).
"""

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

Path_ = tuple  # a key path: a tuple of map keys (str) and list indices (int)


class FileError(Exception):
    """The scenario file is invalid: the text names the file, the key path and (YAML) the position."""


@dataclass
class Source:
    """A parsed file: the plain value tree plus the position of each node, keyed by key path."""

    file: str
    data: Any
    marks: dict = field(default_factory=dict)  # key path -> (line, column), 1-based; YAML only

    def error(self, path: Path_, message: str) -> FileError:
        where = format_path(path) or "(top level)"
        text = f"{self.file}: {where}: {message}"
        # A missing key has no position of its own: point at the nearest enclosing value.
        mark = None
        for end in range(len(path), -1, -1):
            mark = self.marks.get(tuple(path[:end]))
            if mark is not None:
                break
        if mark is not None:
            text += f" (line {mark[0]}, column {mark[1]})"
        return FileError(text)


def format_path(path: Path_) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


# --- YAML 1.2 core schema -------------------------------------------------------------------------------------

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


class _CoreResolver(yaml.resolver.BaseResolver):
    pass


for _tag, _regexp, _first in [
    ("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", _BOOL, list("tTfF")),
    ("tag:yaml.org,2002:int", _INT, list("-+0123456789")),
    ("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789")),
]:
    _CoreResolver.add_implicit_resolver(_tag, _regexp, _first)


class _CoreLoader(
    yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer, _CoreResolver
):
    """Composes nodes only; `_convert` turns them into values with the core-schema rules."""

    def __init__(self, stream):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        _CoreResolver.__init__(self)


def _scalar(node: yaml.ScalarNode, src: Source, path: Path_) -> Any:
    tag, value = node.tag, node.value
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:bool":
        return value.lower() == "true"
    if tag == "tag:yaml.org,2002:int":
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value, 10)
    if tag == "tag:yaml.org,2002:float":
        lowered = value.lower()
        if lowered.endswith("inf") or lowered.endswith("nan"):
            raise src.error(path, f"`{value}` is not a JSON number")
        return float(value)
    if tag == "tag:yaml.org,2002:str":
        return value
    raise src.error(path, f"unsupported YAML tag {tag}")


def _convert(node: yaml.Node, src: Source, path: Path_) -> Any:
    src.marks[tuple(path)] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node, src, path)
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, src, (*path, i)) for i, item in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise src.error(path, "map keys must be strings")
            key = _scalar(key_node, src, path)
            if not isinstance(key, str):
                # A non-string key (`1:`, `true:`) has no JSON equivalent; the core has none.
                key_path = (*path, str(key))
                src.marks[key_path] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                raise src.error(key_path, "map keys must be strings")
            key_path = (*path, key)
            if key in out:
                src.marks[key_path] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                raise src.error(key_path, "duplicate key")
            out[key] = _convert(value_node, src, key_path)
            # Errors about a key (unknown, wrong type) point at the key itself.
            src.marks[key_path] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        return out
    raise src.error(path, f"unsupported YAML node {type(node).__name__}")


def _load_yaml(text: str, src: Source) -> Any:
    try:
        loader = _CoreLoader(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e)
        raise FileError(f"{src.file}: invalid YAML: {problem}{where}") from None
    if node is None:
        return None
    return _convert(node, src, ())


def _load_json(text: str, src: Source) -> Any:
    def pairs(items):
        out = {}
        for key, value in items:
            if key in out:
                raise FileError(f"{src.file}: duplicate key `{key}`")
            out[key] = value
        return out

    def bad_constant(name):
        raise FileError(f"{src.file}: `{name}` is not a JSON number")

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=bad_constant)
    except json.JSONDecodeError as e:
        raise FileError(f"{src.file}: invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None


def load(file: str) -> Source:
    src = Source(file=file, data=None)
    suffix = Path(file).suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise FileError(f"{file}: unsupported file type `{suffix}` (expected .yaml, .yml or .json)")
    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise FileError(f"{file}: cannot read the file: {e}") from None
    src.data = _load_json(text, src) if suffix == ".json" else _load_yaml(text, src)
    return src


def is_json_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))
