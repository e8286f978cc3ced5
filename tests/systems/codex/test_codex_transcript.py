"""Codex rollouts replayed: ``tk.replay`` / ``toolmatrix replay`` over Codex's own session files
judge every call with Codex's engine.

The fixture (``tests/fixtures/codex-sessions``, see its SOURCES.md) is laid out and written as
``codex-rs/core/src/rollout/recorder.rs`` writes it. The project is notebook 10's repository
(``tests/support/runtimes.py``): ``.codex/rules/acme.rules`` (prefix rules: ``npm test|run``
and ``git status|diff`` allow, ``git push`` prompt, ``rm -rf`` and ``curl`` forbidden) and
``.codex/config.toml`` (``approval_policy = "on-request"``, ``sandbox_mode =
"workspace-write"``), trusted by the home folder. Each expected decision is worked out from
those rules in the comment beside it.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk
from tests.support.runtimes import three_runtimes
from toolkit.analysis.transcripts import read_calls
from toolkit.cli import main
from toolkit.core.decision import Effect
from toolkit.core.models import rule_label
from toolkit.systems.base.calllog import CallLog
from toolkit.systems.codex.transcript import TranscriptReader

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SESSIONS = FIXTURES / "codex-sessions" / "sessions"
MAIN = SESSIONS / "2026" / "05" / "12" / "rollout-2026-05-12T10-02-11-0199c6b2-7a3e-7c51-9f2d-4b8e1a6c3d50.jsonl"  # noqa: E501
SUBAGENT = SESSIONS / "2026" / "05" / "12" / "rollout-2026-05-12T10-05-40-0199c6b4-1d8f-7e20-b3a6-5c9d0e2f7a81.jsonl"  # noqa: E501
LEGACY = SESSIONS / "2025" / "07" / "20" / "rollout-2025-07-20T14-03-11-5973b6c2-2f1d-4e8b-a9c4-7d1e0b3f6a28.jsonl"  # noqa: E501
RULES = ".codex/rules/acme.rules"

ALLOW, ASK, DENY = Effect.ALLOW.value, Effect.ASK.value, Effect.DENY.value

#: (file, line, tool, command, effect, observed, deciding rule's file:line or None)
EXPECTED = [
    # prefix_rule(["npm", ["test", "run"]], allow): `bash -lc "npm test"` is split to `npm test`
    (MAIN.name, 7, "shell", "npm test", ALLOW, "ran", f"{RULES}:3"),
    # a word-only && chain is split: npm run lint (line 3 allows) and git diff (line 11 allows);
    # the first deciding rule is named
    (MAIN.name, 10, "exec_command", "npm run lint && git diff HEAD~1", ALLOW, "ran",
     f"{RULES}:3"),
    # no rule: `ls` is a known-safe command, run without asking
    (MAIN.name, 12, "local_shell", "ls -la src", ALLOW, "ran", None),
    # no rule (acme.rules lists `npm install left-pad` as not_match): on-request in the
    # workspace-write sandbox runs it sandboxed unasked; it failed there (no network)
    (MAIN.name, 14, "shell", "npm install left-pad", ALLOW, "error", None),
    # prefix_rule(["curl"], forbidden)
    (MAIN.name, 16, "shell_command",
     "curl -fsSL https://example.com/left-pad.tgz -o vendor/left-pad.tgz", DENY, "denied",
     f"{RULES}:32"),
    # apply_patch inside the workspace-write sandbox: no prompt
    (MAIN.name, 18, "apply_patch", "", ALLOW, "ran", None),
    # update_plan is not a command: nothing to approve
    (MAIN.name, 20, "update_plan", "", ALLOW, "ran", None),
    # prefix_rule(["git", "push"], prompt); the user declined
    (MAIN.name, 22, "shell_command", "git push origin main", ASK, "denied", f"{RULES}:17"),
    # prefix_rule(["rm", "-rf"], forbidden)
    (MAIN.name, 24, "exec_command", "rm -rf build", DENY, "denied", f"{RULES}:24"),
    # the rollout from before the envelope: git status (line 11 allows) ...
    (LEGACY.name, 5, "shell", "git status", ALLOW, "ran", f"{RULES}:11"),
    # ... and git push (line 17 prompts; approved then)
    (LEGACY.name, 7, "shell", "git push origin main", ASK, "ran", f"{RULES}:17"),
]


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    repo, home = three_runtimes(tmp_path)
    return tk.load(repo, home=home, managed=False)


def _command(args: dict[str, object]) -> str:
    command = args.get("command", args.get("cmd", ""))
    if isinstance(command, list):
        return command[-1] if command[:2] == ["bash", "-lc"] else " ".join(command)
    return str(command)


def _rows(rp: tk.Replay) -> list[tuple[str, int, str, str, str, str, str | None]]:
    rows = []
    for row in rp.calls.itertuples():
        if row.agent != "(main)":
            continue
        file, _, line = row.source.rpartition(":")
        rule = f"{row.file}:{row.line}" if isinstance(row.file, str) else None
        rows.append((Path(file).name, int(line), row.tool, _command(row.args), row.effect,
                     row.observed, rule))
    return rows


def test_each_call_is_judged_by_codex_rules(proj: tk.Project) -> None:
    """No runtime= given: the rollouts are Codex's, so Codex's engine judges them (the project
    also holds Claude Code and Gemini CLI settings)."""
    rp = tk.replay(proj, SESSIONS)
    assert sorted(_rows(rp)) == sorted(EXPECTED)
    assert len(rp.problems) == 0


def test_the_same_as_check_call_with_runtime(proj: tk.Project) -> None:
    rp = tk.replay(proj, SESSIONS)
    for row in rp.calls.itertuples():
        if row.agent != "(main)":
            continue
        d = proj.check_call(row.tool, row.args, cwd="/home/dev/acme-api", runtime="codex")
        rule = row.rule if isinstance(row.rule, str) else ""  # no rule decided: empty
        assert (row.effect, row.reason, rule) == (d.effect.value, d.reason.value,
                                                  rule_label(d.rule)), row.source


def test_session_time_and_cwd_come_from_the_rollout() -> None:
    first = read_calls(MAIN).frame().iloc[0]
    assert first["session"] == "0199c6b2-7a3e-7c51-9f2d-4b8e1a6c3d50"  # session_meta's id
    assert first["time"] == "2026-05-12T10:02:22.911Z"  # the function_call line's timestamp
    assert first["cwd"] == "/home/dev/acme-api"  # turn_context's cwd


def test_a_subagent_thread_is_its_role_s(proj: tk.Project) -> None:
    """source = {"subagent": {"thread_spawn": {..., "agent_role": "explorer"}}}: the calls are
    the explorer's; toolkit does not define Codex's agent roles as agents, so they are listed
    and not evaluated (a note says so)."""
    rp = tk.replay(proj, SUBAGENT)
    assert rp.calls["agent"].tolist() == ["explorer"]
    assert rp.calls["observed"].tolist() == ["ran"]
    assert rp.calls["effect"].isna().all()
    assert any("'explorer'" in w and "not evaluated" in w for w in rp.warnings)


def test_a_malformed_line_is_a_located_warning(proj: tk.Project, tmp_path: Path) -> None:
    lines = MAIN.read_text().splitlines(keepends=True)
    broken = tmp_path / MAIN.name
    # line 9 cut short, and the arguments of the call on line 10 not JSON
    lines[8] = lines[8][:40] + "\n"
    lines[9] = lines[9].replace('"arguments":"{', '"arguments":"{oops')
    broken.write_text("".join(lines))
    rp = tk.replay(proj, broken)
    problems = rp.problems.values.tolist()
    assert [p[:2] for p in problems] == [[MAIN.name, 9], [MAIN.name, 10]]
    assert problems[0][2].startswith("not JSON")
    assert "arguments of this exec_command call are not JSON" in problems[1][2]
    assert len(_rows(rp)) == 9  # every call is kept, the broken one without arguments


def test_toolmatrix_replay_over_the_rollouts(proj: tk.Project, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    out, err = io.StringIO(), io.StringIO()
    code = main(["replay", str(proj.root), str(SESSIONS), "--show", "calls", "--format",
                 "csv"], out=out, err=err)
    assert code == 0, err.getvalue()
    table = pd.read_csv(io.StringIO(out.getvalue()))
    main_rows = table[table["agent"] == "(main)"]
    assert sorted(zip(main_rows["tool"], main_rows["effect"], strict=True)) == sorted(
        (e[2], e[4]) for e in EXPECTED)


def test_another_runtime_s_session_is_not_claimed() -> None:
    reader = TranscriptReader(CallLog())
    claude = {"type": "assistant", "sessionId": "0b9e", "uuid": "u1",
              "message": {"role": "assistant", "content": []}}
    gemini = {"sessionId": "3f1c9a2e", "projectHash": "6689", "startTime": "2026-05-12"}
    assert not reader.claims(claude) and not reader.claims(gemini)


def test_a_log_of_several_runtimes_needs_runtime(proj: tk.Project, tmp_path: Path) -> None:
    """A folder holding Codex rollouts and Gemini CLI chats: which engine is meant is not
    guessed; runtime= judges every call by the one named."""
    both = tmp_path / "logs"
    shutil.copytree(SESSIONS, both / "codex")
    shutil.copytree(FIXTURES / "gemini-cli-sessions", both / "gemini")
    with pytest.raises(ValueError, match=r"several runtimes \(codex, gemini-cli\).*runtime="):
        tk.replay(proj, both)
    rp = tk.replay(proj, both, runtime="codex")
    assert set(rp.calls["tool"]) >= {"run_shell_command", "exec_command"}
