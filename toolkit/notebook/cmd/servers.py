"""``%tk servers [--log NAME] [--ping NAME]``: server status, one server's stderr, or a ping."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..views import TextView
from ._parser import MagicParser
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    from ...runtime.project import Project

PARSER = MagicParser("servers", "Status of every configured MCP server.")
PARSER.add_argument("--log", metavar="NAME", help="show what server NAME wrote to stderr")
PARSER.add_argument("--ping", metavar="NAME", help="ping server NAME now; its health colour")


@subcommand("servers", "servers")
def run(magics: MagicState, rest: str, cell: str | None) -> Any:
    """The servers DataFrame; with ``--log`` the stderr text, with ``--ping`` the colour."""
    args = PARSER.parse(rest)
    project = magics.require_project()
    if args.log:
        _check_configured(project, args.log)
        return TextView(project.server_log(args.log), title=f"stderr of {args.log}")
    if args.ping:
        return _ping(project, args.ping)
    return project.servers


def _check_configured(project: Project, name: str) -> None:
    if name not in project.server_configs:
        raise UsageError(f"unknown server {name!r}; configured servers: "
                         f"{', '.join(project.server_configs) or '(none)'}")


def _ping(project: Project, name: str) -> str:
    _check_configured(project, name)
    try:
        return project.ping(name)
    except KeyError:  # configured, but there is no connection to ping
        raise UsageError(f"server {name!r} is not connected; run %tk connect {name} first"
                         ) from None
