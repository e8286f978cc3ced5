"""Reading logged calls: Claude Code transcripts, toolkit audit logs, call tables."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from toolkit.analysis.transcripts import read_calls

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TREE = FIXTURES / "claude-projects"  # a ~/.claude/projects tree
SHOP = TREE / "-home-dev-shop"
MAIN = "5f1c2a7e-3b8d-4e21-9c4f-0a6b7d8e9f10"
OLD = "0b9e8d7c-6a5f-4e3d-2c1b-0a9f8e7d6c5b"

Write = Callable[..., Path]


def calls_of(source: object) -> pd.DataFrame:
    return read_calls(source).frame()


def test_claude_code_tree_every_call_with_its_agent() -> None:
    calls = calls_of(TREE)
    assert len(calls) == 22
    main = calls[calls["session"] == MAIN]
    assert main["agent"].isna().all()  # the main conversation is no subagent
    assert list(main["tool"]) == ["Read", "Grep", "Bash", "Bash", "Bash", "Agent", "Task",
                                  "Edit", "Edit", "WebFetch", "Bash", "Bash"]
    by_session = calls.groupby("session")["agent"].first().to_dict()
    # linked by the Agent call's toolUseResult.agentId (and its .meta.json)
    assert by_session[f"{MAIN}/agent-a4f2c91"] == "code-reviewer"
    # a legacy Task call, linked by the "agentId: ..." trailer of its result text
    assert by_session[f"{MAIN}/agent-b7d0e55"] == "debugger"
    # launched by nothing in the log, no metadata: its id
    assert by_session[f"{MAIN}/agent-c0ffee1"] == "agent-c0ffee1"
    # an older version's sidechain lines inline in the session file
    assert by_session[f"{OLD}/agent-9e1d2c3"] == "code-reviewer"


def test_claude_code_outcomes_from_tool_results() -> None:
    calls = calls_of(SHOP / f"{MAIN}.jsonl")
    outcome = dict(zip(calls["args"].map(lambda a: a.get("command") or a.get("url")
                                         or a.get("old_string")), calls["observed"],
                       strict=True))
    assert outcome["npm test -- checkout"] == "ran"
    assert outcome["total - discount"] == "error"  # is_error, a tool error
    assert outcome["git push origin main"] == "denied"  # "Permission to use Bash ..."
    assert outcome["npm publish"] == "denied"  # "... haven't granted it yet"
    assert outcome["https://docs.npmjs.com/cli/v10/commands/npm-publish"] == "denied"  # rejected
    assert calls["source"].iloc[0] == f"{MAIN}.jsonl:4"
    assert calls["time"].iloc[0].startswith("2026-08-21T09:14")


def test_damaged_lines_are_counted_located_and_the_rest_kept() -> None:
    log = read_calls(SHOP / f"{OLD}.jsonl")
    assert [(p.file, p.line) for p in log.problems] == [(f"{OLD}.jsonl", 4), (f"{OLD}.jsonl", 9),
                                                        (f"{OLD}.jsonl", 13)]
    messages = [p.message for p in log.problems]
    assert messages[0].startswith("not JSON")
    assert messages[1] == "tool_use block without a name; call skipped"
    assert messages[2].startswith("truncated line")
    calls = log.frame()
    assert list(calls["tool"]) == ["Read", "Agent", "Grep", "Write", "Bash"]
    assert calls["observed"].iloc[-1] is None  # its result was in the truncated line


def test_project_folder_and_tree_read_the_same_calls() -> None:
    tree, folder = calls_of(TREE), calls_of(SHOP)
    assert len(tree) == len(folder)
    assert list(tree["tool"]) == list(folder["tool"])


def test_missing_source_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        read_calls(tmp_path / "nope.jsonl")


def test_a_file_of_something_else_is_one_problem(write: Write) -> None:
    root = write({"notes.jsonl": '{"hello": "world"}\n{"tool": "x"}\n'})
    log = read_calls(root)
    assert len(log) == 0
    assert [(p.file, p.line) for p in log.problems] == [("notes.jsonl", 1)]
    message = log.problems[0].message
    # every runtime whose session logs replay reads is named, as a list ending in "or"
    assert message.startswith("not a Claude Code, ") and \
        " or OpenCode transcript, toolkit audit log or call log" in message
    assert all(name in message for name in ("Codex", "Gemini CLI", "VS Code"))


def test_call_table_jsonl_csv_and_dataframe(write: Write) -> None:
    root = write({
        "calls.jsonl": "\n".join(json.dumps(r) for r in [
            {"agent": "a", "tool": "read", "args": {"path": "x"}, "groups": ["g1", "g2"]},
            {"agent": "a", "tool": "", "args": {}},
            {"agent": "b", "tool": "write", "args": "{bad", "outcome": "blocked"},
        ]) + "\n",
        "calls.csv": 'agent,tool,args,groups,state,observed\n'
                     'a,read,"{""path"": ""y""}","g1,g2",analysis,ran\n'
                     'a,,{},,,\n'
                     'b,write,{oops,,,error\n',
    })
    j = read_calls(root / "calls.jsonl")
    assert [(p.line, p.message.split(" (")[0]) for p in j.problems] == [
        (2, "call without a tool name; skipped"), (3, "args is not JSON")]
    frame = j.frame()
    assert list(frame["tool"]) == ["read", "write"]
    assert frame["groups"].iloc[0] == ("g1", "g2")
    assert list(frame["observed"]) == [None, "denied"]
    c = read_calls(root / "calls.csv")
    assert [p.line for p in c.problems] == [3, 4]  # the header is line 1
    frame = c.frame()
    assert frame["args"].iloc[0] == {"path": "y"}
    assert frame["groups"].iloc[0] == ("g1", "g2") and frame["state"].iloc[0] == "analysis"
    assert list(frame["observed"]) == ["ran", "error"]
    table = pd.DataFrame({"agent": ["a", "b"], "tool": ["read", "write"],
                          "args": [{"p": 1}, None]})
    frame = calls_of(table)
    assert list(frame["args"]) == [{"p": 1}, {}]
    assert list(frame["source"]) == [1, 2]  # a DataFrame's calls: their row numbers


def test_sessions_of_an_audit_log_name_agent_and_parent(write: Write) -> None:
    events = [
        {"time": "t0", "event": "resolve", "request_id": "r", "agent_id": "orchestrator",
         "requested_groups": ["default"], "state": "undefined"},
        {"time": "t1", "event": "transition", "request_id": "r", "agent_id": "orchestrator",
         "from": "undefined", "to": "analysis"},
        {"time": "t2", "event": "spawn", "request_id": "r", "agent_id": "orchestrator.coder.2",
         "parent_id": "orchestrator", "requested_groups": ["default"], "state": "analysis"},
        {"time": "t3", "event": "call", "request_id": "r", "agent_id": "orchestrator.coder.2",
         "tool": "bash", "requested_tool": "sh", "outcome": "blocked", "state": "analysis"},
    ]
    root = write({"audit.jsonl": "\n".join(json.dumps(e) for e in events) + "\n"})
    log = read_calls(root / "audit.jsonl")
    info = log.sessions["orchestrator.coder.2"]
    assert (info.agent, info.parent, info.parent_state) == ("coder", "orchestrator", "analysis")
    frame = log.frame()
    assert (frame["agent"].iloc[0], frame["tool"].iloc[0], frame["observed"].iloc[0]) == (
        "coder", "sh", "denied")
