"""``%tk spawn NAME [--groups G,H] [--state S] [--parent ID] [--force]``: a child, now the
current session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._parser import MagicParser, group_set
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    from ...runtime.session import Session

PARSER = MagicParser("spawn", "Spawn agent NAME as a child of the current session (or of "
                              "--parent); the child becomes the current session.")
PARSER.add_argument("name")
PARSER.add_argument("--groups", default=None,
                    help="narrow the parent's groups ('none' = no groups)")
PARSER.add_argument("--state", default=None)
PARSER.add_argument("--parent", default=None, help="id of the parent session")
PARSER.add_argument("--force", action="store_true",
                    help="spawn past max_depth anyway (a host that ignores the limit), "
                         "with a warning")


@subcommand("spawn", "spawn NAME")
def run(magics: MagicState, rest: str, cell: str | None) -> Session:
    """``parent.spawn(name, ...)``; a group or state no tool knows is a ``warning:`` line."""
    args = PARSER.parse(rest)
    project = magics.require_project()
    if args.parent is None:
        parent = magics.require_session()
    elif args.parent in project.sessions:
        parent = project.sessions[args.parent]
    else:
        raise UsageError(f"no session {args.parent!r}; sessions: "
                         f"{', '.join(project.sessions) or '(none)'}")
    groups = group_set(args.groups)
    child = parent.spawn(args.name, groups=groups, state=args.state, force=args.force)
    magics.session = child
    warn(p.message for p in project.request_warnings(groups or (), child.state))
    return child
