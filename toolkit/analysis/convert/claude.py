"""Write a policy as Claude Code's ``.claude/settings.json`` ``permissions``.

Claude Code's grammar is the neutral form's own (:mod:`.rules`), so every rule is written as
the source wrote it, in ``allow`` / ``ask`` / ``deny``: deny > ask > allow whatever the order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.decision import Effect
from .rules import SourceRule
from .target import Loss, Written

__all__ = ["FILE", "write"]

RUNTIME = "claude-code"
FILE = ".claude/settings.json"
_KEY = {Effect.ALLOW: "allow", Effect.ASK: "ask", Effect.DENY: "deny"}


def write(rules: list[SourceRule], root: Path, mode: str | None) -> Written:
    """The settings file for ``rules``."""
    permissions: dict[str, Any] = {"allow": [], "ask": [], "deny": []}
    for rule in rules:
        permissions[_KEY[rule.effect]].append(rule.text)
    if mode not in (None, "default"):
        permissions["defaultMode"] = mode
    text = json.dumps({"permissions": permissions}, indent=2, ensure_ascii=False) + "\n"
    losses: list[Loss] = []
    return Written(RUNTIME, {FILE: text}, losses, _call)


def _call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    return tool, dict(args)
