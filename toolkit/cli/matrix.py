"""``toolmatrix matrix PATH``: the tool matrix as markdown, CSV or JSON."""

from __future__ import annotations

import argparse
import warnings
from typing import TYPE_CHECKING, TextIO

from ..core.models import parse_group_sets
from ..core.presets import all_presets
from ._common import UsageError, load, warn
from ._registry import verb

if TYPE_CHECKING:
    import pandas as pd


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path")
    parser.add_argument("--agents", help="comma-separated agent names (default: all)")
    parser.add_argument("--groups", action="append",
                        help="a comma-separated group set ('*' = all, 'none' = no groups); "
                             "repeat, or separate sets with ';', for several")
    parser.add_argument("--state", action="append", help="a state; repeat for several")
    parser.add_argument("--preset", action="append", choices=list(all_presets()),
                        help="a preset; repeat to compare several")
    parser.add_argument("--runtime", action="append", metavar="R",
                        help="show the tools under runtime R's permission settings, a column "
                             "set per runtime: repeat (or comma-separate) for several, '*' for "
                             "every runtime the folder holds; the main conversation is a column")
    parser.add_argument("--format", choices=["csv", "markdown", "json"], default="markdown")
    parser.add_argument("--reasons", action="store_true",
                        help="show the deciding step of each cell instead of true/false")
    parser.add_argument("--risk", action="store_true",
                        help="add a risk column: reads_private, untrusted_input, sends_out, "
                             "destructive")


@verb("matrix", "print the tool matrix", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the matrix (booleans, or each cell's deciding step with --reasons).

    The project is loaded under the (first) ``--preset`` given, so definitions that only
    that preset accepts (unknown names it skips, say) load, as with ``explain``.
    """
    proj = load(args.path, args.preset[0] if args.preset else None)
    groups = None if args.groups is None else [
        s for value in args.groups for s in (parse_group_sets(value) or [()])]
    agents = [a.strip() for a in args.agents.split(",") if a.strip()] if args.agents else None
    runtimes = runtime_list(args.runtime)
    with warnings.catch_warnings(record=True) as caught:  # the core warns about unknown names
        warnings.simplefilter("always", UserWarning)
        try:
            table = (proj.reasons if args.reasons else proj.matrix)(
                agents=agents, groups=groups, states=args.state, presets=args.preset,
                runtimes=runtimes)
        except ValueError as exc:  # a runtime without a permission engine
            raise UsageError(str(exc)) from None
    warn((str(w.message) for w in caught), err)
    if args.risk:
        table = with_risk(proj, table)
    write_table(table, args.format, args.reasons, out)
    return 0


def runtime_list(values: list[str] | None) -> list[str] | str | None:
    """``--runtime`` values: None, ``"*"`` (every runtime), or the names given (repeated or
    comma-separated)."""
    if values is None:
        return None
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    return "*" if "*" in names else names


def with_risk(proj: object, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with each tool's risk classes as its first column (``risk``)."""
    from ..analysis.risk import tool_risk_frame

    if table.columns.nlevels > 1:
        table = table.copy()
        table.columns = [" / ".join(map(str, c)) for c in table.columns]
    risk = tool_risk_frame(proj)["risk"].reindex(table.index).fillna("")  # type: ignore[arg-type]
    return table.assign(risk=risk)[["risk", *[c for c in table.columns if c != "risk"]]]


def write_table(table: pd.DataFrame, fmt: str, reasons: bool, out: TextIO) -> None:
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


def _markdown(table: object) -> str:
    """A plain markdown table (no optional ``tabulate`` dependency)."""
    import pandas as pd

    assert isinstance(table, pd.DataFrame)
    header = ["tool", *map(str, table.columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for name, row in table.iterrows():
        lines.append("| " + " | ".join([str(name), *map(str, row.tolist())]) + " |")
    return "\n".join(lines)
