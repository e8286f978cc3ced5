"""HTML for the model's objects: decisions and resolutions, replays, diffs and locks.

Importing this package registers each renderer with :mod:`toolkit.core.display`, through
which the objects' ``_repr_mimebundle_`` reach it (the model never imports a renderer).
"""

from __future__ import annotations

from ..analysis.diff import PolicyDiff
from ..analysis.lock import LockReport
from ..analysis.replay import Replay
from ..core.decision import Decision
from ..core.display import register
from ..core.resolve import Resolution
from .decisions import decision_html, resolution_html
from .reports import diff_html, lock_html, replay_html

__all__: list[str] = []

register(Decision, decision_html)
register(Resolution, resolution_html)
register(PolicyDiff, diff_html)
register(LockReport, lock_html)
register(Replay, replay_html)
