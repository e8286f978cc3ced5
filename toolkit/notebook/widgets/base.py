"""What every widget view shares: the static fallback and error reporting into an Output."""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Sequence
from html import escape
from typing import Any

import ipywidgets as w

from ...errors import ToolkitError
from ..views import error_item, mimebundle, output_item

__all__ = ["STATIC_CSS", "View", "esc", "first_names", "show", "show_error"]

log = logging.getLogger("toolkit")

#: Shown with every static fallback: where the live widget renders right after it (the
#: next output of the same cell carries ``toolkit-live``), the fallback hides itself.
#: Where no widget front end runs (nbconvert HTML, GitHub, nbviewer), nothing matches and
#: the fallback stays: the saved notebook shows the view's content, not an empty output.
STATIC_CSS = ("<style>.jp-OutputArea-child:has(+ .jp-OutputArea-child .toolkit-live) "
              ".toolkit-static{display:none}</style>")
#: Refresh a view at most this often while events stream in (seconds).
REFRESH_EVERY = 0.3
_SCHEDULING = threading.Lock()  # guards every view's timer and stale flag (held briefly)


def esc(value: object) -> str:
    """HTML-escaped text of any value (quotes too)."""
    return escape(str(value), quote=True)


def first_names(names: Sequence[str], n: int = 12, code: bool = False) -> str:
    """``a, b, c … and 40 more`` or ``(none)``: plain text, or HTML with ``code=True`` (each
    name escaped in ``<code>``). Long lists never become walls of text."""
    shown = [f"<code>{esc(x)}</code>" for x in names[:n]] if code else list(names[:n])
    more = f" … and {len(names) - n} more" if len(names) > n else ""
    return (", ".join(shown) or "(none)") + more


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
    #: a line above the view: shown when the project closed, saying how to go on
    banner: w.HTML | None = None
    _timer: threading.Timer | None = None
    _stale = False
    _unsubscribe: Callable[[], None] | None = None

    def static_html(self) -> str:
        """What the view shows, as escaped HTML."""
        raise NotImplementedError

    def static_text(self) -> str:
        """What the view shows, as plain text."""
        raise NotImplementedError

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = self._live_bundle()
        bundle["text/plain"] = self.static_text()
        bundle["text/html"] = self.static_html()
        return bundle

    def _live_bundle(self) -> dict[str, Any]:
        self.widget.add_class("toolkit-live")
        self._guard()
        bundle = self.widget._repr_mimebundle_()
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        return {k: v for k, v in dict(bundle).items() if k != "text/plain"}

    def _guard(self) -> None:
        """Add a :class:`~.guard.LiveGuard` to the view's root box (once): after a kernel
        restart the browser says "re-run the cell" and disables the view's controls."""
        from .guard import LiveGuard

        box = self.widget
        if isinstance(box, w.Box) and not any(isinstance(c, LiveGuard) for c in box.children):
            box.children = (*box.children, LiveGuard())

    def _ipython_display_(self) -> None:
        """Two outputs: the static view (kept where no widget front end runs), then the widget.

        nbconvert and nbviewer drop a widget output's ``text/html`` once the
        notebook saved its widget state, so the static view is an output of its
        own; a live front end hides it (:data:`STATIC_CSS`) and shows the widget.
        """
        from IPython.display import display

        handle = display(self._static_bundle(), raw=True,  # type: ignore[no-untyped-call]
                         display_id=True)
        live = self._live_bundle()
        live["text/plain"] = f"{type(self).__name__} (live widget; its static view is above)"
        display(live, raw=True)  # type: ignore[no-untyped-call]
        if self.after_display() and handle is not None:
            handle.update(self._static_bundle(), raw=True)

    def _static_bundle(self) -> dict[str, str]:
        return {"text/html": f"{STATIC_CSS}<div class='toolkit-static'>{self.static_html()}"
                             "</div>", "text/plain": self.static_text()}

    def after_display(self) -> bool:
        """Work left for after the widget is on its way to the browser (so it paints first).

        Returns True when the static view changed (it is then shown anew).
        """
        return False

    # -- following the project's life -------------------------------------------------------------

    def watch(self, project: Any) -> None:
        """Follow ``project``: refresh when its audit trail grows, show it closed when it closes.

        Held weakly: a view nobody shows any more is not kept alive by the project.
        """
        audit = getattr(project, "audit_log", None)
        if audit is None:  # a plain Policy: no runtime, nothing to follow
            return
        ref = weakref.WeakMethod(self._project_event)

        def listener(entry: dict[str, Any] | None) -> bool:
            method = ref()
            if method is None:
                return False  # the view is gone: unsubscribe
            method(entry)
            return True

        self._unsubscribe = audit.subscribe(listener)
        if getattr(project, "closed", False):
            self.project_closed()

    def _project_event(self, entry: dict[str, Any] | None) -> None:
        if entry is None:
            self.project_closed()
        else:
            self.on_audit(entry)

    def on_audit(self, entry: dict[str, Any]) -> None:
        """One audit event (in the recording thread): refresh soon if the view follows it."""
        if self.follows(entry):
            self._schedule()

    def follows(self, entry: dict[str, Any]) -> bool:
        """Whether an audit event changes what this view shows (default: no)."""
        return False

    def _schedule(self) -> None:
        """Refresh soon (events come in bursts and from the loop thread).

        One timer at a time; an event that comes while it refreshes marks the view
        stale again, so the timer refreshes once more instead of missing it.
        """
        with _SCHEDULING:
            self._stale = True
            if self._timer is not None:
                return
            timer = threading.Timer(REFRESH_EVERY, self._refresh_while_stale)
            timer.daemon = True
            self._timer = timer
        timer.start()

    def _refresh_while_stale(self) -> None:
        while True:
            with _SCHEDULING:
                if not self._stale:
                    self._timer = None
                    return
                self._stale = False
            self.reporting(self.refresh)()

    def refresh(self) -> None:
        """Re-read what the view shows (views that follow events override this)."""

    def controls(self) -> Sequence[w.Widget]:
        """The buttons and inputs that act on the project (disabled once it is closed)."""
        return ()

    def project_closed(self) -> None:
        """Show the project closed: one line saying how to go on, the controls disabled."""
        for control in self.controls():
            control.disabled = True
        if self.banner is not None:
            self.banner.value = (
                "<p class='toolkit-closed' style='color:#9a6700'><b>Project closed.</b> Its "
                "sessions and servers have ended; load it again (<code>tk.load(...)</code> or "
                "<code>%tk load ...</code>) and show a new view to go on.</p>")
        self.reporting(self.refresh)()

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
