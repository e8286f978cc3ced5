"""``%tk audit [--event E] [--agent ID] [--tail N]``: the audit trail as a DataFrame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser

if TYPE_CHECKING:
    import pandas as pd

    from ..magic import ToolkitMagics

PARSER = MagicParser("audit", "Every resolve, call, block, approval, transition, spawn and "
                              "teardown so far.")
PARSER.add_argument("--event", default=None, help="only this event type (call, spawn, ...)")
PARSER.add_argument("--agent", default=None, help="only this session id")
PARSER.add_argument("--tail", type=int, default=None, help="only the last N rows")


def run(magics: ToolkitMagics, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.audit`` filtered."""
    args = PARSER.parse(magics.split(rest))
    table = magics.require_project().audit
    if args.event is not None and "event" in table:
        table = table[table["event"] == args.event]
    if args.agent is not None and "agent_id" in table:
        table = table[table["agent_id"] == args.agent]
    if args.tail is not None:
        table = table.tail(args.tail)
    return table
