"""Client transports that the ``mcp`` 2.x package lacks: WebSocket and TCP.

Both yield the ``(read_stream, write_stream)`` pair that ``mcp.ClientSession``
takes: ``SessionMessage`` objects (or parse errors as values) in, ``SessionMessage``
objects out. TCP speaks newline-delimited JSON-RPC (work-agent's ``tcp``
transport); WebSocket sends one JSON-RPC message per text frame (subprotocol ``mcp``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

__all__ = ["tcp_client", "websocket_client"]

MAX_LINE = 16 * 1024 * 1024

Streams = tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[SessionMessage]]


def _parse(text: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        return exc


def _dump(message: SessionMessage) -> str:
    return message.message.model_dump_json(by_alias=True, exclude_unset=True)


def _host_port(url: str, scheme: str) -> tuple[str, int]:
    parts = urlsplit(url if "://" in url else f"{scheme}://{url}")
    if parts.hostname is None or parts.port is None:
        raise ValueError(f"endpoint {url!r} needs a host and a port, e.g. {scheme}://127.0.0.1:9000")
    return parts.hostname, parts.port


@asynccontextmanager
async def tcp_client(endpoint: str) -> AsyncIterator[Streams]:
    """Newline-delimited JSON-RPC over TCP (``tcp://host:port`` or ``host:port``)."""
    host, port = _host_port(endpoint, "tcp")
    stream = await anyio.connect_tcp(host, port)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        buffer = b""
        async with read_writer:
            try:
                async for chunk in stream:
                    buffer += chunk
                    if len(buffer) > MAX_LINE:
                        await read_writer.send(ValueError("TCP message over 16 MiB"))
                        return
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        if line.strip():
                            await read_writer.send(_parse(line.decode("utf-8", "replace")))
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError,
                    OSError):
                return

    async def writer() -> None:
        async with write_reader:
            try:
                async for message in write_reader:
                    await stream.send((_dump(message) + "\n").encode())
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await read_writer.aclose()

    async with anyio.create_task_group() as tg, stream:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            tg.cancel_scope.cancel()


@asynccontextmanager
async def websocket_client(url: str, headers: dict[str, str] | None = None
                           ) -> AsyncIterator[Streams]:
    """One JSON-RPC message per WebSocket text frame (``ws://`` or ``wss://``)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    async with connect(url, subprotocols=["mcp"],  # type: ignore[list-item]
                       additional_headers=headers or None, max_size=MAX_LINE) as ws:

        async def reader() -> None:
            async with read_writer:
                try:
                    async for frame in ws:
                        text = frame if isinstance(frame, str) else frame.decode("utf-8",
                                                                                 "replace")
                        await read_writer.send(_parse(text))
                except (ConnectionClosed, anyio.BrokenResourceError,
                        anyio.ClosedResourceError):
                    return

        async def writer() -> None:
            async with write_reader:
                try:
                    async for message in write_reader:
                        await ws.send(_dump(message))
                except (ConnectionClosed, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await read_writer.aclose()

        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            try:
                yield read_stream, write_stream
            finally:
                tg.cancel_scope.cancel()
