"""Notebook 10's repository (one team's Claude Code, Gemini CLI and Codex policies) for tests.

``three_runtimes(folder)`` copies ``notebooks/data/three-runtimes/acme-api`` into ``folder``
with a home folder that trusts it (Codex reads ``.codex/`` and Gemini CLI the workspace
settings only in a trusted project) and holds the team's Gemini policy in the user tier
(Gemini CLI does not load workspace policies), as the notebook does.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2] / "notebooks" / "data" / "three-runtimes" / "acme-api"
RUNTIMES = ("claude-code", "codex", "gemini-cli")


def three_runtimes(folder: Path) -> tuple[Path, Path]:
    """(repo, home): the shipped repository and a home folder that trusts it."""
    repo = shutil.copytree(REPO, folder / "acme-api")
    home = folder / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{repo.resolve()}"]\ntrust_level = "trusted"\n')
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(repo.resolve()): "TRUST_FOLDER"}))
    shutil.copy(repo / ".gemini" / "policies" / "acme.toml",
                home / ".gemini" / "policies" / "acme.toml")
    return repo, home
