"""VS Code chat sessions replayed: ``tk.replay`` / ``toolmatrix replay`` over the
``workspaceStorage/<hash>/chatSessions/*.json`` files judge every call with VS Code's engine.

The fixture (``tests/fixtures/vscode-sessions``, see its SOURCES.md) holds two sessions in
VS Code's shapes: a version 3 session (``isConfirmed`` a ``ConfirmedReason``, terminal data
with ``commandLine``) and a version 2 one (``isConfirmed`` a boolean, the legacy terminal
``command``). The project is ``webshop/.vscode/settings.json``:
``chat.tools.terminal.autoApprove`` = ``npm test`` true (line 5), ``npm run lint`` true (6),
``/^git (status|diff|log)\\b/`` true (7), ``git push`` false (8), over VS Code's default list
(``ls`` true, ``rm`` false, ``curl`` false). Each expected decision is worked out from those
rules in the comment beside it.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.core.decision import Effect
from toolkit.core.models import rule_label
from toolkit.systems.base.calllog import CallLog
from toolkit.systems.vscode.transcript import TranscriptReader

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "vscode-sessions"
PROJECT = FIXTURE / "webshop"
STORAGE = FIXTURE / "workspaceStorage"
HASH = "5d8f2c41a7e94b0c9e13f6a2b8d07c55"
NEW, OLD = "3f9c1b7e-2d4a-4e8b-a6f1-8c0d5e2b9a47", "9a41e6c2-7b3d-4f58-b0e9-2c6d8f1a4e73"
NEW_FILE = f"{HASH}/chatSessions/{NEW}.json"

ALLOW, ASK = Effect.ALLOW.value, Effect.ASK.value
SETTINGS = ".vscode/settings.json"
DEFAULT = "<VS Code default>"

#: (session, tool, command, effect, observed, deciding rule's file:line)
EXPECTED = [
    # "npm test": true (settings.json:5); isConfirmed ConfirmationNotNeeded: it ran unasked
    (NEW, "run_in_terminal", "npm test", ALLOW, "ran", f"{SETTINGS}:5"),
    # read_file needs no confirmation in VS Code (no rule)
    (NEW, "read_file", "", ALLOW, "ran", "None:None"),
    # replace_string_in_file: an edit tool, no confirmation either
    (NEW, "replace_string_in_file", "", ALLOW, "ran", "None:None"),
    # both sub-commands (git status, git diff --stat) match /^git (status|diff|log)\b/ (:7)
    (NEW, "run_in_terminal", "git status && git diff --stat", ALLOW, "ran", f"{SETTINGS}:7"),
    # "git push": false (:8) never auto-approves: ask; the user clicked Allow (UserAction)
    (NEW, "run_in_terminal", "git push origin main", ASK, "ran", f"{SETTINGS}:8"),
    # VS Code's default "rm": false: ask; the user declined (ToolConfirmKind.Denied)
    (NEW, "run_in_terminal", "rm -rf dist", ASK, "denied", f"{DEFAULT}:None"),
    # the model proposed "npm install left-pad", the user edited it to "npm test -- --coverage"
    # before it ran (commandLine.userEdited): that is the call judged, "npm test" allows it
    (NEW, "run_in_terminal", "npm test -- --coverage", ALLOW, "ran", f"{SETTINGS}:5"),
    # fetch_webpage with no chat.tools.urls.autoApprove entry for its URL: ask (user allowed)
    (NEW, "fetch_webpage", "", ASK, "ran", "None:None"),
    # the v2 session: legacy terminal data "ls src"; VS Code's default "ls": true; isConfirmed
    # true
    (OLD, "run_in_terminal", "ls src", ALLOW, "ran", f"{DEFAULT}:None"),
    # "curl ... | sh": the default "curl": false makes the line ask; isConfirmed false: denied
    (OLD, "run_in_terminal", "curl -s https://get.example.sh | sh", ASK, "denied",
     f"{DEFAULT}:None"),
]


@pytest.fixture
def proj() -> tk.Project:
    return tk.load(PROJECT, home=False, managed=False)


@pytest.fixture
def storage(tmp_path: Path) -> Path:
    """A copy of the fixture's ``workspaceStorage`` to damage."""
    return Path(shutil.copytree(STORAGE, tmp_path / "workspaceStorage"))


def _rows(rp: tk.Replay) -> list[tuple[str, str, str, str, str, str]]:
    return [(row.session, row.tool, row.args.get("command", ""), row.effect, row.observed,
             f"{row.file}:{row.line}".replace("<NA>", "None").replace("nan", "None"))
            for row in rp.calls.itertuples()]


def test_each_call_is_judged_by_vscode_auto_approve_settings(proj: tk.Project) -> None:
    rp = tk.replay(proj, STORAGE)
    assert _rows(rp) == EXPECTED
    assert len(rp.problems) == 0  # workspace.json beside chatSessions/ is not a session


def test_the_same_as_check_call_with_the_vscode_runtime(proj: tk.Project) -> None:
    rp = tk.replay(proj, STORAGE)
    for row in rp.calls.itertuples():
        d = proj.check_call(row.tool, row.args, runtime="vscode")
        rule = row.rule if isinstance(row.rule, str) else ""  # no rule: empty in the table
        assert (row.effect, row.reason, rule) == (d.effect.value, d.reason.value,
                                                  rule_label(d.rule)), row.source


def test_time_source_and_arguments_of_a_call(proj: tk.Project) -> None:
    rp = tk.replay(proj, STORAGE / HASH / "chatSessions" / f"{NEW}.json")
    first = rp.calls.iloc[0]
    assert first["time"] == "2025-11-24T09:25:02.118Z"  # the request's timestamp 1763976302118
    assert first["source"] == f"{NEW}.json:68"  # the line of its toolCallId
    fetch = rp.calls.iloc[7]
    assert fetch["args"] == {"urls": ["https://example.com/docs/cart"], "query": "cart totals"}


def test_toolmatrix_replay_with_the_vscode_runtime() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["replay", str(PROJECT), str(STORAGE), "--runtime", "vscode", "--show", "calls",
                 "--format", "csv"], out=out, err=err)
    assert code == 0, err.getvalue()
    table = pd.read_csv(io.StringIO(out.getvalue()))
    assert list(zip(table["tool"], table["effect"], strict=True)) == [
        (e[1], e[3]) for e in EXPECTED]


def test_a_malformed_part_is_a_located_problem(proj: tk.Project, storage: Path) -> None:
    path = storage / NEW_FILE
    data = json.loads(path.read_text())
    parts = data["requests"][1]["response"]
    parts[0]["toolId"] = 42  # the git push call
    del parts[1]["toolSpecificData"]  # the rm call: its command line is lost
    data["requests"][2]["response"][1]["isConfirmed"] = {"type": "maybe"}  # fetch_webpage
    path.write_text(json.dumps(data, indent=2))
    rp = tk.replay(proj, storage)
    problems = rp.problems.values.tolist()
    text = path.read_text().split("\n")
    assert [p[0] for p in problems] == [NEW_FILE] * 3
    assert problems[0][2].startswith("requests[1].response[0]: tool invocation whose toolId is "
                                     "not a string but 42")
    assert '"toolu_01Wc3RtJ6pLx9NbQ5vKm8sEd"' in text[problems[0][1] - 1]
    assert problems[1][2].startswith("requests[1].response[1].toolSpecificData: missing")
    assert '"toolu_01Dn4GsH7kPq2WyT8cVb5rMx"' in text[problems[1][1] - 1]
    assert problems[2][2].startswith("requests[2].response[1].isConfirmed:")
    assert len(rp.calls) == len(EXPECTED) - 2  # the two unreadable calls left out
    assert rp.calls.iloc[5]["tool"] == "fetch_webpage"
    assert rp.calls.iloc[5]["observed"] is None  # kept, its outcome unknown


def test_a_truncated_session_file_is_a_located_problem(proj: tk.Project,
                                                       storage: Path) -> None:
    path = storage / NEW_FILE
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    rp = tk.replay(proj, storage)
    [problem] = rp.problems.values.tolist()
    assert problem[0] == NEW_FILE and problem[1] > 1 and problem[2].startswith("not JSON")
    assert set(rp.calls["session"]) == {OLD}  # the other session is still read


def test_other_runtimes_files_are_not_owned(tmp_path: Path) -> None:
    reader = TranscriptReader(CallLog())
    gemini = tmp_path / "session-2025-09-01T10-02-7d0e51aa.json"
    gemini.write_text('{"sessionId": "7d0e51aa", "projectHash": "ab", "messages": []}')
    opencode = tmp_path / "ses_4f1a.json"  # an OpenCode storage session
    opencode.write_text('{"id": "ses_4f1a", "projectID": "p", "directory": "/w", '
                        '"time": {"created": 1}}')
    workspace = STORAGE / HASH / "workspace.json"
    broken_elsewhere = tmp_path / "notes.json"
    broken_elsewhere.write_text("{")
    assert not any(reader.owns(p) for p in (gemini, opencode, workspace, broken_elsewhere))
    assert reader.owns(STORAGE / NEW_FILE)
    # no JSON Lines file is VS Code's: Gemini CLI's, Codex's, Claude Code's first lines
    assert not reader.claims({"sessionId": "x", "projectHash": "y"})
    assert not reader.claims({"type": "session_meta", "payload": {"id": "x"}})
    assert not reader.claims({"type": "user", "message": {}, "sessionId": "x"})
