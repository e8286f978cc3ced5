"""Tool pinning at run time: connect the servers, write or check the lock, enforce it.

``toolmatrix lock PATH`` = :func:`write`; ``toolmatrix check PATH --locked`` =
:func:`check`; ``proj.connect(locked=True)`` installs a :class:`LockGuard`
before connecting, so a tool that is not exactly as it was pinned (added
since, or its description, schema or annotations changed) never joins the
pool: agents cannot call it, even after a later ``tools/list_changed``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..analysis.lock import (
    LOCK_NAME,
    LockEntry,
    LockReport,
    compare,
    entry_of,
    read_lock,
    write_lock,
)
from ..core.models import Tool
from ..errors import LockError

if TYPE_CHECKING:
    from ..core.models import ServerConfig
    from .audit import AuditLog
    from .servers import ServerManager


class Project(Protocol):
    """What pinning needs of a project (a ``toolkit.runtime.project.Project``)."""

    @property
    def base_dir(self) -> Path: ...

    @property
    def server_configs(self) -> Mapping[str, ServerConfig]: ...

    @property
    def server_manager(self) -> ServerManager: ...

    @property
    def servers(self) -> Any: ...

    def connect(self, names: list[str] | None = None, timeout: float | None = None, *,
                locked: bool = False) -> Any: ...

__all__ = ["LOCK_NAME", "LockGuard", "check", "discovered", "guard", "lock_path", "report",
           "write"]


def lock_path(proj: Project) -> Path:
    """Where the project's lock file lives: ``toolmatrix.lock`` in its folder."""
    return proj.base_dir / LOCK_NAME


def discovered(proj: Project, names: Iterable[str] | None = None
               ) -> dict[str, list[Tool] | None]:
    """Each configured server's tools as discovered (None: not connected)."""
    manager = proj.server_manager
    out: dict[str, list[Tool] | None] = {}
    for name in names if names is not None else proj.server_configs:
        conn = manager.connections.get(name)
        out[name] = list(conn.tools) if conn is not None and conn.state == "connected" else None
    return out


def write(proj: Project, timeout: float | None = None) -> tuple[list[LockEntry], dict[str, str]]:
    """Connect every server and pin its tools in ``toolmatrix.lock``.

    Returns (the entries written, {server: error} for servers that failed:
    their tools are not pinned).
    """
    proj.connect(timeout=timeout)
    tools = discovered(proj)
    status = proj.servers
    failures = {name: str(status.loc[name, "last_error"] or status.loc[name, "state"])
                for name, found in tools.items() if found is None}
    entries = write_lock(lock_path(proj), {s: t for s, t in tools.items() if t is not None})
    return entries, failures


def report(proj: Project, names: Iterable[str] | None = None) -> LockReport:
    """The servers' tools now against the lock file (servers not connected: unverified)."""
    path = lock_path(proj)
    entries, problems = read_lock(path, LOCK_NAME)
    wanted = set(names) if names is not None else None
    if wanted is not None:
        entries = [e for e in entries if e.server in wanted]
    return compare(entries, discovered(proj, names), path=LOCK_NAME, problems=problems)


def check(proj: Project, timeout: float | None = None) -> LockReport:
    """Connect every server (unless connected) and compare its tools with the lock."""
    proj.connect(timeout=timeout)
    return report(proj)


def guard(proj: Project) -> LockGuard:
    """The guard of the project's lock file; ``LockError`` when there is none to enforce."""
    path = lock_path(proj)
    if not path.exists():
        raise LockError(f"no {LOCK_NAME} in {str(proj.base_dir)!r} to connect against; pin the "
                        f"servers' tools first with: toolmatrix lock {proj.base_dir}")
    entries, _problems = read_lock(path, LOCK_NAME)
    return LockGuard(entries)


class LockGuard:
    """Lets into the pool only the tools whose fingerprint matches the lock."""

    def __init__(self, entries: Iterable[LockEntry]) -> None:
        self.pinned = {(e.server, e.tool): e.sha256 for e in entries}

    def admit(self, servers: Mapping[str, Iterable[Tool] | None], audit: AuditLog
              ) -> dict[str, Iterable[Tool] | None]:
        """``servers`` with every tool that does not match the lock withheld (and audited)."""
        out: dict[str, Iterable[Tool] | None] = {}
        for server, tools in servers.items():
            if tools is None:
                out[server] = None
                continue
            kept = []
            for tool in tools:
                entry = entry_of(server, tool)
                pinned = self.pinned.get((server, entry.tool))
                if pinned == entry.sha256:
                    kept.append(tool)
                    continue
                why = "not in the lock" if pinned is None else "changed since the lock"
                audit.record("lock", tool=tool.name, outcome="withheld", server=server,
                             reason=f"{server}/{entry.tool} {why}: withheld from the pool "
                                    "(connect(locked=True))")
            out[server] = kept
        return out
