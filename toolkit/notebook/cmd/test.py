"""``%tk test [PATH]``: run ``toolmatrix.tests.yaml`` beside the loaded project's policy.

The same DataFrame as ``proj.test(PATH)``: one row per case (case file:line, tool, args,
agent, expected, effect, rule, ok, where, reason, message, runtime); ``--failures``
keeps the failed rows, ``--coverage`` returns the per-rule coverage table instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    import pandas as pd

PARSER = MagicParser("test", "Run the calls of toolmatrix.tests.yaml (or .toml) through the "
                             "project's own engine: one row per case, ok False on a failure "
                             "(proj.test() is the same DataFrame).")
PARSER.add_argument("path", nargs="?", default=None,
                    help="the test file or its folder (default: beside the project)")
PARSER.add_argument("--failures", action="store_true", help="only the failed cases")
PARSER.add_argument("--coverage", action="store_true",
                    help="the per-rule coverage table (decided, matched, examples, status)")


@subcommand("test", "test [PATH] [--failures] [--coverage]")
def run(magics: MagicState, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.test(PATH)`` (or its coverage table); a malformed file is a located error."""
    from ...analysis.policy_tests import run_tests

    args = PARSER.parse(rest)
    report = run_tests(magics.require_project(), args.path)
    if args.coverage:
        return report.coverage
    frame = report.results
    return frame[~frame["ok"]] if args.failures else frame
