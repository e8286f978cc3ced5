"""The guard every live view carries: after Kernel > Restart it says "re-run the cell" above
the view and disables its controls (``guard.js``), instead of letting a click show stale data."""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets as t

__all__ = ["LiveGuard"]

# Read once (a Path would make anywidget watch the file for changes).
_ESM = Path(__file__).with_name("guard.js").read_text(encoding="utf-8")


class LiveGuard(anywidget.AnyWidget):
    """An invisible widget whose browser side watches its own comm (see the module)."""

    _esm = _ESM
    #: this widget's model id, so the browser finds the full model (and its comm state)
    self_id = t.Unicode("").tag(sync=True)

    def __init__(self) -> None:
        super().__init__()
        self.self_id = self.model_id
