"""The one list of agent systems, and the tables gathered from it.

A system is one package under ``toolkit/systems/`` plus one row in :data:`SYSTEMS`.
Everything outside ``toolkit/systems`` asks here (or the project's engine), never a
system package: the format table (:data:`FORMATS`), the layouts that choose a preset
(:data:`LAYOUTS`), the presets, the engines, the rule syntaxes, the built-in risks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..core.models import AgentDefinition
from ..core.names import register_spelling, register_syntax, unregister_syntax
from ..core.presets import PRESETS, register_preset, unregister_preset
from . import (
    adh_cli,
    claude_code,
    codex,
    cursor,
    emergent,
    gemini_cli,
    mcp_clients,
    mux,
    opencode,
    trustgraph,
    vscode,
    work_agent,
)
from .base import frontmatter, manifest
from .base.calllog import CallLog, TranscriptReader
from .base.formats import Format, Registry
from .base.system import PermissionEngine, System

__all__ = [
    "FORMATS",
    "LAYOUTS",
    "PRESETS",
    "SYSTEMS",
    "TOOLKIT",
    "by_name",
    "empty_engine",
    "enclosing_layout",
    "engines_for",
    "hidden_folders",
    "modes",
    "read_agent",
    "register",
    "risks",
    "system_for_layout",
    "transcript_readers",
    "unregister",
]

#: toolkit's own files: its manifest (``toolkit.yaml``) and markdown agents with front matter
#: (the seeds' format, adh-cli's ``agent.md``).
TOOLKIT = System(
    name="toolkit",
    title="toolkit's own files",
    formats=(
        Format("front-matter-agent", frontmatter.load, suffixes=(".md",),
               sniff=frontmatter.is_agent_file,
               expects="a markdown agent file, which must start with YAML front matter "
                       "('---' on line 1)"),
        Format("toolkit-manifest", manifest.load, paths=manifest.NAMES),
    ),
    read_agent=frontmatter.read_agent,
)

#: Every system toolkit knows. Their formats are tried in this order (path rules first, then
#: content rules; a row marked ``fallback`` after all others).
SYSTEMS: list[System] = [
    claude_code.SYSTEM,
    TOOLKIT,
    mcp_clients.SYSTEM,
    trustgraph.SYSTEM,
    work_agent.SYSTEM,
    emergent.SYSTEM,
    mux.SYSTEM,
    adh_cli.SYSTEM,
    codex.SYSTEM,
    gemini_cli.SYSTEM,
    vscode.SYSTEM,
    opencode.SYSTEM,
    cursor.SYSTEM,
]

#: Every format toolkit reads, gathered from the systems.
FORMATS = Registry()
#: (folder, marks, preset): the folders by which a project shows its system.
LAYOUTS: list[tuple[str, tuple[str, ...], str]] = []


def register(system: System) -> None:
    """Add ``system`` to every table: its formats, layouts, preset and rule syntax.

    The systems of :data:`SYSTEMS` are registered when this module is imported; a new one
    (a test's throwaway system, a plugin) is one call.
    """
    if system not in SYSTEMS:
        SYSTEMS.append(system)
    for fmt in system.formats:
        FORMATS.register(fmt)
    if system.preset is not None:
        register_preset(system.preset)
    preset = system.preset.name if system.preset is not None else system.name
    LAYOUTS.extend((layout.folder, layout.marks, preset) for layout in system.layouts)
    if system.name_rules is not None:
        register_syntax(system.name, system.name_rules)
    if system.mcp_spelling is not None:
        register_spelling(*system.mcp_spelling)


def unregister(system: System) -> None:
    """Take ``system`` out of every table again (a test's throwaway system, a plugin)."""
    if system in SYSTEMS:
        SYSTEMS.remove(system)
    for fmt in system.formats:
        FORMATS.unregister(fmt.name)
    if system.preset is not None:
        unregister_preset(system.preset.name)
    LAYOUTS[:] = [row for row in LAYOUTS
                  if (row[0], row[1]) not in {(x.folder, x.marks) for x in system.layouts}]
    if system.name_rules is not None:
        unregister_syntax(system.name)


def by_name(name: str) -> System:
    """The system called ``name``; ``KeyError`` listing the known ones otherwise."""
    for system in SYSTEMS:
        if system.name == name:
            return system
    raise KeyError(f"unknown agent system {name!r}; known: "
                   f"{', '.join(s.name for s in SYSTEMS)}")


def system_for_layout(preset: str | None) -> System | None:
    """The system whose layout chose ``preset`` (the preset's own system), if any."""
    return next((s for s in SYSTEMS if preset is not None and s.preset is not None
                 and s.preset.name == preset), None)


def enclosing_layout(path: Path) -> tuple[str, str] | None:
    """(preset, why) when ``path`` lies inside (or holds) some system's own folders."""
    for system in SYSTEMS:
        if system.enclosing_layout is not None:
            found = system.enclosing_layout(path)
            if found is not None:
                return found
    return None


def hidden_folders() -> frozenset[str]:
    """Hidden folders the folder walk enters: every layout's and those systems name."""
    return frozenset({f for s in SYSTEMS for f in s.hidden_folders}
                     | {layout.folder for s in SYSTEMS for layout in s.layouts})


def read_agent(layout: tuple[str, str] | None) -> Callable[[str, str], AgentDefinition]:
    """The reader of agent text (``add_agent``) for a project of ``layout``."""
    system = system_for_layout(layout[0] if layout else None)
    if system is not None and system.read_agent is not None:
        return system.read_agent
    return frontmatter.read_agent


def engines_for(path: str | os.PathLike[str], **options: Any) -> dict[str, PermissionEngine]:
    """Every permission engine that reads the project at ``path`` (one per runtime whose
    settings are there), by system name, in :data:`SYSTEMS` order."""
    found: dict[str, PermissionEngine] = {}
    for system in SYSTEMS:
        if system.engine is not None:
            engine = system.engine(path, **options)
            if engine is not None:
                found[system.name] = engine
    return found


def empty_engine(root: str, system: str | None = None) -> PermissionEngine:
    """An engine with no settings (of ``system``, else the first that has one), for what-if
    questions about a project that has none; ``ValueError`` for a system without an engine."""
    for candidate in SYSTEMS:
        if candidate.empty_engine is not None and system in (None, candidate.name):
            return candidate.empty_engine(root)
    known = ", ".join(s.name for s in SYSTEMS if s.empty_engine is not None)
    raise ValueError(f"no permission engine for runtime {system!r}; runtimes with one: {known}")


def modes() -> tuple[str, ...]:
    """Every permission mode some engine knows, then their aliases (for ``--mode`` choices)."""
    names = [m for s in SYSTEMS for m in (*s.modes, *s.mode_aliases)]
    return tuple(dict.fromkeys(names))


def transcript_readers() -> dict[str, Callable[[CallLog], TranscriptReader]]:
    """System name -> the reader of its transcripts (for ``tk.replay``)."""
    return {s.name: s.transcripts for s in SYSTEMS if s.transcripts is not None}


def risks() -> Mapping[str, frozenset[str]]:
    """Built-in tool -> risk classes, from every system's knowledge."""
    merged: dict[str, frozenset[str]] = {}
    for system in SYSTEMS:
        merged.update(system.risks)
    return MappingProxyType(merged)


for _system in list(SYSTEMS):
    register(_system)
del _system
