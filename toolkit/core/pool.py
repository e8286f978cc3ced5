"""The tool pool: a project's tools, frozen, with a name index for fast lookups.

A pool is immutable: adding a server's tools makes a new pool, so a session's
snapshot never changes under it (SPEC section 4 step 1).
"""

from __future__ import annotations

import bisect
import fnmatch
import functools
import re
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from typing import Any, TypeVar

from .models import Tool

__all__ = ["NameIndex", "ToolPool", "glob_match"]

_T = TypeVar("_T")


class ToolPool(Mapping[str, Tool]):
    """Canonical name → ``Tool``, plus which configured servers are not (yet) available.

    >>> pool = ToolPool([Tool(name="a")])
    >>> "a" in pool, len(pool)
    (True, 1)
    """

    def __init__(self, tools: Iterable[Tool] | Mapping[str, Tool],
                 pending_servers: Iterable[str] = (), version: int = 0) -> None:
        # A mapping must be keyed by each tool's name (as a pool or a registry is).
        self._tools: dict[str, Tool] = (dict(tools) if isinstance(tools, Mapping)
                                        else {t.name: t for t in tools})
        self.pending_servers: frozenset[str] = frozenset(pending_servers)
        self.version = version
        self._extends: tuple[weakref.ref[ToolPool], bool] | None = None
        # Set by added_to: (the pool this one extends, the tools it adds), so the index and
        # the sorted names can be extended instead of rebuilt. A weak reference: pools
        # must not keep every earlier pool alive.
        self._base: tuple[weakref.ref[ToolPool], ToolPool] | None = None
        self._derived: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    @cached_property
    def index(self) -> NameIndex:
        """The name index (built once per pool, or extended from the pool this one extends)."""
        base = self._built_base("index")
        if base is not None and self._base is not None:
            added = self._base[1]
            if added.extends_cleanly(base):
                return base.index.extended(added.index)
        return NameIndex(self._tools.values())

    def derived(self, key: str, build: Callable[[ToolPool], _T]) -> _T:
        """A value computed from this pool once (a pool never changes), such as another
        runtime's table of its own names for the tools (:mod:`toolkit.systems.work_agent.names`)."""
        if key not in self._derived:
            self._derived[key] = build(self)
        value: _T = self._derived[key]
        return value

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Canonical names, sorted; a tool's position here is its id in matrices."""
        base = self._built_base("names")
        if base is not None and self._base is not None:
            return tuple(sorted((*base.names, *self._base[1])))  # two sorted runs
        return tuple(sorted(self._tools))

    def _built_base(self, attribute: str) -> ToolPool | None:
        """The pool this one extends, if it is alive and has ``attribute`` computed."""
        if self._base is None:
            return None
        base = self._base[0]()
        return base if base is not None and attribute in base.__dict__ else None

    def extends_cleanly(self, old: ToolPool) -> bool:
        """Whether adding these tools to ``old`` leaves every name of ``old`` as it was.

        True when no spelling of these tools is already a name in ``old`` (exact
        or ambiguous) and none is ambiguous among them, so no name changes owner
        or becomes ambiguous. Remembered for the last ``old`` asked about.
        """
        if self._extends is not None and self._extends[0]() is old:
            return self._extends[1]
        index = old.index
        clean = not self.index.ambiguous and not any(
            s in index.exact or s in index.ambiguous for t in self.values() for s in t.names)
        self._extends = (weakref.ref(old), clean)
        return clean

    def added_to(self, old: ToolPool) -> ToolPool | None:
        """The tools this pool adds to ``old``, or None when it also drops or changes some."""
        mine, theirs = self._tools, old._tools
        if not theirs.keys() <= mine.keys():
            return None
        for name, tool in theirs.items():
            other = mine[name]
            if other is not tool and other != tool:
                return None
        added = ToolPool({name: t for name, t in mine.items() if name not in theirs},
                         self.pending_servers)
        self._base = (weakref.ref(old), added)
        return added


class NameIndex:
    """Every spelling of every tool: canonical, qualified (``@server/tool`` and the registered
    spellings) and unique bare names."""

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

    def extended(self, added: NameIndex) -> NameIndex:
        """This index plus ``added``'s, which must share no spelling with it (see
        :meth:`ToolPool.extends_cleanly`): merged, not rebuilt."""
        out = NameIndex(())
        out.exact = {**self.exact, **added.exact}
        out.ambiguous = {**self.ambiguous, **added.ambiguous}
        keys: list[str] = []
        owners: list[str] = []
        start = 0
        for key, owner in zip(added._keys, added._owners, strict=True):
            stop = bisect.bisect_left(self._keys, key, start)
            keys += self._keys[start:stop]
            owners += self._owners[start:stop]
            keys.append(key)
            owners.append(owner)
            start = stop
        keys += self._keys[start:]
        owners += self._owners[start:]
        out._keys, out._owners = keys, owners
        return out

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
            match = _matcher(pattern)
            result = frozenset(self._owners[i] for i in range(lo, hi) if match(self._keys[i]))
        self._glob_cache[pattern] = result
        return result


def glob_match(name: str, pattern: str) -> bool:
    """The glob rule of SPEC section 4: ``fnmatchcase`` (case-sensitive, ``*`` crosses ``/``).

    >>> glob_match("entities_create", "entities_*"), glob_match("Entities_x", "entities_*")
    (True, False)
    """
    return _matcher(pattern)(name) is not None


@functools.lru_cache(maxsize=4096)
def _matcher(pattern: str) -> Callable[[str], re.Match[str] | None]:
    """The compiled ``fnmatchcase`` test for ``pattern`` (pools come and go, patterns stay)."""
    return re.compile(fnmatch.translate(pattern)).match
