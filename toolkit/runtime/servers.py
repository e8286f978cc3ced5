"""MCP server connections: connect, discover, call, ping, tear down.

Each server's transport and ``ClientSession`` are entered and exited by one
task (its *holder*) on the package's loop thread; calls from other tasks use
the open session. A holder is started with anyio's ``TaskGroup.start``: it
reports ``task_status.started()`` once the server is connected, or raises
``ServerError`` to the starter if it never got there. Connecting several
servers is concurrent; one that fails or times out is marked unavailable with
its error and the rest carry on.

The manager's owner (a ``Project``) is anything that implements
:class:`~toolkit.runtime.protocols.ServerOwner`: it supplies the configs and
the audit log, and hears when servers' tools change.

stdio servers are started through a small launcher that sets a parent-death
signal (Linux ``PR_SET_PDEATHSIG``), so not even a SIGKILL of the host leaves
them running; the ``mcp`` client terminates the whole process group on close.
Each server's stderr goes to its own log file (``proj.server_log(name)``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from ..core.models import ServerConfig, Tool
from ..errors import ServerError, ServerUnavailableError, ToolkitError, ToolTimeoutError
from .builtins import CallResult
from .loop import background_loop
from .processes import kill_process_group
from .protocols import ServerOwner

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ServerConnection", "ServerError", "ServerManager"]

PAGE_CAP = 100
PING_INTERVAL = 30.0
SLOW_PING = 1.0
CLOSE_TIMEOUT = 10.0

#: Run before the server's own command: die with the host, even on SIGKILL (Linux).
_LAUNCHER = """\
import ctypes, os, signal, sys
if sys.platform.startswith("linux"):
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != int(os.environ.pop("TOOLKIT_HOST_PID", "0") or 0):
        sys.exit("toolkit launcher: host process already gone")
_pid_file = os.environ.pop("TOOLKIT_PID_FILE", "")
if _pid_file:
    with open(_pid_file, "w") as _fh:  # the host kills this process group after the close
        _fh.write(str(os.getpid()))
try:
    os.execvp(sys.argv[1], sys.argv[1:])
except OSError as exc:
    sys.exit(f"cannot start MCP server {sys.argv[1]!r}: {exc.strerror}")
"""


def tool_from_mcp(server: str, tool: types.Tool, derive_groups: bool) -> Tool:
    """A discovered MCP tool as a pool ``Tool`` named ``@server/tool``."""
    annotations = (tool.annotations.model_dump(by_alias=True, exclude_none=True)
                   if tool.annotations is not None else {})
    groups: tuple[str, ...] = ("default",)
    if derive_groups:
        derived = [g for hint, g in (("readOnlyHint", "read-only"),
                                     ("destructiveHint", "destructive"))
                   if annotations.get(hint)]
        groups = ("default", *derived)
    return Tool(name=f"@{server}/{tool.name}", server=server, remote_name=tool.name,
                source=f"mcp:{server}", title=tool.title, description=tool.description or "",
                input_schema=dict(tool.input_schema) if tool.input_schema else None,
                annotations=annotations, groups=groups)


def call_result(result: types.CallToolResult) -> CallResult:
    """An MCP ``CallToolResult`` as toolkit's ``CallResult``."""
    content = [c.model_dump(by_alias=True, exclude_none=True, mode="json")
               for c in result.content]
    return CallResult(content, result.structured_content, bool(result.is_error))


class ServerConnection:
    """One configured server: its holder task, session, tools and health."""

    def __init__(self, config: ServerConfig, log_dir: Path, base_dir: Path,
                 manager: ServerManager) -> None:
        self.config = config
        self.name = config.name
        self.manager = manager
        self.base_dir = base_dir
        self.state = "configured"
        self.error: str | None = None
        self.tools: list[Tool] = []
        self.session: ClientSession | None = None
        self.health: str | None = None
        self.latency_ms: float | None = None
        self.missed_pings = 0
        self.ping_error: str | None = None  # why the last ping was missed
        self.log_path = log_dir / f"{config.name}.log"
        self.connected_at: float | None = None
        self._stop = anyio.Event()
        self._done = anyio.Event()
        self._list_changed = anyio.Event()

    # -- the holder task ----------------------------------------------------------------------

    async def run(self, timeout: float, *,
                  task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Enter the transport and session, discover, serve until stopped, exit (one task).

        Meant for ``await task_group.start(conn.run, timeout)``, which returns
        once the server is connected. A server that fails or does not answer
        within ``timeout`` seconds is torn down, marked failed, and the
        ``ServerError`` is raised to the starter. A failure after that (a
        crash) is the holder's own: recorded in ``state`` and ``error``.
        """
        self.state = "connecting"
        # One scope around the whole life: its deadline is the startup timeout until the
        # server is ready, then lifted (contexts are entered and exited inside it, in order).
        startup = anyio.CancelScope(deadline=anyio.current_time() + timeout)
        try:
            with startup:
                await self._serve(startup, task_status)
            if startup.cancelled_caught:
                self._fail(f"no answer within the {timeout:g} s startup timeout")
        except Exception as exc:  # noqa: BLE001 - any transport/protocol failure marks the server down (state, error, audit), and reaches the starter below
            self._fail(_describe(exc))
        except anyio.get_cancelled_exc_class():
            if self.state == "connecting":  # the connect itself was cancelled (an interrupt)
                self._fail("connect interrupted before the server answered")
                self.manager.interrupted(self)
            raise
        finally:
            self._finish()
        if self.connected_at is None:  # never started: TaskGroup.start raises this to the starter
            raise ServerError(f"MCP server {self.name!r} did not start: {self.error}")

    def _finish(self) -> None:
        """The holder ends: settle the final state and tell the manager."""
        self.session = None
        if self.state in ("connected", "connecting"):
            self.state = "closed" if self._stop.is_set() else "failed"
            if self.state == "failed" and self.error is None:
                self.error = "connection ended"
        if self.state == "failed":
            self.health = "red"
        self._done.set()
        self.manager.connection_ended(self)

    async def _serve(self, startup: anyio.CancelScope, task_status: TaskStatus[None]) -> None:
        """The connection's life: open, initialize, discover, serve until stopped."""
        async with AsyncExitStack() as stack:
            read, write = await self._open_transport(stack)
            tg = await stack.enter_async_context(anyio.create_task_group())
            # Relay the transport's messages so the end of the connection is noticed.
            relay_send, relay_receive = anyio.create_memory_object_stream[Any](0)
            ended = anyio.Event()
            tg.start_soon(self._relay, read, relay_send, ended)
            session = await stack.enter_async_context(
                ClientSession(relay_receive, write, message_handler=self._on_message))
            await session.initialize()
            self.tools = await self._discover(session)
            startup.deadline = float("inf")
            self.session = session
            self.state = "connected"
            self.connected_at = time.monotonic()
            self.health = "green" if self._health_enabled else None
            task_status.started()
            tg.start_soon(self._watch_list_changed, session)
            if self._health_enabled:
                tg.start_soon(self._ping_forever, session)
            async with anyio.create_task_group() as waiter:
                waiter.start_soon(_then_cancel, self._stop.wait, waiter.cancel_scope)
                waiter.start_soon(_then_cancel, ended.wait, waiter.cancel_scope)
            tg.cancel_scope.cancel()
            if ended.is_set() and not self._stop.is_set():
                raise ServerError("the server closed the connection (crashed or exited)")

    @staticmethod
    async def _relay(read: Any, send: Any, ended: anyio.Event) -> None:
        async with send:
            try:
                async for item in read:
                    await send.send(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass  # the transport ended: noticed below
        ended.set()

    def _fail(self, message: str) -> None:
        """Mark the server failed with ``message`` (and its stderr's last lines)."""
        if self._stop.is_set() and self.state == "connected":
            # We closed it: not the server's failure, but not dropped either.
            self.manager.owner.audit_log.record("server-failure", outcome="warning",
                                                reason=f"{self.name}: while closing: {message}",
                                                server=self.name)
            return
        if self.state == "failed" and self.error:
            return  # keep the first cause (what follows is its consequence)
        tail = self._stderr_tail()
        self.state = "failed"
        self.error = message + (f" (stderr: {tail})" if tail else "")
        self.health = "red"

    def _stderr_tail(self) -> str:
        if self.config.transport != "stdio" or not self.log_path.exists():
            return ""
        lines = self.log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        return " | ".join(lines[-3:])[-300:]

    @property
    def _health_enabled(self) -> bool:
        return self.config.health_check is not None or self.manager.health_default

    async def _open_transport(self, stack: AsyncExitStack) -> tuple[Any, Any]:
        config = self.config
        if config.transport == "stdio":
            log = stack.enter_context(self.log_path.open("a", encoding="utf-8"))
            command = sys.executable if config.command in ("python", "python3") else (
                str(config.command))
            pid_file = self.log_path.with_suffix(f".{id(self):x}.pid")
            env = {**config.env, "TOOLKIT_HOST_PID": str(os.getpid()),
                   "TOOLKIT_PID_FILE": str(pid_file)}
            if "PYTHONPATH" in os.environ and "PYTHONPATH" not in env:
                env["PYTHONPATH"] = os.environ["PYTHONPATH"]
            cwd = (self.base_dir / config.cwd) if config.cwd else self.base_dir
            params = StdioServerParameters(
                # -I -S: the launcher needs the standard library only; skipping site and
                # the venv's .pth hooks saves ~15 ms of CPU per server before the exec
                command=sys.executable, args=["-I", "-S", "-c", _LAUNCHER, command,
                                              *config.args],
                env=env, cwd=str(cwd))
            stack.callback(_kill_launched_group, pid_file)  # runs after the client's own close
            streams = await stack.enter_async_context(stdio_client(params, errlog=log))
            return streams[0], streams[1]
        url = str(config.url)
        if config.transport == "streamable-http":
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            client = await stack.enter_async_context(
                httpx2.AsyncClient(headers=config.headers or None,
                                   timeout=httpx2.Timeout(30.0, read=300.0)))
            streams = await stack.enter_async_context(
                streamable_http_client(url, http_client=client))
            return streams[0], streams[1]
        if config.transport == "sse":
            from mcp.client.sse import sse_client

            streams = await stack.enter_async_context(
                sse_client(url, headers=config.headers or None))
            return streams[0], streams[1]
        from .transports import tcp_client, websocket_client

        if config.transport == "ws":
            return await stack.enter_async_context(websocket_client(url, config.headers))
        return await stack.enter_async_context(tcp_client(url))

    async def _discover(self, session: ClientSession) -> list[Tool]:
        """``tools/list`` to the last page (at most ``PAGE_CAP`` pages)."""
        tools: list[Tool] = []
        cursor: str | None = None
        derive = self.manager.derive_groups
        for _ in range(PAGE_CAP):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=params)
            tools.extend(tool_from_mcp(self.name, t, derive) for t in result.tools)
            cursor = result.next_cursor
            if not cursor:
                return tools
        raise ServerError(f"tools/list pagination did not end after {PAGE_CAP} pages")

    async def _on_message(self, message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ToolListChangedNotification):
            self._list_changed.set()
        elif isinstance(root, Exception):
            self.manager.owner.audit_log.record("server-failure", tool=None, outcome="warning",
                                                reason=f"{self.name}: {_describe(root)}",
                                                server=self.name)

    async def _watch_list_changed(self, session: ClientSession) -> None:
        while True:
            await self._list_changed.wait()
            self._list_changed = anyio.Event()
            try:
                self.tools = await self._discover(session)
            except Exception as exc:  # noqa: BLE001 - a failed re-listing is audited; the old tools stay
                self.manager.owner.audit_log.record("server-failure", outcome="warning",
                                                    reason=f"{self.name}: re-listing tools "
                                                           f"failed: {_describe(exc)}")
                continue
            self.manager.tools_changed(self)

    async def _ping_forever(self, session: ClientSession) -> None:
        interval = PING_INTERVAL
        check = self.config.health_check or {}
        for key in ("intervalSeconds", "interval", "interval_s"):
            if isinstance(check.get(key), (int, float)):
                interval = float(check[key])
        while True:
            await anyio.sleep(interval)
            await self.ping(session)

    async def ping(self, session: ClientSession | None = None) -> str:
        """Ping now and update the health colour (green, yellow, red)."""
        session = session or self.session
        if session is None:
            self.health = "red"
            return self.health
        slow = float((self.config.health_check or {}).get("slowSeconds", SLOW_PING))
        elapsed = await self._timed_ping(session, limit=max(slow * 5, 2.0))
        if elapsed is None:
            self.missed_pings += 1
        else:
            self.missed_pings = 0
            self.ping_error = None
            self.latency_ms = elapsed * 1000
        before = self.health
        if self.missed_pings >= 2:
            self.health = "red"
        elif self.missed_pings == 1 or (elapsed is not None and elapsed >= slow):
            self.health = "yellow"
        else:
            self.health = "green"
        if self.health != before:
            self._audit_health(before, elapsed)
        return self.health

    async def _timed_ping(self, session: ClientSession, limit: float) -> float | None:
        """Seconds a ``ping`` took, or None when it failed or took ``limit`` or longer."""
        started = time.monotonic()
        with anyio.move_on_after(limit) as scope:
            try:
                await session.send_ping()
            except Exception as exc:  # noqa: BLE001 - a failed ping counts as a missed one; its cause goes into the health audit
                self.ping_error = _describe(exc)
                return None
        elapsed = time.monotonic() - started
        if scope.cancelled_caught or elapsed >= limit:
            self.ping_error = f"no answer within {limit:g} s"
            return None
        return elapsed

    def _audit_health(self, before: str | None, elapsed: float | None) -> None:
        """Record a change of health colour (a slow or missed ping is a server failure too)."""
        if self.missed_pings:
            why = f"{self.missed_pings} missed ping(s)"
            why += f": {self.ping_error}" if self.ping_error else ""
        else:
            why = f"ping answered in {(elapsed or 0.0) * 1000:.0f} ms"
        self.manager.owner.audit_log.record(
            "server-health", outcome=self.health, server=self.name,
            reason=f"{self.name}: health {before or 'unknown'} -> {self.health} ({why})")

    @property
    def down_reason(self) -> str:
        """Why the server takes no calls: its state and last error (``failed: ...``)."""
        return self.state + (f": {self.error}" if self.error else "")

    # -- used by the manager ------------------------------------------------------------------

    async def call(self, tool: str, args: dict[str, Any],
                   timeout: float | None = None) -> CallResult:
        """``tools/call`` on the open session; after ``timeout`` seconds the SDK cancels it."""
        session = self.session
        if session is None:
            raise ServerUnavailableError(tool, self.name, self.down_reason)
        try:
            result = await session.call_tool(tool, args, read_timeout_seconds=timeout)
        except Exception as exc:
            if timeout is not None and getattr(exc, "code", None) == types.REQUEST_TIMEOUT:
                raise ToolTimeoutError(
                    f"MCP server {self.name!r} did not answer {tool!r} within {timeout:g} s; "
                    "the request was cancelled (allow longer with call(..., timeout=...) or "
                    "call_timeout in toolkit.yaml)") from exc
            raise ServerError(f"MCP server {self.name!r} failed calling {tool!r}: "
                              f"{_describe(exc)}") from exc
        return call_result(result)

    async def stop(self) -> None:
        """Stop the holder (it exits the session and transport itself) and wait for it."""
        self._stop.set()
        with anyio.move_on_after(CLOSE_TIMEOUT):
            await self._done.wait()
        if not self._done.is_set():
            self.manager.owner.audit_log.record(
                "server-failure", outcome="timeout", server=self.name,
                reason=f"{self.name}: still closing after {CLOSE_TIMEOUT:g} s; "
                       "left to finish in the background")


def _kill_launched_group(pid_file: Path) -> None:
    """SIGKILL whatever is left of a stdio server's process group once its transport closed.

    The ``mcp`` client escalates to killing the group only when the server
    itself outlives the grace period; a server that exits (or crashes) on time
    would leave its own children running, reparented to init. The launcher
    wrote the group's id (its pid, as a session leader) to ``pid_file``.
    """
    try:
        pgid = int(pid_file.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return  # the launcher never got that far: no group to end
    finally:
        pid_file.unlink(missing_ok=True)
    kill_process_group(pgid)


async def _then_cancel(wait: Any, scope: anyio.CancelScope) -> None:
    await wait()
    scope.cancel()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return _describe(inner)
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


class ServerManager:
    """An owner's MCP connections, on the package's loop thread.

    >>> import toolkit as tk
    >>> manager = ServerManager(tk.load("toolkit/examples/trustgraph"), health_check=True)
    >>> manager.status().loc["trustgraph", ["transport", "state"]].tolist()
    ['stdio', 'configured']

    ``owner`` supplies the configs, the base folder and the audit log, and
    hears when servers' tools change (:class:`~toolkit.runtime.protocols.ServerOwner`).
    ``health_check`` pings every server, not only those whose config asks;
    ``derive_groups`` puts tools into ``read-only`` / ``destructive`` groups by
    their MCP annotations.
    """

    def __init__(self, owner: ServerOwner, *, health_check: bool = False,
                 derive_groups: bool = False) -> None:
        self.owner = owner
        self.connections: dict[str, ServerConnection] = {}
        self.log_dir = Path(tempfile.mkdtemp(prefix="toolkit-mcp-logs-"))
        self.health_default = health_check
        self.derive_groups = derive_groups
        self._tg: TaskGroup | None = None
        self._tg_lock = anyio.Lock()
        self._closed = anyio.Event()

    async def _holders(self) -> TaskGroup:
        """The task group the holders run in (started on first use, ended by shutdown)."""
        async with self._tg_lock:
            if self._closed.is_set():
                raise ToolkitError("these server connections were shut down; "
                                   "make a new ServerManager (or load the project again)")
            if self._tg is None:
                self._tg = await background_loop().start_service(self._hold_connections)
        return self._tg

    async def _hold_connections(self, *, task_status: TaskStatus[TaskGroup]) -> None:
        """Host the holders' task group on the loop until :meth:`shutdown`."""
        async with anyio.create_task_group() as tg:
            task_status.started(tg)
            await self._closed.wait()
            tg.cancel_scope.cancel()

    def connect(self, names: list[str] | None = None, timeout: float | None = None) -> None:
        """Connect servers (all configured ones by default) concurrently; wait for all."""
        background_loop().run(self.aconnect, names, timeout)

    async def aconnect(self, names: list[str] | None = None, timeout: float | None = None
                       ) -> None:
        """Async :meth:`connect` (runs on the loop thread).

        Returns once every server asked for is connected or has failed (a
        failed one's transport is closed by then); failures are audited and
        shown by :meth:`status`, and the rest carry on.
        """
        loop = background_loop()
        if not loop.in_loop_thread():
            import asyncio

            await asyncio.wrap_future(loop.submit(self.aconnect, names, timeout))
            return
        self.owner.check_open()
        configs = self.owner.server_configs
        wanted = list(configs) if names is None else names
        unknown = [n for n in wanted if n not in configs]
        if unknown:
            raise ToolkitError(f"unknown server(s) {unknown}; configured: {sorted(configs)}")
        holders = await self._holders()
        started = []
        for name in wanted:
            old = self.connections.get(name)
            if old is not None and old.state == "connected":
                continue
            conn = ServerConnection(configs[name], self.log_dir, self.owner.base_dir, self)
            self.connections[name] = conn
            started.append(conn)
        async with anyio.create_task_group() as starting:  # concurrently; each waits for its own
            for conn in started:
                starting.start_soon(self._start, holders, conn,
                                    timeout or conn.config.startup_timeout)
        if started:
            self.owner.server_tools_changed(
                {c.name: (c.tools if c.state == "connected" else None) for c in started})

    async def _start(self, holders: TaskGroup, conn: ServerConnection, timeout: float) -> None:
        """Start ``conn``'s holder in ``holders``; return once it is connected or has failed."""
        # A startup failure is already in conn.state / conn.error; _record audits it.
        with contextlib.suppress(ServerError):
            await holders.start(conn.run, timeout, name=f"toolkit MCP server {conn.name}")
        self._record(conn)

    def _record(self, conn: ServerConnection) -> None:
        audit = self.owner.audit_log
        if conn.state == "connected":
            audit.record("server-connected", outcome="connected",
                         reason=f"{conn.name}: {len(conn.tools)} tool(s)",
                         server=conn.name, transport=conn.config.transport)
        else:
            audit.record("server-failure", outcome="failed", reason=f"{conn.name}: {conn.error}",
                         server=conn.name, transport=conn.config.transport)

    def interrupted(self, conn: ServerConnection) -> None:
        """``conn``'s connect was cancelled before it answered (its process is stopped)."""
        self.owner.audit_log.record("server-failure", outcome="failed",
                                    reason=f"{conn.name}: {conn.error}", server=conn.name,
                                    transport=conn.config.transport)

    def connection_ended(self, conn: ServerConnection) -> None:
        """A holder ended: a crash after connecting removes the server's tools from the pool."""
        if self.connections.get(conn.name) is not conn:
            return
        if conn.state == "failed" and conn.connected_at is not None:
            self.owner.audit_log.record("server-failure", outcome="down",
                                        reason=f"{conn.name}: {conn.error}", server=conn.name)
            self.owner.server_tools_changed({conn.name: None})

    def tools_changed(self, conn: ServerConnection) -> None:
        """``conn`` re-listed its tools after ``notifications/tools/list_changed``."""
        self.owner.audit_log.record("server-tools-changed", outcome="refreshed",
                                    reason=f"{conn.name}: tools/list_changed, "
                                           f"{len(conn.tools)} tool(s)", server=conn.name)
        self.owner.server_tools_changed({conn.name: conn.tools})

    async def call(self, server: str, tool: str, args: dict[str, Any],
                   timeout: float | None = None) -> CallResult:
        """Call ``tool`` on ``server`` (from the loop thread), cancelled after ``timeout`` s."""
        conn = self.connections.get(server)
        if conn is None:
            raise ServerUnavailableError(tool, server, "never connected",
                                         f"run proj.connect([{server!r}])")
        try:
            return await conn.call(tool, args, timeout)
        except ServerError as exc:
            outcome = "timeout" if isinstance(exc, ToolTimeoutError) else "failed"
            self.owner.audit_log.record("server-failure", tool=f"@{server}/{tool}",
                                        outcome=outcome, reason=str(exc), server=server)
            raise

    def ping(self, name: str) -> str:
        """Ping one server now; returns its health colour."""
        self.owner.check_open()
        conn = self.connections[name]
        return background_loop().run(conn.ping)

    def disconnect(self, names: list[str]) -> None:
        """Stop the named servers' connections (their processes end); their tools leave the
        pool. A server not connected is left as it is."""
        background_loop().run(self.adisconnect, names)

    async def adisconnect(self, names: list[str]) -> None:
        """Async :meth:`disconnect` (on the loop thread)."""
        unknown = [n for n in names if n not in self.owner.server_configs]
        if unknown:
            raise ToolkitError(f"unknown server(s) {unknown}; configured: "
                               f"{sorted(self.owner.server_configs)}")
        conns = [self.connections[n] for n in names if n in self.connections]
        was = {c.name: c.state for c in conns}
        async with anyio.create_task_group() as tg:
            for conn in conns:
                tg.start_soon(conn.stop)
        for conn in conns:
            if was[conn.name] == "connected":
                self.owner.audit_log.record("teardown", outcome="closed", server=conn.name,
                                            reason=f"{conn.name}: connection closed")
        if conns:
            self.owner.server_tools_changed({c.name: None for c in conns})

    def close_all(self) -> None:
        """Close every connection (stdio processes terminated, then killed)."""
        if not self.connections or not background_loop().running:
            return
        background_loop().run(self.aclose_all)

    async def aclose_all(self) -> None:
        """Async :meth:`close_all`."""
        conns = list(self.connections.values())
        was = {c.name: c.state for c in conns}
        async with anyio.create_task_group() as tg:
            for conn in conns:
                tg.start_soon(conn.stop)
        for conn in conns:
            if was[conn.name] == "connected":
                self.owner.audit_log.record("teardown", outcome="closed", server=conn.name,
                                            reason=f"{conn.name}: connection closed")
        self.connections.clear()
        self.owner.server_tools_changed({c.name: None for c in conns})

    def shutdown(self) -> None:
        """Close every connection and end the holders' task group."""
        if not background_loop().running:
            return
        background_loop().run(self._ashutdown)

    async def _ashutdown(self) -> None:
        await self.aclose_all()
        self._closed.set()

    def status(self) -> pd.DataFrame:
        """One row per configured server."""
        import pandas as pd

        rows = []
        for name, config in self.owner.server_configs.items():
            conn = self.connections.get(name)
            rows.append({
                "server": name,
                "transport": config.transport,
                "state": conn.state if conn else "configured",
                "tools": len(conn.tools) if conn and conn.state == "connected" else 0,
                "health": conn.health if conn else None,
                "latency_ms": round(conn.latency_ms, 2) if conn and conn.latency_ms else None,
                "last_error": conn.error if conn else None,
                "log": str(conn.log_path) if conn and config.transport == "stdio" else None,
            })
        return pd.DataFrame(rows, columns=["server", "transport", "state", "tools", "health",
                                           "latency_ms", "last_error", "log"]).set_index("server")

    def log(self, name: str) -> str:
        """The server's stderr so far."""
        conn = self.connections.get(name)
        path = conn.log_path if conn else self.log_dir / f"{name}.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
