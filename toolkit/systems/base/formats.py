"""The format table's machinery: how a file is recognised, and which loader reads it (no rows).

One row per format. A row recognises a file by its **path** (``paths``: a file
name such as ``toolkit.yaml``, or a place in a layout such as
``.claude/agents/**/*.md``) and/or by its **content** (``sniff``: a predicate over
the file's name, text or parsed data). The first claim wins, in this order:

1. path rules, rows in table order. A file's place is authoritative: its row's
   loader reads it, and content that does not fit is a ``DefinitionError`` naming
   the file, never a skip;
2. content rules, rows in table order, each looking only into files with one of
   its ``suffixes``;
3. no row: the file is not a definition file. Given on its own it is a
   ``DefinitionError``; in a folder it is skipped quietly (READMEs, ``package.json``,
   ``launch.json``, JSON schemas), unless its top level carries a key by which a
   row knows its files (``marks``, e.g. ``tool`` or ``mcpServers``): such a near
   miss is a warning, so a broken definition never vanishes silently.

Adding a format is one loader module (a ``load(file, defs)`` function and, if
its content is to be sniffed, a predicate) plus one row in its system's ``formats``
(``toolkit.systems.registry.FORMATS`` gathers them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...errors import DefinitionError
from .definitions import Definitions
from .source import SourceFile

__all__ = ["DATA_SUFFIXES", "Format", "Loader", "Registry", "Sniff", "by_data"]

#: Reads a recognised file into the definitions (its return value is ignored).
Loader = Callable[[SourceFile, Definitions], object]
#: Whether a file's content (name, text or parsed data) is of a format.
Sniff = Callable[[SourceFile], bool]

DATA_SUFFIXES = (".yaml", ".yml", ".json")


def by_data(predicate: Callable[[Any], bool]) -> Sniff:
    """A sniff from a predicate over the parsed data (``trustgraph.is_registry`` and the like)."""
    def sniff(file: SourceFile) -> bool:
        return predicate(file.data)

    sniff.__name__ = getattr(predicate, "__name__", "sniff")
    return sniff


def _path_pattern(pattern: str) -> re.Pattern[str]:
    """A regex matching paths that end with ``pattern`` (``*``, ``?`` within a segment,
    ``**`` for any folders); a bare name matches that file name in any folder."""
    out = ""
    segments = pattern.split("/")
    for i, segment in enumerate(segments):
        if segment == "**":
            out += "(?:[^/]+/)*"
            continue
        out += "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c)
                       for c in segment)
        if i < len(segments) - 1:
            out += "/"
    return re.compile(f"(?:^|/){out}$")


@dataclass(frozen=True)
class Format:
    """One row of the format table.

    >>> from pathlib import Path
    >>> row = Format("notes", lambda file, defs: None, paths=("docs/**/*.notes.yaml",))
    >>> row.claims_path(SourceFile.at(Path("/p/docs/a/b.notes.yaml"), Path("/p")))
    True
    """

    name: str
    load: Loader
    #: Path rules: file names or layout globs, matched against the end of the file's path.
    paths: tuple[str, ...] = ()
    #: Content rule, tried only when no row claims the file by its path.
    sniff: Sniff | None = None
    #: The files this row reads; its content rule looks only into these.
    suffixes: tuple[str, ...] = DATA_SUFFIXES
    #: Top-level keys that say a data file was meant to be of this format.
    marks: tuple[str, ...] = ()
    #: What a file of this format looks like, for the message about a file no row claims.
    expects: str = ""
    #: A broad content rule: tried after every other row's (a ``Registry`` keeps such rows last).
    fallback: bool = False
    _patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_patterns", tuple(_path_pattern(p) for p in self.paths))

    def claims_path(self, file: SourceFile) -> bool:
        """Whether the file's name or place is one of this format's."""
        return any(p.search(file.place) for p in self._patterns)

    def claims_content(self, file: SourceFile) -> bool:
        """Whether the file's content is of this format (read and parsed on first use)."""
        return self.sniff is not None and file.suffix in self.suffixes and self.sniff(file)

    def mark_in(self, file: SourceFile) -> str | None:
        """The file's first top-level key that is one of this format's ``marks``, compared
        ignoring case, ``_`` and ``-`` (``ALLOWED_TOOLS`` is ``allowed_tools``)."""
        if not self.marks or file.suffix not in self.suffixes or not isinstance(file.data, dict):
            return None
        marks = {_loose(m) for m in self.marks}
        return next((k for k in file.data if isinstance(k, str) and _loose(k) in marks), None)


#: A top-level key at the start of a YAML line.
_YAML_KEY = re.compile(r"""^["']?([A-Za-z_][\w-]*)["']?[ \t]*:""", re.MULTILINE)
#: JSON strings (a key when a colon follows) and brackets.
_JSON_TOKEN = re.compile(r'"((?:[^"\\\n]|\\.)*)"(\s*:)?|[][{}]')


def _json_top_keys(text: str) -> list[str]:
    """The keys of a JSON text's top-level object, read even where the JSON is broken."""
    keys, depth = [], 0
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
        elif token in "]}":
            depth -= 1
        elif m.group(2) and depth == 1:
            keys.append(m.group(1))
    return keys


def _loose(key: str) -> str:
    return key.lower().replace("_", "").replace("-", "")


class Registry:
    """The formats toolkit reads, in priority order (see the module docstring)."""

    def __init__(self, formats: Iterable[Format] = ()) -> None:
        self._formats: list[Format] = []
        for fmt in formats:
            self.register(fmt)

    @property
    def formats(self) -> tuple[Format, ...]:
        """The rows, in table order."""
        return tuple(self._formats)

    def __getitem__(self, name: str) -> Format:
        for fmt in self._formats:
            if fmt.name == name:
                return fmt
        raise KeyError(name)

    def register(self, fmt: Format, *, before: str | None = None) -> None:
        """Add a row at the end of the table, or just before the row named ``before``."""
        if any(f.name == fmt.name for f in self._formats):
            raise ValueError(f"format {fmt.name!r} is already registered")
        if before is not None:
            index = self._formats.index(self[before])
        elif fmt.fallback:
            index = len(self._formats)
        else:  # before the broad rows, which stay last
            index = next((i for i, f in enumerate(self._formats) if f.fallback),
                         len(self._formats))
        self._formats.insert(index, fmt)

    def unregister(self, name: str) -> None:
        """Remove the row called ``name`` (a ``KeyError`` when there is none)."""
        self._formats.remove(self[name])

    def copy(self) -> Registry:
        """A table with the same rows, to extend without touching this one."""
        return Registry(self._formats)

    @property
    def suffixes(self) -> tuple[str, ...]:
        """Every suffix some row reads, in table order (the folder walk offers only these)."""
        return tuple(dict.fromkeys(s for f in self._formats for s in f.suffixes))

    @property
    def hidden_names(self) -> frozenset[str]:
        """Dot-names the rows' path rules spell out (``.mcp.json``, ``.claude``): the folder
        walk enters these folders and offers these files, though hidden."""
        return frozenset(segment for f in self._formats for p in f.paths
                         for segment in p.split("/") if segment.startswith("."))

    def claim(self, file: SourceFile) -> Format | None:
        """The row that reads ``file``: path rules first, then content rules, or None."""
        by_path = next((f for f in self._formats if f.claims_path(file)), None)
        if by_path is not None:
            return by_path
        if file.suffix not in self.suffixes:
            return None  # not read at all, so nothing to sniff
        return next((f for f in self._formats if f.claims_content(file)), None)

    def load(self, file: SourceFile, defs: Definitions, *, explicit: bool) -> Format | None:
        """Read ``file`` with the loader of the row that claims it; returns that row.

        A file no row claims raises ``DefinitionError`` when it was named ``explicit``-ly
        (loaded on its own); in a folder it is skipped, with a warning only for a near miss.
        A data file in a folder that cannot be read at all (not YAML/JSON, over the size
        limit, YAML tags) is skipped quietly too, unless its text shows a key of some
        format (then its error is reported: a broken definition never vanishes).
        """
        try:
            fmt = self.claim(file)
        except DefinitionError:
            if explicit or file.suffix not in DATA_SUFFIXES or self._marked_text(file):
                raise
            return None  # an unrelated file (mkdocs.yml, a JSONC settings file, a big schema)
        if fmt is not None:
            fmt.load(file, defs)
        elif explicit:
            unsupported = file.suffix not in self.suffixes
            raise DefinitionError(self._unclaimed_message(file), file=file.display,
                                  line=None if unsupported else 1)
        else:
            self._warn_near_miss(file, defs)
        return fmt

    def _marked_text(self, file: SourceFile) -> bool:
        """Whether an unreadable data file's text shows a top-level key of some format:
        at the start of a line in YAML, of the top-level object in JSON (its first 64 KB)."""
        marks = {_loose(m) for f in self._formats for m in f.marks}
        try:
            with file.path.open("rb") as stream:
                head = stream.read(65_536).decode("utf-8", "replace").lstrip("\ufeff")
        except OSError:
            return False
        keys = _json_top_keys(head) if file.suffix == ".json" else _YAML_KEY.findall(head)
        return any(_loose(k) in marks for k in keys)

    def _unclaimed_message(self, file: SourceFile) -> str:
        if file.suffix not in self.suffixes:
            return f"unsupported file type; toolkit reads {_listing(self.suffixes, 'and')} " \
                   "definition files"
        expected = [f.expects for f in self._formats
                    if f.sniff is not None and f.expects and file.suffix in f.suffixes]
        return f"not a recognised definition file (expected {_listing(expected, 'or')})"

    def _warn_near_miss(self, file: SourceFile, defs: Definitions) -> None:
        """Warn about a data file that carries formats' keys but that no row claims."""
        if file.suffix not in self.suffixes:
            return
        hits = [(key, fmt) for fmt in self._formats if (key := fmt.mark_in(file)) is not None]
        if hits:
            key = hits[0][0]
            defs.warn(file.display, file.located.line((key,)) or 1,
                      f"not a recognised definition file: its top-level {key!r} suggests "
                      f"{_listing((fmt.expects for _, fmt in hits), 'or')}, but the rest does "
                      "not fit; ignored")


def _listing(items: Iterable[str], last: str) -> str:
    """``a, b and c``."""
    words = list(items)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"
