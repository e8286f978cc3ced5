"""``toolmatrix check PATH``: every problem as ``file:line: message``; exit 1 on errors."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..analysis.check import checked_policy
from ..core.presets import all_presets
from ._registry import verb


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path")
    parser.add_argument("--preset", choices=list(all_presets()))
    parser.add_argument("--strict-warnings", action="store_true",
                        help="treat warnings as errors too")
    parser.add_argument("--locked", action="store_true",
                        help="connect the MCP servers and fail when a tool was added, removed "
                             "or changed since toolmatrix lock PATH")
    parser.add_argument("--timeout", type=float, default=None,
                        help="with --locked: seconds to wait for each server to start")


@verb("check", "validate definitions; exit 1 on any error (or, with --locked, any tool "
               "changed since the lock)", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print every problem; exit 1 on an error (or any warning with --strict-warnings).

    The preset that governs the project, and why, goes to stderr with the counts.
    """
    problems, ok, policy = checked_policy(args.path, args.preset)
    for p in problems:
        print(f"{p}" if p.severity == "error" else f"{p} (warning)", file=out)
    failed = not ok or (args.strict_warnings and bool(problems))
    errors = sum(p.severity == "error" for p in problems)
    if policy is not None:
        print(f"preset {policy.preset.name}: {policy.preset_reason}", file=err)
    print(f"{errors} error(s), {len(problems) - errors} warning(s)", file=err)
    if args.locked and ok:
        failed = _locked(args, out, err) or failed
    return 1 if failed else 0


def _locked(args: argparse.Namespace, out: TextIO, err: TextIO) -> bool:
    """Compare the servers' tools with toolmatrix.lock; True when anything differs."""
    from ..runtime import lock
    from ._common import load

    proj = load(args.path, args.preset)
    try:
        report = lock.check(proj, args.timeout)
    finally:
        proj.close()
    for line in report.lines():
        print(line, file=out)
    print(f"{lock.LOCK_NAME}: " + ("every locked tool matches" if report.ok else
                                   f"{len(report.entries)} tool(s) differ, "
                                   f"{len(report.problems)} problem(s) in the lock file"),
          file=err)
    return not report.ok
