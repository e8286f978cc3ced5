"""``%tk servers [--log NAME] [--ping NAME]``: server status, one server's stderr, or a ping."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..views import TextView
from ._parser import MagicParser

if TYPE_CHECKING:
    from ..magic import ToolkitMagics

PARSER = MagicParser("servers", "Status of every configured MCP server.")
PARSER.add_argument("--log", metavar="NAME", help="show what server NAME wrote to stderr")
PARSER.add_argument("--ping", metavar="NAME", help="ping server NAME now; its health colour")


def run(magics: ToolkitMagics, rest: str, cell: str | None) -> Any:
    """The servers DataFrame; with ``--log`` the stderr text, with ``--ping`` the colour."""
    args = PARSER.parse(magics.split(rest))
    project = magics.require_project()
    if args.log:
        return TextView(project.server_log(args.log), title=f"stderr of {args.log}")
    if args.ping:
        return project.ping(args.ping)
    return project.servers
