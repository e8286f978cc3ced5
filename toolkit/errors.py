"""The exceptions a user of toolkit can catch.

Every error says what is wrong, where (``file:line`` when a file is to blame)
and what to do about it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "AccessDeniedError",
    "DefinitionError",
    "LockError",
    "Problem",
    "ProjectClosedError",
    "ServerError",
    "ServerUnavailableError",
    "SpawnError",
    "ToolNotFoundError",
    "ToolTimeoutError",
    "ToolkitError",
    "UnknownAgentError",
    "nearest_names",
    "where",
]


def where(file: str | os.PathLike[str] | None, line: int | None) -> str:
    """Where something was written: ``file:line``, or the file alone when its line is unknown.

    The one place a location is spelt out, so every message shows it the same way.

    >>> where("agents/a.md", 3), where("tools.yaml", None)
    ('agents/a.md:3', 'tools.yaml')
    """
    return str(file) if line is None else f"{file}:{line}"


def nearest_names(name: str, candidates: Iterable[str]) -> str:
    """``"; did you mean: a, b?"`` with the (up to three) nearest candidates, or ``""``.

    The one place a name's near misses are spelt out (the command line and the magics).

    >>> nearest_names("raed_file", ["read_file", "write_file"])
    '; did you mean: read_file, write_file?'
    """
    from difflib import get_close_matches

    nearest = get_close_matches(name, list(candidates), n=3)
    return f"; did you mean: {', '.join(nearest)}?" if nearest else ""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the definitions, located in a file.

    >>> str(Problem("agents/a.md", 3, "unknown key 'tolls'; did you mean 'tools'?"))
    "agents/a.md:3: unknown key 'tolls'; did you mean 'tools'?"
    """

    file: str | None
    line: int | None
    message: str
    severity: str = "error"  # "error" or "warning"

    def __str__(self) -> str:
        return f"{where(self.file or '<input>', self.line)}: {self.message}"


class ToolkitError(Exception):
    """Base class of every error toolkit raises on purpose."""


class DefinitionError(ToolkitError, ValueError):
    """Agent definitions, tool registries or server configs are malformed.

    ``problems`` lists every problem found (each with file and line);
    ``file`` and ``line`` are those of the first one.
    """

    def __init__(self, problems: list[Problem] | Problem | str, *, file: str | Path | None = None,
                 line: int | None = None) -> None:
        if isinstance(problems, str):
            problems = [Problem(str(file) if file is not None else None, line, problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        first = self.problems[0] if self.problems else Problem(None, None, "invalid definition")
        self.file = first.file
        self.line = first.line
        super().__init__("\n".join(str(p) for p in self.problems))


class UnknownAgentError(ToolkitError, KeyError):
    """An agent name that the project does not define."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = sorted(known)
        listing = ", ".join(self.known) or "(none)"
        super().__init__(f"unknown agent {name!r}; known agents: {listing}")

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class ToolNotFoundError(ToolkitError, LookupError):
    """A call to a tool outside the session's resolved set.

    It reads exactly like a call to a tool that does not exist, so an agent
    learns nothing about tools it may not use.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"tool not found: {name}")


class AccessDeniedError(ToolkitError, PermissionError):
    """A request or spawn asked for groups beyond what its user or parent holds."""


class ServerError(ToolkitError):
    """An MCP server failed: it is down, crashed mid-call, or its transport broke."""


class ToolTimeoutError(ServerError, TimeoutError):
    """An MCP server did not answer a call in time (the request was cancelled)."""


class ServerUnavailableError(ToolNotFoundError, ServerError):
    """A call to a tool whose MCP server is not connected (it failed, crashed or was stopped).

    Raised instead of a bare ``tool not found`` when the session holds the
    tool, or would hold it were its server up; a ``ToolNotFoundError`` and a
    ``ServerError`` both, so either handler catches it. ``server``: the
    server's name; ``reason``: its state and last error.

    >>> str(ServerUnavailableError("echo", "kg", "failed: the server exited"))
    "MCP server 'kg' is not connected (failed: the server exited); proj.connect(['kg']) restarts it"
    """

    def __init__(self, name: str, server: str, reason: str,
                 hint: str | None = None) -> None:
        self.name = name
        self.server = server
        self.reason = reason
        hint = f"proj.connect([{server!r}]) restarts it" if hint is None else hint
        message = f"MCP server {server!r} is not connected ({reason})"
        Exception.__init__(self, f"{message}; {hint}" if hint else message)


class SpawnError(ToolkitError):
    """A child agent cannot be spawned as defined (e.g. it names a tool its parent lacks)."""


class ProjectClosedError(ToolkitError, RuntimeError):
    """A project (or one of its sessions) was used after ``proj.close()``.

    A closed project has ended its sessions and MCP connections for good;
    load the project again (``tk.load(...)``) to start new ones.
    """


class LockError(ToolkitError):
    """MCP tools differ from what ``toolmatrix.lock`` pinned (or there is no lock to check).

    Raised by ``proj.connect(locked=True)``: tools added since the lock, or whose
    description, input schema or annotations changed (a "rug pull"), are kept
    out of the pool; ``report`` lists every difference.
    """

    def __init__(self, message: str, report: object = None) -> None:
        super().__init__(message)
        self.report = report
