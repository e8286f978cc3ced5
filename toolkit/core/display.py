"""The one hook through which the model's objects reach their HTML.

``Decision``, ``Resolution``, a replay, a diff or a lock report render as HTML in a
notebook, but the model must not import its renderers (they sit above it:
``toolkit.render``). Each ``_repr_mimebundle_`` calls :func:`html`, which asks the
renderer registered for the object's type. The renderers register themselves when
``toolkit.render`` is imported; the first :func:`html` call imports it (by name, as
fsspec's registry imports a protocol's class on first use), so ``import toolkit``
stays cheap and no module of the model imports a renderer.

>>> from toolkit.core.decision import Effect, Reason, Verdict
>>> "<" in html(Verdict(Effect.ALLOW, Reason.ALLOW))  # no renderer for a Verdict
False
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from html import escape
from typing import Any

__all__ = ["RENDERERS_MODULE", "html", "register"]

#: The package whose import registers every renderer.
RENDERERS_MODULE = "toolkit.render"

_RENDERERS: dict[type, Callable[[Any], str]] = {}
_loaded = False


def register(kind: type, renderer: Callable[[Any], str]) -> None:
    """Render objects of ``kind`` (and its subclasses) with ``renderer``."""
    _RENDERERS[kind] = renderer


def html(obj: Any) -> str:
    """``obj``'s HTML from its registered renderer; its escaped ``str`` when none is."""
    global _loaded
    if not _loaded:
        _loaded = True
        importlib.import_module(RENDERERS_MODULE)
    for kind in type(obj).__mro__:
        renderer = _RENDERERS.get(kind)
        if renderer is not None:
            return renderer(obj)
    return escape(str(obj))
