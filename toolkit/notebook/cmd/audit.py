"""``%tk audit [--event E] [--agent ID] [--tail N]``: the audit trail as a DataFrame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._parser import MagicParser, non_negative_int
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    import pandas as pd

PARSER = MagicParser("audit", "Every resolve, call, block, approval, transition, spawn and "
                              "teardown so far.")
PARSER.add_argument("--event", default=None, help="only this event type (call, spawn, ...)")
PARSER.add_argument("--agent", default=None, help="only this session id")
PARSER.add_argument("--tail", type=non_negative_int, default=None, help="only the last N rows")


@subcommand("audit", "audit")
def run(magics: MagicState, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.audit`` filtered (an id no session or audit event has is a usage error)."""
    args = PARSER.parse(rest)
    project = magics.require_project()
    table = project.audit
    if args.event is not None:
        table = _of_event(table, args.event)
    if args.agent is not None:
        table = _of_agent(table, args.agent, known=set(project.sessions))
    if args.tail is not None:
        table = table.tail(args.tail)
    return table


def _of_event(table: pd.DataFrame, event: str) -> pd.DataFrame:
    """The rows of one event type; a warning line when there is none yet (a typo?)."""
    events = sorted(set(table["event"])) if "event" in table else []
    if event not in events:
        warn([f"no {event!r} events in the audit trail; events so far: "
              f"{', '.join(events) or '(none)'}"])
    return table[table["event"] == event] if events else table


def _of_agent(table: pd.DataFrame, agent_id: str, known: set[str]) -> pd.DataFrame:
    """The rows of session ``agent_id``; a usage error naming the ids when it is unknown."""
    ids = known | (set(table["agent_id"].dropna()) if "agent_id" in table else set())
    if agent_id not in ids:
        raise UsageError(f"no session {agent_id!r} in the audit trail; session ids: "
                         f"{', '.join(sorted(map(str, ids))) or '(none)'}")
    return table[table["agent_id"] == agent_id]
