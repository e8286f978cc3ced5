"""Static views: objects that render as ``text/plain`` + ``text/html`` anywhere.

Everything shown is escaped (tool names and descriptions may come from
untrusted servers); DataFrames are rendered with pandas' escaping ``to_html``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from ..core.decision import Decision

__all__ = ["Decisions", "HTMLView", "TextView", "mimebundle", "output_item"]

#: Tables in views show at most this many rows (pandas elides the middle).
MAX_ROWS = 60


class Decisions(Sequence["Decision"]):
    """Several decisions (``%tk explain AGENT TOOL TOOL ...``), shown as one report.

    A sequence rather than a tuple subclass: IPython's pretty printer would
    otherwise show it as a tuple of reprs instead of the reports.
    """

    def __init__(self, decisions: Iterable[Decision]) -> None:
        self._items = tuple(decisions)

    @overload
    def __getitem__(self, index: int) -> Decision: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Decision]: ...

    def __getitem__(self, index: int | slice) -> Decision | Sequence[Decision]:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return "\n\n".join(d.report() for d in self._items)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        parts = [d._repr_mimebundle_() for d in self._items]
        return {"text/plain": "\n\n".join(p["text/plain"] for p in parts),
                "text/html": "".join(p["text/html"] for p in parts)}


class TextView:
    """Plain text (a server's stderr, say) shown verbatim in a ``<pre>``, escaped."""

    def __init__(self, text: str, title: str = "") -> None:
        self.text = text
        self.title = title

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<TextView {self.title!r}: {len(self.text)} chars>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        head = f"<p><b>{escape(self.title)}</b></p>" if self.title else ""
        return {"text/plain": self.text or "(empty)",
                "text/html": f"{head}<pre>{escape(self.text) or '(empty)'}</pre>"}


class HTMLView:
    """Already-escaped HTML with its plain-text twin (built by toolkit's views only)."""

    def __init__(self, html: str, text: str) -> None:
        self.html = html
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.text, "text/html": self.html}


def mimebundle(obj: Any) -> dict[str, Any]:
    """``text/plain`` + ``text/html`` of an object (DataFrames, toolkit objects, text)."""
    if isinstance(obj, str):
        return TextView(obj)._repr_mimebundle_()
    bundle_of = getattr(obj, "_repr_mimebundle_", None)
    if bundle_of is not None:
        bundle = bundle_of()
        if isinstance(bundle, tuple):  # (data, metadata)
            bundle = bundle[0]
        return dict(bundle)
    to_html = getattr(obj, "to_html", None)
    if to_html is not None:  # a DataFrame: pandas escapes cell text; one mark for missing
        # imported here: toolkit.render registers every renderer (analysis included), which
        # %load_ext toolkit must not pay for (bench figure 5b)
        from ..render.decisions import MISSING

        return {"text/plain": obj.to_string(na_rep=MISSING),
                "text/html": to_html(escape=True, na_rep=MISSING, max_rows=MAX_ROWS)}
    return TextView(repr(obj))._repr_mimebundle_()


def output_item(obj: Any) -> dict[str, Any]:
    """One ``Output`` widget item (a display_data message) for ``obj``."""
    return {"output_type": "display_data", "data": mimebundle(obj), "metadata": {}}


def error_item(message: str) -> dict[str, Any]:
    """One ``Output`` widget item for an error message (stderr stream)."""
    return {"output_type": "stream", "name": "stderr", "text": message.rstrip("\n") + "\n"}
