"""A permission engine's memo of decisions already made.

An engine whose settings are fixed once read (Codex, Gemini CLI) decides the same question
the same way every time, so ``check_call`` keeps what it answered, by the question: the
tool, its arguments (JSON-like data, made hashable), the mode, the working folder, the
agent, and whatever else the engine's answer depends on. Arguments that are not plain data
are not memoised (decided afresh each time).

>>> memo = DecisionMemo()
>>> key = memo.key("shell", {"command": ["git", "status"]}, None)
>>> memo.get(key) is None
True
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from ...core.decision import Decision

__all__ = ["DecisionMemo"]


def _frozen(value: Any) -> Hashable:
    """``value`` (JSON-like data) as a hashable key; TypeError for anything else."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return ("dict", *sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, *map(_frozen, value))
    raise TypeError(type(value).__name__)


class DecisionMemo:
    """Decisions by question, at most ``size`` of them (emptied whole when full)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._found: dict[Hashable, Decision] = {}

    @staticmethod
    def key(tool: str, args: Any, *more: Hashable) -> Hashable | None:
        """The question's key, or None when ``args`` is not plain JSON-like data."""
        try:
            return tool, _frozen(args), more
        except TypeError:
            return None

    def get(self, key: Hashable | None) -> Decision | None:
        """The decision memoised for ``key`` (None: not yet, or not memoisable)."""
        return self._found.get(key) if key is not None else None

    def put(self, key: Hashable | None, decision: Decision) -> Decision:
        """Keep ``decision`` for ``key`` (when it has one); returns the decision."""
        if key is not None:
            if len(self._found) >= self.size:
                self._found.clear()
            self._found[key] = decision
        return decision

    def __len__(self) -> int:
        return len(self._found)
