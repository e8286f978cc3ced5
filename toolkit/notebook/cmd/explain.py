"""``%tk explain AGENT TOOL [TOOL ...] [--groups G,H] [--state S] [--preset P]``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..views import Decisions
from ._parser import MagicParser, group_set, preset_name
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    from ...core.explain import Decision

PARSER = MagicParser("explain", "Why AGENT may or may not call each TOOL: the deciding rule "
                                "(file:line) and the full trace.")
PARSER.add_argument("agent")
PARSER.add_argument("tools", nargs="+")
PARSER.add_argument("--groups", default=None,
                    help="the request's groups, comma-separated ('*' = all, 'none' = no groups)")
PARSER.add_argument("--state", default=None, help="the workflow state (default: undefined)")
PARSER.add_argument("--preset", type=preset_name, default=None)
PARSER.add_argument("--session", action="store_true",
                    help="explain as a child of the current session (its lineage)")


@subcommand("explain", "explain AGENT TOOL")
def run(magics: MagicState, rest: str, cell: str | None) -> Decision | Decisions:
    """One ``Decision`` for one tool, else ``Decisions`` (a tuple that renders as one report).

    A group or state no tool knows, or a tool not in the pool, is a ``warning:``
    line; the decisions are still shown.
    """
    args = PARSER.parse(rest)
    project = magics.require_project()
    parent = magics.require_session() if args.session else None
    found = [project.explain(args.agent, tool, groups=group_set(args.groups), state=args.state,
                             parent=parent, preset=args.preset) for tool in args.tools]
    warn([w for d in found for w in d.warnings])
    warn([project.unknown_tool(d.tool) for d in found if d.canonical is None])
    return found[0] if len(found) == 1 else Decisions(found)
