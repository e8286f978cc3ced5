"""A small, real MCP server over an in-memory knowledge graph.

It serves the tools the shipped examples talk about, with real behaviour:

* TrustGraph: ``knowledge-query``, ``graph-update``, ``text-completion``,
  ``complex-analysis``, ``reset-workflow``;
* Emergent: ``entities_create``, ``entities_get``, ``entities_update``,
  ``entities_delete``, ``search_hybrid``, ``graph_traverse``;
* plumbing: ``echo`` (for benchmarks) and ``read_file`` (inside ``DEMO_ROOT``).

The graph (companies, people and the relationships between them) is seeded
deterministically, so every start, and every ``reset-workflow``, sees the same
data. Nothing here calls a model or the network: ``text-completion`` writes its
text from the graph's facts or by extracting sentences from the prompt.

Tools are written with the SDK's high-level ``MCPServer`` (``FastMCP`` in mcp 1.x).
Transports: stdio, SSE and Streamable HTTP are the SDK's own; WebSocket (one
JSON-RPC message per text frame, subprotocol ``mcp``) and TCP (newline-delimited
JSON-RPC) are bridged here to the SDK's low-level ``Server.run``, since mcp 2.x
ships neither. Logs go to stderr only.

Run::

    python -m toolkit.examples.demo_server                      # stdio
    python -m toolkit.examples.demo_server --transport streamable-http --port 8000
    python -m toolkit.examples.demo_server --transport tcp --port 0 --page-size 4
    python -m toolkit.examples.demo_server --tools echo,knowledge-query

Or in Python::

    >>> from toolkit.examples.demo_server import build_server, seed_graph
    >>> server = build_server(seed_graph("small"), tools=["echo", "knowledge-query"])

Modules, inside out: :mod:`.graph` (the graph), :mod:`.seeds` (its seed data),
:mod:`.analysis` (pure algorithms), :mod:`.tools` (tool specs and the plumbing
tools), :mod:`.trustgraph` and :mod:`.emergent` (the knowledge tools),
:mod:`.server` (the ``MCPServer``), :mod:`.transports` and :mod:`.cli`.
"""

from .analysis import (
    STOPWORDS,
    connected_components,
    degree_centrality,
    extractive_summary,
    hybrid_scores,
    mentioned_entities,
    shortest_path,
)
from .cli import main, parse_args, run
from .graph import (
    RELATION_PHRASES,
    Entity,
    JSONScalar,
    KnowledgeGraph,
    Properties,
    Relationship,
    slugify,
    tokens,
)
from .seeds import SEEDS, seed_graph
from .server import (
    MAX_DYNAMIC_TOOLS,
    SERVER_NAME,
    SERVER_VERSION,
    TOOL_NAMES,
    build_server,
    lowlevel,
    make_tools,
)
from .tools import ADDITIVE, DESTRUCTIVE, MAX_MESSAGE_BYTES, READ_ONLY, EntityRef, ToolSpec
from .transports import TRANSPORTS, logger, serve_connection, serve_http, serve_tcp, serve_ws

# Every name the single-module demo_server had in public; the seven it listed in
# __all__ then (TOOL_NAMES, Entity, KnowledgeGraph, Relationship, build_server, main,
# seed_graph) are the ones to start from.
__all__ = [
    "ADDITIVE",
    "DESTRUCTIVE",
    "MAX_DYNAMIC_TOOLS",
    "MAX_MESSAGE_BYTES",
    "READ_ONLY",
    "RELATION_PHRASES",
    "SEEDS",
    "SERVER_NAME",
    "SERVER_VERSION",
    "STOPWORDS",
    "TOOL_NAMES",
    "TRANSPORTS",
    "Entity",
    "EntityRef",
    "JSONScalar",
    "KnowledgeGraph",
    "Properties",
    "Relationship",
    "ToolSpec",
    "build_server",
    "connected_components",
    "degree_centrality",
    "extractive_summary",
    "hybrid_scores",
    "logger",
    "lowlevel",
    "main",
    "make_tools",
    "mentioned_entities",
    "parse_args",
    "run",
    "seed_graph",
    "serve_connection",
    "serve_http",
    "serve_tcp",
    "serve_ws",
    "shortest_path",
    "slugify",
    "tokens",
]
