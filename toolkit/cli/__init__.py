"""The ``toolmatrix`` command: one module per verb (``check``, ``matrix``, ``explain``, ...).

Each verb module registers itself with :func:`verb` (its arguments and its
``run``); ``main`` builds the parser from that table. Each verb is one call
into the core. ``check`` is the CI validation ADR 021 asks for: every problem
as ``file:line: message``, exit status 1 on any error.

A mistake on the command line is one line on stderr, argparse style
(``toolmatrix: error: ...``, exit status 2), never a traceback; a group or
state no tool knows is a ``toolmatrix: warning: ...`` line and the answer is
still printed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

from ..errors import DefinitionError, ToolkitError
from ._common import PROG, USAGE_ERROR, UsageError, one_line, print_problems
from ._registry import VERBS, verb

__all__ = ["main", "main_entry", "verb"]

class _ArgumentParser(argparse.ArgumentParser):
    """argparse whose errors are one line (``main`` prints them to its ``err``)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog=PROG, description="Which agent may call which tool, in which situation, and why.")
    sub = parser.add_subparsers(dest="command", required=True)
    for v in VERBS.values():
        v.add_arguments(sub.add_parser(v.name, help=v.help))
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Run the command line; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = _parser().parse_args(argv)
        return VERBS[args.command].run(args, out, err)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=err)
        return USAGE_ERROR
    except DefinitionError as exc:
        print_problems(exc, err)
        return 1
    except ToolkitError as exc:  # an unknown agent, say: what is wrong and what exists
        print(f"{PROG}: error: {one_line(exc)}", file=err)
        return USAGE_ERROR


def main_entry() -> None:
    """Console-script entry point."""
    raise SystemExit(main())


# isort: off
# Importing a verb module registers it; this order is the order `--help` lists them.
from . import check, matrix, explain, why, replay, diff, lock  # noqa: E402, F401
from . import test  # noqa: E402, F401
from . import lint  # noqa: E402, F401
from . import probe  # noqa: E402, F401
from . import convert  # noqa: E402, F401
# isort: on
