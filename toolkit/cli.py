"""The ``toolmatrix`` command: ``check``, ``matrix`` and ``explain`` over a project.

Each verb is one call into the core. ``check`` is the CI validation ADR 021
asks for: every problem as ``file:line: message``, exit status 1 on any error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from .core.check import check_project
from .core.presets import PRESETS
from .errors import DefinitionError, ToolkitError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolmatrix",
        description="Which agent may call which tool, in which situation, and why.")
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
                        help="a comma-separated group set; repeat for several ('*' = all)")
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
    explain.add_argument("--groups", help="comma-separated groups ('*' = all)")
    explain.add_argument("--state")
    explain.add_argument("--preset", choices=list(PRESETS))
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Run the command line; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    args = _parser().parse_args(argv)
    if args.command == "check":
        problems, ok = check_project(args.path, args.preset)
        for p in problems:
            print(f"{p}" if p.severity == "error" else f"{p} (warning)", file=out)
        failed = not ok or (args.strict_warnings and bool(problems))
        errors = sum(p.severity == "error" for p in problems)
        print(f"{errors} error(s), {len(problems) - errors} warning(s)", file=err)
        return 1 if failed else 0
    from .runtime.project import load

    try:
        proj = load(args.path, preset=args.preset if args.command == "explain" else None)
        if args.command == "matrix":
            groups = None
            if args.groups:
                groups = [tuple(g for g in s.split(",") if g) for s in args.groups]
            agents = args.agents.split(",") if args.agents else None
            table = (proj.reasons if args.reasons else proj.matrix)(
                agents=agents, groups=groups, states=args.state, presets=args.preset)
            if not args.reasons:
                table = table.replace({True: "yes", False: "-"}) if args.format != "json" \
                    else table
            if table.columns.nlevels > 1:
                table.columns = [" / ".join(map(str, c)) for c in table.columns]
            if args.format == "csv":
                table.to_csv(out)
            elif args.format == "json":
                out.write(table.to_json(orient="split", indent=2) + "\n")
            else:
                out.write(_markdown(table) + "\n")
            return 0
        status = 0
        for tool in args.tools:
            decision = proj.explain(args.agent, tool, groups=args.groups, state=args.state)
            print(decision.report(), file=out)
            status = status or (0 if decision.allowed else 3)
        return status
    except DefinitionError as exc:
        for p in exc.problems:
            print(p, file=err)
        return 1
    except ToolkitError as exc:
        print(f"toolmatrix: {exc}", file=err)
        return 2


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
