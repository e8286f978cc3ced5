"""Loading a project: find its files by name and content, read each with its loader.

One module per input format; this module only decides which one reads a file.
"""

from __future__ import annotations

import glob as globlib
import os
from pathlib import Path

from ...errors import DefinitionError, Problem
from . import frontmatter, manifest, mcpconfig, mux, trustgraph, workagent
from ._common import Definitions
from ._source import parse_by_suffix, read_text

__all__ = ["Definitions", "load_definitions"]

_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".ipynb_checkpoints",
              ".mypy_cache", ".ruff_cache", ".pytest_cache", "build", "dist"}
_HIDDEN_OK = {".claude", ".vscode", ".cursor"}
_DATA_SUFFIXES = (".yaml", ".yml", ".json")
_MCP_NAMES = {".mcp.json", "mcp.json", "claude_desktop_config.json"}


def load_definitions(path: str | os.PathLike[str]) -> Definitions:
    """Read a project folder (or one file) into ``Definitions``.

    A single file's first error is raised at once; in a folder every file is
    read and its errors recorded in ``defs.problems`` (``Policy`` raises them
    together with the rule errors it finds).
    """
    root = Path(path)
    if not root.exists():
        raise DefinitionError(f"no such file or folder: {root}; pass a project folder or a "
                              "definition file", file=str(root))
    defs = Definitions(root=str(root))
    if root.is_file():
        _load_file(root, _display(root, root.parent), defs, single=True)
        defs.raise_errors()
        return defs
    files = _discover(root)
    manifest_file = next((root / n for n in manifest.NAMES if (root / n).is_file()), None)
    manifest_ok = True
    if manifest_file is not None:
        try:
            _load_file(manifest_file, _display(manifest_file, root), defs, single=True)
        except DefinitionError as exc:
            # Keep reading the other files so that every problem is reported at once.
            defs.problems.extend(exc.problems)
            manifest_ok = False
        listed = _manifest_files(root, defs)
        if listed is not None:
            files = listed
    for f in files:
        if manifest_file is not None and f == manifest_file:
            continue
        try:
            _load_file(f, _display(f, root), defs, single=False)
        except DefinitionError as exc:
            defs.problems.extend(exc.problems)
    if not manifest_ok:
        defs.raise_errors()  # without its preset, rule checks would report misleading errors
    return defs


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _discover(root: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS
                             and (not d.startswith(".") or d in _HIDDEN_OK))
        for name in sorted(filenames):
            if name.endswith((".md", *_DATA_SUFFIXES)) and (not name.startswith(".")
                                                            or name in _MCP_NAMES):
                found.append(Path(dirpath) / name)
    return found


def _manifest_files(root: Path, defs: Definitions) -> list[Path] | None:
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
                files.extend(_discover(p) if p.is_dir() else [p])
    return files


def _load_file(path: Path, display: str, defs: Definitions, single: bool) -> None:
    """Read one file with the loader its name and content call for."""
    name = path.name
    if name.endswith(".md"):
        text = read_text(path, display)
        if not frontmatter.has_front_matter(text):
            if single:
                raise DefinitionError("a markdown agent file must start with YAML front matter "
                                      "('---' on line 1)", file=display, line=1)
            return  # READMEs and notes
        default = path.parent.name if name == "agent.md" else path.stem
        defs.files.append(display)
        frontmatter.load(text, display, defs, default)
        return
    if not name.endswith(_DATA_SUFFIXES):
        if single:
            raise DefinitionError("unsupported file type; toolkit reads .md, .yaml, .yml and "
                                  ".json definition files", file=display)
        return
    text = read_text(path, display)
    src = parse_by_suffix(text, display)
    if name in manifest.NAMES:
        defs.files.append(display)
        manifest.load(src, defs)
        return
    data = src.data
    stem = path.stem if name != "agent.json" else path.parent.name
    if name in _MCP_NAMES or mcpconfig.is_config(data):
        loader = "mcp"
    elif trustgraph.is_registry(data):
        loader = "registry"
    elif workagent.is_agent(data) or (name == "agent.json" and isinstance(data, dict)
                                      and "tools" in data):
        loader = "work-agent"  # by name too, so a misspelt tools key is reported, not skipped
    elif workagent.is_catalog(data):
        loader = "catalog"
    elif mux.is_config(data):
        loader = "mux"
    elif "group" in name.lower() and isinstance(data, dict):
        loader = "groups"
    else:
        message = ("not a recognised definition file (expected a tool: map, an agent config, "
                   "an MCP server config, a tool catalog or a group map)")
        if single:
            raise DefinitionError(message, file=display, line=1)
        defs.warn(display, 1, message + "; ignored")
        return
    defs.files.append(display)
    if loader == "mcp":
        if not mcpconfig.is_config(data):
            key = next((k for k in ("mcpServers", "servers")
                        if isinstance(data, dict) and k in data), None)
            got = type(data[key] if key else data).__name__
            raise DefinitionError(f"an MCP config needs an 'mcpServers' or 'servers' mapping "
                                  f"of server name -> settings, not {got}", file=display,
                                  line=src.line((key,) if key else ()) or 1)
        mcpconfig.load(src, defs)
    elif loader == "registry":
        trustgraph.load(src, defs)
    elif loader == "work-agent":
        workagent.load_agent(src, defs, stem)
    elif loader == "catalog":
        workagent.load_catalog(src, defs)
    elif loader == "mux":
        mux.load(src, defs, stem)
    else:
        trustgraph.load_group_map(src, defs)
