"""Cursor's MCP rules over one pool (rules of syntax ``cursor``).

A name-level rule of this syntax is ``Mcp(server:tool)`` (pattern ``Mcp``, the ``server:tool``
globs in ``spec``) and holds, in
``target``, a JSON list of patterns whose tools it leaves out: the ask that stands for "an MCP
tool no rule allows or denies asks" is ``*:*`` less every allow and deny pattern. IDE rules
(``layer`` ``ide-*``) compare names without case, as ``mcpAllowlist`` does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .tokens import mcp_matches
from .tools import mcp_parts

if TYPE_CHECKING:
    from ...core.models import Rule
    from ...core.pool import ToolPool

__all__ = ["SYNTAX", "CursorNames", "cursor_names"]

SYNTAX = "cursor"


@dataclass
class CursorNames:
    """The pool's MCP tools as (server, tool), and the matcher of ``Mcp`` patterns."""

    names: frozenset[str]
    mcp: dict[str, tuple[str, str]]
    _cache: dict[tuple[str, str, bool], frozenset[str]] = field(default_factory=dict)

    def lookup(self, name: str) -> str | None:
        """``name`` itself when the pool holds it (Cursor uses the pool's own names)."""
        return name if name in self.names else None

    def match(self, rule: Rule) -> frozenset[str]:
        """The MCP tools ``rule``'s pattern matches, less those its ``target`` patterns do."""
        ignore_case = str(rule.layer or "").startswith("ide")
        key = (str(rule.spec or ""), rule.target or "[]", ignore_case)
        hits = self._cache.get(key)
        if hits is None:
            excluded = json.loads(key[1])
            hits = self._cache[key] = frozenset(
                name for name, (server, tool) in self.mcp.items()
                if mcp_matches(key[0], server, tool, ignore_case=ignore_case)
                and not any(mcp_matches(x, server, tool, ignore_case=ignore_case)
                            for x in excluded))
        return hits


def cursor_names(pool: ToolPool) -> CursorNames:
    """The names of ``pool``'s tools as Cursor's rules see them."""
    mcp = {}
    for name in pool:
        tool = pool[name]
        if tool.server is not None:
            mcp[name] = (tool.server, tool.remote_name or name.rsplit("/", 1)[-1])
        elif (parts := mcp_parts(name)) is not None:  # declared under its qualified name
            mcp[name] = parts
    return CursorNames(frozenset(pool), mcp)
