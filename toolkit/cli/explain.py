"""``toolmatrix explain PATH AGENT TOOL...``: each decision with its trace; exit 3 if denied."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..core.models import parse_groups
from ..core.presets import all_presets
from ._common import load, warn
from ._registry import verb


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path")
    parser.add_argument("agent")
    parser.add_argument("tools", nargs="+", metavar="tool")
    parser.add_argument("--groups", help="comma-separated groups ('*' = all, 'none' = no groups)")
    parser.add_argument("--state")
    parser.add_argument("--preset", choices=list(all_presets()))


@verb("explain", "explain agent/tool decisions (exit 3 if any is denied)", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print each decision's report; exit 3 when any explained call is denied."""
    proj = load(args.path, args.preset)
    groups = None if args.groups is None else parse_groups(args.groups)
    decisions = [proj.explain(args.agent, tool, groups=groups, state=args.state)
                 for tool in args.tools]
    warn((w for d in decisions for w in d.warnings), err)
    warn((proj.unknown_tool(d.tool) for d in decisions if d.canonical is None), err)
    for decision in decisions:
        print(decision.report(), file=out)
    return 0 if all(d.allowed for d in decisions) else 3
