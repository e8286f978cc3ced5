"""The tool pool: a project's tools, frozen, with a name index for fast lookups.

A pool is immutable: adding a server's tools makes a new pool, so a session's
snapshot never changes under it (SPEC section 4 step 1).
"""

from __future__ import annotations

import bisect
import fnmatch
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property

from .models import Tool

__all__ = ["NameIndex", "ToolPool"]


class ToolPool(Mapping[str, Tool]):
    """Canonical name → ``Tool``, plus which configured servers are not (yet) available.

    >>> pool = ToolPool([Tool(name="a")])
    >>> "a" in pool, len(pool)
    (True, 1)
    """

    def __init__(self, tools: Iterable[Tool], pending_servers: Iterable[str] = (),
                 version: int = 0) -> None:
        self._tools: dict[str, Tool] = {t.name: t for t in tools}
        self.pending_servers: frozenset[str] = frozenset(pending_servers)
        self.version = version

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    @cached_property
    def index(self) -> NameIndex:
        """The name index (built once per pool)."""
        return NameIndex(self._tools.values())

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Canonical names, sorted; a tool's position here is its id in matrices."""
        return tuple(sorted(self._tools))

    def with_tools(self, tools: Iterable[Tool], *, drop_server: str | None = None,
                   pending: Iterable[str] | None = None) -> ToolPool:
        """A new pool with ``tools`` added (and a server's old tools dropped first)."""
        kept = [t for t in self._tools.values() if drop_server is None or t.server != drop_server]
        return ToolPool([*kept, *tools],
                        self.pending_servers if pending is None else pending, self.version + 1)


class NameIndex:
    """Every spelling of every tool: canonical, ``mcp__server__tool`` and unique bare names."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.exact: dict[str, str] = {}
        bare: dict[str, list[str]] = {}
        spellings: list[tuple[str, str]] = []
        for tool in tools:
            for i, spelling in enumerate(tool.names):
                spellings.append((spelling, tool.name))
                if i < 2 or tool.server is None:
                    self.exact[spelling] = tool.name
                else:
                    bare.setdefault(spelling, []).append(tool.name)
        self.ambiguous: dict[str, list[str]] = {}
        for name, owners in bare.items():
            if name in self.exact:
                continue  # a registry tool of that name wins over a bare server name
            if len(owners) == 1:
                self.exact[name] = owners[0]
            else:
                self.ambiguous[name] = sorted(owners)
        spellings.sort()
        self._keys = [s for s, _ in spellings]
        self._owners = [c for _, c in spellings]
        self._glob_cache: dict[str, frozenset[str]] = {}

    def lookup(self, name: str) -> str | None:
        """The canonical name ``name`` reaches, or ``None`` (see ``ambiguous`` too)."""
        return self.exact.get(name)

    def glob(self, pattern: str) -> frozenset[str]:
        """Canonical names of the tools any of whose spellings match ``pattern``.

        Matching is ``fnmatchcase`` (case-sensitive, ``*`` crosses ``/``). Only
        the spellings that share the pattern's literal prefix are tested, found by
        bisection, so ``entities_*`` costs a few comparisons, not a pool scan.
        """
        cached = self._glob_cache.get(pattern)
        if cached is not None:
            return cached
        if pattern == "*":
            result = frozenset(self._owners)
        else:
            prefix = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
            lo = bisect.bisect_left(self._keys, prefix)
            hi = bisect.bisect_left(self._keys, prefix + "\U0010ffff") if prefix else len(
                self._keys)
            match = re.compile(fnmatch.translate(pattern)).match
            result = frozenset(self._owners[i] for i in range(lo, hi) if match(self._keys[i]))
        self._glob_cache[pattern] = result
        return result
