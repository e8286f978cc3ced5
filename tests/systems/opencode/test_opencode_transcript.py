"""OpenCode sessions replayed: ``tk.replay`` / ``toolmatrix replay`` over OpenCode's own session
store (the ``opencode.db`` database, and the JSON storage of earlier versions) judge every call
with OpenCode's engine.

The fixture (``tests/fixtures/opencode-sessions``, see its SOURCES.md) holds the database as
an SQL dump (``share/opencode/opencode.sql``, the tables of ``session.sql.ts``), loaded into a
real ``opencode.db`` in a temporary folder by each test, and a ``storage/`` tree. The project
is ``acme-api/opencode.json``: ``edit`` ask; ``bash`` ``*`` ask, ``git status*`` /
``git diff*`` / ``npm test*`` allow, ``rm *`` deny (the last matching pattern wins). Each
expected decision is worked out from those rules in the comment beside it.
"""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.core.decision import Effect
from toolkit.core.models import rule_label
from toolkit.systems.base.calllog import CallLog
from toolkit.systems.opencode.transcript import TranscriptReader

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "opencode-sessions"
PROJECT = FIXTURE / "acme-api"
SHARE = FIXTURE / "share" / "opencode"
BUILD, EXPLORE = "ses_4f1a9c2e3ffeQm2LpX8vK0tRzA", "ses_4f1a97c01ffdB6nYw3Hs9JkLcE"
OLD = "ses_6a2e0b7c4ffe1Xk9Qw3Lm7RtZp"

ALLOW, ASK, DENY = Effect.ALLOW.value, Effect.ASK.value, Effect.DENY.value
BUILTIN = "<opencode agent.ts>"

#: (session, agent, tool, command, effect, observed, deciding rule's file:line)
EXPECTED = [
    # bash "git status*": allow (opencode.json:7)
    (BUILD, "build", "bash", "git status", ALLOW, "ran", "opencode.json:7"),
    # bash "npm test*": allow
    (BUILD, "build", "bash", "npm test", ALLOW, "ran", "opencode.json:9"),
    # no rule of opencode.json names task: the build agent's built-in "*": allow
    (BUILD, "build", "task", "", ALLOW, "ran", f"{BUILTIN}:None"),
    # the explore subagent's session (parent_id = the build session): bash "git diff*" allow
    (f"{BUILD}/{EXPLORE}", "explore", "bash", "git diff HEAD~1 -- src", ALLOW, "ran",
     "opencode.json:8"),
    # explore's built-in rules allow grep
    (f"{BUILD}/{EXPLORE}", "explore", "grep", "", ALLOW, "ran", f"{BUILTIN}:None"),
    # only bash "*" matches: ask; the user rejected it
    (BUILD, "build", "bash", "git push origin main", ASK, "denied", "opencode.json:6"),
    # bash "rm *" is the last matching pattern: deny
    (BUILD, "build", "bash", "rm -rf build", DENY, "denied", "opencode.json:10"),
    # the JSON storage session: edit ask (approved) ...
    (OLD, "build", "edit", "", ASK, "ran", "opencode.json:4"),
    # ... and npm test allowed
    (OLD, "build", "bash", "npm test", ALLOW, "ran", "opencode.json:9"),
]


@pytest.fixture
def share(tmp_path: Path) -> Path:
    """``~/.local/share/opencode`` with the fixture's database built from its SQL dump."""
    folder = shutil.copytree(SHARE, tmp_path / "opencode")
    db = sqlite3.connect(folder / "opencode.db")
    db.executescript((folder / "opencode.sql").read_text())
    db.close()
    (folder / "opencode.sql").unlink()
    return folder


@pytest.fixture
def proj() -> tk.Project:
    return tk.load(PROJECT)


def _rows(rp: tk.Replay) -> list[tuple[str, str, str, str, str, str, str]]:
    return [(row.session, row.agent, row.tool, row.args.get("command", ""), row.effect,
             row.observed, f"{row.file}:{row.line}".replace("<NA>", "None"))
            for row in rp.calls.itertuples()]


def test_each_call_is_judged_by_opencode_rules(proj: tk.Project, share: Path) -> None:
    rp = tk.replay(proj, share)
    assert _rows(rp) == EXPECTED  # in time order, the database's then the storage's
    assert len(rp.problems) == 0


def test_the_same_as_check_call(proj: tk.Project, share: Path) -> None:
    rp = tk.replay(proj, share)
    for row in rp.calls.itertuples():
        d = proj.check_call(row.tool, row.args, agent=row.agent, runtime="opencode")
        assert (row.effect, row.reason, row.rule) == (d.effect.value, d.reason.value,
                                                      rule_label(d.rule)), row.source


def test_the_database_alone_and_its_sources(proj: tk.Project, share: Path) -> None:
    rp = tk.replay(proj, share / "opencode.db")
    assert len(rp.calls) == 7
    assert rp.calls["source"].iloc[0] == "opencode.db#prt_b0e5a1d8e005Wc4Hn8Jb2RvPzK"
    assert rp.calls["time"].iloc[0] == "2026-05-12T09:00:02.500Z"  # state.time.start


def test_a_malformed_row_or_file_is_a_located_warning(proj: tk.Project, share: Path) -> None:
    db = sqlite3.connect(share / "opencode.db")
    db.execute("UPDATE part SET data = '{\"type\": \"tool\", ' WHERE id = ?",
               ("prt_b0e5a1e12006Pt9Vx3Lk7GhQaN",))
    db.commit()
    db.close()
    part = (share / "storage" / "part" / "msg_e8d4c2b1a001Wq5Ty8Kp3NzLvX"
            / "prt_e8d4c2b5e003Lc8Wm2Tz6JqRnF.json")
    part.write_text(part.read_text()[:-40])
    rp = tk.replay(proj, share)
    problems = rp.problems.values.tolist()
    assert problems[0][0] == "opencode.db" and pd.isna(problems[0][1])  # a row has no line
    assert problems[0][2].startswith("part prt_b0e5a1e12006Pt9Vx3Lk7GhQaN: not JSON")
    assert problems[1][0] == ("storage/part/msg_e8d4c2b1a001Wq5Ty8Kp3NzLvX/"
                              "prt_e8d4c2b5e003Lc8Wm2Tz6JqRnF.json")
    assert problems[1][1] > 1 and problems[1][2].startswith("not JSON")  # where it broke off
    assert len(rp.calls) == 7  # the two broken calls are left out, the others kept


def test_toolmatrix_replay_over_the_store(share: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["replay", str(PROJECT), str(share), "--show", "calls", "--format", "csv"],
                out=out, err=err)
    assert code == 0, err.getvalue()
    table = pd.read_csv(io.StringIO(out.getvalue()))
    assert list(zip(table["tool"], table["effect"], strict=True)) == [
        (e[2], e[4]) for e in EXPECTED]


def test_another_runtime_s_files_are_not_owned(tmp_path: Path) -> None:
    reader = TranscriptReader(CallLog())
    other_db = tmp_path / "history.db"
    sqlite3.connect(other_db).executescript("CREATE TABLE history (id integer, line text);")
    gemini = tmp_path / "session-2025-09-01T10-02-7d0e51aa.json"
    gemini.write_text('{"sessionId": "7d0e51aa", "messages": []}')
    not_sqlite = tmp_path / "notes.db"
    not_sqlite.write_text("not a database")
    assert not any(reader.owns(p) for p in (other_db, gemini, not_sqlite))
    assert not reader.claims({"sessionId": "x", "projectHash": "y"})
    assert not reader.claims({"type": "session_meta", "payload": {"id": "x"}})
