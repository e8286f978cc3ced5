"""Presets: the semantic choices of each agent system, as one table (SPEC section 4).

Each system brings its own row (``toolkit.systems.<system>``); this module holds the
columns, the ``strict`` default and the table they register into.

A preset never depends on a file's format: one preset governs a whole project
in one resolution. ``strict`` is the default.
"""

from __future__ import annotations

import importlib
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["PRESETS", "STRICT", "Preset", "all_presets", "get_preset", "register_preset",
           "unregister_preset"]

UnknownName = Literal["error", "warn-skip", "warn-unavailable", "error-list", "warn"]
AllowDefault = Literal["none", "all", "all-of-use", "inherit", "error"]
ChildExtra = Literal["error", "drop-warn"]


class Preset(BaseModel):
    """One column of the preset table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    unknown_name: UnknownName
    omitted_root: AllowDefault
    omitted_child: AllowDefault = "inherit"
    empty_list: AllowDefault
    child_extra: ChildExtra
    strip_coordination: bool
    max_depth: int | None  # None: no depth limit
    coordination_tools: tuple[str, ...] = ("spawn_agents", "list_available_agents")
    #: delegation rules: a parent's ``delegation`` block (or its defaults) shapes each child,
    #: a spawn at depth >= max_depth fails (SPEC section 3, work-agent bullet)
    delegation: bool = False
    #: tools no delegated child keeps, whatever its parent's ``delegation`` block says
    child_blocked: tuple[str, ...] = ()
    #: the rule syntax (:mod:`toolkit.core.names`) the preset's own patterns are written in
    rule_syntax: str | None = None
    #: what a session does with an ``ask`` tool when no approval callback is registered:
    #: refuse the call, or run it (work-agent auto-approves when it has no way to ask)
    unasked: Literal["refuse", "run"] = "refuse"

    @property
    def unknown_is_error(self) -> bool:
        """Whether an unknown exact name in an allow list is a definition error."""
        return self.unknown_name in ("error", "error-list")


#: The default preset: every choice the strictest (SPEC section 4).
STRICT = Preset(name="strict", unknown_name="error", omitted_root="none", empty_list="none",
                child_extra="error", strip_coordination=True, max_depth=2)

#: Every preset by name: ``strict`` here, each agent system's own registered by
#: ``toolkit.systems.registry`` (imported on first use, see :func:`get_preset`).
PRESETS: dict[str, Preset] = {STRICT.name: STRICT}

#: The module whose import registers every system's preset.
SYSTEMS_MODULE = "toolkit.systems.registry"
_discovered = False


def register_preset(preset: Preset) -> None:
    """Add an agent system's preset to :data:`PRESETS` (one name, one preset)."""
    known = PRESETS.get(preset.name)
    if known is not None and known != preset:
        raise ValueError(f"preset {preset.name!r} is already registered")
    PRESETS[preset.name] = preset


def unregister_preset(name: str) -> None:
    """Take a system's preset out of :data:`PRESETS` (``strict`` stays)."""
    if name != STRICT.name:
        PRESETS.pop(name, None)


def all_presets() -> dict[str, Preset]:
    """:data:`PRESETS` once every system has registered its own."""
    global _discovered
    if not _discovered:
        _discovered = True
        importlib.import_module(SYSTEMS_MODULE)
    return PRESETS


def get_preset(name: str | Preset) -> Preset:
    """The preset called ``name``; a clear ``ValueError`` listing the known ones otherwise."""
    if isinstance(name, Preset):
        return name
    presets = all_presets()
    try:
        return presets[name]
    except KeyError:
        known = ", ".join(presets)
        raise ValueError(f"unknown preset {name!r}; known presets: {known}") from None
