"""Presets: the semantic choices of each source system, as one table (SPEC section 4).

A preset never depends on a file's format: one preset governs a whole project
in one resolution. ``strict`` is the default.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["PRESETS", "Preset", "get_preset"]

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
    #: work-agent's delegation rules: a parent's ``delegation`` block (or its defaults) shapes
    #: each child, a spawn at depth >= max_depth fails (SPEC section 3, work-agent bullet)
    delegation: bool = False
    #: what a session does with an ``ask`` tool when no approval callback is registered:
    #: refuse the call, or run it (work-agent auto-approves when it has no way to ask)
    unasked: Literal["refuse", "run"] = "refuse"

    @property
    def unknown_is_error(self) -> bool:
        """Whether an unknown exact name in an allow list is a definition error."""
        return self.unknown_name in ("error", "error-list")


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(name="strict", unknown_name="error", omitted_root="none", empty_list="none",
               child_extra="error", strip_coordination=True, max_depth=2),
        Preset(name="emergent", unknown_name="warn-skip", omitted_root="none", empty_list="none",
               child_extra="drop-warn", strip_coordination=True, max_depth=2),
        Preset(name="work-agent", unknown_name="warn-unavailable", omitted_root="all-of-use",
               empty_list="all-of-use", child_extra="drop-warn", strip_coordination=False,
               max_depth=2, delegation=True, unasked="run"),
        Preset(name="adh-cli", unknown_name="error-list", omitted_root="none", empty_list="none",
               child_extra="drop-warn", strip_coordination=False, max_depth=2),
        Preset(name="trustgraph", unknown_name="warn", omitted_root="all", empty_list="none",
               child_extra="drop-warn", strip_coordination=False, max_depth=2),
        Preset(name="mux", unknown_name="error", omitted_root="all", empty_list="inherit",
               child_extra="error", strip_coordination=False, max_depth=None),
        Preset(name="claude-code", unknown_name="warn", omitted_root="all", empty_list="none",
               child_extra="drop-warn", strip_coordination=True, max_depth=3,
               coordination_tools=("Task", "Agent")),
    )
}


def get_preset(name: str | Preset) -> Preset:
    """The preset called ``name``; a clear ``ValueError`` listing the known ones otherwise."""
    if isinstance(name, Preset):
        return name
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"unknown preset {name!r}; known presets: {known}") from None
