"""Loading a project: walk its folder and read each file with the loader the format table picks.

One module per input format; ``registry.FORMATS`` says which one reads a file, and the
systems' layouts (``registry.LAYOUTS``) which preset the folder shows.
"""

from __future__ import annotations

import glob as globlib
import os
from pathlib import Path

from ..errors import DefinitionError, Problem
from . import registry
from .base import manifest
from .base.definitions import Definitions
from .base.formats import Registry
from .base.source import SourceFile
from .registry import FORMATS, LAYOUTS

__all__ = ["LAYOUTS", "Definitions", "layout_preset", "layouts_found", "load_definitions"]

_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".ipynb_checkpoints",
              ".mypy_cache", ".ruff_cache", ".pytest_cache", "build", "dist"}


def layout_preset(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """The preset a project folder's layout shows unambiguously, and why; else None.

    A folder holding ``.work-agent/`` (with its ``agents/`` or ``tools/``) is a work-agent
    project; one holding ``.claude/`` (with ``agents/`` or settings) a Claude Code one. The
    folder itself may be the system's (``tk.load("repo/.work-agent")``). No layout, or
    more than one: None (the caller falls back to ``strict``).

    >>> layout_preset("/nonexistent") is None
    True
    """
    found = layouts_found(Path(path))
    return found[0] if len({preset for preset, _ in found}) == 1 else None


def layouts_found(root: Path) -> list[tuple[str, str]]:
    """Every (preset, why) the layout of ``root`` shows: one per system folder it holds (or
    is), else the system folder it lies in; several when runtimes share the project."""
    if not root.is_dir():
        inside = registry.enclosing_layout(root) if root.exists() else None
        return [inside] if inside is not None else []
    found: list[tuple[str, str]] = []
    for folder, marks, preset in LAYOUTS:
        base = root if root.name == folder else root / folder
        if any((base / mark).exists() for mark in marks):
            shown = str(root) if base == root else f"{folder}/"
            found.append((preset, f"the project folder {'is' if base == root else 'holds'} "
                                  f"{shown} (the {preset} layout)"))
    if not found:
        enclosing = registry.enclosing_layout(root)  # a folder inside .claude/ or a plugin
        return [enclosing] if enclosing is not None else []
    return found


def load_definitions(path: str | os.PathLike[str], *, formats: Registry = FORMATS
                     ) -> Definitions:
    """Read a project folder (or one file) into ``Definitions``.

    A single file's first error is raised at once; in a folder every file is
    read and its errors recorded in ``defs.problems`` (``Policy`` raises them
    together with the rule errors it finds). ``formats`` is the table of formats
    to read (default: every format toolkit knows).
    """
    root = Path(path)
    if not root.exists():
        raise DefinitionError(f"no such file or folder: {root}; pass a project folder or a "
                              "definition file", file=str(root))
    defs = Definitions(root=str(root), layout=layout_preset(root))
    if root.is_file():
        formats.load(SourceFile.at(root), defs, explicit=True)
        _add_system_tools(defs, root)
        defs.raise_errors()
        return defs
    files = _discover(root, formats)
    manifest_file = next((root / n for n in manifest.NAMES if (root / n).is_file()), None)
    manifest_ok = True
    if manifest_file is not None:
        manifest_ok = _read(_source(manifest_file, root), defs, formats, explicit=True)
        listed = _manifest_files(root, defs, formats)
        files = [f for f in (files if listed is None else listed) if f != manifest_file]
    for f in files:
        _read(_source(f, root), defs, formats, explicit=False)
    _add_system_tools(defs, root)
    if not manifest_ok:
        defs.raise_errors()  # without its preset, rule checks would report misleading errors
    return defs


def nothing_found(defs: Definitions) -> Problem | None:
    """The warning about a project folder that gave nothing at all (no agent, tool, server,
    rule, group or setting), naming what it holds instead; None when it gave something (a
    folder of MCP configs or settings alone does). ``Policy`` adds it unless a runtime's
    permission settings were found for the folder."""
    root = Path(defs.root)
    if (defs.agents or defs.tools or defs.servers or defs.group_assignments or defs.aliases
            or defs.project_deny or defs.project_ask or defs.users or defs.settings
            or defs.manifest is not None or defs.problems or not root.is_dir()):
        return None
    # the file is the folder: "<folder>: no agent or tool definitions found in this folder"
    return Problem(str(root), None, f"no agent or tool definitions found in this folder; "
                                    f"{_holds(root)}; toolkit reads agent files, tool "
                                    "registries, MCP server configs and settings", "warning")


def _holds(root: Path) -> str:
    """What a folder holds, for a warning: ``"it holds 9 .py, 1 .md file(s)"``."""
    counts: dict[str, int] = {}
    for _dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            suffix = Path(name).suffix or name
            counts[suffix] = counts.get(suffix, 0) + 1
    if not counts:
        return "it is empty"
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{n} {suffix}" for suffix, n in ranked[:5])
    more = f" and {len(ranked) - 5} other kind(s)" if len(ranked) > 5 else ""
    return f"it holds {shown}{more} file(s)"


def _source(path: Path, root: Path) -> SourceFile:
    """The file as the format table sees it. Given a system's own folder as the project
    (``repo/.work-agent``), paths are matched as from the folder holding it, so that
    system's layout rules (``.work-agent/agents/*/agent.json``) still apply."""
    file = SourceFile.at(path, root)
    if root.name in {folder for folder, _, _ in LAYOUTS} and file.place == file.display:
        file.place = f"{root.name}/{file.place}"
    return file


def _add_system_tools(defs: Definitions, root: Path) -> None:
    """The tools each system the layout shows brings (its built-ins), once the files declared
    theirs: a project resolves against them without a registry file."""
    for preset in dict.fromkeys(preset for preset, _ in layouts_found(root)):
        system = registry.system_for_layout(preset)
        if system is not None and system.add_builtins is not None:
            system.add_builtins(defs)


def _read(file: SourceFile, defs: Definitions, formats: Registry, *, explicit: bool) -> bool:
    """Read one file; its errors are recorded, so every problem is reported at once."""
    try:
        formats.load(file, defs, explicit=explicit)
    except DefinitionError as exc:
        defs.problems.extend(exc.problems)
        return False
    return True


def _discover(root: Path, formats: Registry) -> list[Path]:
    """Every file under ``root`` some format reads, in a stable order."""
    hidden_ok = registry.hidden_folders() | formats.hidden_names
    suffixes = formats.suffixes
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS
                             and (not d.startswith(".") or d in hidden_ok))
        found.extend(Path(dirpath) / name for name in sorted(filenames)
                     if name.endswith(suffixes)
                     and (not name.startswith(".") or name in hidden_ok))
    return found


def _manifest_files(root: Path, defs: Definitions, formats: Registry) -> list[Path] | None:
    """The files the manifest's ``agents``/``tools``/``servers``/``groups`` globs list, if any."""
    keys = ("agents", "tools", "servers", "groups")
    if not any(k in defs.settings for k in keys):
        return None
    files: list[Path] = []
    src = defs.manifest
    for key in keys:
        for i, pattern in enumerate(defs.settings.get(key, [])):
            matches = sorted(globlib.glob(str(root / pattern), recursive=True))
            if not matches:
                defs.error(Problem(defs.settings.get("_file"),
                                   src.line((key, i)) if src is not None else None,
                                   f"{key}: {pattern!r} matches no file under {root}; fix "
                                   "the path or remove it"))
            for m in matches:
                p = Path(m)
                files.extend(_discover(p, formats) if p.is_dir() else [p])
    return files
