"""``Project``: a loaded policy plus the sessions, servers, audit and metrics under it.

``tk.load`` returns one. The pure questions (``resolve``, ``explain``,
``matrix``) come from :class:`toolkit.policy.Policy`; this class adds
the runtime: sessions that call tools, MCP connections, audit and metrics.

A ``Project`` owns its sessions and connections through the protocols of
:mod:`toolkit.runtime.protocols` (``SessionOwner``, ``ServerOwner``): sessions
and the server manager call only those public methods, never private ones.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..core.models import Request, Tool, User, normalize_groups
from ..core.pool import ToolPool
from ..core.presets import Preset
from ..core.resolve import resolve_request
from ..errors import AccessDeniedError, ProjectClosedError, ServerUnavailableError, ToolkitError
from ..policy import Policy
from ..systems import registry
from ..systems.base.system import PermissionEngine
from ..systems.load import load_definitions
from .audit import AuditLog
from .builtins import CallResult, run_builtin
from .metrics import Metrics
from .protocols import Approval
from .session import Session, check_user

if TYPE_CHECKING:
    import pandas as pd

    from ..analysis.lock import LockReport
    from .lock import LockGuard
    from .servers import ServerManager

__all__ = ["Project", "load"]

SWITCH_TIMEOUT = 5.0


class Project(Policy):
    """A project: agents, tools, servers, and the sessions started under it.

    >>> import toolkit as tk
    >>> with tk.load("toolkit/examples/trustgraph") as proj:
    ...     servers = proj.connect()
    ...     session = proj.start("react-agent", groups=["knowledge"])
    ...     result = session.call("knowledge-query", {"query": "Acme"})
    >>> servers.loc["trustgraph", "state"], session.state
    ('connected', 'analysis')
    >>> "Acme Robotics" in result.content[0]["text"]
    True

    After :meth:`close` the project does not reopen: :meth:`start`,
    :meth:`switch`, :meth:`connect`, :meth:`ping` and calls or spawns of its
    sessions raise ``ProjectClosedError`` (load the project again for new
    ones). The pure questions (``resolve``, ``explain``, ``matrix``), the
    audit trail, ``servers`` and ``server_log`` stay readable.
    """

    def __init__(self, defs: Any, preset: str | Preset | None = None,
                 engine: PermissionEngine | None = None, *,
                 engines: Mapping[str, PermissionEngine] | None = None,
                 runtime: str | None = None) -> None:
        super().__init__(defs, preset, engine, engines=engines, runtime=runtime)
        self.sessions: dict[str, Session] = {}
        self.active: Session | None = None
        self.audit_log = AuditLog()
        self.metrics = Metrics()
        #: Asked before an ``ask`` tool runs when the session has no callback of its own.
        self.approval: Approval | None = None
        #: Seconds an MCP tool call may take before it is cancelled (``ToolTimeoutError``);
        #: None waits as long as the server takes. ``call_timeout`` in ``toolkit.yaml``.
        self.call_timeout: float | None = self.definitions.settings.get("call_timeout")
        self._inflight = 0
        self._inflight_lock = threading.Condition()
        self._servers_manager: ServerManager | None = None
        self._closed = False
        #: set by ``connect(locked=True)``: tools that do not match toolmatrix.lock stay out
        self.tool_lock: LockGuard | None = None
        #: the last comparison of the servers' tools with toolmatrix.lock (when there is one)
        self.lock_report: LockReport | None = None
        for warning in defs.problems if hasattr(defs, "problems") else ():
            if warning.severity == "warning":
                self.audit_log.record("warning", reason=str(warning))

    @property
    def audit(self) -> pd.DataFrame:
        """Every audit event so far, one row each (``proj.audit_log`` holds the log itself)."""
        return self.audit_log.frame()

    @property
    def base_dir(self) -> Path:
        """The project folder (relative paths in policies and configs start here)."""
        root = Path(self.root)
        return root if root.is_dir() else root.parent

    # -- sessions -----------------------------------------------------------------------------

    def user(self, name: str) -> User:
        """The manifest's user ``name`` with its permitted groups."""
        if name not in self.users:
            known = ", ".join(sorted(self.users)) or "(none)"
            raise AccessDeniedError(f"unknown user {name!r}; users in the manifest: {known}")
        return User(name, groups=self.users[name])

    def start(self, agent: str, groups: Any = None, state: str | None = None,
              user: User | str | None = None) -> Session:
        """Start a root session of ``agent`` for a request; its id is the agent's name."""
        self.check_open()
        group_set = normalize_groups(groups)
        for g in group_set:
            self.metrics.inc("agent_tool_group_requests_total", group=g)
        if isinstance(user, str):
            try:
                user = self.user(user)
            except AccessDeniedError as exc:
                self.refuse(None, str(exc), agent=agent, groups=group_set)
        try:
            check_user(user, group_set)
        except AccessDeniedError as exc:
            self.refuse(None, str(exc), agent=agent, groups=group_set, escalation=True)
        request = Request(groups=group_set, state=state or "undefined", user=user)
        grant = self.grant(agent)
        session_id = agent
        count = 1
        while session_id in self.sessions and not self.sessions[session_id].closed:
            count += 1
            session_id = f"{agent}.{count}"
        session = Session(self, agent, request, grant, session_id)
        self.session_opened(session)
        self.active = session
        return session

    def switch(self, agent: str, groups: Any = None, state: str | None = None,
               user: User | str | None = None, timeout: float = SWITCH_TIMEOUT) -> Session:
        """Agent switch: wait for in-flight calls (up to ``timeout`` s), tear down, start ``agent``.

        Under connection scope ``agent`` the previous agent's MCP connections
        are closed (stdio processes terminated, then killed) and reopened for
        the new one; a timeout is logged to the audit trail and teardown is forced.
        """
        self.check_open()
        previous = self.active
        if previous is not None:
            if not self.wait_idle(timeout):
                self.audit_log.record("teardown", agent_id=previous.id, outcome="timeout",
                                  reason=f"in-flight calls still running after {timeout:g} s; "
                                         "forcing teardown")
            previous.close()
        if self.connection_scope == "agent" and self._servers_manager is not None:
            self._servers_manager.close_all()  # processes terminated, registrations cleared
            self.connect()
        return self.start(agent, groups, state, user)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no call is in flight; False if ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        with self._inflight_lock:
            while self._inflight > 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._inflight_lock.wait(remaining)
        return True

    @property
    def connection_scope(self) -> str:
        """``shared`` (one set of connections, agents filter) or ``agent`` (torn down on switch)."""
        scope = self.definitions.settings.get("connection_scope")
        if scope:
            return str(scope)
        return "agent" if self.preset.name == "work-agent" else "shared"

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (the project does not reopen)."""
        return self._closed

    def check_open(self) -> None:
        """Raise ``ProjectClosedError`` if the project was closed (else nothing)."""
        if self._closed:
            raise ProjectClosedError(
                f"the project {str(self.root)!r} is closed: its sessions and server connections "
                f"have ended; load it again (tk.load({str(self.root)!r})) to start new ones")

    def close(self) -> None:
        """End every session and connection of the project; closing twice does nothing.

        A closed project stays closed: see the class docstring for what still works.
        """
        if self._closed:
            return
        self._closed = True
        try:
            for session in list(self.sessions.values()):
                if session.parent is None:
                    session.close()
            self.active = None
            if self._servers_manager is not None:
                self._servers_manager.shutdown()
        finally:
            self.audit_log.close()

    def risk(self, overrides: Mapping[str, Any] | None = None,
             preset: str | None = None) -> pd.DataFrame:
        """Per agent: reads_private, untrusted_input, sends_out, destructive, trifecta, via.

        Tools are classified by their known behaviour (built-ins) or MCP
        annotations; ``overrides`` ({tool, glob or server: [classes]}) replaces
        that. ``trifecta``: private data, untrusted content and a way out, held
        directly or through the sub-agents the agent may spawn (see
        :mod:`toolkit.analysis.risk`).

        >>> import toolkit as tk
        >>> tk.load("toolkit/examples/claude-code").risk().query("trifecta").index.tolist()
        ['debugger', 'generalist']
        """
        from ..analysis.risk import risk_frame

        return risk_frame(self, overrides, preset)

    def test(self, path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
        """Run the calls of ``toolmatrix.tests.yaml`` / ``.toml`` (``path``: that file or its
        folder; None: beside the project) through ``check_call``: one row per case with
        case (file:line), tool, args, agent, expected, effect, rule, ok (then where, reason,
        message, runtime). Codex ``match`` / ``not_match`` examples are cases too. A
        malformed file is a ``DefinitionError`` (file:line, what to fix); rule coverage:
        ``toolmatrix test PATH --coverage`` (:mod:`toolkit.analysis.policy_tests`).
        """
        from ..analysis.policy_tests import run_tests

        return run_tests(self, path).results

    def lint(self) -> pd.DataFrame:
        """Static rule analysis: per permission rule, status ``dead`` | ``shadowed`` |
        ``redundant`` | ``conflict`` | ``ok``, ``by`` (the rule deciding instead), a
        ``witness`` call and whether ``check_call`` confirms it (``verified``); shell-command
        patterns and path globs are compared exactly, as automata
        (:mod:`toolkit.analysis.lint`).
        """
        from ..analysis.lint import lint

        return lint(self)

    def probe(self, rules: Sequence[str] | str | None = None, mode: str | None = None,
              runtime: str | None = None) -> pd.DataFrame:
        """Bypass probes: every shell-command rule's command respelt by 200-odd named
        templates (wrappers, ``bash -c``, absolute paths, quoting, chains, substitutions,
        redirections, reordered flags ...), each variant decided by ``check_call``. One row
        per finding: kind (``allow-escape``: a dangerous payload an allow rule lets run
        unasked; ``deny-bypass``: a deny or ask rule's command running unasked in another
        form), rule, command, effect, deciding_rule, template (then runtime, rule_kind, file,
        line, family, reason, deciding_where, message). ``rules``: only these rule texts;
        ``mode``: the permission mode to decide in (None: the project's own)
        (:mod:`toolkit.analysis.probe`).
        """
        from ..analysis.probe import probe

        return probe(self, rules, mode, runtime)

    def coverage(self, tests: str | os.PathLike[str] | None = None,
                 transcripts: Any = None) -> pd.DataFrame:
        """Per permission rule: how many test cases (``toolmatrix.tests.yaml``, ``tests``: that
        file or its folder) and rule examples it decided, how many replayed calls reached it
        and decided (``transcripts``: what ``tk.replay`` reads), and its status: ``covered``
        (a test, an example or a replayed call shows it deciding), ``matched`` (reached, never
        deciding) or ``uncovered`` (:func:`toolkit.analysis.policy_tests.coverage`).
        """
        from ..analysis.policy_tests import coverage

        return coverage(self, tests, transcripts)

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<Project {self.root!r} preset={self.preset.name} ({self.preset_reason}) "
                f"agents={len(self.agents)} tools={len(self.tools)} "
                f"servers={len(self.server_configs)}>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """A notebook summary: counts and the first names of agents, tools and servers, and
        the warnings' count (escaped: names may come from servers). Bounded at any size."""
        from html import escape

        shown = 8

        def names(items: Any, html: bool) -> str:
            items = list(items)
            first = [f"<code>{escape(str(n))}</code>" if html else str(n) for n in items[:shown]]
            more = f" … and {len(items) - shown} more" if len(items) > shown else ""
            return (", ".join(first) or "(none)") + more

        problems = self.warnings
        rows = [("agent(s)", self.agents), ("tool(s)", self.tools),
                ("server(s)", self.server_configs)]
        files = len({p.file for p in problems})
        note = (f"{len(problems)} warning(s) in {files} file(s), the first: {problems[0]} "
                "(all of them: pd.DataFrame(proj.warnings))" if problems else "")
        html = (f"<div class='toolkit-project'><p><b>{escape(str(self.root))}</b> "
                f"<small>preset {escape(self.preset.name)}</small></p><ul>"
                + "".join(f"<li>{len(items)} {what}: {names(items, True)}</li>"
                          for what, items in rows)
                + (f"<li><small>{escape(note)}</small></li>" if note else "") + "</ul></div>")
        text = f"{self!r}" + "".join(f"\n  {what.split('(')[0]}s: {names(items, False)}"
                                     for what, items in rows) + (f"\n  {note}" if note else "")
        return {"text/plain": text, "text/html": html}

    # -- MCP servers --------------------------------------------------------------------------

    @property
    def server_manager(self) -> ServerManager:
        """The project's MCP connections (created on first use)."""
        if self._servers_manager is None:
            from .servers import ServerManager

            settings = self.definitions.settings
            self._servers_manager = ServerManager(
                self, health_check=bool(settings.get("health_check", False)),
                derive_groups=bool(settings.get("derive_groups_from_annotations", False)))
        return self._servers_manager

    def connect(self, names: list[str] | None = None, timeout: float | None = None, *,
                locked: bool = False) -> pd.DataFrame:
        """Connect configured servers concurrently; failures are marked, the rest carry on.

        With a ``toolmatrix.lock`` in the project folder, the tools found are
        compared with it (``proj.lock_report``; each difference is audited).
        ``locked=True`` enforces it: a tool added or changed since the lock is
        kept out of the pool, and ``LockError`` lists the differences.
        """
        self.check_open()
        self._lock_before(locked)
        self.server_manager.connect(names, timeout)
        self._lock_after(names, locked)
        return self.servers

    async def aconnect(self, names: list[str] | None = None, timeout: float | None = None, *,
                       locked: bool = False) -> pd.DataFrame:
        """``await proj.aconnect()``: :meth:`connect` for async code and notebook cells."""
        self.check_open()
        self._lock_before(locked)
        await self.server_manager.aconnect(names, timeout)
        self._lock_after(names, locked)
        return self.servers

    def _lock_before(self, locked: bool) -> None:
        if locked and self.tool_lock is None:
            from . import lock

            self.tool_lock = lock.guard(self)

    def _lock_after(self, names: list[str] | None, locked: bool) -> None:
        """Compare the servers' tools with ``toolmatrix.lock`` (if there is one)."""
        from . import lock

        if not lock.lock_path(self).exists():
            return
        report = self.lock_report = lock.report(self, names)
        for line in report.lines():
            self.audit_log.record("lock", outcome="mismatch", reason=line)
        if locked and not report.ok:
            from ..errors import LockError

            raise LockError(f"MCP tools differ from {lock.LOCK_NAME} (kept out of the pool):\n"
                            + "\n".join(report.lines()), report)

    def disconnect(self, names: list[str] | None = None) -> pd.DataFrame:
        """Stop the named servers' connections (all by default): their processes end and
        their tools leave the pool; ``connect`` starts them again. Returns :attr:`servers`."""
        self.check_open()
        self.server_manager.disconnect(list(self.server_configs) if names is None else names)
        return self.servers

    def server_log(self, name: str) -> str:
        """What server ``name`` wrote to its stderr (stdio servers)."""
        return self.server_manager.log(name)

    def ping(self, name: str) -> str:
        """Ping server ``name`` now; returns its health colour (green, yellow, red)."""
        self.check_open()
        return self.server_manager.ping(name)

    @property
    def servers(self) -> pd.DataFrame:
        """Status of every configured server: transport, state, tools, last error, health."""
        return self.server_manager.status()

    # -- execution, for sessions (protocols.ToolExecutor) -------------------------------------

    async def execute(self, session: Session, tool: Tool, args: dict[str, Any],
                      timeout: float | None = None) -> CallResult:
        """Run a call ``session`` has already allowed: an MCP server's tool or a built-in.

        Sessions call this after their checks; call ``session.call`` instead.
        """
        server_tool = tool.binding or (tool.name if tool.server else None)
        if server_tool is not None:
            server, _, remote = server_tool[1:].partition("/")
            return await self.server_manager.call(server, tool.remote_name or remote, args,
                                                  timeout)
        if tool.source in ("builtin", "native") or tool.builtin_policy is not None:
            import anyio

            return await anyio.to_thread.run_sync(run_builtin, tool, args, self.base_dir)
        pending = [s for s in self.server_configs if s not in self._discovered]
        hint = (f"; servers not connected yet: {', '.join(pending)} (proj.connect())"
                if pending else "")
        return CallResult.of_text(f"{tool.name} is a registry entry with no implementation "
                                  f"here: no MCP server tool of that name{hint}",
                                  {"executable": False}, True)

    def unavailable(self, session: Session, name: str) -> ServerUnavailableError | None:
        """The error for ``name`` if it is a tool of a server that is down and ``session``
        would hold it were the server up (its last discovered tools); else None.

        A session started after its server died lacks the server's tools: a call
        of one reads "MCP server 'x' is not connected (failed: ...)", not "tool not
        found". A tool the session would not hold still reads "tool not found".
        """
        manager = self._servers_manager
        if manager is None:
            return None
        down = {t.name: c for c in manager.connections.values() if c.session is None
                for t in c.tools if t.name not in session.pool}
        if not down:
            return None
        pool = ToolPool({**dict(session.pool.items()),
                         **{t.name: t for c in set(down.values()) for t in c.tools}})
        try:
            grant = self.grant(session.agent, session.grant.preset, session.grant.lineage,
                               pool=pool)
        except ToolkitError:
            return None
        canonical = grant.canonical(name)
        if canonical not in down or canonical not in resolve_request(
                grant, session.groups, session.state).allowed:
            return None
        conn = down[canonical]
        return ServerUnavailableError(name, conn.name, conn.down_reason)

    # -- bookkeeping for sessions (protocols.CallRecorder, SessionLifecycle) -------------------

    def session_opened(self, session: Session) -> None:
        """Register a new root or child session; audit its resolve or spawn, update metrics."""
        self.sessions[session.id] = session
        r = session.resolution
        for warning in self.request_warnings(session.groups, session.state):
            self.audit_log.record("warning", request_id=session.request_id, agent_id=session.id,
                              reason=warning.message)
            if "invalid state" in warning.message:
                self.metrics.inc("agent_invalid_state_transition_total", state=session.state)
        self.audit_log.record(
            "spawn" if session.parent is not None else "resolve",
            request_id=session.request_id, agent_id=session.id, agent=session.agent,
            requested_groups=list(session.groups), granted_groups=list(session.groups),
            state=session.state, outcome="resolved", reason=f"preset {r.preset}",
            depth=session.depth, parent_id=session.parent.id if session.parent else None,
            user=session.user.name if session.user else None,
            available_tools=sorted(r.allowed), filtered_by_group=list(r.filtered_by_group),
            filtered_by_state=list(r.filtered_by_state), stripped=sorted(r.stripped))
        self.metrics.observe("agent_filtered_tools_count", len(r.allowed))
        for group in {g for t in r.allowed for g in session.pool[t].groups}:
            count = sum(group in session.pool[t].groups for t in r.allowed)
            self.metrics.set("agent_tool_group_availability", count, group=group)
        self.metrics.set("agent_state_availability", len(r.allowed), state=session.state)

    def session_closed(self, session: Session, in_state_s: float) -> None:
        """Audit a session's teardown and its time in its last state."""
        self.metrics.observe("agent_workflow_duration_seconds", in_state_s, state=session.state)
        self.audit_log.record("teardown", request_id=session.request_id, agent_id=session.id,
                          state=session.state, outcome="closed", reason="session closed")
        if self.active is session:
            self.active = None

    def session_transitioned(self, session: Session, tool: str, old: str, new: str,
                             in_state_s: float) -> None:
        """Audit a state transition and count it (an unknown state is counted as invalid)."""
        self.metrics.inc("agent_state_transitions_total", tool=tool)
        self.metrics.observe("agent_workflow_duration_seconds", in_state_s, state=old)
        if new not in self.states:
            self.metrics.inc("agent_invalid_state_transition_total", state=new)
        self.audit_log.record("transition", request_id=session.request_id, agent_id=session.id,
                          tool=tool, state=new, outcome="transition", reason="tool state",
                          **{"from": old, "to": new})

    def audit_call(self, session: Session, tool: str, canonical: str | None, outcome: str,
                   reason: str, **extra: Any) -> None:
        """Audit one call of ``tool`` (``canonical``: its pool name, if it has one)."""
        self.audit_log.record("call", request_id=session.request_id, agent_id=session.id,
                          agent=session.agent, tool=canonical or tool, requested_tool=tool,
                          requested_groups=list(session.groups),
                          granted_groups=list(session.groups), state=session.state,
                          outcome=outcome, reason=reason, **extra)

    def inflight_changed(self, session: Session, delta: int) -> None:
        """Count calls in flight (``switch`` waits for them: :meth:`wait_idle`)."""
        with self._inflight_lock:
            self._inflight += delta
            self._inflight_lock.notify_all()

    def refuse(self, session: Session | None, message: str, *, agent: str | None = None,
               groups: tuple[str, ...] = (), escalation: bool = False) -> NoReturn:
        """Audit and count an access refusal, then raise it as ``AccessDeniedError``."""
        self.metrics.inc("agent_group_access_denied_total")
        if escalation:
            self.metrics.inc("agent_privilege_escalation_attempts_total")
        self.audit_log.record("access-denied", agent_id=session.id if session else agent,
                          requested_groups=list(groups), outcome="refused", reason=message)
        raise AccessDeniedError(message)

    # -- for the server manager (protocols.ServerOwner) -----------------------------------------

    def server_tools_changed(self, servers: Mapping[str, Iterable[Tool] | None]) -> None:
        """Servers' discovered tools changed (``None``: unavailable); the pool follows.

        Under ``connect(locked=True)`` tools that do not match the lock are withheld.
        """
        if self.tool_lock is not None:
            servers = self.tool_lock.admit(servers, self.audit_log)
        self.set_many_server_tools(servers)


def load(path: str | os.PathLike[str], preset: str | Preset | None = None, *,
         runtime: str | None = None,
         home: str | os.PathLike[str] | bool | None = None,
         managed: str | os.PathLike[str] | bool | None = None,
         cli: Sequence[str] | None = None) -> Project:
    """Load a project folder or a single definition file.

    >>> import toolkit as tk
    >>> proj = tk.load("toolkit/examples/trustgraph")
    >>> sorted(proj.resolve("react-agent", groups=["read-only", "knowledge"]).allowed)
    ['knowledge-query', 'text-completion']

    ``preset=None`` means the manifest's preset, else ``strict``. Bad input
    raises ``DefinitionError`` naming every file and line to fix.

    A Claude Code project (a folder holding ``.claude/``) also has its settings
    layers read (SPEC section 11): ``home`` is the folder standing for ``~``
    (default the real home; ``False``: no user layer), ``managed`` a
    managed-settings file or folder (default the platform's; ``False``: none),
    ``cli`` Claude Code's command-line arguments (``["--allowedTools", "Bash(git *)"]``).
    Every runtime whose permission settings the folder holds is read (``proj.runtimes``);
    ``runtime`` picks the one ``check_call`` asks by default (needed when there are several).
    """
    engines = registry.engines_for(path, home=home, managed=managed, cli=cli)
    return Project(load_definitions(path), preset, engines=engines, runtime=runtime)
