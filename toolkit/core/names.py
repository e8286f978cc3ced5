"""Runtimes' own tool names: their rule syntaxes and their qualified spellings of MCP tools.

Most rules are matched by the pool's own index (exact names, aliases, globs). A
runtime whose lists use other spellings and other wildcards (say, names joined to
their server with ``_`` and normalised) gives its rules a ``syntax`` and registers a
:class:`NameRules` factory under that name; resolution asks the factory, built once
per pool. Likewise a runtime that spells an MCP server's tool with a prefix of its own
registers that spelling (:func:`register_spelling`); every pool accepts it. The model
names no runtime: the systems register themselves (``toolkit.systems.registry``,
imported on first use).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

_T = TypeVar("_T")

__all__ = ["SYSTEMS_MODULE", "NameRules", "has_syntax", "is_qualified", "name_rules",
           "qualified_names", "register_spelling", "register_syntax", "server_prefixes",
           "unregister_syntax"]

#: The module whose import registers every system's syntax.
SYSTEMS_MODULE = "toolkit.systems.registry"


class NameRules(Protocol):
    """One runtime's names for the tools of one pool, and its matcher over them."""

    def lookup(self, name: str) -> str | None:
        """The one canonical tool ``name`` spells in this runtime, or None."""

    def match(self, rule: Any) -> frozenset[str]:
        """The canonical tools ``rule`` (a ``models.Rule``) reaches as this runtime matches it."""


class _Pool(Protocol):
    """What of a ``ToolPool`` this module uses (it imports no other module of the model)."""

    def derived(self, key: str, build: Callable[[Any], _T]) -> _T: ...


_FACTORIES: dict[str, Callable[[Any], NameRules]] = {}
_discovered = False


def register_syntax(syntax: str, factory: Callable[[Any], NameRules]) -> None:
    """Match rules of ``syntax`` with ``factory(pool)`` (built once per pool)."""
    _FACTORIES[syntax] = factory


def unregister_syntax(syntax: str) -> None:
    """Forget ``syntax`` (its rules then fail to resolve with a ``KeyError``)."""
    _FACTORIES.pop(syntax, None)


def _factory(syntax: str) -> Callable[[Any], NameRules] | None:
    global _discovered
    if syntax not in _FACTORIES and not _discovered:
        _discovered = True
        importlib.import_module(SYSTEMS_MODULE)
    return _FACTORIES.get(syntax)


def has_syntax(syntax: str | None) -> bool:
    """Whether rules (or agents' names) of ``syntax`` are matched a runtime's own way."""
    return syntax is not None and _factory(syntax) is not None


def name_rules(syntax: str, pool: _Pool) -> NameRules:
    """The :class:`NameRules` of ``syntax`` for ``pool``; ``KeyError`` for an unknown one."""
    factory = _factory(syntax)
    if factory is None:
        raise KeyError(f"no rule syntax {syntax!r} is registered "
                       f"(known: {', '.join(sorted(_FACTORIES)) or 'none'})")
    return pool.derived(f"names:{syntax}", factory)


# -- qualified spellings of an MCP server's tools --------------------------------------------------

#: (prefix, separator) of each registered spelling: ("pre", "__") spells ``pre<server>__<tool>``.
_SPELLINGS: list[tuple[str, str]] = []


def register_spelling(prefix: str, separator: str) -> None:
    """Every MCP tool is also reachable as ``<prefix><server><separator><tool>`` (SPEC
    section 4: a runtime's qualified spelling, accepted under every preset)."""
    if (prefix, separator) not in _SPELLINGS:
        _SPELLINGS.append((prefix, separator))


def _spellings() -> list[tuple[str, str]]:
    global _discovered
    if not _discovered:
        _discovered = True
        importlib.import_module(SYSTEMS_MODULE)
    return _SPELLINGS


def qualified_names(server: str, tool: str) -> tuple[str, ...]:
    """The registered qualified spellings of ``server``'s tool ``tool``."""
    return tuple(f"{prefix}{server}{sep}{tool}" for prefix, sep in _spellings())


def server_prefixes(server: str) -> tuple[str, ...]:
    """How a qualified name of one of ``server``'s tools starts: ``@server/`` and the rest."""
    return (f"@{server}/", *(f"{prefix}{server}{sep}" for prefix, sep in _spellings()))


def is_qualified(name: str) -> bool:
    """Whether ``name`` names its server (``@server/tool`` or a registered spelling)."""
    return name.startswith(("@", *(prefix for prefix, _ in _spellings())))
