"""How a Gemini CLI session file is folded before its calls are read: ``$rewindTo`` and
``$set`` with ``messages``, as ``loadConversationRecord`` (google-gemini/gemini-cli
``packages/core/src/services/chatRecordingService.ts``, at 016443b and 5411f11) loads them:

- ``{"$rewindTo": id}`` deletes that message *and* every later one (``if (id === rewindId)
  found = true; if (found) idsToDelete.push(id)``); an id not in the session clears every
  message (``if (found) ... else messagesMap.clear()``);
- ``{"$set": {"messages": [...]}}`` gives the session exactly those messages.

Each case is one record away from a wrong reading (h16 finding 9: each of these one-line
breaks went unnoticed by the fixture tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit as tk

META = {"sessionId": "s1", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"}


def gemini(message_id: str, command: str) -> dict[str, object]:
    """A gemini message holding one run_shell_command call that ran."""
    return {"id": message_id, "type": "gemini", "toolCalls": [
        {"id": f"call-{message_id}", "name": "run_shell_command", "args": {"command": command},
         "status": "success"}]}


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    (tmp_path / "repo" / ".gemini").mkdir(parents=True)
    return tk.load(tmp_path / "repo", home=False, managed=False)


def calls(proj: tk.Project, tmp_path: Path, records: list[object]) -> list[tuple[str, str]]:
    """(command, file:line) of every call the session keeps."""
    session = tmp_path / "chats" / "session-2026-01-01T00-00-aaaa1111.jsonl"
    session.parent.mkdir()
    session.write_text("".join(json.dumps(r) + "\n" for r in records))
    rp = tk.replay(proj, session, runtime="gemini-cli")
    assert len(rp.problems) == 0
    return [(row.args["command"], row.source.rpartition("/")[2]) for row in rp.calls.itertuples()]


def test_rewind_drops_the_target_message_and_its_calls(proj: tk.Project, tmp_path: Path) -> None:
    records = [META, {"id": "u1", "type": "user", "content": "test it"},
               gemini("g1", "npm test"),   # line 3: the rewind target holds a call
               {"$rewindTo": "g1"},        # line 4
               gemini("g2", "npm run lint")]
    assert calls(proj, tmp_path, records) == [
        ("npm run lint", "session-2026-01-01T00-00-aaaa1111.jsonl:5")]


def test_rewind_to_an_id_not_in_the_session_clears_it(proj: tk.Project, tmp_path: Path) -> None:
    records = [META, gemini("g1", "npm test"), {"$rewindTo": "no-such-id"},
               gemini("g2", "npm run lint")]
    assert [c for c, _ in calls(proj, tmp_path, records)] == ["npm run lint"]


def test_set_messages_replaces_the_messages(proj: tk.Project, tmp_path: Path) -> None:
    records = [META, gemini("g1", "npm test"),
               {"$set": {"messages": [gemini("g2", "npm run lint")]}}]  # line 3
    assert calls(proj, tmp_path, records) == [
        ("npm run lint", "session-2026-01-01T00-00-aaaa1111.jsonl:3")]
