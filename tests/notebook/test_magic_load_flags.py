"""``%tk load --no-managed``: no managed (system-wide) settings layer, for every runtime, as
``tk.load(path, managed=False)``; before it, a notebook could only pass a path (``--managed
false`` was read as a file named "false" that does not exist)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolkit.core.decision import Effect

Write = Callable[..., Path]


def test_no_managed_loads_without_a_managed_layer(ip: Any, write: Write, tmp_path: Path) -> None:
    managed = tmp_path / "managed-settings.json"
    managed.write_text(json.dumps({"permissions": {"deny": ["Bash(curl *)"]}}))
    root = write({".claude/settings.json": json.dumps({"permissions": {"allow": ["Bash"]}})})
    ip.run_line_magic("tk", f"load {root} --no-home --managed {managed}")
    with_layer = ip.user_ns["magics"].project.check_call("Bash", {"command": "curl x"})
    assert with_layer.effect is Effect.DENY
    ip.run_line_magic("tk", f"load {root} --no-home --no-managed")
    without = ip.user_ns["magics"].project.check_call("Bash", {"command": "curl x"})
    assert without.rule.text == "Bash" and without.allowed
    assert not [w for w in without.warnings if "false" in w]
