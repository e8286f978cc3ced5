"""Edited copies of policy fixtures, written under a test's ``tmp_path``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def bare_bash(shop: Path, target: Path) -> Path:
    """A copy of ``shop`` whose settings replace every Bash(...) rule (the npm allows, the
    npm publish ask, the git push and curl denies) with one bare ``Bash`` allow."""
    shutil.copytree(shop, target)
    settings = target / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    perms = data["permissions"]
    assert "Bash(git push *)" in perms["deny"] and "Bash(curl *)" in perms["deny"]
    for kind in ("allow", "ask", "deny"):
        perms[kind] = [r for r in perms[kind] if not r.startswith("Bash(")]
    perms["allow"].insert(0, "Bash")
    settings.write_text(json.dumps(data, indent=2))
    return target
