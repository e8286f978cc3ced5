"""The ``toolmatrix`` command: ``check``, ``matrix`` and ``explain`` over a project.

Each verb is one call into the core. ``check`` is the CI validation ADR 021
asks for: every problem as ``file:line: message``, exit status 1 on any error.

A mistake on the command line is one line on stderr, argparse style
(``toolmatrix: error: ...``, exit status 2), never a traceback; a group or
state no tool knows is a ``toolmatrix: warning: ...`` line and the answer is
still printed.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from difflib import get_close_matches
from typing import TYPE_CHECKING, NoReturn, TextIO

from .core.check import check_project
from .core.models import parse_group_sets, parse_groups
from .core.presets import PRESETS
from .errors import DefinitionError, ToolkitError

if TYPE_CHECKING:
    import pandas as pd

    from .runtime.project import Project

__all__ = ["main"]

PROG = "toolmatrix"
USAGE_ERROR = 2  # argparse's exit status for a usage error


class _UsageError(Exception):
    """A command-line mistake: printed as one line, exit status 2."""


class _ArgumentParser(argparse.ArgumentParser):
    """argparse whose errors are one line (``main`` prints them to its ``err``)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see {self.prog} --help)")


def _parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog=PROG, description="Which agent may call which tool, in which situation, and why.")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="validate definitions; exit 1 on any error")
    check.add_argument("path")
    check.add_argument("--preset", choices=list(PRESETS))
    check.add_argument("--strict-warnings", action="store_true",
                       help="treat warnings as errors too")

    matrix = sub.add_parser("matrix", help="print the tool matrix")
    matrix.add_argument("path")
    matrix.add_argument("--agents", help="comma-separated agent names (default: all)")
    matrix.add_argument("--groups", action="append",
                        help="a comma-separated group set ('*' = all, 'none' = no groups); "
                             "repeat, or separate sets with ';', for several")
    matrix.add_argument("--state", action="append", help="a state; repeat for several")
    matrix.add_argument("--preset", action="append", choices=list(PRESETS),
                        help="a preset; repeat to compare several")
    matrix.add_argument("--format", choices=["csv", "markdown", "json"], default="markdown")
    matrix.add_argument("--reasons", action="store_true",
                        help="show the deciding step of each cell instead of true/false")

    explain = sub.add_parser("explain", help="explain agent/tool decisions (exit 3 if any is "
                             "denied)")
    explain.add_argument("path")
    explain.add_argument("agent")
    explain.add_argument("tools", nargs="+", metavar="tool")
    explain.add_argument("--groups", help="comma-separated groups ('*' = all, 'none' = no groups)")
    explain.add_argument("--state")
    explain.add_argument("--preset", choices=list(PRESETS))
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Run the command line; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = _parser().parse_args(argv)
        return _COMMANDS[args.command](args, out, err)
    except _UsageError as exc:
        print(f"{PROG}: error: {exc}", file=err)
        return USAGE_ERROR
    except DefinitionError as exc:
        _print_problems(exc, err)
        return 1
    except ToolkitError as exc:  # an unknown agent, say: what is wrong and what exists
        print(f"{PROG}: error: {_one_line(exc)}", file=err)
        return USAGE_ERROR


def _check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    problems, ok = check_project(args.path, args.preset)
    for p in problems:
        print(f"{p}" if p.severity == "error" else f"{p} (warning)", file=out)
    failed = not ok or (args.strict_warnings and bool(problems))
    errors = sum(p.severity == "error" for p in problems)
    print(f"{errors} error(s), {len(problems) - errors} warning(s)", file=err)
    return 1 if failed else 0


def _matrix(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    proj = _load(args.path)
    groups = None if args.groups is None else [
        s for value in args.groups for s in (parse_group_sets(value) or [()])]
    agents = [a.strip() for a in args.agents.split(",") if a.strip()] if args.agents else None
    with warnings.catch_warnings(record=True) as caught:  # the core warns about unknown names
        warnings.simplefilter("always", UserWarning)
        table = (proj.reasons if args.reasons else proj.matrix)(
            agents=agents, groups=groups, states=args.state, presets=args.preset)
    _warn((str(w.message) for w in caught), err)
    _write_table(table, args.format, args.reasons, out)
    return 0


def _write_table(table: pd.DataFrame, fmt: str, reasons: bool, out: TextIO) -> None:
    if not reasons and fmt != "json":
        table = table.replace({True: "yes", False: "-"})
    if table.columns.nlevels > 1:
        table.columns = [" / ".join(map(str, c)) for c in table.columns]
    if fmt == "csv":
        table.to_csv(out)
    elif fmt == "json":
        out.write(table.to_json(orient="split", indent=2) + "\n")
    else:
        out.write(_markdown(table) + "\n")


def _explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    proj = _load(args.path, args.preset)
    groups = None if args.groups is None else parse_groups(args.groups)
    decisions = [proj.explain(args.agent, tool, groups=groups, state=args.state)
                 for tool in args.tools]
    _warn((w for d in decisions for w in d.warnings), err)
    _warn((_unknown_tool(proj, d.tool) for d in decisions if d.canonical is None), err)
    for decision in decisions:
        print(decision.report(), file=out)
    return 0 if all(d.allowed for d in decisions) else 3


_COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO, TextIO], int]] = {
    "check": _check, "matrix": _matrix, "explain": _explain}


def _load(path: str, preset: str | None = None) -> Project:
    from .runtime.project import load  # on first use: `toolmatrix check` stays light

    return load(path, preset=preset)


def _unknown_tool(proj: Project, name: str) -> str:
    nearest = get_close_matches(name, list(proj.tools), n=3)
    hint = f"; did you mean: {', '.join(nearest)}?" if nearest else ""
    return f"no tool {name!r} in the project{hint}"


def _warn(messages: Iterable[str], err: TextIO) -> None:
    for message in dict.fromkeys(messages):
        print(f"{PROG}: warning: {message}", file=err)


def _one_line(exc: BaseException) -> str:
    lines = [s.strip() for s in str(exc).splitlines() if s.strip()]
    return "; ".join(lines) or type(exc).__name__


def _print_problems(exc: DefinitionError, err: TextIO) -> None:
    """One problem: one error line. Several: each as ``file:line: message``, then a summary."""
    if len(exc.problems) <= 1:
        print(f"{PROG}: error: {_one_line(exc)}", file=err)
        return
    for p in exc.problems:
        print(p, file=err)
    print(f"{PROG}: error: {len(exc.problems)} problems in the definitions (listed above); "
          f"fix them, then run {PROG} check PATH", file=err)


def _markdown(table: object) -> str:
    """A plain markdown table (no optional ``tabulate`` dependency)."""
    import pandas as pd

    assert isinstance(table, pd.DataFrame)
    header = ["tool", *map(str, table.columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for name, row in table.iterrows():
        lines.append("| " + " | ".join([str(name), *map(str, row.tolist())]) + " |")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


def main_entry() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
