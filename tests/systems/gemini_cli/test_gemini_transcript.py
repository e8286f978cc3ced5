"""Gemini CLI session logs replayed: ``tk.replay`` / ``toolmatrix replay`` over Gemini CLI's own
session files judge every call with Gemini CLI's engine.

The fixture (``tests/fixtures/gemini-cli-sessions``, see its SOURCES.md) is laid out and
written as ``packages/core/src/services/chatRecordingService.ts`` at 5411f11 writes it. The
project is notebook 10's repository (``tests/support/runtimes.py``), whose Gemini rules are
``~/.gemini/policies/acme.toml`` (user tier: 4 + priority/1000) and ``.gemini/settings.json``
(``tools.allowed`` at 4.3, its narrowing deny of other shell commands at 4.29,
``tools.exclude`` at 4.4), over Gemini CLI's built-in ``read-only.toml`` / ``write.toml``
(default tier: 1 + priority/1000). Each expected decision below is worked out from those
rules, in the comment beside it.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.runtimes import three_runtimes
from toolkit.cli import main
from toolkit.core.decision import Effect
from toolkit.core.models import rule_label
from toolkit.systems.base.calllog import CallLog
from toolkit.systems.gemini_cli.transcript import TranscriptReader

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "gemini-cli-sessions"
PROJECT_HASH = "6689668a49dc648b376787d8cde1d55e418968e916b4efa79d849fba7fb28a1f"
CHATS = FIXTURE / "tmp" / PROJECT_HASH / "chats"
SESSION = CHATS / "session-2026-05-12T09-14-3f1c9a2e.jsonl"
LEGACY = CHATS / "session-2025-09-01T10-02-7d0e51aa.json"
PARENT = "3f1c9a2e-6b0d-4c57-9e51-2f3d8a9b7c10"
AGENT_ID = "a41f7c9e-0d2b-4e8a-b6c3-91e5f0d27a44"

ALLOW, ASK, DENY = Effect.ALLOW.value, Effect.ASK.value, Effect.DENY.value

#: (file, line, tool, the argument that matters, effect, observed, deciding rule's file:line)
EXPECTED = [
    # tools.allowed lists `run_shell_command(npm test)` etc. and so narrows the shell tool: its
    # deny of other commands (4.29) outranks acme.toml's allow of `npm run lint` (4.1)
    (SESSION.name, 8, "run_shell_command", "npm run lint", DENY, "denied",
     ".gemini/settings.json:6"),
    # tools.allowed: run_shell_command(git status), 4.3
    (SESSION.name, 8, "run_shell_command", "git status", ALLOW, "ran",
     ".gemini/settings.json:8"),
    # acme.toml: argsPattern "file_path":"[^"]*\.env" -> deny, 4.9
    (SESSION.name, 9, "read_file", ".env", DENY, "denied", "~/.gemini/policies/acme.toml:23"),
    # no user rule names read_file otherwise: read-only.toml allows it (1.05)
    (SESSION.name, 9, "read_file", "src/app.js", ALLOW, "ran",
     "<gemini-cli>/policies/read-only.toml:30"),
    # codebase_investigator is in read-only.toml's list too
    (SESSION.name, 15, "codebase_investigator", "", ALLOW, "ran",
     "<gemini-cli>/policies/read-only.toml:30"),
    # write.toml ([[rule]] at line 53): write_file -> ask_user (1.01); the user approved it
    (SESSION.name, 17, "write_file", "src/app.js", ASK, "ran",
     "<gemini-cli>/policies/write.toml:53"),
    # acme.toml: commandPrefix "git push" -> ask_user (4.5); the user said no
    (SESSION.name, 19, "run_shell_command", "git push origin main", ASK, "denied",
     "~/.gemini/policies/acme.toml:11"),
    # acme.toml: commandPrefix ["rm -rf", "curl"] -> deny (4.9)
    (SESSION.name, 19, "run_shell_command", "rm -rf build", DENY, "denied",
     "~/.gemini/policies/acme.toml:4"),
    # the legacy session: tools.allowed run_shell_command(npm test) (4.3) ...
    (LEGACY.name, 20, "run_shell_command", "npm test", ALLOW, "ran",
     ".gemini/settings.json:7"),
    # ... and `git push` asked, then approved
    (LEGACY.name, 45, "run_shell_command", "git push origin main", ASK, "ran",
     "~/.gemini/policies/acme.toml:11"),
]


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    repo, home = three_runtimes(tmp_path)
    return tk.load(repo, home=home, managed=False)


def _main_calls(rp: tk.Replay) -> list[tuple[str, int, str, str, str, str, str]]:
    rows = []
    for row in rp.calls.itertuples():
        if row.agent != "(main)":
            continue
        file, _, line = row.source.rpartition(":")
        argument = row.args.get("command") or row.args.get("file_path") or ""
        rows.append((Path(file).name, int(line), row.tool, argument, row.effect, row.observed,
                     f"{row.file}:{row.line}"))
    return rows


def test_each_call_is_judged_by_gemini_cli_rules(proj: tk.Project) -> None:
    """No runtime= given: the log is Gemini CLI's, so Gemini CLI's engine judges it (the
    project also holds Claude Code and Codex settings)."""
    rp = tk.replay(proj, FIXTURE)
    assert sorted(_main_calls(rp)) == sorted(EXPECTED)
    assert len(rp.problems) == 0


def test_the_same_as_check_call_with_runtime(proj: tk.Project) -> None:
    rp = tk.replay(proj, FIXTURE)
    for row in rp.calls.itertuples():
        if row.agent != "(main)":
            continue
        d = proj.check_call(row.tool, row.args, runtime="gemini-cli")
        assert (row.effect, row.reason, row.rule) == (d.effect.value, d.reason.value,
                                                      rule_label(d.rule)), row.source


def test_a_subagent_s_calls_are_its_own(proj: tk.Project) -> None:
    """The subagent's file (chats/<parent sessionId>/<agentId>.jsonl) is attributed to the
    subagent the parent's call ran (the call naming its agentId): codebase_investigator.
    toolkit does not define Gemini CLI's built-in subagents as agents, so their calls are
    listed and not evaluated (a note says so)."""
    rp = tk.replay(proj, FIXTURE)
    sub = rp.calls[rp.calls["agent"] == "codebase_investigator"]
    assert sub["tool"].tolist() == ["grep_search", "read_file"]
    assert set(sub["session"]) == {f"{PARENT}/{AGENT_ID}"}
    assert sub["observed"].tolist() == ["ran", "ran"]
    assert sub["effect"].isna().all()
    assert any("codebase_investigator" in w and "not evaluated" in w for w in rp.warnings)


def test_a_rewritten_message_is_read_once_and_a_rewound_turn_not_at_all(proj: tk.Project
                                                                        ) -> None:
    """The gemini message holding `npm run lint` is written three times (lines 4, 6, 8):
    one call, at its last write. The turn that ran `npm test` was rewound ($rewindTo,
    line 14): that call is not part of the session any more (loadConversationRecord)."""
    calls = _main_calls(tk.replay(proj, SESSION))
    assert [c[3] for c in calls].count("npm run lint") == 1
    assert "npm test" not in [c[3] for c in calls]
    assert SESSION.read_text().count('"npm run lint"') == 3
    assert '"npm test"' in SESSION.read_text()


def test_a_malformed_line_is_a_located_warning(proj: tk.Project, tmp_path: Path) -> None:
    lines = SESSION.read_text().splitlines(keepends=True)
    broken = tmp_path / "chats" / SESSION.name
    broken.parent.mkdir()
    broken.write_text("".join(lines[:9]) + '{"id": "x", "type": "gemini", \n'
                      + "".join(lines[9:]))
    rp = tk.replay(proj, broken)
    problems = rp.problems.values.tolist()
    assert [p[:2] for p in problems] == [[SESSION.name, 10]]
    assert problems[0][2].startswith("not JSON")
    assert len(_main_calls(rp)) == 8  # every other call is kept


def test_toolmatrix_replay_over_the_sessions(proj: tk.Project, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    out, err = io.StringIO(), io.StringIO()
    code = main(["replay", str(proj.root), str(FIXTURE), "--show", "calls", "--format",
                 "csv"], out=out, err=err)
    assert code == 0, err.getvalue()
    import pandas as pd

    table = pd.read_csv(io.StringIO(out.getvalue()))
    main_rows = table[table["agent"] == "(main)"]
    assert sorted(zip(main_rows["tool"], main_rows["effect"], strict=True)) == sorted(
        (e[2], e[4]) for e in EXPECTED)


def test_another_runtime_s_session_is_not_claimed() -> None:
    reader = TranscriptReader(CallLog())
    claude = {"type": "user", "sessionId": "0b9e", "message": {"role": "user", "content": "hi"},
              "uuid": "u1", "cwd": "/home/dev/shop"}
    codex = {"timestamp": "2026-05-12T09:14:02.118Z", "type": "session_meta",
             "payload": {"id": "0199", "cwd": "/home/dev/acme-api"}}
    assert not reader.claims(claude) and not reader.claims(codex)
    assert reader.claims({"sessionId": PARENT, "projectHash": "6689",
                          "startTime": "2026-05-12T09:14:02.118Z"})


def test_a_json_file_that_is_not_a_session_is_not_owned(tmp_path: Path) -> None:
    """Only a ConversationRecord (sessionId and messages) is a legacy session file."""
    reader = TranscriptReader(CallLog())
    other = tmp_path / "session-notes.json"
    other.write_text('{"sessionId": "x", "notes": []}')
    settings = tmp_path / "settings.json"
    settings.write_text('{"sessionId": "x", "messages": []}')
    legacy = tmp_path / LEGACY.name
    shutil.copy(LEGACY, legacy)
    assert not reader.owns(other) and not reader.owns(settings) and reader.owns(legacy)
