"""``toolmatrix check PATH``: every problem as ``file:line: message``; exit 1 on errors."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..core.check import check_project
from ..core.presets import PRESETS
from ._registry import verb


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path")
    parser.add_argument("--preset", choices=list(PRESETS))
    parser.add_argument("--strict-warnings", action="store_true",
                        help="treat warnings as errors too")


@verb("check", "validate definitions; exit 1 on any error", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print every problem; exit 1 on an error (or any warning with --strict-warnings)."""
    problems, ok = check_project(args.path, args.preset)
    for p in problems:
        print(f"{p}" if p.severity == "error" else f"{p} (warning)", file=out)
    failed = not ok or (args.strict_warnings and bool(problems))
    errors = sum(p.severity == "error" for p in problems)
    print(f"{errors} error(s), {len(problems) - errors} warning(s)", file=err)
    return 1 if failed else 0
