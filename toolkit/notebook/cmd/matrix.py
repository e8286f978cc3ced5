"""``%tk matrix [--agents A,B] [--groups G,H ...] [--states S,T] [--presets P,Q] [--reasons]``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser, csv_list, group_set

if TYPE_CHECKING:
    import pandas as pd

    from ..magic import ToolkitMagics

PARSER = MagicParser("matrix", "The resolved tool matrix: rows tools, columns agents "
                               "(x group sets x states x presets).")
PARSER.add_argument("--agents", action="append", help="agent names, comma-separated")
PARSER.add_argument("--groups", action="append",
                    help="one group set, comma-separated ('*' = all, 'none' = no groups); "
                         "repeat for several sets")
PARSER.add_argument("--states", "--state", action="append", help="states, comma-separated")
PARSER.add_argument("--presets", "--preset", action="append", help="presets, comma-separated")
PARSER.add_argument("--reasons", action="store_true",
                    help="show each cell's deciding step instead of True/False")


def run(magics: ToolkitMagics, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.matrix(...)`` (or ``proj.reasons(...)`` with ``--reasons``)."""
    args = PARSER.parse(magics.split(rest))
    project = magics.require_project()
    groups = None if args.groups is None else [group_set(g) for g in args.groups]
    table = project.reasons if args.reasons else project.matrix
    return table(agents=csv_list(args.agents), groups=groups, states=csv_list(args.states),
                 presets=csv_list(args.presets))
