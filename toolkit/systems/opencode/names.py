"""OpenCode's tool names over one pool, and its name-level matcher (rules of syntax ``opencode``).

An agent's name-level rules (see :mod:`.loader`) are the ``*``-pattern deny / ask rules of
its ruleset; such a rule decides a tool when it is the *last* rule whose permission matches
the tool's permission (``Permission.disabled`` and ``evaluate`` both take the last match).
Each rule carries in ``target`` the permission keys of the rules after it (JSON), so the
match needs nothing but the rule and the pool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import wildcard
from .agents import permission_of
from .tools import opencode_name

if TYPE_CHECKING:
    from ...core.models import Rule
    from ...core.pool import ToolPool

__all__ = ["SYNTAX", "OpenCodeNames", "opencode_names"]

SYNTAX = "opencode"


@dataclass
class OpenCodeNames:
    """OpenCode's name of every tool of one pool (``opencode_name``) and the matcher."""

    by_name: dict[str, str]
    _cache: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    def lookup(self, name: str) -> str | None:
        """The canonical tool OpenCode calls ``name``, or None."""
        return self.by_name.get(name)

    def match(self, rule: Rule) -> frozenset[str]:
        """Tools whose permission ``rule`` matches and no later rule's permission does."""
        key = (str(rule.pattern), rule.target or "[]")
        hits = self._cache.get(key)
        if hits is None:
            later = json.loads(key[1])
            hits = self._cache[key] = frozenset(
                canonical for name, canonical in self.by_name.items()
                if wildcard.match(permission_of(name), key[0])
                and not any(wildcard.match(permission_of(name), k) for k in later))
        return hits


def opencode_names(pool: ToolPool) -> OpenCodeNames:
    """The names of ``pool``'s tools as OpenCode spells them."""
    return OpenCodeNames({opencode_name(name): name for name in pool})
