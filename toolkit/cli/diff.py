"""``toolmatrix diff OLD NEW`` / ``toolmatrix diff --git REV [PATH]``: what a policy change does.

Every agent × tool × context (group set × state) whose effect differs, with the
deciding rule before and after; then whether NEW implies OLD in its argument rules
(compared exactly as automata, :mod:`toolkit.analysis.witness`), one row per tool
argument whose rules differ. With ``--fail-on-new-access`` the new access is listed,
each row decided by argument rules with a witness: one call (a command line, a path,
a URL) NEW lets through and OLD does not, checked through both versions' engines.
Exit status: 0; 1 with ``--fail-on-new-access`` when any cell is more permissive
than before or argument rules let a call through that they did not (the CI gate
"this change grants no new access"), or on broken definitions; 2 on a usage error
(a git revision that does not exist, a path outside a repository, wrong arguments).
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, TextIO

from ..core.models import parse_group_sets
from ..errors import ToolkitError
from ._common import UsageError, load
from ._registry import verb
from ._tables import FORMATS, write_sections

if TYPE_CHECKING:
    import pandas as pd

    from ..analysis.diff import PolicyDiff

COLUMNS = ["agent", "tool", "context", "before", "after", "rule_before", "rule_after"]
ARGUMENTS = ["runtime", "tool", "field", "relation", "witness", "before", "after", "rule_before",
             "rule_after", "note"]


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
    parser.add_argument("--runtime", default=None, metavar="R",
                        help="compare both versions under runtime R's settings (default: each "
                             "runtime both hold, when both hold several)")
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
        result = _diff(diff, load(args.paths[0]), load(args.paths[1]), groups, args)
    else:
        if len(args.paths) > 1:
            raise UsageError("with --git give at most one PATH (the project folder)")
        from ..runtime.gitrev import at_revision

        path = args.paths[0] if args.paths else "."
        with ExitStack() as stack:
            try:
                old = stack.enter_context(at_revision(path, args.git))
            except ToolkitError as exc:
                raise UsageError(str(exc)) from None
            # witnesses are checked against the old files: decide while they exist
            result = _diff(diff, load(str(old)), load(path), groups, args)
            return _report(result, args, out)
    return _report(result, args, out)


def _diff(diff: Any, old: Any, new: Any, groups: Any, args: argparse.Namespace) -> PolicyDiff:
    """``diff(old, new, ...)``; a runtime without a permission engine is a usage error."""
    try:
        result: PolicyDiff = diff(old, new, groups=groups, states=args.state,
                                  runtime=args.runtime)
    except ValueError as exc:
        if args.runtime is None or "runtime" not in str(exc):
            raise
        raise UsageError(str(exc)) from None
    return result


def _report(result: PolicyDiff, args: argparse.Namespace, out: TextIO) -> int:
    """Print the summary, the implication and the tables; the exit status."""
    print(result.summary(), file=out)
    arguments = result.arguments
    if len(arguments):
        print(result.implication(), file=out)
    access = _witnessed(result.new_access, args.format)
    sections: list[tuple[str | None, pd.DataFrame, list[str]]]
    if args.only_new_access:
        sections = [(None, access, [*COLUMNS, "witness"])]
    else:
        sections = [(None, result.changes, COLUMNS),
                    ("argument rules", _witnessed(arguments, args.format), ARGUMENTS)]
        if args.fail_on_new_access:
            sections.append(("new access", access, [*COLUMNS, "witness"]))
    write_sections(sections, args.format, out)
    return 1 if args.fail_on_new_access and len(result.new_access) else 0


def _witnessed(frame: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """``frame`` with its witness calls on one line each (``Bash 'npm run'``), kept as data
    for JSON."""
    if fmt == "json" or "witness" not in frame.columns or not len(frame):
        return frame
    from ..analysis.witness import describe_call

    shown = frame.copy()
    shown["witness"] = [describe_call(w) if isinstance(w, dict) else "" for w in frame["witness"]]
    return shown
