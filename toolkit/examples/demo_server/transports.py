"""Serving an ``MCPServer`` over the network: the SDK's SSE and Streamable HTTP apps on
uvicorn, and WebSocket and TCP bridged here to the low-level ``Server.run`` (mcp 2.x
ships neither). Logs go to stderr only.
"""

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import mcp.types as types
from anyio.abc import ByteReceiveStream, SocketAttribute, SocketStream
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage

from .tools import MAX_MESSAGE_BYTES

__all__ = [
    "MAX_MESSAGE_BYTES",
    "TRANSPORTS",
    "logger",
    "serve_connection",
    "serve_http",
    "serve_tcp",
    "serve_ws",
]

logger = logging.getLogger("toolkit.demo_server")

TRANSPORTS = ("stdio", "sse", "streamable-http", "ws", "tcp")


def _parse(text: str) -> SessionMessage | Exception:
    """One JSON-RPC message, or the parse error as a value (the SDK's transports do the same)."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        return exc


def _dump(message: SessionMessage) -> str:
    """One JSON-RPC message as the JSON text sent on the wire."""
    return message.message.model_dump_json(by_alias=True, exclude_unset=True)


async def serve_connection(server: Server[Any], incoming: AsyncIterator[str],
                           send_text: Callable[[str], Awaitable[None]]) -> None:
    """Serve one MCP connection whose messages arrive and leave as JSON texts.

    Bridges a framed byte transport to ``Server.run`` through two anyio memory
    streams of ``SessionMessage`` (what the SDK's own stdio transport yields);
    returns when the peer goes away.
    """
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](16)

    async def pump_in() -> None:
        async with read_writer:
            try:
                async for text in incoming:
                    if text.strip():
                        await read_writer.send(_parse(text))
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                logger.info("connection dropped: %r", exc)

    async def pump_out() -> None:
        async with write_reader:
            try:
                async for message in write_reader:
                    await send_text(_dump(message))
            except Exception as exc:  # noqa: BLE001 - logged, and the connection is closed
                # Whatever a failed send raises (OSError, anyio's or websockets' closed
                # errors), the peer is gone: stop reading too, which ends Server.run.
                logger.info("cannot write to the peer: %r", exc)
                await read_writer.aclose()

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump_in)
        tg.start_soon(pump_out)
        await server.run(read_stream, write_stream, server.create_initialization_options())
        tg.cancel_scope.cancel()


async def _lines(stream: ByteReceiveStream) -> AsyncIterator[str]:
    """Newline-delimited texts from a byte stream, until EOF or an oversized line."""
    buffer = b""
    try:
        async for chunk in stream:
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for line in complete:
                yield line.decode("utf-8", errors="replace")
            if len(buffer) > MAX_MESSAGE_BYTES:
                logger.warning("dropping a TCP peer: line over %d bytes", MAX_MESSAGE_BYTES)
                return
    except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass
    if buffer.strip():
        yield buffer.decode("utf-8", errors="replace")


async def serve_tcp(server: Server[Any], host: str, port: int) -> None:
    """Newline-delimited JSON-RPC over TCP, one MCP connection per socket."""
    listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
    bound = listener.extra(SocketAttribute.local_port)
    logger.warning("demo server: tcp listening on %s:%d", host, bound)

    async def handle(stream: SocketStream) -> None:
        async with stream:
            async def send(text: str) -> None:
                await stream.send((text + "\n").encode())

            await serve_connection(server, _lines(stream), send)

    async with listener:
        await listener.serve(handle)


async def serve_ws(server: Server[Any], host: str, port: int) -> None:
    """One JSON-RPC message per WebSocket text frame (subprotocol ``mcp``), any path."""
    from websockets.asyncio.server import ServerConnection, serve
    from websockets.exceptions import ConnectionClosed
    from websockets.typing import Subprotocol

    def pick(_: ServerConnection, offered: Any) -> Subprotocol | None:
        # Unlike websockets' default, a client that offers no subprotocol is let in too.
        return Subprotocol("mcp") if "mcp" in offered else None

    async def handle(ws: ServerConnection) -> None:
        async def frames() -> AsyncIterator[str]:
            try:
                async for frame in ws:
                    yield frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
            except ConnectionClosed:
                return

        await serve_connection(server, frames(), ws.send)

    async with serve(handle, host, port, select_subprotocol=pick,
                     max_size=MAX_MESSAGE_BYTES) as ws_server:
        bound = ws_server.sockets[0].getsockname()[1]
        logger.warning("demo server: ws listening on ws://%s:%d/", host, bound)
        await ws_server.serve_forever()


async def serve_http(server: MCPServer, transport: str, host: str, port: int,
                     log_level: str) -> None:
    """The SDK's SSE (``/sse`` + ``/messages/``) or Streamable HTTP (``/mcp``) app, on uvicorn.

    Not ``MCPServer.run_*_async``: those keep uvicorn's default logging, whose
    access log goes to stdout. Here uvicorn logs through the root logger (stderr).
    """
    import uvicorn

    app = (server.sse_app(host=host) if transport == "sse"
           else server.streamable_http_app(host=host))
    path = "/sse" if transport == "sse" else "/mcp"
    logger.warning("demo server: %s on http://%s:%d%s", transport, host, port, path)
    config = uvicorn.Config(app, host=host, port=port, log_config=None,
                            log_level=log_level.lower(), lifespan="on")
    await uvicorn.Server(config).serve()
