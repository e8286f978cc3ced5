"""Tool pinning: a fingerprint of every discovered MCP tool, and what changed since.

``toolmatrix lock PATH`` writes ``PATH/toolmatrix.lock``; ``toolmatrix check
--locked`` and ``proj.connect(locked=True)`` compare the servers' tools with
it. A tool's fingerprint is the SHA-256 of its name on the server, its
description, its input schema and its annotations: a server that changes a
tool's description after it was reviewed (the "rug pull": the new text is
what the model reads) changes the fingerprint.

The lock file is JSON Lines, so a damaged or hand-edited line is reported at
its line and the rest still counts::

    {"toolmatrix-lock": 1}
    {"server": "kg", "tool": "echo", "sha256": "...", "description": "...",
     "input_schema": {...}, "annotations": {...}}

This module is pure: reading, writing and comparing. Connecting the servers
is :mod:`toolkit.runtime.lock`'s job.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.models import Tool
from ..errors import Problem

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LOCK_NAME", "LockChange", "LockEntry", "LockReport", "compare", "entry_of",
           "fingerprint", "read_lock", "write_lock"]

T = TypeVar("T")
LOCK_NAME = "toolmatrix.lock"
VERSION = 1
FIELDS = ("description", "input_schema", "annotations")


def _pinned(name: str, description: str, schema: Any, annotations: Any) -> dict[str, Any]:
    return {"name": name, "description": description or "", "input_schema": schema or {},
            "annotations": annotations or {}}


def fingerprint(name: str, description: str, schema: Any, annotations: Any) -> str:
    """SHA-256 of a tool's name, description, input schema and annotations (canonical JSON).

    >>> fingerprint("echo", "Echo", {}, {}) == fingerprint("echo", "Echo", None, None)
    True
    """
    text = json.dumps(_pinned(name, description, schema, annotations), sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class LockEntry:
    """One pinned tool: its server, its name there, fingerprint and the pinned fields."""

    server: str
    tool: str
    sha256: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    annotations: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None

    def to_json(self) -> str:
        """The entry as one lock-file line."""
        return json.dumps({"server": self.server, "tool": self.tool, "sha256": self.sha256,
                           "description": self.description,
                           "input_schema": dict(self.input_schema),
                           "annotations": dict(self.annotations)},
                          sort_keys=False, ensure_ascii=False, default=str)


def entry_of(server: str, tool: Tool) -> LockEntry:
    """The lock entry of a discovered tool (named as its server names it)."""
    name = tool.remote_name or tool.name
    return LockEntry(server, name, fingerprint(name, tool.description, tool.input_schema,
                                               tool.annotations),
                     tool.description or "", dict(tool.input_schema or {}),
                     dict(tool.annotations or {}))


def write_lock(path: str | Path, tools: Mapping[str, Iterable[Tool]]) -> list[LockEntry]:
    """Write ``path`` (the lock file) for ``{server: its tools}``; returns the entries."""
    entries = [entry_of(server, t) for server in sorted(tools)
               for t in sorted(tools[server], key=lambda t: t.remote_name or t.name)]
    lines = [json.dumps({"toolmatrix-lock": VERSION}), *(e.to_json() for e in entries)]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return entries


def read_lock(path: str | Path, display: str | None = None
              ) -> tuple[list[LockEntry], list[Problem]]:
    """The entries of a lock file and its problems (each at its line), never an exception.

    A missing file is one problem. A line that is not an entry, or an entry
    whose fingerprint does not match its own fields (edited by hand), is a
    problem at its line; such an entry still pins its recorded fingerprint.
    """
    shown = display or str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        return [], [Problem(shown, None, f"cannot read the lock file: {exc.strerror or exc}; "
                                         "write it with toolmatrix lock PATH")]
    entries: list[LockEntry] = []
    problems: list[Problem] = []
    header = False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            problems.append(Problem(shown, number, f"not JSON ({exc}); this line pins nothing"))
            continue
        if isinstance(data, dict) and "toolmatrix-lock" in data:
            header = True
            if data["toolmatrix-lock"] != VERSION:
                problems.append(Problem(shown, number, f"lock format {data['toolmatrix-lock']!r}"
                                                       f" is not {VERSION}; write the lock "
                                                       "again"))
            continue
        entry, problem = _entry(data, shown, number)
        if problem is not None:
            problems.append(problem)
        if entry is not None:
            entries.append(entry)
    if not header:
        problems.insert(0, Problem(shown, 1, "no '{\"toolmatrix-lock\": 1}' header line: not a "
                                             "toolmatrix lock file (or edited by hand)"))
    return entries, problems


def _typed(value: Any, kind: type[T], default: T) -> T:
    return value if isinstance(value, kind) else default


def _entry(data: Any, shown: str, number: int) -> tuple[LockEntry | None, Problem | None]:
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str)
                                             for k in ("server", "tool", "sha256")):
        return None, Problem(shown, number, "not a lock entry (server, tool, sha256 are "
                                            "required); this line pins nothing")
    description = _typed(data.get("description"), str, "")
    schema = _typed(data.get("input_schema"), dict, {})
    annotations = _typed(data.get("annotations"), dict, {})
    entry = LockEntry(data["server"], data["tool"], data["sha256"], description, schema,
                      annotations, number)
    if fingerprint(entry.tool, description, schema, annotations) != entry.sha256:
        return entry, Problem(shown, number, f"the entry of {entry.server}/{entry.tool} was "
                                             "edited by hand: its sha256 does not match its "
                                             "description, schema and annotations (the "
                                             "recorded sha256 is what counts); run toolmatrix "
                                             "lock PATH to pin the tools again")
    return entry, None


@dataclass(frozen=True)
class LockChange:
    """One difference between the lock and a server's tools now."""

    server: str
    tool: str
    change: str  # added | removed | changed | unverified (its server is not connected)
    fields: tuple[str, ...] = ()
    old_description: str | None = None
    new_description: str | None = None
    old: LockEntry | None = None
    new: LockEntry | None = None

    def __str__(self) -> str:
        where = f"{self.old.line}: " if self.old is not None and self.old.line else ""
        what = {"added": "added since the lock (not reviewed)",
                "removed": "removed since the lock",
                "unverified": "not verified: its server is not connected",
                "changed": f"changed since the lock: {', '.join(self.fields)}"}[self.change]
        return f"{where}tool {self.server}/{self.tool} {what}"


@dataclass
class LockReport:
    """What :func:`compare` found: changes, the lock file's problems, and whether all match."""

    path: str
    entries: list[LockChange]
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        """No change and no problem: every locked tool is exactly as it was pinned."""
        return not self.entries and not self.problems

    @property
    def changes(self) -> pd.DataFrame:
        """One row per change: server, tool, change, fields, old and new description."""
        import pandas as pd

        return pd.DataFrame([{"server": c.server, "tool": c.tool, "change": c.change,
                              "fields": ", ".join(c.fields), "line": c.old.line if c.old
                              else None, "old_description": c.old_description,
                              "new_description": c.new_description} for c in self.entries],
                            columns=["server", "tool", "change", "fields", "line",
                                     "old_description", "new_description"])

    def lines(self) -> list[str]:
        """Every change and problem as one ``file:line: message`` line."""
        out = [str(p) for p in self.problems]
        out += [f"{self.path}:{c}" if c.old is not None and c.old.line else f"{self.path}: {c}"
                for c in self.entries]
        return out

    def __repr__(self) -> str:
        return f"<LockReport {self.path}: {'ok' if self.ok else f'{len(self.entries)} change(s)'}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from ..core.display import html

        text = "\n".join(self.lines()) or f"{self.path}: every locked tool matches"
        return {"text/plain": text, "text/html": html(self)}


def compare(entries: Iterable[LockEntry], servers: Mapping[str, Iterable[Tool] | None],
            *, path: str = LOCK_NAME, problems: Iterable[Problem] = ()) -> LockReport:
    """The lock's ``entries`` against ``{server: its tools now, or None if not connected}``."""
    locked: dict[tuple[str, str], LockEntry] = {(e.server, e.tool): e for e in entries}
    now: dict[tuple[str, str], LockEntry] = {}
    down = {s for s, tools in servers.items() if tools is None}
    for server, tools in servers.items():
        for tool in tools or ():
            entry = entry_of(server, tool)
            now[(server, entry.tool)] = entry
    changes = []
    for key in sorted(locked.keys() | now.keys()):
        old, new = locked.get(key), now.get(key)
        change = _change(key, old, new, down)
        if change is not None:
            changes.append(change)
    return LockReport(path, changes, list(problems))


def _change(key: tuple[str, str], old: LockEntry | None, new: LockEntry | None,
            down: set[str]) -> LockChange | None:
    server, tool = key
    if old is None and new is not None:
        return LockChange(server, tool, "added", new_description=new.description, new=new)
    if old is not None and new is None:
        kind = "unverified" if server in down else "removed"
        return LockChange(server, tool, kind, old_description=old.description, old=old)
    if old is None or new is None or old.sha256 == new.sha256:
        return None
    fields = tuple(f for f in FIELDS if getattr(old, f) != getattr(new, f)) or ("fingerprint",)
    return LockChange(server, tool, "changed", fields, old.description, new.description,
                      old, new)
