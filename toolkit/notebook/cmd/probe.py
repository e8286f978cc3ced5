"""``%tk probe``: bypass probes of the loaded project's shell-command rules.

Shows the findings as a table whose ``effect`` column takes the shared palette (every
command and rule escaped: they come from policy files); ``.frame`` is the same DataFrame as
``proj.probe()``, ``.rules`` what was tried per rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ._parser import MagicParser
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    import pandas as pd

PARSER = MagicParser("probe", "Each shell-command rule's command respelt 200-odd ways "
                              "(wrappers, bash -c, paths, quoting, chains, redirections, "
                              "flags), each decided by the engine: allow-escape and "
                              "deny-bypass findings (proj.probe() is the same DataFrame).")
PARSER.add_argument("--mode", default=None,
                    help="the permission mode to decide in (default: the project's own)")
PARSER.add_argument("--rule", action="append", default=None,
                    help="probe only this rule, as written; repeatable")
PARSER.add_argument("--kind", default=None, choices=["allow-escape", "deny-bypass"],
                    help="only the findings of this kind")
PARSER.add_argument("--runtime", default=None, help="only this runtime's rules")

#: The columns the table shows (all of them are in ``.frame``).
SHOWN = ("kind", "rule", "command", "effect", "deciding_rule", "template", "file", "line")


@dataclass
class ProbeView:
    """The findings of ``%tk probe``: a table in a notebook, ``.frame`` for code."""

    frame: pd.DataFrame
    rules: pd.DataFrame
    summary: str

    def __repr__(self) -> str:
        shown = [c for c in SHOWN if c in self.frame.columns]
        body = self.frame[shown].to_string(index=False) if len(self.frame) else "no findings"
        return f"{body}\n{self.summary}"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from ...render.decisions import legend_html
        from ...render.reports import table_html

        table = table_html(self.frame, SHOWN) if len(self.frame) else "<p>no findings</p>"
        return {"text/plain": repr(self),
                "text/html": f"{legend_html()}{table}<p><small>{escape(self.summary)}"
                             "</small></p>"}


@subcommand("probe", "probe [--mode M] [--rule TEXT] [--kind K] [--runtime R]")
def run(magics: MagicState, rest: str, cell: str | None) -> ProbeView:
    """``proj.probe()`` with what was tried per rule."""
    from ...analysis.probe import run_probe

    args = PARSER.parse(rest)
    try:
        report = run_probe(magics.require_project(), args.rule, args.mode, args.runtime)
    except ValueError as exc:  # an unknown mode or rule
        raise UsageError(f"%tk probe: {' '.join(str(exc).split())}") from None
    frame = report.findings
    if args.kind is not None:
        frame = frame[frame["kind"] == args.kind]
    return ProbeView(frame, report.rules, report.summary())
