"""``%tk diff OLD [NEW] | --git REV [--groups G] [--states S] [--runtime R]``: a policy's changes.

The widget with an agent picker and "new access only" is ``toolkit.notebook.DiffView(result)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ...errors import ToolkitError
from ._parser import MagicParser, csv_list, group_sets
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    from ...analysis.diff import PolicyDiff

PARSER = MagicParser("diff", "Every agent x tool x context whose effect differs between two "
                             "versions of a policy (NEW defaults to the loaded project).")
PARSER.add_argument("old", nargs="?", default=None, help="the old project folder")
PARSER.add_argument("new", nargs="?", default=None,
                    help="the new project folder (default: the loaded project)")
PARSER.add_argument("--git", default=None, metavar="REV",
                    help="OLD is the loaded project's folder as of git revision REV")
PARSER.add_argument("--groups", action="append", help="group sets ('a,b; *'); repeatable")
PARSER.add_argument("--states", "--state", action="append", help="states, comma-separated")
PARSER.add_argument("--runtime", default=None,
                    help="compare both versions under this runtime's settings (default: each "
                         "runtime both hold, when both hold several)")


@subcommand("diff", "diff OLD [NEW]")
def run(magics: MagicState, rest: str, cell: str | None) -> PolicyDiff:
    """``tk.diff(OLD, NEW)``: a ``PolicyDiff``."""
    from ...analysis.diff import diff
    from ...runtime.project import load

    args = PARSER.parse(rest)
    if (args.old is None) == (args.git is None):
        raise UsageError("%tk diff: give OLD (a project folder) or --git REV, not both")
    missing = [p for p in (args.old, args.new) if p is not None and not Path(p).exists()]
    if args.git is None and missing:  # name every one, not the first load that fails
        raise UsageError(f"%tk diff: no such file or folder: {', '.join(missing)}; pass project "
                         "folders or definition files")
    new = load(args.new) if args.new is not None else magics.require_project()
    if args.git is not None:
        from ...runtime.gitrev import at_revision

        try:
            with at_revision(new.root, args.git) as folder:
                old = load(folder)
        except ToolkitError as exc:
            raise UsageError(f"%tk diff: {exc}") from None
    else:
        old = load(args.old)
    try:
        return diff(old, new, groups=group_sets(args.groups), states=csv_list(args.states),
                    runtime=args.runtime)
    except ValueError as exc:  # a runtime without a permission engine
        raise UsageError(f"%tk diff: {exc}") from None
