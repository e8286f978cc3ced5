"""Claude Code transcripts and projects written for a test, under its ``tmp_path``."""

from __future__ import annotations

import json
from pathlib import Path


def transcript(path: Path, calls: list[tuple[str, str, bool]]) -> Path:
    """A Claude Code transcript of the main conversation: one Bash call per
    (command, tool_result text, is_error), each followed by its result."""
    session = "7a1b2c3d-0000-4000-8000-000000000001"
    lines, parent = [], None
    for i, (command, result, is_error) in enumerate(calls):
        use, asked, answered = f"toolu_{i:024d}", f"a-{i}", f"u-{i}"
        common = {"isSidechain": False, "userType": "external", "cwd": str(path.parent),
                  "sessionId": session, "version": "2.1.201", "timestamp":
                  f"2026-08-21T09:14:{i:02d}.000Z"}
        lines.append({**common, "parentUuid": parent, "uuid": asked, "type": "assistant",
                      "message": {"role": "assistant", "content": [
                          {"type": "tool_use", "id": use, "name": "Bash",
                           "input": {"command": command}}]}})
        lines.append({**common, "parentUuid": asked, "uuid": answered, "type": "user",
                      "message": {"role": "user", "content": [
                          {"tool_use_id": use, "type": "tool_result", "content": result,
                           "is_error": is_error}]}})
        parent = answered
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def shop_denying_builds(tmp_path: Path) -> Path:
    """A Claude Code project whose settings now deny ``npm run build`` (and allow tests)."""
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps({"permissions": {
        "allow": ["Bash(npm test *)", "Bash(npm run *)"], "deny": ["Bash(npm run build *)"]}}))
    return root
