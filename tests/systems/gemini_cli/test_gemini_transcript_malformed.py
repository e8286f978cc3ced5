"""Wrong-typed fields of a Gemini CLI session are located problems, never dropped silently
(h16 finding 5); the rest of the session is read. Records are written as
``chatRecordingService.ts`` writes them (see test_gemini_transcript.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit as tk

META = {"sessionId": "s1", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"}
GOOD = {"id": "c1", "name": "read_file", "args": {"file_path": "a"}, "status": "success"}


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    (tmp_path / "repo" / ".gemini").mkdir(parents=True)
    return tk.load(tmp_path / "repo", home=False, managed=False)


def replay(proj: tk.Project, folder: Path, records: list[object]) -> tk.Replay:
    chats = folder / "chats"
    chats.mkdir(parents=True)
    (chats / "session-2026-01-01T00-00-aaaa1111.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records))
    return tk.replay(proj, chats, runtime="gemini-cli")


def problems(rp: tk.Replay) -> list[tuple[object, str]]:
    return [(line, message) for _, line, message in rp.problems.values.tolist()]


def test_tool_calls_not_a_list(proj: tk.Project, tmp_path: Path) -> None:
    rp = replay(proj, tmp_path, [META, {"id": "m1", "type": "gemini", "toolCalls": "x"},
                                 {"id": "m2", "type": "gemini", "toolCalls": [GOOD]}])
    assert problems(rp) == [(2, "toolCalls is not a list but str; the message's calls skipped")]
    assert rp.calls["tool"].tolist() == ["read_file"]


def test_a_tool_call_not_an_object_and_a_numeric_name(proj: tk.Project, tmp_path: Path) -> None:
    rp = replay(proj, tmp_path, [META, {"id": "m1", "type": "gemini", "toolCalls": [
        5, {"id": "c0", "name": 5}, GOOD]}])
    assert problems(rp) == [(2, "toolCalls[0] is not an object but int; call skipped"),
                            (2, "tool call whose name is not a string but 5; call skipped")]
    assert rp.calls["tool"].tolist() == ["read_file"]


def test_set_messages_that_are_not_objects(proj: tk.Project, tmp_path: Path) -> None:
    rp = replay(proj, tmp_path, [META, {"$set": {"messages": [
        1, {"id": "m1", "type": "gemini", "toolCalls": [GOOD]}]}}])
    assert problems(rp) == [(2, "messages[0] is not an object but int; message skipped")]
    assert rp.calls["tool"].tolist() == ["read_file"]


def test_a_legacy_session_with_a_message_that_is_not_an_object(proj: tk.Project,
                                                               tmp_path: Path) -> None:
    (tmp_path / "chats").mkdir()
    (tmp_path / "chats" / "session-2026-01-01T00-00-bbbb.json").write_text(json.dumps({
        "sessionId": "s2", "messages": [
            1, {"type": "gemini", "toolCalls": [GOOD]},
            {"id": "m3", "type": "gemini", "toolCalls": [GOOD]}]}, indent=1))
    rp = tk.replay(proj, tmp_path / "chats", runtime="gemini-cli")
    assert [m for _, m in problems(rp)] == [
        "messages[0] is not an object but int; message skipped",
        "messages[1] has no 'id'; message skipped"]
    assert rp.calls["tool"].tolist() == ["read_file"]
