"""``%tk matrix [--agents A,B] [--groups G,H ...] [--states S,T] [--presets P,Q] [--runtime R,S|*]
[--reasons]``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._parser import MagicParser, csv_list, group_sets, preset_names
from ._registry import MagicState, subcommand
from ._warnings import warning_lines

if TYPE_CHECKING:
    import pandas as pd

PARSER = MagicParser("matrix", "The resolved tool matrix: rows tools, columns agents "
                               "(x group sets x states x presets).")
PARSER.add_argument("--agents", action="append", help="agent names, comma-separated")
PARSER.add_argument("--groups", action="append",
                    help="one group set, comma-separated ('*' = all, 'none' = no groups); "
                         "repeat, or separate sets with ';', for several sets")
PARSER.add_argument("--states", "--state", action="append", help="states, comma-separated")
PARSER.add_argument("--presets", "--preset", action="append", type=preset_names,
                    help="presets, comma-separated")
PARSER.add_argument("--runtime", "--runtimes", action="append",
                    help="runtimes side by side, comma-separated ('*' = every runtime the "
                         "project holds): a column set per runtime, the main conversation first")
PARSER.add_argument("--reasons", action="store_true",
                    help="show each cell's deciding step instead of True/False")


@subcommand("matrix", "matrix")
def run(magics: MagicState, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.matrix(...)`` (or ``proj.reasons(...)`` with ``--reasons``).

    A group or state no tool knows is a ``warning:`` line; the table is still built.
    """
    args = PARSER.parse(rest)
    project = magics.require_project()
    presets = None if args.presets is None else [p for ps in args.presets for p in ps]
    table = project.reasons if args.reasons else project.matrix
    runtimes = csv_list(args.runtime)
    with warning_lines():  # the core warns about a group or state no tool knows
        try:
            return table(agents=csv_list(args.agents), groups=group_sets(args.groups),
                         states=csv_list(args.states), presets=presets,
                         runtimes="*" if runtimes and "*" in runtimes else runtimes)
        except ValueError as exc:  # a runtime without a permission engine
            raise UsageError(f"%tk matrix: {exc}") from None
