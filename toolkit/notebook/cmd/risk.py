"""``%tk risk [--trifecta]``: per agent, what its tools can do (and the lethal trifecta)."""

from __future__ import annotations

from ..views import HTMLView
from ._parser import MagicParser
from ._registry import MagicState, subcommand

PARSER = MagicParser("risk", "Per agent: reads private data, sees untrusted content, can send "
                             "out, destructive; the lethal trifecta and the tools behind each "
                             "leg (proj.risk() is the DataFrame).")
PARSER.add_argument("--trifecta", action="store_true",
                    help="only the agents holding the lethal trifecta")


@subcommand("risk", "risk")
def run(magics: MagicState, rest: str, cell: str | None) -> HTMLView:
    """``proj.risk()`` as a table with the trifecta rows flagged."""
    from ...render.reports import risk_html

    args = PARSER.parse(rest)
    frame = magics.require_project().risk()
    if args.trifecta:
        frame = frame[frame["trifecta"]]
    return HTMLView(risk_html(frame), frame.to_string())
