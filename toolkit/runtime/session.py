"""Sessions: one agent running one request, at a depth in a spawn tree.

A session fixes its pool snapshot when it is built; tools that appear later
join only the next session (SPEC section 4 step 1). Its tool set follows its
state: after a successful call the tool's ``state`` becomes the session's.
"""

from __future__ import annotations

import inspect
import time
import warnings
from typing import TYPE_CHECKING, Any

from ..core.decision import Effect, Reason, decide
from ..core.models import AgentDefinition, Request, User, groups_label, normalize_groups
from ..core.resolve import Grant, Lineage, Resolution, resolve_request
from ..errors import AccessDeniedError, ServerError, SpawnError, ToolkitError, ToolNotFoundError
from .audit import new_request_id
from .builtins import CallResult
from .loop import background_loop
from .protocols import Approval, SessionOwner

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Approval", "Session"]


class Session:
    """An agent context: ``id``, ``depth``, ``state``, ``allowed``; ``spawn`` children.

    >>> import toolkit as tk
    >>> s = tk.load("toolkit/examples/emergent").start("orchestrator", groups=["knowledge"])
    >>> child = s.spawn("graph-researcher")
    >>> child.id, child.depth, child.state
    ('orchestrator.graph-researcher', 1, 'undefined')

    ``project`` is the session's owner: a ``Project``, or anything else that
    implements :class:`~toolkit.runtime.protocols.SessionOwner` (it runs the
    allowed calls and hears about everything the session does).
    """

    def __init__(self, project: SessionOwner[Session], agent: str, request: Request,
                 grant: Grant, session_id: str, parent: Session | None = None) -> None:
        self.project = project
        self.agent = agent
        self.request = request
        self.grant = grant
        self.id = session_id
        self.parent = parent
        self.depth = grant.depth
        self.pool = grant.pool  # the snapshot, fixed for the session's life
        self.children: list[Session] = []
        self.history: list[dict[str, Any]] = []
        self.closed = False
        self._state = request.state
        self._resolution: Resolution | None = None
        self._child_names: dict[str, int] = {}
        self._state_since = time.monotonic()
        # A spawned child serves its parent's request: it keeps the request id.
        self.request_id: str = parent.request_id if parent is not None else new_request_id()
        self.inflight = 0
        #: Asked before an ``ask`` tool runs: ``approval(tool, args) -> bool`` (may be async).
        self.approval: Approval | None = None

    # -- what the session may do now ----------------------------------------------------------

    @property
    def groups(self) -> tuple[str, ...]:
        """The request's groups."""
        return self.request.groups

    @property
    def user(self) -> User | None:
        """The user the request is made for, if any."""
        return self.request.user

    @property
    def state(self) -> str:
        """The current workflow state."""
        return self._state

    @property
    def resolution(self) -> Resolution:
        """The tool set for the current state (recomputed after each transition)."""
        if self._resolution is None or self._resolution.state != self._state:
            self._resolution = resolve_request(self.grant, self.request.groups, self._state)
        return self._resolution

    @property
    def allowed(self) -> frozenset[str]:
        """Canonical names of the tools the session may call now (``ask`` tools included)."""
        return self.resolution.allowed

    @property
    def audit(self) -> pd.DataFrame:
        """This session's audit events (its agent id), one row each."""
        return self.project.audit_log.frame(agent_id=self.id)

    def child_lineage(self) -> Lineage:
        """What a child of this session inherits (used by ``proj.resolve(parent=...)``)."""
        ancestors = (*(self.grant.lineage.ancestors if self.grant.lineage else ()),
                     self.grant.agent)
        return Lineage(id=self.id, depth=self.depth, ancestors=ancestors,
                       ceiling=self.allowed, groups=self.request.groups, state=self._state,
                       max_depth=self.grant.max_depth)

    def transition(self, to: str | None, tool: str) -> None:
        """Move to ``to`` after a successful call of ``tool`` (no-op when ``to`` is None)."""
        if to is None or to == self._state:
            return
        now = time.monotonic()
        self.project.session_transitioned(self, tool, self._state, to, now - self._state_since)
        self.history.append({"event": "transition", "tool": tool, "from": self._state, "to": to})
        self._state = to
        self._state_since = now

    # -- calling tools ------------------------------------------------------------------------

    def call(self, tool: str, args: dict[str, Any] | None = None, *,
             timeout: float | None = None) -> CallResult:
        """Call ``tool`` (sync face of :meth:`acall`, run on the package's loop thread)."""
        try:
            return background_loop().run(self._acall, tool, args, timeout)
        except (ToolNotFoundError, ServerError) as exc:
            raise _brief(exc) from exc.__cause__

    async def acall(self, tool: str, args: dict[str, Any] | None = None, *,
                    timeout: float | None = None) -> CallResult:
        """Call ``tool`` with ``args`` (``await`` it in a notebook cell or any asyncio code).

        The call itself runs on the package's loop thread, where the MCP
        sessions live; awaiting it from another loop hops there and back.
        ``timeout``: seconds an MCP server may take to answer before the call
        is cancelled with ``ToolTimeoutError`` (default ``project.call_timeout``).
        """
        loop = background_loop()
        if loop.in_loop_thread():
            return await self._acall(tool, args, timeout)
        import asyncio

        try:
            return await asyncio.wrap_future(loop.submit(self._acall, tool, args, timeout))
        except (ToolNotFoundError, ServerError) as exc:
            raise _brief(exc) from exc.__cause__

    async def _acall(self, tool: str, args: dict[str, Any] | None = None,
                     timeout: float | None = None) -> CallResult:
        """Call ``tool`` with ``args`` if the session may, now.

        A name outside the resolved set fails exactly like an unregistered tool
        (``ToolNotFoundError: tool not found: <name>``) and never reaches a
        server. An ``ask`` tool consults the approval callback first. After a
        successful call the tool's ``state`` becomes the session's state.
        """
        self._check_open()
        args = dict(args or {})
        timeout = _seconds(self.project.call_timeout if timeout is None else timeout)
        canonical = self.grant.canonical(tool)
        verdict = self.resolution.verdict(canonical) if canonical else decide({Reason.POOL})
        if canonical is None or canonical not in self.allowed:
            down = getattr(self.project, "unavailable", None)  # a Project's: is its server down?
            error = down(self, tool) if down is not None else None
            self.project.audit_call(self, tool, canonical, "blocked",
                                    verdict.reason.value if error is None else "server down",
                                    effect=verdict.effect.value)
            raise error or ToolNotFoundError(tool)
        if canonical in self.resolution.ask:
            await self._approve(canonical, args)
        definition = self.pool[canonical]
        self.inflight += 1
        self.project.inflight_changed(self, +1)
        try:
            result = await self.project.execute(self, definition, args, timeout)
        except BaseException as exc:
            self.project.audit_call(self, tool, canonical, "error", type(exc).__name__,
                                    error=str(exc))
            raise
        finally:
            self.inflight -= 1
            self.project.inflight_changed(self, -1)
        self.project.audit_call(self, tool, canonical, "error" if result.is_error else "allowed",
                                "tool reported an error" if result.is_error else
                                verdict.reason.value, effect=verdict.effect.value, args=args)
        self.history.append({"event": "call", "tool": canonical, "args": args,
                             "is_error": result.is_error})
        if not result.is_error:
            self.transition(definition.state, canonical)
        return result

    async def _approve(self, tool: str, args: dict[str, Any]) -> None:
        """Ask the approval callback about ``tool``; without one the preset decides."""
        callback = self.approval or self.project.approval
        if callback is None and self.grant.preset.unasked == "run":
            # work-agent: "No approval mechanism (e.g. silent invocation) - auto-approve"
            self.project.audit_log.record(
                "approval", request_id=self.request_id, agent_id=self.id, tool=tool,
                state=self._state, outcome="auto-approved",
                reason=f"no approval callback: under the {self.grant.preset.name} preset an "
                       "approval-bound tool runs when nothing can ask")
            return
        if callback is None:
            self.project.audit_call(self, tool, tool, "blocked", Reason.APPROVAL.value,
                                    effect=Effect.ASK.value, error="no approval callback")
            raise AccessDeniedError(f"calling {tool} needs approval and no approval callback is "
                                    "set (session.approval or project.approval)")
        answer = callback(tool, args)
        if inspect.isawaitable(answer):
            answer = await answer
        self.project.audit_log.record("approval", request_id=self.request_id, agent_id=self.id,
                                  tool=tool, state=self._state,
                                  outcome="approved" if answer else "denied", reason="approval")
        if not answer:
            raise AccessDeniedError(f"calling {tool} was not approved")

    # -- the spawn tree -----------------------------------------------------------------------

    def spawn(self, name: str, groups: Any = None, state: str | None = None, *,
              force: bool = False) -> Session:
        """Start agent ``name`` as a child: depth + 1, the rules of SPEC section 4.

        The child inherits this session's request; it may narrow the groups,
        never widen them (``AccessDeniedError``). Under a preset that strips
        coordination tools, a session at ``max_depth`` holds no spawn tool and
        cannot spawn (``SpawnError`` naming the limit and where it is set);
        ``force=True`` simulates a host that spawns anyway, with a warning.
        """
        self._check_open()
        child_groups = self.request.groups if groups is None else normalize_groups(groups)
        if "*" not in self.request.groups:
            extra = [g for g in child_groups if g not in self.request.groups]
            if extra:
                self.project.refuse(self, f"spawn of {name!r} asks for groups {extra} beyond "
                                          f"its parent's {list(self.request.groups)}",
                                    escalation=True)
        refusal = self.spawn_refusal(name)
        if refusal is not None and not force:
            raise SpawnError(f"{refusal}; spawn(..., force=True) simulates a host that spawns "
                             "anyway")
        if refusal is not None:
            message = f"forced spawn (a host that ignores the limit): {refusal}"
            warnings.warn(message, UserWarning, stacklevel=2)
            self.project.audit_log.record("warning", request_id=self.request_id,
                                          agent_id=self.id, reason=message)
        request = Request(groups=child_groups, state=state or self._state,
                          user=self.request.user)
        count = self._child_names.get(name, 0) + 1
        self._child_names[name] = count
        child_id = f"{self.id}.{name}" + (f".{count}" if count > 1 else "")
        grant = self.project.child_grant(name, self.child_lineage(), pool=self.pool)
        child = Session(self.project, name, request, grant, child_id, parent=self)
        self.children.append(child)
        self.project.session_opened(child)
        return child

    def spawn_refusal(self, name: str = "a child") -> str | None:
        """Why this session cannot spawn (SPEC section 4 step 6), or None when it can.

        Under a preset that strips coordination tools, a session at depth >=
        ``max_depth`` has lost them (removed regardless of its rules), so it
        holds no spawn tool and cannot spawn.
        """
        preset, limit = self.grant.preset, self.grant.max_depth
        if not preset.strip_coordination or limit is None or self.depth < limit:
            return None
        tools = ", ".join(preset.coordination_tools)
        return (f"{self.id!r} (depth {self.depth}) cannot spawn {name!r}: max_depth {limit} "
                f"reached, its coordination tools ({tools}) are removed; max_depth {limit} is "
                f"set {self._depth_limit_source()}")

    def _depth_limit_source(self) -> str:
        """Where this session's ``max_depth`` comes from: an agent that lowered it, the
        project's ``toolkit.yaml``, or the preset's default."""
        limit, preset = self.grant.max_depth, self.grant.preset
        chain: list[AgentDefinition] = [
            *(self.grant.lineage.ancestors if self.grant.lineage else ()), self.grant.agent]
        for agent in chain:  # root first: the first to lower the limit to its value set it
            own = agent.max_depth
            if own is not None and own == limit and (preset.max_depth is None
                                                     or own < preset.max_depth):
                where = f" ({agent.file}:{agent.line})" if agent.file else ""
                return f"by max_depth of agent {agent.name!r}{where}"
        settings = getattr(getattr(self.project, "definitions", None), "settings", {}) or {}
        if "max_depth" in settings:
            file = settings.get("_file")
            return f"by max_depth in {file}" if file else "by the project's max_depth"
        return (f"by the {preset.name} preset (max_depth in toolkit.yaml or an agent's own "
                "max_depth lowers or changes it)")

    def close(self) -> None:
        """End this session and its children (their records stay readable)."""
        if self.closed:
            return
        for child in self.children:
            child.close()
        self.closed = True
        self.project.session_closed(self, time.monotonic() - self._state_since)

    def _check_open(self) -> None:
        self.project.check_open()  # a closed project says so (ProjectClosedError)
        if self.closed:
            raise ToolkitError(f"session {self.id!r} is closed; start a new one")

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<Session {self.id} depth={self.depth} groups={groups_label(self.groups)} "
                f"state={self.state} tools={len(self.allowed)}>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        bundle = self.resolution._repr_mimebundle_()
        bundle["text/plain"] = f"{self!r}\n{bundle['text/plain']}"
        return bundle


def _seconds(timeout: object) -> float | None:
    """A call timeout as seconds, or ``ValueError`` saying what is accepted."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise ValueError(f"a call timeout must be a positive number of seconds (or None for "
                         f"no limit), not {timeout!r}")
    return float(timeout)


def check_user(user: User | None, groups: tuple[str, ...]) -> None:
    """Refuse a request whose groups exceed the user's permitted groups."""
    if user is not None and not user.permits(groups):
        extra = [g for g in groups if g not in user.groups]
        raise AccessDeniedError(f"user {user.name!r} may not request groups {extra}: permitted "
                                f"groups are {list(user.groups)}")


def _brief(exc: BaseException) -> BaseException:
    """``exc`` without the frames of the loop thread it crossed (its message says it all).

    A blocked tool or a server that is down is the caller's to handle, not a bug
    in toolkit: its traceback should end at the caller's ``call``, not run
    through the event loop, the server manager and the connection.
    """
    return exc.with_traceback(None)
