"""Reading definition files safely, keeping the line of every value.

YAML is parsed with PyYAML's safe composer and built by hand so that
(1) every value remembers its line, (2) duplicate keys and tags such as
``!!python/object`` are definition errors rather than silently accepted or
executed, and (3) alias bombs and absurd nesting are cut off. JSON is parsed
by :mod:`json` (duplicate keys rejected) and located through the same YAML composer.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ...errors import DefinitionError, Problem

MAX_FILE_BYTES = 1_000_000
MAX_NODES = 200_000
MAX_DEPTH = 100
#: Files named after their role, not their agent: the agent is named after the folder.
AGENT_FILE_NAMES = ("agent.md", "agent.json")

Path_ = tuple[Any, ...]

_YAML_TAG_PREFIX = "tag:yaml.org,2002:"
_BOM = b"\xef\xbb\xbf"
_MERGE_TAG = _YAML_TAG_PREFIX + "merge"
_JSON_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[][{}\n]')  # strings (skipped), brackets, newlines
_STANDARD_TAGS = frozenset(
    _YAML_TAG_PREFIX + t
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


@dataclass
class SourceFile:
    """One file offered to the loaders: where it is, and (read on first use) what it holds.

    ``display`` is the name messages show (relative to the project folder);
    ``place`` is the slash-separated path the format table's path rules match:
    relative to the project folder, or absolute for a file loaded on its own.
    """

    path: Path
    display: str
    place: str

    @classmethod
    def at(cls, path: Path, root: Path | None = None) -> SourceFile:
        """The file at ``path``, seen from the project folder ``root`` (None: loaded alone).

        >>> SourceFile.at(Path("/p/agents/a/agent.md"), Path("/p")).place
        'agents/a/agent.md'
        """
        if root is not None:
            try:
                relative = path.relative_to(root)
                return cls(path, str(relative), relative.as_posix())
            except ValueError:
                pass  # listed by the manifest from outside the folder: shown in full
        shown = str(path) if root is not None else path.name
        return cls(path, shown, path.absolute().as_posix())

    @property
    def name(self) -> str:
        """The file's name, e.g. ``agent.json``."""
        return self.path.name

    @property
    def suffix(self) -> str:
        """The file's suffix, e.g. ``.json``."""
        return self.path.suffix

    @property
    def agent_name(self) -> str:
        """The name of an agent that does not name itself: its folder's for ``agent.md`` /
        ``agent.json`` (one folder per agent), else the file's stem."""
        return self.path.parent.name if self.name in AGENT_FILE_NAMES else self.path.stem

    @cached_property
    def text(self) -> str:
        """The file's text (see ``read_text``)."""
        return read_text(self.path, self.display)

    @cached_property
    def located(self) -> Located:
        """The file parsed as JSON or YAML (by its suffix), with the line of every value."""
        return parse_by_suffix(self.text, self.display)

    @property
    def data(self) -> Any:
        """The parsed data (``located.data``); until a loader needs the lines, the same data
        from a quicker parse (content rules look into many files that are not definitions)."""
        located = self.__dict__.get("located")
        return located.data if located is not None else self._sniffed

    @cached_property
    def _sniffed(self) -> Any:
        """The data by a quick parse without line numbers, else by ``located`` (which also
        raises the located error of a file the quick parse cannot read)."""
        quick = quick_parse(self.text, self.display)
        return self.located.data if quick is _NOT_QUICK else quick


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
    bom = len(_BOM) if raw.startswith(_BOM) else 0
    try:
        return raw[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start + bom  # offsets count from the start of the file, BOM included
        line = raw[:start].count(b"\n") + 1
        raise DefinitionError(
            f"not UTF-8 text (byte 0x{raw[start]:02x} at offset {start}); "
            "save the file as UTF-8", file=display, line=line) from None


def parse_yaml(text: str, file: str, first_line: int = 1) -> Located:
    """Parse one YAML document, recording lines (offset so line 1 is ``first_line``)."""
    try:
        loader = _Loader(text)  # PyYAML's reader checks the characters here
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + first_line
        raise DefinitionError(
            f"character {exc.character!r} is not allowed in YAML; remove it, or write it as an "
            "escape (\\x..) inside a double-quoted string", file=file, line=line) from None
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        if exc.context == "while scanning an alias" and exc.context_mark is not None:
            raise DefinitionError(_bare_star(text, exc.context_mark.line), file=file,
                                  line=exc.context_mark.line + first_line) from None
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + first_line if mark is not None else first_line
        what = exc.problem or exc.context or "invalid YAML"
        raise DefinitionError(f"YAML syntax error: {what}{_alias_hint(exc)}", file=file,
                              line=line) from None
    except yaml.YAMLError as exc:
        raise DefinitionError(f"YAML syntax error: {exc}", file=file, line=first_line) from None
    except RecursionError:
        raise _TooDeepError(file, loader.get_mark().line + first_line) from None
    finally:
        loader.dispose()
    located = Located(None, file)
    if node is None:
        return located
    builder = _Builder(loader, located, first_line)
    located.data = builder.build(node, ())
    return located


def _bare_star(text: str, line: int) -> str:
    """The error for a ``*`` YAML cannot read as an alias, quoting the line the user wrote
    (PyYAML's own words, "expected alphabetic or numeric character, but found" the end
    of the text, describe its scanner, not the file).

    >>> _bare_star("name: a\\ntools: *\\n", 1).split(": in YAML")[0]
    'YAML syntax error: `tools: *`'
    >>> _bare_star("name: a\\ntools: *\\n", 1).split("; ")[-1]
    'quote it, e.g. tools: ["*"]'
    """
    lines = text.splitlines()
    written = lines[line].strip() if line < len(lines) else "*"
    key, colon, value = written.partition(":")
    value = value.strip()
    fix = (f'{key}: "{value}"' if colon and value.startswith("*") and value != "*"
           else f'{key}: ["*"]' if colon and value == "*"
           else 'tools: ["*"] (a quoted "*")')
    return (f"YAML syntax error: `{written}`: in YAML a bare * starts an alias (a reference "
            f"to an &anchor), so it is not a value; quote it, e.g. {fix}")


def _alias_hint(exc: yaml.MarkedYAMLError) -> str:
    """Why a ``*`` broke the file: in YAML it starts an alias (``tools: *`` is not "all")."""
    if (exc.problem or "").startswith("found undefined alias"):
        return ("; a value starting with * is a YAML alias: quote it (\"*...\") if it is a "
                "tool name or glob")
    return ""


class _TooDeepError(DefinitionError):
    """Nesting deeper than ``MAX_DEPTH`` (JSON keeps this error rather than losing lines)."""

    def __init__(self, file: str, line: int | None) -> None:
        super().__init__(f"data is nested more than {MAX_DEPTH} levels deep; definition files "
                         "never need that, flatten the file", file=file, line=line)


def _show_tag(tag: str) -> str:
    """A tag as it is written in the file: ``!!python/name:x``, not its expanded URI."""
    return "!!" + tag[len(_YAML_TAG_PREFIX):] if tag.startswith(_YAML_TAG_PREFIX) else tag


class _Loader(yaml.SafeLoader):
    """PyYAML's safe composer, remembering the line of every alias in a sequence."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.alias_lines: dict[tuple[int, int], int] = {}  # (id(sequence), index) -> 0-based

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if isinstance(parent, yaml.SequenceNode) and self.check_event(yaml.AliasEvent):
            event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]
            if event.start_mark is not None:
                self.alias_lines[(id(parent), index)] = event.start_mark.line
        return super().compose_node(parent, index)


class _Builder:
    def __init__(self, loader: _Loader, located: Located, first_line: int) -> None:
        self.loader = loader
        self.located = located
        self.offset = first_line
        self.count = 0
        self.built: set[int] = set()  # ids of nodes built once: meeting one again is an alias
        self.expanding: int | None = None  # line of the outermost alias being expanded
        self.active: set[int] = set()  # ids of the nodes being built (for recursive anchors)

    def _line(self, node: yaml.Node) -> int:
        return int(node.start_mark.line) + self.offset

    def _fail(self, node: yaml.Node, message: str) -> DefinitionError:
        return DefinitionError(message, file=self.located.file, line=self._line(node))

    def build(self, node: yaml.Node, path: Path_, used_at: int | None = None) -> Any:
        """The value of ``node`` at ``path``; ``used_at`` is the line that refers to it."""
        if id(node) in self.active:
            raise DefinitionError("an alias refers to the value that contains it (recursive "
                                  "anchor); point it at another value",
                                  file=self.located.file,
                                  line=used_at if used_at is not None else self._line(node))
        outermost_alias = id(node) in self.built and self.expanding is None
        if outermost_alias:
            self.expanding = used_at
        self.active.add(id(node))
        try:
            return self._build(node, path, used_at)
        finally:
            self.active.discard(id(node))
            if outermost_alias:
                self.expanding = None

    def _merged(self, node: yaml.MappingNode, path: Path_) -> dict[Any, Any]:
        """The values of the mapping's ``<<`` merge keys (its own keys override them).

        Built here rather than by PyYAML's ``flatten_mapping``, whose copies of nested
        merges grow exponentially before any limit could count them.
        """
        merged: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE_TAG:
                continue
            sources = (value_node.value if isinstance(value_node, yaml.SequenceNode)
                       else [value_node])
            if not all(isinstance(s, yaml.MappingNode) for s in sources):
                raise self._fail(value_node, "invalid merge key: '<<' takes a mapping or a list "
                                             "of mappings")
            for source in reversed(sources):  # the first source listed wins
                merged.update(self.build(source, path, self._line(key_node)))
        return merged

    def _build(self, node: yaml.Node, path: Path_, used_at: int | None) -> Any:
        self.built.add(id(node))
        self.count += 1
        if self.count > MAX_NODES:
            line = self.expanding if self.expanding is not None else self._line(node)
            raise DefinitionError(f"document expands to more than {MAX_NODES:,} values "
                                  "(anchor/alias bomb?); simplify the file",
                                  file=self.located.file, line=line)
        if len(path) > MAX_DEPTH:
            raise _TooDeepError(self.located.file, self._line(node))
        if node.tag not in _STANDARD_TAGS:
            raise self._fail(node, f"YAML tag {_show_tag(node.tag)!r} is not allowed in "
                                   "definition files; remove the tag (only plain YAML data is "
                                   "accepted)")
        self.located.lines.setdefault(path, used_at if used_at is not None else self._line(node))
        if isinstance(node, yaml.MappingNode):
            return self._build_mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            aliases = self.loader.alias_lines
            return [self.build(item, (*path, i), aliases[(id(node), i)] + self.offset
                               if (id(node), i) in aliases else None)
                    for i, item in enumerate(node.value)]
        try:
            return self.loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, TypeError) as exc:
            raise self._fail(node, f"invalid value {node.value!r}: {exc}; quote it to keep it "
                                   "as text") from None

    def _build_mapping(self, node: yaml.MappingNode, path: Path_) -> dict[Any, Any]:
        result: dict[Any, Any] = self._merged(node, path)
        own: set[Any] = set()
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                continue
            key = self.build(key_node, (*path, "<key>"))
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise self._fail(key_node, "mapping keys must be plain scalars")
            if key in own:
                raise self._fail(key_node, f"duplicate key {key!r}; each key may appear once")
            own.add(key)
            self.located.lines[(*path, key)] = self._line(key_node)
            result[key] = self.build(value_node, (*path, key), self._line(key_node))
            self.located.lines[(*path, key)] = self._line(key_node)
        return result


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}; each key may appear once")
        result[key] = value
    return result


def _json_depth_line(text: str) -> int | None:
    """The line where JSON brackets first nest deeper than ``MAX_DEPTH``, if they do."""
    depth = 0
    line = 1
    for m in _JSON_TOKENS.finditer(text):
        ch = m.group()[0]
        if ch == "\n":
            line += 1
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        elif ch in "]}":
            depth -= 1
    return None


def parse_json(text: str, file: str) -> Located:
    """Parse JSON strictly, then borrow line numbers from the YAML composer when it can."""
    deep = _json_depth_line(text)
    if deep is not None:
        raise _TooDeepError(file, deep)
    # JSON allows tabs only as whitespace between tokens (never raw inside strings), so
    # spaces in their place keep the data and every line while YAML can read the text.
    yaml_text = text.replace("\t", " ")
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicates)
    except json.JSONDecodeError as exc:
        raise DefinitionError(f"JSON syntax error: {exc.msg} (column {exc.colno})",
                              file=file, line=exc.lineno) from None
    except ValueError as exc:  # a duplicate key, or an integer too long to convert
        line = 1
        try:
            parse_yaml(yaml_text, file)
        except DefinitionError as where:  # YAML rejects the same value, at its line
            line = where.line or 1
        raise DefinitionError(f"invalid JSON: {exc}", file=file, line=line) from None
    except RecursionError:
        raise _TooDeepError(file, None) from None
    try:
        located = parse_yaml(yaml_text, file)
    except _TooDeepError:
        raise
    except DefinitionError:
        # Valid JSON that YAML 1.1 cannot read: keep the data, lose the lines.
        return Located(data, file, {(): 1})
    located.data = data
    return located


_NOT_QUICK = object()


def _expanded_size(node: yaml.Node, sizes: dict[int, int], active: set[int]) -> int:
    """How many values ``node`` holds once every alias is expanded (each shared node
    counted once per use, computed once); a node that contains itself counts as too many."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in active or len(active) > MAX_DEPTH:
        return MAX_NODES + 1
    active.add(key)
    children: list[yaml.Node] = []
    if isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    elif isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    size = 1 + sum(_expanded_size(child, sizes, active) for child in children)
    active.discard(key)
    sizes[key] = size
    return size


def quick_parse(text: str, file: str) -> Any:
    """The data of a JSON/YAML text without line numbers (libyaml where available), or
    ``_NOT_QUICK`` when only the careful parse may read it: aliases expanding too far,
    nesting past ``MAX_DEPTH``, or any error (the careful parse reports it, located)."""
    try:
        if file.endswith(".json"):
            if _json_depth_line(text) is not None:
                return _NOT_QUICK
            return json.loads(text, object_pairs_hook=_reject_duplicates)
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
        try:
            node = loader.get_single_node()
            if node is not None and _expanded_size(node, {}, set()) > MAX_NODES:
                return _NOT_QUICK  # an alias bomb: the careful parse says where
            return loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return _NOT_QUICK


def parse_by_suffix(text: str, file: str) -> Located:
    """JSON for ``.json`` files, YAML otherwise."""
    if file.endswith(".json"):
        return parse_json(text, file)
    return parse_yaml(text, file)


def validation_problems(exc: ValidationError, src: Located, base: Path_ = (),
                        known: Collection[str] = ()) -> list[Problem]:
    """Turn a pydantic ``ValidationError`` into located, readable problems.

    ``known`` lists the model's own keys, to suggest one for a misspelt key.
    """
    problems = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        path = base + loc
        dotted = ".".join(str(p) for p in path) or "(top level)"
        kind = err["type"]
        if kind == "extra_forbidden":
            close = difflib.get_close_matches(str(loc[-1]), sorted(known), n=1) if (
                len(loc) == 1) else []
            hint = f"did you mean {close[0]!r}?" if close else "remove it or check its spelling"
            msg = f"unknown key {dotted!r}; {hint}"
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
