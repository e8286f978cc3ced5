"""``toolmatrix diff OLD NEW`` / ``toolmatrix diff --git REV [PATH]``: what a policy change does.

Every agent × tool × context (group set × state) whose effect differs, with the
deciding rule before and after. Exit status: 0; 1 with ``--fail-on-new-access``
when any cell is more permissive than before (the CI gate "this change grants
no new access"), or on broken definitions; 2 on a usage error (a git revision
that does not exist, a path outside a repository, wrong arguments).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..core.models import parse_group_sets
from ..errors import ToolkitError
from ._common import UsageError, load
from ._registry import verb
from ._tables import FORMATS, write_sections

COLUMNS = ["agent", "tool", "context", "before", "after", "rule_before", "rule_after"]


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="OLD NEW (two project folders), or with --git the project "
                             "folder (default: .)")
    parser.add_argument("--git", metavar="REV",
                        help="compare the project as of git revision REV with the working tree")
    parser.add_argument("--groups", action="append",
                        help="group sets to compare in (default: the default request, each "
                             "group alone and '*'); repeat, or separate sets with ';'")
    parser.add_argument("--state", action="append", help="a state (default: every state)")
    parser.add_argument("--only-new-access", action="store_true",
                        help="list only the cells that grant more than before")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("--fail-on-new-access", action="store_true",
                        help="exit 1 when any agent may now do something it could not before")


@verb("diff", "what changes between two versions of a policy (exit 1 on new access with "
              "--fail-on-new-access)", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the changed cells; with --fail-on-new-access exit 1 when any grants more."""
    from ..analysis.diff import diff

    groups = None if args.groups is None else [
        s for value in args.groups for s in (parse_group_sets(value) or [()])]
    if args.git is None:
        if len(args.paths) != 2:
            raise UsageError("give OLD and NEW project folders, or --git REV [PATH]")
        result = diff(load(args.paths[0]), load(args.paths[1]), groups=groups, states=args.state)
    else:
        if len(args.paths) > 1:
            raise UsageError("with --git give at most one PATH (the project folder)")
        from ..runtime.gitrev import at_revision

        path = args.paths[0] if args.paths else "."
        try:
            with at_revision(path, args.git) as old:
                before = load(str(old))
        except ToolkitError as exc:
            raise UsageError(str(exc)) from None
        result = diff(before, load(path), groups=groups, states=args.state)
    print(result.summary(), file=out)
    rows = result.new_access if args.only_new_access else result.changes
    write_sections([(None, rows, COLUMNS)], args.format, out)
    return 1 if args.fail_on_new_access and len(result.new_access) else 0
