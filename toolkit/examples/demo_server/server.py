"""The demo ``MCPServer``: which tools it serves, run-time registration, paged listing."""

import base64
import binascii
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from pydantic import Field

from .emergent import EmergentTools
from .graph import KnowledgeGraph
from .seeds import seed_graph
from .tools import ADDITIVE, READ_ONLY, PlumbingTools, ToolSpec, docstring_of
from .trustgraph import TrustGraphTools

__all__ = [
    "MAX_DYNAMIC_TOOLS",
    "SERVER_NAME",
    "SERVER_VERSION",
    "TOOL_NAMES",
    "build_server",
    "lowlevel",
    "make_tools",
]

SERVER_NAME = "toolkit-demo"
SERVER_VERSION = "0.1.0"
#: Most tools ``register_tool`` adds to one server.
MAX_DYNAMIC_TOOLS = 32


def make_tools(graph: KnowledgeGraph, root: Path) -> list[ToolSpec]:
    """The server's tools, bound to one graph and one ``read_file`` root.

    >>> [spec.name for spec in make_tools(KnowledgeGraph(), Path("."))][:2]
    ['knowledge-query', 'graph-update']
    """
    return [*TrustGraphTools(graph).specs(), *EmergentTools(graph).specs(),
            *PlumbingTools(root).specs()]


#: Every tool name, in listing order (``register_tool`` adds tools at run time).
TOOL_NAMES: tuple[str, ...] = (*(spec.name for spec in make_tools(KnowledgeGraph(), Path.cwd())),
                               "register_tool")


def build_server(graph: KnowledgeGraph | None = None, *, tools: Iterable[str] | None = None,
                 page_size: int = 0, root: Path | None = None,
                 log_level: str = "WARNING",
                 descriptions: Mapping[str, str] | None = None,
                 input_schemas: Mapping[str, Mapping[str, Any]] | None = None,
                 annotations: Mapping[str, Mapping[str, Any]] | None = None) -> MCPServer:
    """The demo ``MCPServer``.

    Args:
        graph: The graph to serve (default: the small seed).
        tools: Names of the tools to expose (default: all of :data:`TOOL_NAMES`).
        page_size: Tools per ``tools/list`` page; 0 lists them all at once.
        root: ``read_file``'s root (default: ``$DEMO_ROOT`` or the working directory).
        log_level: Level of the SDK's own logging (to stderr).
        descriptions: Tool name -> a description to serve instead of its own (what a
            server that changes a reviewed tool's text, a "rug pull", does).
        input_schemas: Tool name -> an input schema to list instead of its own (a server
            changing what a reviewed tool takes; calls are still validated against the
            tool's own parameters).
        annotations: Tool name -> annotations (``readOnlyHint``, ...) to serve instead of
            its own (a reviewed read-only tool that now says it is destructive, say).

    >>> server = build_server(tools=["echo", "knowledge-query"], page_size=1)
    >>> server.name
    'toolkit-demo'
    """
    graph = graph if graph is not None else seed_graph()
    root = (root if root is not None else Path(os.environ.get("DEMO_ROOT") or os.getcwd()))
    root = root.resolve()
    specs = make_tools(graph, root)
    wanted = list(TOOL_NAMES if tools is None else tools)
    unknown = sorted(set(wanted) - set(TOOL_NAMES))
    if unknown:
        raise ValueError(f"unknown tool(s) {', '.join(unknown)}; known: {', '.join(TOOL_NAMES)}")
    replaced = dict(descriptions or {})
    schemas = dict(input_schemas or {})
    hints = {name: types.ToolAnnotations.model_validate(dict(value))
             for name, value in (annotations or {}).items()}
    registered = []
    for spec in specs:
        if spec.name in wanted:
            tool = Tool.from_function(spec.fn, name=spec.name, title=spec.title,
                                      description=replaced.get(spec.name, spec.description),
                                      annotations=hints.get(spec.name, spec.annotations),
                                      structured_output=spec.structured)
            if spec.name in schemas:
                tool = tool.model_copy(update={"parameters": dict(schemas[spec.name])})
            registered.append(tool)
    server: MCPServer = MCPServer(
        SERVER_NAME,
        version=SERVER_VERSION,
        instructions="A demo knowledge graph of companies and people. Query it with "
                     "knowledge-query or search_hybrid, walk it with graph_traverse.",
        log_level=log_level,  # type: ignore[arg-type]
        tools=registered,
    )
    if "register_tool" in wanted:
        _add_register_tool(server)
    if page_size > 0:
        _paginate_tools(server, page_size)
    return server


def _add_register_tool(server: MCPServer) -> None:
    """``register_tool``: add an echo tool at run time and send ``tools/list_changed``."""
    added: list[str] = []

    async def register_tool(
        name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$",
                                   description="Name of the new echo tool")],
        ctx: Context,
    ) -> str:
        """Add an echo tool called ``name`` and tell the client the tool list changed."""
        if name in TOOL_NAMES or name in added:
            raise ToolError(f"tool {name!r} already exists")
        if len(added) >= MAX_DYNAMIC_TOOLS:
            raise ToolError(f"at most {MAX_DYNAMIC_TOOLS} tools can be registered")

        def dynamic(text: str) -> str:
            return text

        server.add_tool(dynamic, name=name, description=f"Echo tool {name}, added at run time",
                        annotations=READ_ONLY, structured_output=False)
        added.append(name)
        # Clients that initialized (protocol 2025-11-25) get the notification on the session;
        # clients of protocol 2026-07-28 subscribe to it and get it through the bus.
        await ctx.session.send_tool_list_changed()
        await ctx.notify_tools_changed()
        return f"registered {name}"

    server.add_tool(register_tool, name="register_tool", title="Register tool",
                    description=docstring_of(register_tool), annotations=ADDITIVE,
                    structured_output=False)


def lowlevel(server: MCPServer) -> Server[Any]:
    """The low-level ``Server`` under an ``MCPServer``.

    mcp 2.3 has no public accessor; the SDK's own ``Client`` and in-memory
    transport read the same private attribute.
    """
    return server._lowlevel_server  # noqa: SLF001 - no public accessor in mcp 2.3 (see above)


def _encode_cursor(offset: int) -> str:
    """An opaque ``tools/list`` cursor for the page starting at ``offset``."""
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def _decode_cursor(cursor: str) -> int:
    """The offset in a cursor from :func:`_encode_cursor`; anything else is ``INVALID_PARAMS``."""
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        offset = None
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise MCPError(code=types.INVALID_PARAMS, message=f"invalid cursor {cursor!r}")
    return offset


def _paginate_tools(server: MCPServer, page_size: int) -> None:
    """Replace ``tools/list`` with one that pages ``page_size`` tools at a time.

    ``MCPServer`` lists every tool in one page and ignores the cursor; the
    low-level server passes the request's ``PaginatedRequestParams`` through and
    sends whatever ``next_cursor`` the handler sets, so paging is a handler swap.
    """

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams) -> types.ListToolsResult:
        every = await server.list_tools()
        start = _decode_cursor(params.cursor) if params.cursor else 0
        if start > len(every):
            raise MCPError(code=types.INVALID_PARAMS, message="cursor is past the last page")
        end = start + page_size
        return types.ListToolsResult(tools=every[start:end],
                                     next_cursor=_encode_cursor(end) if end < len(every) else None)

    lowlevel(server).add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)
