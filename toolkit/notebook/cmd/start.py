"""``%tk start AGENT [--groups G,H] [--state S] [--user NAME]``: a root session, now current."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser, group_set
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    from ...runtime.session import Session

PARSER = MagicParser("start", "Start a root session of AGENT; later %tk call / spawn use it.")
PARSER.add_argument("agent")
PARSER.add_argument("--groups", default=None,
                    help="the request's groups, comma-separated ('*' = all, 'none' = no groups)")
PARSER.add_argument("--state", default=None)
PARSER.add_argument("--user", default=None, help="a user of the project's manifest")


@subcommand("start", "start AGENT")
def run(magics: MagicState, rest: str, cell: str | None) -> Session:
    """``proj.start(...)``; a group or state no tool knows is a ``warning:`` line."""
    args = PARSER.parse(rest)
    project = magics.require_project()
    groups = group_set(args.groups)
    session = project.start(args.agent, groups=groups, state=args.state, user=args.user)
    magics.session = session
    warn(p.message for p in project.request_warnings(groups or (), session.state))
    return session
