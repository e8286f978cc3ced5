"""A log of tool calls, column by column: what the transcript readers fill in.

The readers of each agent system's transcripts (``toolkit.systems.<system>``) and
toolkit's own (``toolkit.analysis.transcripts``) append to one :class:`CallLog`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ...errors import Problem

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "CallLog", "SessionFileReader", "SessionInfo", "TranscriptReader"]

#: The columns of a call log, one row per logged call.
COLUMNS = ("time", "session", "agent", "tool", "args", "observed", "groups", "state", "cwd",
           "source")

@dataclass(frozen=True)
class SessionInfo:
    """A session of a toolkit audit log: its agent, and for a child its parent's session."""

    agent: str
    groups: tuple[str, ...] | None = None
    state: str | None = None
    parent: str | None = None  # the parent's session id
    parent_state: str | None = None  # the parent's state when it spawned this session


@dataclass
class CallLog:
    """Logged calls, column by column, plus the lines that could not be read."""

    rows: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c in COLUMNS})
    tables: list[Any] = field(default_factory=list)  # call tables read column-wise (DataFrames)
    problems: list[Problem] = field(default_factory=list)
    sessions: dict[str, SessionInfo] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)  # claude-code, audit, calls

    def add(self, **values: Any) -> None:
        """Append one call (missing columns are None)."""
        for column in COLUMNS:
            self.rows[column].append(values.get(column))

    def problem(self, file: str, line: int | None, message: str) -> None:
        """Record a line that could not be read."""
        self.problems.append(Problem(file, line, message, "warning"))

    def __len__(self) -> int:
        return len(self.rows["tool"]) + sum(len(t) for t in self.tables)

    def frame(self) -> pd.DataFrame:
        """The calls as a DataFrame (columns :data:`COLUMNS`), in the order they were read."""
        import pandas as pd

        parts = [t for t in self.tables if len(t)]
        if self.rows["tool"] or not parts:
            parts.insert(0, pd.DataFrame({c: pd.Series(self.rows[c], dtype=object)
                                          for c in COLUMNS}))
        out: pd.DataFrame = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
        return out



class TranscriptReader(Protocol):
    """One agent system's transcripts, read line by line into a :class:`CallLog`.

    A JSON Lines file is the system's when :meth:`claims` its first object; each of its
    lines then goes to :meth:`line`; :meth:`finish` runs once every file was read (a
    subagent's file and the call that launched it may be in different files).
    """

    def claims(self, data: Mapping[str, Any]) -> bool:
        """Whether a file whose first JSON object is ``data`` is one of this system's."""

    def file(self, path: Path, display: str) -> None:
        """Start reading ``path`` (shown as ``display`` in problems and sources)."""

    def line(self, display: str, number: int, data: dict[str, Any]) -> None:
        """One line of the current file."""

    def finish(self) -> None:
        """Add the calls read to the log."""


@runtime_checkable
class SessionFileReader(Protocol):
    """What a :class:`TranscriptReader` adds when its system also keeps sessions in files that
    are not JSON Lines (one JSON document per session, an SQLite database): such a file is
    the system's when :meth:`owns` it (by its content), and is then read whole.

    Only files whose name ends with one of :attr:`suffixes` are offered, so that a folder
    walk opens no other file.
    """

    #: the file name endings offered to :meth:`owns` (``(".json",)``, ``(".db",)``)
    suffixes: tuple[str, ...]

    def owns(self, path: Path) -> bool:
        """Whether ``path`` is one of this system's session files."""

    def read_file(self, path: Path, display: str) -> None:
        """Read all of ``path`` (shown as ``display``); calls join the log at ``finish``."""
