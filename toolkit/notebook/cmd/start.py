"""``%tk start AGENT [--groups G,H] [--state S] [--user NAME]``: a root session, now current."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser, group_set

if TYPE_CHECKING:
    from ...runtime.session import Session
    from ..magic import ToolkitMagics

PARSER = MagicParser("start", "Start a root session of AGENT; later %tk call / spawn use it.")
PARSER.add_argument("agent")
PARSER.add_argument("--groups", default=None, help="the request's groups, comma-separated")
PARSER.add_argument("--state", default=None)
PARSER.add_argument("--user", default=None, help="a user of the project's manifest")


def run(magics: ToolkitMagics, rest: str, cell: str | None) -> Session:
    """``proj.start(...)``."""
    args = PARSER.parse(magics.split(rest))
    project = magics.require_project()
    magics.session = project.start(args.agent, groups=group_set(args.groups), state=args.state,
                                   user=args.user)
    return magics.session
