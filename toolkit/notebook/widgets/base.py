"""What every widget view shares: the static fallback and error reporting into an Output."""

from __future__ import annotations

import logging
from collections.abc import Callable
from html import escape
from typing import Any

import ipywidgets as w

from ...errors import ToolkitError
from ..views import error_item, mimebundle, output_item

__all__ = ["View", "esc", "show", "show_error"]

log = logging.getLogger("toolkit")


def esc(value: object) -> str:
    """HTML-escaped text of any value (quotes too)."""
    return escape(str(value), quote=True)


def show(out: w.Output, *objects: Any) -> None:
    """Replace what ``out`` shows with ``objects`` (each as text/plain + text/html)."""
    out.outputs = tuple(output_item(o) for o in objects)


def show_error(out: w.Output, exc: BaseException) -> None:
    """Show an exception in ``out`` as one line (``Type: message``), never a traceback.

    The traceback of an error that is not the toolkit's own (a bug, not a user
    mistake) goes to the ``toolkit`` logger, so it is not lost either.
    """
    from ..magic import one_line

    if not isinstance(exc, (ToolkitError, ValueError, KeyError)):
        log.error("widget callback failed", exc_info=exc)
    out.outputs = (error_item(f"{type(exc).__name__}: {one_line(exc)}"),)


class View:
    """A widget view: ``widget`` is the root; subclasses give the static fallback.

    Displayed in a notebook it is the live widget; where no widget front end
    runs (GitHub, nbviewer, a saved notebook) the ``text/html`` part shows.
    """

    widget: w.Widget
    messages: w.Output

    def static_html(self) -> str:
        """What the view shows, as escaped HTML."""
        raise NotImplementedError

    def static_text(self) -> str:
        """What the view shows, as plain text."""
        raise NotImplementedError

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_())
        bundle["text/plain"] = self.static_text()
        bundle["text/html"] = self.static_html()
        return bundle

    def reporting(self, handler: Callable[..., Any]) -> Callable[..., None]:
        """Wrap a callback so that any error it raises is shown in ``self.messages``."""

        def wrapped(*args: Any) -> None:
            try:
                self.messages.outputs = ()
                handler(*args)
            except Exception as exc:  # noqa: BLE001 - shown in the widget, never lost
                show_error(self.messages, exc)

        return wrapped


def frame_html(obj: Any) -> str:
    """The ``text/html`` part of an object's static rendering."""
    return str(mimebundle(obj)["text/html"])


def frame_text(obj: Any) -> str:
    """The ``text/plain`` part of an object's static rendering."""
    return str(mimebundle(obj)["text/plain"])
