"""Reading definition files safely, keeping the line of every value.

YAML is parsed with PyYAML's safe composer and built by hand so that
(1) every value remembers its line, (2) duplicate keys and tags such as
``!!python/object`` are definition errors rather than silently accepted or
executed, and (3) alias bombs are cut off. JSON is parsed by :mod:`json`
(duplicate keys rejected) and located through the same YAML composer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ...errors import DefinitionError, Problem

MAX_FILE_BYTES = 1_000_000
MAX_NODES = 200_000

Path_ = tuple[Any, ...]

_STANDARD_TAGS = frozenset(
    "tag:yaml.org,2002:" + t
    for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "merge", "binary")
)


@dataclass
class Located:
    """Parsed data plus the 1-based line of each value, keyed by its path."""

    data: Any
    file: str
    lines: dict[Path_, int] = field(default_factory=dict)

    def line(self, path: Iterable[Any] = ()) -> int | None:
        """Line of the value at ``path``, or of its nearest located ancestor."""
        p = tuple(path)
        while True:
            if p in self.lines:
                return self.lines[p]
            if not p:
                return None
            p = p[:-1]

    def problem(self, path: Iterable[Any], message: str, severity: str = "error") -> Problem:
        """A problem located at ``path`` in this file."""
        return Problem(self.file, self.line(path), message, severity)

    def error(self, path: Iterable[Any], message: str) -> DefinitionError:
        """A ``DefinitionError`` located at ``path`` in this file."""
        return DefinitionError(self.problem(path, message))


def read_text(path: Path, display: str) -> str:
    """The file's text; oversized files and bytes that are not UTF-8 are definition errors."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise DefinitionError(
                f"file is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit for definition "
                "files; split it or remove generated content", file=display, line=1)
        raw = path.read_bytes()
    except OSError as exc:
        raise DefinitionError(f"cannot read file: {exc.strerror or exc}", file=display) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DefinitionError(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "save the file as UTF-8", file=display, line=line) from None


def parse_yaml(text: str, file: str, first_line: int = 1) -> Located:
    """Parse one YAML document, recording lines (offset so line 1 is ``first_line``)."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + first_line if mark is not None else first_line
        what = exc.problem or exc.context or "invalid YAML"
        raise DefinitionError(f"YAML syntax error: {what}", file=file, line=line) from None
    except yaml.YAMLError as exc:
        raise DefinitionError(f"YAML syntax error: {exc}", file=file, line=first_line) from None
    finally:
        loader.dispose()
    located = Located(None, file)
    if node is None:
        return located
    builder = _Builder(loader, located, first_line)
    located.data = builder.build(node, ())
    return located


class _Builder:
    def __init__(self, loader: yaml.SafeLoader, located: Located, first_line: int) -> None:
        self.loader = loader
        self.located = located
        self.offset = first_line
        self.count = 0

    def _line(self, node: yaml.Node) -> int:
        return int(node.start_mark.line) + self.offset

    def _fail(self, node: yaml.Node, message: str) -> DefinitionError:
        return DefinitionError(message, file=self.located.file, line=self._line(node))

    def build(self, node: yaml.Node, path: Path_) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise self._fail(node, f"document expands to more than {MAX_NODES:,} values "
                                   "(anchor/alias bomb?); simplify the file")
        if node.tag not in _STANDARD_TAGS:
            raise self._fail(node, f"YAML tag {node.tag!r} is not allowed in definition files; "
                                   "remove the tag (only plain YAML data is accepted)")
        self.located.lines.setdefault(path, self._line(node))
        if isinstance(node, yaml.MappingNode):
            try:
                self.loader.flatten_mapping(node)
            except yaml.MarkedYAMLError as exc:
                raise self._fail(node, f"invalid merge key: {exc.problem}") from None
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                key = self.build(key_node, (*path, "<key>"))
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    raise self._fail(key_node, "mapping keys must be plain scalars")
                if key in result:
                    raise self._fail(key_node, f"duplicate key {key!r}; each key may appear once")
                self.located.lines[(*path, key)] = self._line(key_node)
                result[key] = self.build(value_node, (*path, key))
                self.located.lines[(*path, key)] = self._line(key_node)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
        try:
            return self.loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, TypeError) as exc:
            raise self._fail(node, f"invalid value: {exc}") from None


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}; each key may appear once")
        result[key] = value
    return result


def parse_json(text: str, file: str) -> Located:
    """Parse JSON strictly, then borrow line numbers from the YAML composer when it can."""
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicates)
    except json.JSONDecodeError as exc:
        raise DefinitionError(f"JSON syntax error: {exc.msg} (column {exc.colno})",
                              file=file, line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        raise DefinitionError(f"invalid JSON: {exc}", file=file, line=1) from None
    try:
        located = parse_yaml(text, file)
    except DefinitionError:
        # Valid JSON that YAML 1.1 cannot read (e.g. tab indentation): keep the data, lose lines.
        return Located(data, file, {(): 1})
    located.data = data
    return located


def parse_by_suffix(text: str, file: str) -> Located:
    """JSON for ``.json`` files, YAML otherwise."""
    if file.endswith(".json"):
        return parse_json(text, file)
    return parse_yaml(text, file)


def validation_problems(exc: ValidationError, src: Located, base: Path_ = ()) -> list[Problem]:
    """Turn a pydantic ``ValidationError`` into located, readable problems."""
    problems = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        path = base + loc
        dotted = ".".join(str(p) for p in path) or "(top level)"
        kind = err["type"]
        if kind == "extra_forbidden":
            msg = f"unknown key {dotted!r}; remove it or check its spelling"
        elif kind == "missing":
            msg = f"missing required key {dotted!r}"
        else:
            got = err.get("input")
            shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
            if len(shown) > 60:
                shown = shown[:57] + "..."
            msg = f"{dotted}: {err['msg'].lower()} (got {shown})"
        problems.append(src.problem(path, msg))
    return problems
