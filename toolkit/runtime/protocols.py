"""What a ``Session`` and the ``ServerManager`` need from whoever owns them.

:class:`~toolkit.runtime.project.Project` implements every protocol here and
hands itself in; neither ``session.py`` nor ``servers.py`` knows the class.
Anything else that implements them can own sessions and connections too (a
test, another host), so each module can be read and tested on its own.

The session-facing protocols are generic in the session type (``SessionT``)
only so that this module need not import ``session.py``: the owner of a
``Session`` is a ``SessionOwner[Session]``.

A minimal owner is in ``tests/runtime/test_seams.py``; a project hands itself in:

>>> import toolkit as tk
>>> proj = tk.load("toolkit/examples/trustgraph")
>>> proj.start("react-agent").project is proj
True
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn, Protocol, TypeVar

from ..core.models import AgentDefinition, ServerConfig, Tool
from ..core.pool import ToolPool
from ..core.resolve import Grant, Lineage
from .audit import AuditLog
from .builtins import CallResult

__all__ = [
    "Approval",
    "AuditTrail",
    "CallRecorder",
    "Lifetime",
    "ServerOwner",
    "SessionLifecycle",
    "SessionOwner",
    "ToolExecutor",
]

SessionT = TypeVar("SessionT", contravariant=True)

#: Asked before an ``ask`` tool runs: ``approval(tool, args) -> bool`` (may be async).
Approval = Callable[[str, dict[str, Any]], bool | Awaitable[bool]]


class AuditTrail(Protocol):
    """Keeps the audit trail every event is recorded in."""

    @property
    def audit_log(self) -> AuditLog:
        """The log events go to (``record``) and are read from (``frame``)."""
        ...


class Lifetime(Protocol):
    """Says whether the owner can still run sessions and connections."""

    def check_open(self) -> None:
        """Raise a ``ToolkitError`` saying what to do when the owner was closed."""
        ...


class ToolExecutor(Protocol[SessionT]):
    """Runs a call a session has already allowed (the guard is the session's)."""

    async def execute(self, session: SessionT, tool: Tool, args: dict[str, Any],
                      timeout: float | None = None) -> CallResult:
        """Run ``tool`` with ``args``; ``timeout`` seconds bound an MCP server's answer."""
        ...


class CallRecorder(Protocol[SessionT]):
    """Hears about a session's calls: audits them, counts those in flight, refuses."""

    def audit_call(self, session: SessionT, tool: str, canonical: str | None, outcome: str,
                   reason: str, **extra: Any) -> None:
        """Record one call (allowed, blocked or failed) of ``tool`` by ``session``."""
        ...

    def inflight_changed(self, session: SessionT, delta: int) -> None:
        """A call of ``session`` started (``+1``) or ended (``-1``)."""
        ...

    def refuse(self, session: SessionT, message: str, *, escalation: bool = False) -> NoReturn:
        """Record an access refusal (``escalation``: beyond a ceiling) and raise it."""
        ...


class SessionLifecycle(Protocol[SessionT]):
    """Hears that sessions open, change state and close."""

    def session_opened(self, session: SessionT) -> None:
        """A root session started or a child was spawned."""
        ...

    def session_transitioned(self, session: SessionT, tool: str, old: str, new: str,
                             in_state_s: float) -> None:
        """``session`` moved from state ``old`` to ``new`` after calling ``tool``."""
        ...

    def session_closed(self, session: SessionT, in_state_s: float) -> None:
        """``session`` closed, ``in_state_s`` seconds after its last transition."""
        ...


class SessionOwner(ToolExecutor[SessionT], CallRecorder[SessionT], SessionLifecycle[SessionT],
                   AuditTrail, Lifetime, Protocol[SessionT]):
    """Everything a ``Session`` asks of its owner (``Project`` is one)."""

    @property
    def agents(self) -> Mapping[str, AgentDefinition]:
        """The agents a session may spawn, by name."""
        ...

    @property
    def call_timeout(self) -> float | None:
        """Seconds an MCP call may take when the call names no timeout (None: no limit)."""
        ...

    @property
    def approval(self) -> Approval | None:
        """Asked before an ``ask`` tool runs when the session has no callback of its own."""
        ...

    def child_grant(self, agent: str, lineage: Lineage, *,
                    pool: ToolPool | None = None) -> Grant:
        """What child ``agent`` of a session with ``lineage`` may use from ``pool``."""
        ...


class ServerOwner(AuditTrail, Lifetime, Protocol):
    """Everything the ``ServerManager`` asks of its owner (``Project`` is one)."""

    @property
    def server_configs(self) -> Mapping[str, ServerConfig]:
        """The configured servers, by name."""
        ...

    @property
    def base_dir(self) -> Path:
        """The folder a stdio server's relative ``cwd`` starts from."""
        ...

    def server_tools_changed(self, servers: Mapping[str, Iterable[Tool] | None]) -> None:
        """Servers' discovered tools changed (``None``: the server is not available)."""
        ...
