"""``%tk lint``: static rule analysis of the loaded project's permission rules.

The same DataFrame as ``proj.lint()``: one row per rule (runtime, rule, kind, layer,
file, line, status, by, by_where, witness, verified, note); ``--findings`` drops the
``ok`` rows, ``--status S`` keeps one status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    import pandas as pd

PARSER = MagicParser("lint", "Per permission rule: dead, shadowed, redundant, conflict or ok, "
                             "with the rule deciding instead and a witness call "
                             "(proj.lint() is the same DataFrame).")
PARSER.add_argument("--findings", action="store_true", help="leave out the ok rules")
PARSER.add_argument("--status", default=None,
                    choices=["dead", "shadowed", "redundant", "conflict", "ok"],
                    help="only the rules of this status")


@subcommand("lint", "lint [--findings] [--status S]")
def run(magics: MagicState, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.lint()``, filtered."""
    from ...analysis.lint import lint

    args = PARSER.parse(rest)
    frame = lint(magics.require_project())
    if args.findings:
        frame = frame[frame["status"] != "ok"]
    if args.status is not None:
        frame = frame[frame["status"] == args.status]
    return frame
