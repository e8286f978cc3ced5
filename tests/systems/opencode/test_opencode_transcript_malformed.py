"""Bad OpenCode session data is a located problem, never dropped silently (h16 finding 5): a
database toolkit cannot read, a storage file that is not UTF-8; the rest is read.

The tables are those of ``packages/opencode/src/session/session.sql.ts`` (anomalyco/opencode)
that the reader selects from; the storage layout is ``storage/json-migration.ts``'s."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import toolkit as tk

SCHEMA = ("CREATE TABLE session (id text, parent_id text, directory text, title text, "
          "time_created integer, time_updated integer);"
          "CREATE TABLE message (id text, session_id text, time_created integer, data text);"
          "CREATE TABLE part (id text, message_id text, session_id text, "
          "time_created integer, data text);")
CALL = {"type": "tool", "callID": "c1", "tool": "bash",
        "state": {"status": "completed", "input": {"command": "ls"}}}


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "opencode.json").write_text("{}")
    return tk.load(tmp_path / "repo", home=False, managed=False)


def truncated_database(path: Path) -> None:
    """A real opencode.db with one call, then cut short (a copy taken mid-write)."""
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO session VALUES ('ses_1', NULL, '/x', 't', 1, 1)")
    db.execute("INSERT INTO message VALUES ('msg_1', 'ses_1', 1, ?)",
               (json.dumps({"role": "assistant", "agent": "build"}),))
    db.execute("INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_1', 1, ?)", (json.dumps(CALL),))
    db.commit()
    db.close()
    path.write_bytes(path.read_bytes()[:200])


def storage(root: Path, part: bytes) -> None:
    """A JSON-storage session whose message has two parts: ``part`` and a good bash call."""
    (root / "storage" / "session" / "prj").mkdir(parents=True)
    (root / "storage" / "session" / "prj" / "ses_2.json").write_text('{"id": "ses_2"}')
    (root / "storage" / "message" / "ses_2").mkdir(parents=True)
    (root / "storage" / "message" / "ses_2" / "msg_2.json").write_text(
        '{"id": "msg_2", "role": "assistant", "agent": "build"}')
    parts = root / "storage" / "part" / "msg_2"
    parts.mkdir(parents=True)
    (parts / "prt_1.json").write_bytes(part)
    (parts / "prt_2.json").write_text(json.dumps(CALL))


def test_a_database_toolkit_cannot_read_is_a_problem(proj: tk.Project, tmp_path: Path) -> None:
    share = tmp_path / "share"
    share.mkdir()
    truncated_database(share / "opencode.db")
    storage(share, json.dumps(CALL).encode())
    rp = tk.replay(proj, share, runtime="opencode")
    problems = rp.problems.values.tolist()
    assert [p[0] for p in problems] == ["opencode.db"]
    assert problems[0][2].startswith("an SQLite database toolkit cannot read: ")
    assert len(rp.calls) == 2  # the storage's two calls are still read


def test_the_database_given_alone_is_not_read_as_json_lines(proj: tk.Project,
                                                             tmp_path: Path) -> None:
    truncated_database(tmp_path / "opencode.db")
    rp = tk.replay(proj, tmp_path / "opencode.db", runtime="opencode")
    messages = rp.problems["message"].tolist()
    assert len(messages) == 1 and messages[0].startswith("an SQLite database toolkit cannot")
    assert not any("not JSON" in m for m in messages)


def test_a_storage_file_that_is_not_utf8_is_a_located_problem(proj: tk.Project,
                                                              tmp_path: Path) -> None:
    storage(tmp_path, b'{"type": "tool",\n "tool": "b\xffash"}')
    rp = tk.replay(proj, tmp_path, runtime="opencode")
    problems = rp.problems.values.tolist()
    assert [p[:2] for p in problems] == [["storage/part/msg_2/prt_1.json", 2]]
    assert problems[0][2].startswith("not UTF-8 text (byte 0xff")
    assert rp.calls["tool"].tolist() == ["bash"]  # the good part is read
