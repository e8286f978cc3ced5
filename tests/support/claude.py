"""Claude Code projects for tests: settings files, subagents, a home folder, managed settings."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import toolkit as tk

#: The realistic project the notebook walks through (all four file layers, three subagents).
DATA = Path(__file__).parents[2] / "notebooks" / "data" / "claude-permissions"



def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def permissions(allow: Sequence[str] = (), ask: Sequence[str] = (), deny: Sequence[str] = (),
                **extra: Any) -> dict[str, Any]:
    """A settings object: ``{"permissions": {"allow": ..., ...}}`` plus top-level ``extra``."""
    perms: dict[str, Any] = {k: list(v) for k, v in (("allow", allow), ("ask", ask),
                                                     ("deny", deny)) if v}
    for key in ("defaultMode", "additionalDirectories", "disableBypassPermissionsMode",
                "disableAutoMode"):
        if key in extra:
            perms[key] = extra.pop(key)
    return {"permissions": perms, **extra}




def build_project(tmp_path: Path, *, project: Mapping[str, Any] | None = None,
                  local: Mapping[str, Any] | None = None, user: Mapping[str, Any] | None = None,
                  managed: Mapping[str, Any] | None = None,
                  dropins: Mapping[str, Mapping[str, Any]] | None = None,
                  agents: Mapping[str, str] | None = None, cli: Sequence[str] | None = None,
                  files: Mapping[str, str] | None = None) -> tk.Project:
    """A loaded Claude Code project under ``tmp_path/repo`` (home ``tmp_path/home``)."""
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    if project is not None:
        write_json(root / ".claude" / "settings.json", project)
    if local is not None:
        write_json(root / ".claude" / "settings.local.json", local)
    if user is not None:
        write_json(home / ".claude" / "settings.json", user)
    managed_dir = tmp_path / "managed"
    if managed is not None:
        write_json(managed_dir / "managed-settings.json", managed)
    for name, data in (dropins or {}).items():
        write_json(managed_dir / "managed-settings.d" / name, data)
    for name, text in (agents or {}).items():
        path = root / ".claude" / "agents" / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for rel, text in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    has_managed = managed is not None or dropins is not None
    return tk.load(root, preset="claude-code", home=home,
                   managed=managed_dir if has_managed else False, cli=cli)
