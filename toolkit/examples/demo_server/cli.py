"""``python -m toolkit.examples.demo_server``: options, and serving until stopped."""

import argparse
import contextlib
import json
import logging
import os
import sys
from typing import Any

import anyio

from .seeds import SEEDS, seed_graph
from .server import TOOL_NAMES, build_server, lowlevel
from .transports import TRANSPORTS, logger, serve_http, serve_tcp, serve_ws

__all__ = ["main", "parse_args", "run"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m toolkit.examples.demo_server",
        description="Demo MCP server over an in-memory knowledge graph.")
    parser.add_argument("--transport", choices=TRANSPORTS, default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default %(default)s)")
    parser.add_argument("--port", type=int, default=8000,
                        help="port for the network transports; 0 picks a free one for tcp and "
                             "ws (default %(default)s)")
    parser.add_argument("--page-size", type=int, default=0, metavar="N",
                        help="tools per tools/list page (0: one page)")
    parser.add_argument("--tools", default=None, metavar="A,B,C",
                        help=f"expose only these tools; known: {', '.join(TOOL_NAMES)}")
    parser.add_argument("--graph", choices=sorted(SEEDS),
                        default=os.environ.get("DEMO_GRAPH") or "small",
                        help="seed graph (default: $DEMO_GRAPH or small)")
    parser.add_argument("--log-level", default="WARNING",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])
    parser.add_argument("--describe", action="append", default=[], metavar="TOOL=TEXT",
                        help="serve TEXT as TOOL's description (repeatable): a server changing "
                             "a reviewed tool's description, as in a rug pull")
    parser.add_argument("--input-schema", action="append", default=[], metavar="TOOL=JSON",
                        help="list the JSON object as TOOL's input schema (repeatable): a "
                             "server changing what a reviewed tool takes")
    parser.add_argument("--annotations", action="append", default=[], metavar="TOOL=JSON",
                        help="serve the JSON object as TOOL's annotations (repeatable), e.g. "
                             "'echo={\"destructiveHint\": true}'")
    parser.add_argument("--startup-delay", type=float, default=0.0, metavar="S",
                        help="wait S seconds before serving (a slow server, e.g. to show a "
                             "connect timeout or Kernel > Interrupt during %%tk connect)")
    args = parser.parse_args(argv)
    if args.startup_delay < 0:
        parser.error("--startup-delay must be 0 or more")
    args.descriptions = dict(_per_tool(parser, "--describe", "TEXT", args.describe))
    args.input_schemas = {name: _json_object(parser, "--input-schema", text)
                          for name, text in _per_tool(parser, "--input-schema", "JSON",
                                                      args.input_schema)}
    args.annotations = {name: _json_object(parser, "--annotations", text)
                        for name, text in _per_tool(parser, "--annotations", "JSON",
                                                    args.annotations)}
    if args.page_size < 0:
        parser.error("--page-size must be 0 or more")
    if args.tools is not None:
        args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
        unknown = sorted(set(args.tools) - set(TOOL_NAMES))
        if unknown:
            parser.error(f"unknown tool(s): {', '.join(unknown)}; "
                         f"known: {', '.join(TOOL_NAMES)}")
    return args


def _per_tool(parser: argparse.ArgumentParser, option: str, what: str,
              items: list[str]) -> list[tuple[str, str]]:
    """``TOOL=VALUE`` items as (tool, value); an unknown tool or no ``=`` is a usage error."""
    out = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or name.strip() not in TOOL_NAMES:
            parser.error(f"{option} takes TOOL={what} with a known tool, not {item!r}")
        out.append((name.strip(), value))
    return out


def _json_object(parser: argparse.ArgumentParser, option: str, text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        parser.error(f"{option}: not JSON ({exc}): {text!r}")
    if not isinstance(value, dict):
        parser.error(f"{option} takes a JSON object, not {text!r}")
    return value


async def run(args: argparse.Namespace) -> None:
    """Build the server and serve it over the chosen transport until stopped."""
    if args.startup_delay:
        await anyio.sleep(args.startup_delay)
    server = build_server(seed_graph(args.graph), tools=args.tools, page_size=args.page_size,
                          log_level=args.log_level, descriptions=args.descriptions,
                          input_schemas=args.input_schemas, annotations=args.annotations)
    match args.transport:
        case "stdio":
            logger.info("demo server: stdio, graph %s, %s", args.graph,
                        "tools " + ",".join(args.tools) if args.tools else "all tools")
            await server.run_stdio_async()
        case "sse" | "streamable-http":
            await serve_http(server, args.transport, args.host, args.port, args.log_level)
        case "tcp":
            await serve_tcp(lowlevel(server), args.host, args.port)
        case "ws":
            await serve_ws(lowlevel(server), args.host, args.port)


def main(argv: list[str] | None = None) -> int:
    """Entry point; logs go to stderr, never stdout (stdout is the stdio transport's wire)."""
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(run, args)
    return 0
