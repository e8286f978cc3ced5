"""Static HTML for replay, diff, risk and lock reports (notebooks, GitHub, nbviewer).

Every cell is escaped (tool names, arguments and descriptions may come from
untrusted servers or logs); effects are coloured with the one palette of
:mod:`toolkit.render.decisions`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from ..core.decision import Effect
from .decisions import MISSING, effect_html, legend_html, reason_html

if TYPE_CHECKING:
    import pandas as pd

    from ..analysis.diff import PolicyDiff
    from ..analysis.lock import LockReport
    from ..analysis.replay import Replay

__all__ = ["diff_html", "lock_html", "replay_html", "risk_html", "table_html",
           "words_diff_html"]

_EFFECTS = {e.value: e for e in Effect}
#: Rows a static table shows before it says how many more there are.
MAX_ROWS = 50


def _missing(value: Any) -> bool:
    import pandas as pd

    return value is None or (not isinstance(value, (str, list, tuple, dict))
                             and bool(pd.isna(value)))


def _cell(column: str, value: Any, coloured: Iterable[str]) -> str:
    if _missing(value):
        return f"<td>{MISSING}</td>"
    text = str(value)
    if column in coloured and text in _EFFECTS:
        return f"<td>{effect_html(_EFFECTS[text])}</td>"
    if isinstance(value, bool):
        return f"<td>{'&#10003;' if value else ''}</td>"
    return f"<td>{escape(text)}</td>"


def table_html(frame: pd.DataFrame, columns: Sequence[str] | None = None, *,
               coloured: Iterable[str] = ("effect", "before", "after"),
               max_rows: int = MAX_ROWS, css: str = "toolkit-table") -> str:
    """A DataFrame's rows as an escaped table, effect columns in their colours."""
    shown = [c for c in (columns or list(frame.columns)) if c in frame.columns]
    colour = set(coloured)
    head = "".join(f"<th>{escape(str(c))}</th>" for c in shown)
    rows = frame[shown].head(max_rows).itertuples(index=False, name=None)
    # a verdict's deciding step in the words every view uses ("not in the allow list")
    verdict = "effect" in shown and "reason" in shown
    body = "".join(
        "<tr>" + "".join(
            f"<td>{reason_html(row[shown.index('effect')], v)}</td>"
            if verdict and c == "reason" and not _missing(v)
            and str(row[shown.index("effect")]) in _EFFECTS
            else _cell(c, v, colour) for c, v in zip(shown, row, strict=True)) + "</tr>"
        for row in rows)
    more = len(frame) - max_rows
    tail = f"<p><small>... and {more} more row(s)</small></p>" if more > 0 else ""
    return (f"<table class='{css}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
            f"</table>{tail}")


def _section(title: str, frame: pd.DataFrame, columns: Sequence[str]) -> str:
    if not len(frame):
        return ""
    return f"<h4>{escape(title)} ({len(frame)})</h4>" + table_html(frame, columns)


CALL_VIEW = ["session", "agent", "tool", "args", "effect", "reason", "rule", "file", "line",
             "observed", "source"]


def replay_html(rp: Replay) -> str:
    """A replay: summary, legend, regressions, newly allowed calls, idle rules, the calls."""
    summary = escape(rp.summary()).replace("\n", "<br>")
    idle = rp.rules[rp.rules["status"] != "used"] if len(rp.rules) else rp.rules
    return (f"<div class='toolkit-replay'><p>{summary}</p>{legend_html()}"
            + _section("Regressions: ran then, not allowed now", rp.regressions, CALL_VIEW)
            + _section("Newly allowed: denied then, allowed now", rp.newly_allowed, CALL_VIEW)
            + _section("Rules never decisive (dead or shadowed)", idle,
                       ["agent", "kind", "rule", "file", "line", "hits", "decisive", "status"])
            + _section("Calls", rp.calls, CALL_VIEW)
            + _section("Unreadable lines", rp.problems, ["file", "line", "message"])
            + "</div>")


def diff_html(diff: PolicyDiff, *, only_new_access: bool = False) -> str:
    """A policy diff: summary, legend, the changed cells (or only the new access)."""
    rows = diff.new_access if only_new_access else diff.changes
    title = "New access" if only_new_access else "Changes"
    summary = escape(diff.summary()).replace("\n", "<br>")
    return (f"<div class='toolkit-diff'><p>{summary}</p>{legend_html()}"
            + (_section(title, rows, ["agent", "tool", "context", "before", "after",
                                      "rule_before", "rule_after"]) or
               "<p><small>no cell changed</small></p>") + "</div>")


RISK_LEGS = ("reads_private", "untrusted_input", "sends_out", "destructive")


def risk_html(frame: pd.DataFrame) -> str:
    """``proj.risk()``: one row per agent, the trifecta rows flagged in the deny colour."""
    from .decisions import PALETTE

    head = "".join(f"<th>{escape(c)}</th>" for c in ("agent", *RISK_LEGS, "trifecta", "via"))
    body = []
    for agent, row in frame.iterrows():
        legs = "".join(f"<td>{'&#9679;' if row[leg] else ''}</td>" for leg in RISK_LEGS)
        flag = (f"<td><b style='color:{PALETTE[Effect.DENY]}'>lethal trifecta</b></td>"
                if row["trifecta"] else "<td></td>")
        body.append(f"<tr><th><code>{escape(str(agent))}</code></th>{legs}{flag}"
                    f"<td><small>{escape(str(row['via']))}</small></td></tr>")
    return (f"<table class='toolkit-risk'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def words_diff_html(old: str, new: str) -> tuple[str, str]:
    """Old and new text, escaped, with removed words struck and added words marked."""
    a, b = old.split(" "), new.split(" ")
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        before, after = escape(" ".join(a[i1:i2])), escape(" ".join(b[j1:j2]))
        if op == "equal":
            left.append(before)
            right.append(after)
            continue
        if before:
            left.append(f"<del style='background:#ffebe9'>{before}</del>")
        if after:
            right.append(f"<ins style='background:#dafbe1'>{after}</ins>")
    return " ".join(left), " ".join(right)


def lock_html(report: LockReport) -> str:
    """Tools added, removed or changed since the lock; changed descriptions side by side."""
    rows = []
    for change in report.entries:
        old, new = words_diff_html(change.old_description or "", change.new_description or "")
        rows.append(f"<tr><td><code>{escape(change.server)}</code></td>"
                    f"<td><code>{escape(change.tool)}</code></td><td>{escape(change.change)}</td>"
                    f"<td>{escape(', '.join(change.fields))}</td><td>{old}</td><td>{new}</td>"
                    "</tr>")
    problems = "".join(f"<li>{escape(str(p))}</li>" for p in report.problems)
    status = "matches the lock" if report.ok else f"{len(report.entries)} change(s)"
    table = ("<table class='toolkit-lock'><thead><tr><th>server</th><th>tool</th><th>change</th>"
             "<th>fields</th><th>locked description</th><th>description now</th></tr></thead>"
             f"<tbody>{''.join(rows)}</tbody></table>") if rows else ""
    return (f"<div class='toolkit-lock-report'><p><b>{escape(report.path)}</b>: {status}</p>"
            f"{table}" + (f"<ul>{problems}</ul>" if problems else "") + "</div>")
