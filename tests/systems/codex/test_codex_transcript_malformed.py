"""A Codex rollout line whose ``payload`` is not an object is a located problem, never
dropped silently (h16 finding 5); the other lines are read. Lines are written as
``codex-rs/core/src/rollout/recorder.rs`` writes them (``{"timestamp", "type", "payload"}``)."""

from __future__ import annotations

import json
from pathlib import Path

import toolkit as tk


def test_a_payload_that_is_a_list_is_a_located_problem(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".codex").mkdir(parents=True)
    proj = tk.load(tmp_path / "repo", home=False, managed=False)
    call = {"type": "function_call", "name": "shell", "call_id": "c1",
            "arguments": json.dumps({"command": ["ls"]})}
    lines = [{"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "cwd": "/x"}},
             {"timestamp": "t", "type": "response_item", "payload": [1]},
             {"timestamp": "t", "type": "turn_context", "payload": "cwd"},
             {"timestamp": "t", "type": "response_item", "payload": call},
             {"timestamp": "t", "type": "response_item",
              "payload": {"type": "function_call", "name": 5, "call_id": "c2"}}]
    rollout = tmp_path / "rollout-2026-01-01T00-00-00-x.jsonl"
    rollout.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rp = tk.replay(proj, rollout, runtime="codex")
    assert [(line, message) for _, line, message in rp.problems.values.tolist()] == [
        (2, "a response_item line with a payload that is not an object but list; line skipped"),
        (3, "a turn_context line with a payload that is not an object but str; line skipped"),
        (5, "function_call whose name is not a string but 5; call skipped")]
    assert rp.calls["tool"].tolist() == ["shell"]
