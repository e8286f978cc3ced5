"""The package's own event-loop thread.

Every MCP session lives on this one loop, so sessions persist across notebook
cells and behave the same from scripts, tests and a running Jupyter kernel.
The sync API is a portal call into it (anyio ``start_blocking_portal``); the
running loop of the caller is never patched. Long-lived tasks (the holders of
MCP connections) run in one task group that lives as long as the loop and are
started with :meth:`BackgroundLoop.start_service` (anyio's ``TaskGroup.start``).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup, TaskStatus
from anyio.from_thread import BlockingPortal, start_blocking_portal

__all__ = ["BackgroundLoop", "background_loop"]

T = TypeVar("T")


class BackgroundLoop:
    """A daemon thread running an asyncio loop, reached through an anyio portal."""

    #: Seconds an interrupted :meth:`run` waits for the cancelled task to clean up.
    interrupt_grace = 10.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._services: TaskGroup | None = None

    @property
    def portal(self) -> BlockingPortal:
        """The portal, starting the thread on first use."""
        with self._lock:
            if self._portal is None:
                self._cm = start_blocking_portal(backend="asyncio",
                                                 name="toolkit-mcp-loop")
                portal = self._cm.__enter__()
                _, self._services = portal.start_task(_host_services)
                self._portal = portal
            return self._portal

    @property
    def running(self) -> bool:
        """Whether the loop thread has been started and not stopped."""
        return self._portal is not None

    def in_loop_thread(self) -> bool:
        """True when called from the loop thread itself (a sync call there would deadlock)."""
        return self._portal is not None and threading.current_thread().name == "toolkit-mcp-loop"

    def run(self, func: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``await func(*args)`` on the loop and wait for its result.

        An interrupt while waiting (Ctrl-C, Kernel > Interrupt) cancels the task on the
        loop and waits up to :attr:`interrupt_grace` seconds for it to clean up (a
        connect being cancelled stops its server processes) before ``KeyboardInterrupt``
        reaches the caller; a second interrupt stops that wait.
        """
        if self.in_loop_thread():
            raise RuntimeError("the sync toolkit API was called from its own loop thread; "
                               "use the async API (await session.acall(...)) there")
        ended = threading.Event()

        async def call() -> T:
            try:
                return await func(*args)
            finally:
                ended.set()

        future = self.portal.start_task_soon(call)
        try:
            return future.result()
        except KeyboardInterrupt:
            future.cancel()  # the portal cancels the task's scope on the loop
            ended.wait(self.interrupt_grace)
            raise

    def submit(self, func: Callable[..., Awaitable[T]], *args: Any) -> Future[T]:
        """Schedule ``func(*args)`` on the loop; returns a concurrent future."""
        return self.portal.start_task_soon(func, *args)

    async def start_service(self, func: Callable[..., Coroutine[Any, Any, Any]], *args: Any
                            ) -> Any:
        """Start ``func(*args)`` as a long-lived task and wait until it is ready.

        Call it on the loop thread. Like anyio's ``TaskGroup.start``: ``func``
        takes a ``task_status`` keyword and calls ``task_status.started(value)``
        when ready; ``value`` is returned here, and an exception ``func`` raises
        before that is raised here. The task runs until it returns or the loop
        stops (then it is cancelled).
        """
        services = self._services
        if services is None:
            raise RuntimeError("the toolkit loop is not running (BackgroundLoop.portal starts it)")
        return await services.start(func, *args)

    def stop(self) -> None:
        """Stop the loop thread (used at interpreter exit); services are cancelled first."""
        with self._lock:
            cm, portal, services = self._cm, self._portal, self._services
            self._cm, self._portal, self._services = None, None, None
        if portal is not None and services is not None:
            portal.call(services.cancel_scope.cancel)  # else the portal would wait for them
        if cm is not None:
            cm.__exit__(None, None, None)


async def _host_services(*, task_status: TaskStatus[TaskGroup]) -> None:
    """The loop's task group for long-lived tasks, open until the loop stops."""
    async with anyio.create_task_group() as services:
        task_status.started(services)
        await anyio.sleep_forever()


_LOOP = BackgroundLoop()


def background_loop() -> BackgroundLoop:
    """The package's single background loop."""
    return _LOOP


atexit.register(_LOOP.stop)
