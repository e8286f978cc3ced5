"""``%tk spawn NAME [--groups G,H] [--state S] [--parent ID]``: a child, now the current session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._parser import MagicParser, group_set

if TYPE_CHECKING:
    from ...runtime.session import Session
    from ..magic import ToolkitMagics

PARSER = MagicParser("spawn", "Spawn agent NAME as a child of the current session (or of "
                              "--parent); the child becomes the current session.")
PARSER.add_argument("name")
PARSER.add_argument("--groups", default=None, help="narrow the parent's groups")
PARSER.add_argument("--state", default=None)
PARSER.add_argument("--parent", default=None, help="id of the parent session")


def run(magics: ToolkitMagics, rest: str, cell: str | None) -> Session:
    """``parent.spawn(name, ...)``."""
    args = PARSER.parse(magics.split(rest))
    project = magics.require_project()
    if args.parent is None:
        parent = magics.require_session()
    elif args.parent in project.sessions:
        parent = project.sessions[args.parent]
    else:
        raise UsageError(f"no session {args.parent!r}; sessions: "
                         f"{', '.join(project.sessions) or '(none)'}")
    magics.session = parent.spawn(args.name, groups=group_set(args.groups), state=args.state)
    return magics.session
