"""``tk.replay`` on small logs whose every answer is derived by hand from the policy rules.

No session is started here (``make mutate`` runs these tests in forked workers, where a
live session's event loop hangs): the spawn tree is a hand-written audit log.

The project ``P`` (a registry and three agents in markdown front matter)::

    tools: read, write, send
    a: tools [read, write], disallowedTools [send]   (agents/a.md lines 3 and 4)
    b: tools [read, '*']                            (an exact name decides before a glob)
    c: tools [read]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import toolkit as tk
from toolkit.analysis.replay import (
    CALL_COLUMNS,
    RULE_COLUMNS,
    _args_keys,
    _categorical,
    _distinct,
    _first_args,
    mapped,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXAMPLES = Path(tk.__file__).parent / "examples"
MAIN_NOTE = ("calls of the main conversation were not evaluated: the project defines no agent "
             "for it; pass main=AGENT to evaluate them as that agent (as claude --agent AGENT "
             "runs it)")


def plain(value: Any) -> Any:
    """A cell as a plain value: pandas' missing values (NaN, NA) as None."""
    if isinstance(value, (dict, list, tuple)):
        return value
    return None if pd.isna(value) else value


def rows(frame: pd.DataFrame, columns: list[str]) -> list[tuple[Any, ...]]:
    return [tuple(plain(v) for v in row) for row in frame[columns].itertuples(index=False)]


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    root = tmp_path / "p"
    (root / "agents").mkdir(parents=True)
    (root / "tools.yaml").write_text("tool:\n  read: {}\n  write: {}\n  send: {}\n")
    (root / "agents" / "a.md").write_text(
        "---\nname: a\ntools: [read, write]\ndisallowedTools: [send]\n---\n")
    (root / "agents" / "b.md").write_text("---\nname: b\ntools: [read, '*']\n---\n")
    (root / "agents" / "c.md").write_text("---\nname: c\ntools: [read]\n---\n")
    return tk.load(root)


#: seven logged calls: z is no agent of P, None is the main conversation
LOG = pd.DataFrame({"agent": ["a", "a", "a", "b", "z", None, "a"],
                    "tool": ["read", "send", "write", "read", "read", "read", "read"],
                    "observed": ["ran", "ran", "denied", "denied", "ran", "ran", "ran"]})


def test_each_call_gets_the_effect_step_and_rule_of_its_agent(proj: tk.Project) -> None:
    rp = tk.replay(proj, LOG)
    assert list(rp.calls.columns) == list(CALL_COLUMNS)
    assert rows(rp.calls, ["agent", "tool", "effect", "reason", "rule", "file", "line",
                           "observed", "canonical", "source"]) == [
        ("a", "read", "allow", "allow", "read", "agents/a.md", 3, "ran", "read", 1),
        ("a", "send", "explicit-deny", "deny", "send", "agents/a.md", 4, "ran", "send", 2),
        ("a", "write", "allow", "allow", "write", "agents/a.md", 3, "denied", "write", 3),
        ("b", "read", "allow", "allow", "read", "agents/b.md", 3, "denied", "read", 4),
        ("z", "read", None, "agent", None, None, None, "ran", None, 5),
        ("(main)", "read", None, "agent", None, None, None, "ran", None, 6),
        ("a", "read", "allow", "allow", "read", "agents/a.md", 3, "ran", "read", 7)]
    assert rows(rp.calls, ["time", "session", "groups", "state"]) == [(None,) * 4] * 7
    assert list(rp.calls["args"]) == [{}] * 7
    assert rp.warnings == ["calls of agent 'z' were not evaluated: unknown agent 'z'; known "
                           "agents: a, b, c", MAIN_NOTE]
    assert rp.arguments is False and rp.source == "DataFrame"


def test_regressions_ran_then_and_not_allowed_now(proj: tk.Project) -> None:
    rp = tk.replay(proj, LOG)
    assert rows(rp.regressions, ["agent", "tool", "effect"]) == [("a", "send",
                                                                  "explicit-deny")]
    assert rows(rp.newly_allowed, ["agent", "tool"]) == [("a", "write"), ("b", "read")]


def test_rules_used_shadowed_and_dead(proj: tk.Project) -> None:
    rules = tk.replay(proj, LOG).rules
    assert list(rules.columns) == list(RULE_COLUMNS)
    assert rows(rules, list(RULE_COLUMNS)) == [
        ("a", "allow", "read", None, "agents/a.md", 3, 2, 2, "used"),
        ("a", "allow", "write", None, "agents/a.md", 3, 1, 1, "used"),
        ("a", "deny", "send", None, "agents/a.md", 4, 1, 1, "used"),
        ("b", "allow", "read", None, "agents/b.md", 3, 1, 1, "used"),
        ("b", "allow", "*", None, "agents/b.md", 3, 1, 0, "shadowed"),  # reaches read too
        ("c", "allow", "read", None, "agents/c.md", 3, 0, 0, "dead")]


def test_summary_and_views(proj: tk.Project) -> None:
    rp = tk.replay(proj, LOG)
    assert rp.summary() == "\n".join([
        "replayed 7 call(s) from DataFrame",
        "  now:  allow 4, not evaluated 2, explicit-deny 1",
        "  then: ran 5, denied 2",
        "  1 regression(s) (ran then, not allowed now); 2 newly allowed (denied then, allowed "
        "now)",
        "  rules: 4 used, 1 dead, 1 shadowed",
        "  warning: calls of agent 'z' were not evaluated: unknown agent 'z'; known agents: "
        "a, b, c",
        f"  warning: {MAIN_NOTE}"])
    assert repr(rp) == "<Replay 7 calls, 1 regressions>"
    bundle = rp._repr_mimebundle_()
    assert bundle["text/plain"] == rp.summary() and "agents/a.md" in bundle["text/html"]


def test_main_evaluates_the_main_conversation_as_that_agent(proj: tk.Project) -> None:
    rp = tk.replay(proj, LOG, main="c")
    assert rows(rp.calls.iloc[[5]], ["agent", "tool", "effect", "rule", "file", "line"]) == [
        ("c", "read", "allow", "read", "agents/c.md", 3)]
    assert MAIN_NOTE not in rp.warnings
    c_read = rp.rules[(rp.rules["agent"] == "c")]
    assert rows(c_read, ["hits", "decisive", "status"]) == [(1, 1, "used")]
    with pytest.raises(tk.UnknownAgentError, match="known agents: a, b, c"):
        tk.replay(proj, LOG, main="nobody")


def test_a_tool_outside_the_pool_and_logged_groups_and_state(proj: tk.Project) -> None:
    log = pd.DataFrame({"agent": ["a", "a"], "tool": ["nope", "read"],
                        "groups": [["x", "y"], []], "state": ["s", None],
                        "session": ["one", "one"], "time": [10, 11]})
    rp = tk.replay(proj, log)
    assert rows(rp.calls, ["tool", "effect", "reason", "canonical", "groups", "state",
                           "session", "time"]) == [
        ("nope", "implicit-deny", "pool", None, "x,y", "s", "one", 10),
        ("read", "allow", "allow", "read", "(none)", None, "one", 11)]
    assert rp.summary().startswith("replayed 2 call(s) in 1 session(s) from DataFrame\n")
    assert "  then: unknown 2" in rp.summary().split("\n")


def test_unreadable_lines_are_problems_with_their_lines(proj: tk.Project,
                                                        tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text('{"agent": "a", "tool": "read", "observed": "ran"}\n{oops\n'
                   '{"agent": "a"}\n')
    rp = tk.replay(proj, str(log))
    assert rp.source == str(log)
    assert rows(rp.calls, ["agent", "tool", "effect", "source"]) == [
        ("a", "read", "allow", "calls.jsonl:1")]
    assert list(rp.problems.columns) == ["file", "line", "message"]
    assert list(rp.problems["line"]) == [2, 3]
    assert rp.problem_lines() == [f"calls.jsonl:{n}: {m}" for n, m in zip(
        rp.problems["line"], rp.problems["message"], strict=True)]
    assert rp.problem_lines()[1] == "calls.jsonl:3: call without a tool name; skipped"
    assert rp.summary().split("\n")[5] == "  2 unreadable line(s): see .problems"
    assert tk.replay(proj, log).source == "calls.jsonl"  # a Path is named by its file name


# -- a spawn tree (toolkit's audit log, written by hand) ---------------------------------------
#
# mux: orchestrator holds task, read_file, write_file, bash; coder holds read_file,
# write_file, bash and denies rm_rf (agents/coder.yaml:3); tester has no list: as a root
# it holds every tool (the mux preset), spawned by coder it inherits coder's ceiling and deny.

SPAWN = [
    {"event": "resolve", "agent_id": "orchestrator", "agent": "orchestrator"},
    {"event": "spawn", "agent_id": "orchestrator.coder", "parent_id": "orchestrator",
     "agent": "coder"},
    {"event": "spawn", "agent_id": "orchestrator.coder.tester",
     "parent_id": "orchestrator.coder", "agent": "tester"},
    {"event": "call", "agent_id": "orchestrator.coder.tester", "requested_tool": "task",
     "outcome": "denied"},
    {"event": "call", "agent_id": "orchestrator.coder.tester", "requested_tool": "read_file",
     "outcome": "ran"},
    {"event": "call", "agent_id": "orchestrator.coder.tester", "requested_tool": "rm_rf",
     "outcome": "denied"},
    {"event": "resolve", "agent_id": "tester", "agent": "tester"},
    {"event": "call", "agent_id": "tester", "requested_tool": "task", "outcome": "ran"},
    {"event": "call", "agent_id": "orchestrator.coder", "requested_tool": "task",
     "outcome": "denied"},
]


def test_a_spawned_session_is_replayed_under_its_parents_lineage(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in SPAWN))
    rp = tk.replay(tk.load(EXAMPLES / "mux"), log)
    assert rows(rp.calls, ["session", "agent", "tool", "effect", "reason", "rule", "file",
                           "line", "observed", "source"]) == [
        ("orchestrator.coder.tester", "tester", "task", "implicit-deny", "ceiling", None, None,
         None, "denied", "audit.jsonl:4"),
        ("orchestrator.coder.tester", "tester", "read_file", "allow", "allow", None, None, None,
         "ran", "audit.jsonl:5"),
        ("orchestrator.coder.tester", "tester", "rm_rf", "explicit-deny", "deny", "rm_rf",
         "agents/coder.yaml", 3, "denied", "audit.jsonl:6"),
        ("tester", "tester", "task", "allow", "allow", None, None, None, "ran", "audit.jsonl:8"),
        ("orchestrator.coder", "coder", "task", "implicit-deny", "allow", None, None, None,
         "denied", "audit.jsonl:9")]
    used = rp.rules[rp.rules["status"] == "used"]
    assert rows(used, ["agent", "kind", "rule", "hits", "decisive"]) == [
        ("coder", "deny", "rm_rf", 1, 1)]  # coder's deny decided its descendant's call
    assert rp.summary().split("\n")[:2] == [
        f"replayed 5 call(s) in 3 session(s) from {log.name}",
        "  now:  implicit-deny 2, allow 2, explicit-deny 1"]


# -- states followed as a live session would (TrustGraph) --------------------------------------
#
# react-agent holds every tool; with groups * each call is decided by the state alone:
# knowledge-query (in undefined, research) moves to analysis; graph-update runs in analysis,
# modification (tools.yaml:16); complex-analysis (in analysis) moves to results;
# reset-workflow (in analysis, results) moves to undefined. Each session starts undefined; a
# call that errored moves nothing; a logged state is the state.

def test_states_are_followed_per_session() -> None:
    tools = ["knowledge-query", "graph-update", "complex-analysis", "graph-update",
             "reset-workflow", "graph-update", "knowledge-query", "graph-update",
             "graph-update"]
    log = pd.DataFrame({"session": ["s1"] * 5 + ["s2", "s3", "s3", "s4"],
                        "agent": ["react-agent"] * 9, "tool": tools,
                        "observed": ["ran", "ran", "ran", "denied", "ran", "denied", "error",
                                     "denied", "ran"],
                        "groups": [["*"]] * 9, "state": [None] * 8 + ["modification"]})
    rp = tk.replay(tk.load(EXAMPLES / "trustgraph"), log)
    gated = "available_in_states: analysis,modification"
    assert rows(rp.calls, ["tool", "state", "effect", "reason", "rule", "line"]) == [
        ("knowledge-query", "undefined", "allow", "allow", None, None),
        ("graph-update", "analysis", "allow", "allow", None, None),
        ("complex-analysis", "analysis", "allow", "allow", None, None),
        ("graph-update", "results", "implicit-deny", "state", gated, 16),
        ("reset-workflow", "results", "allow", "allow", None, None),
        ("graph-update", "undefined", "implicit-deny", "state", gated, 16),  # s2 starts afresh
        ("knowledge-query", "undefined", "allow", "allow", None, None),
        ("graph-update", "undefined", "implicit-deny", "state", gated, 16),  # it errored
        ("graph-update", "modification", "allow", "allow", None, None)]
    assert set(rp.calls["groups"]) == {"*"}
    assert rows(rp.newly_allowed, ["tool"]) == []
    assert rows(rp.regressions, ["tool"]) == []


# -- Claude Code's argument-level engine (tests/fixtures/shop) --------------------------------
#
# settings: allow Bash(npm test *) :4, Bash(npm run *) :5, Bash(git log *) :6, Edit(src/**) :7;
# ask Bash(npm publish *) :10; deny Bash(git push *) :13, Bash(curl *) :14, Read(./.env) :15.
# debugger: tools Read, Edit, Bash, Grep, Glob, LS (:4), disallowedTools Write (:5).

SHOP_LOG = pd.DataFrame({
    "agent": ["debugger"] * 5 + ["code-reviewer", None],
    "tool": ["Bash", "Bash", "Bash", "Bash", "Write", "Bash", "Read"],
    "args": [{"command": "git push origin main"}, {"command": "npm test x"},
             {"command": "npm publish"}, {"command": "npm test x"},
             {"file_path": "a.txt", "content": ""}, {"command": "ls"},
             {"file_path": "README.md"}],
    "observed": ["ran"] * 7})


def test_engine_decides_each_call_with_its_arguments() -> None:
    rp = tk.replay(tk.load(FIXTURES / "shop"), SHOP_LOG)
    assert rp.arguments is True
    settings, debugger = ".claude/settings.json", ".claude/agents/debugger.md"
    assert rows(rp.calls, ["agent", "effect", "reason", "rule", "file", "line"]) == [
        ("debugger", "explicit-deny", "deny-rule", "Bash(git push *)", settings, 13),
        ("debugger", "allow", "allow-rule", "Bash(npm test *)", settings, 4),
        ("debugger", "ask", "ask-rule", "Bash(npm publish *)", settings, 10),
        ("debugger", "allow", "allow-rule", "Bash(npm test *)", settings, 4),
        ("debugger", "explicit-deny", "agent-tools", "Write", debugger, 5),
        ("code-reviewer", "implicit-deny", "agent-tools", None, None, None),  # no Bash
        ("(main)", "allow", "working-dir", None, None, None)]  # main: the engine alone
    assert list(rp.calls["args"]) == list(SHOP_LOG["args"])
    assert rp.warnings == []
    assert len(rp.regressions) == 4  # ran, and now denied (3) or asked (1)


def test_engine_rule_statistics_count_settings_rules_and_the_gate() -> None:
    rules = tk.replay(tk.load(FIXTURES / "shop"), SHOP_LOG).rules
    project = rules[rules["layer"] == "project"]
    assert rows(project, ["agent", "kind", "rule", "file", "line", "hits", "decisive",
                          "status"]) == [
        (None, "deny", "Bash(git push *)", ".claude/settings.json", 13, 1, 1, "used"),
        (None, "deny", "Bash(curl *)", ".claude/settings.json", 14, 0, 0, "dead"),
        (None, "deny", "Read(./.env)", ".claude/settings.json", 15, 0, 0, "dead"),
        (None, "ask", "Bash(npm publish *)", ".claude/settings.json", 10, 1, 1, "used"),
        (None, "allow", "Bash(npm test *)", ".claude/settings.json", 4, 2, 2, "used"),
        (None, "allow", "Bash(npm run *)", ".claude/settings.json", 5, 0, 0, "dead"),
        (None, "allow", "Bash(git log *)", ".claude/settings.json", 6, 0, 0, "dead"),
        (None, "allow", "Edit(src/**)", ".claude/settings.json", 7, 0, 0, "dead")]
    agents = rules[rules["agent"].notna()].set_index(["agent", "kind", "rule"])
    # debugger's Bash entry let its four Bash calls through to the settings rules
    assert agents.loc[("debugger", "allow", "Bash"), ["hits", "decisive", "status"]].tolist(
        ) == [4, 4, "used"]
    assert agents.loc[("debugger", "deny", "Write"), ["hits", "decisive", "status"]].tolist(
        ) == [1, 1, "used"]
    assert agents.loc[("debugger", "allow", "Read"), "status"] == "dead"
    assert set(agents.loc["code-reviewer", "status"]) == {"dead"}


def test_arguments_false_answers_by_name_and_true_forces_the_engine() -> None:
    by_name = tk.replay(tk.load(FIXTURES / "shop"), SHOP_LOG, arguments=False)
    assert by_name.arguments is False
    # debugger holds Bash, whose settings rules decide each call: conditional by name
    assert list(by_name.calls["effect"].astype(object))[:5] == [
        "conditional"] * 4 + ["explicit-deny"]
    assert plain(by_name.calls["effect"].iloc[6]) is None  # the main conversation: no agent
    assert all(r == "agent-tools" or r != "deny-rule" for r in by_name.calls["reason"])


def test_a_project_without_settings_layers_gets_the_engine_only_when_asked(
        proj: tk.Project) -> None:
    log = pd.DataFrame({"agent": ["a", "a"], "tool": ["read", "send"]})
    assert tk.replay(proj, log).arguments is False
    forced = tk.replay(proj, log, arguments=True)
    assert forced.arguments is True
    # the engine: read is in a's tools but no settings rule allows it, so the mode asks;
    # send is in a's disallowedTools
    assert rows(forced.calls, ["effect", "reason", "rule"]) == [
        ("ask", "mode", None), ("explicit-deny", "agent-tools", "send")]


def test_the_engine_is_asked_in_the_calls_working_directory(tmp_path: Path) -> None:
    """A Read inside the working directory is allowed unasked; outside it, it asks."""
    log = pd.DataFrame({"agent": [None, None], "tool": ["Read", "Read"],
                        "args": [{"file_path": "/srv/app/README.md"}] * 2,
                        "cwd": ["/srv/app", "/home/other"]})
    rp = tk.replay(tk.load(FIXTURES / "shop"), log)
    assert rows(rp.calls, ["effect", "reason"]) == [("allow", "working-dir"),
                                                    ("ask", "mode")]


# -- the column helpers ------------------------------------------------------------------------


def test_distinct_codes_rows_by_first_appearance_of_each_key() -> None:
    codes, keys = _distinct([np.array(["a", "b", "a", "a"], dtype=object),
                             None, np.array([1, 1, 1, 2], dtype=object)])
    assert codes.tolist() == [0, 1, 0, 2]
    assert keys == [("a", "", 1), ("b", "", 1), ("a", "", 2)]
    empty_codes, empty_keys = _distinct([np.array([], dtype=object)])
    assert empty_codes.tolist() == [] and empty_keys == []


def test_args_keys_are_canonical_json_and_empty_args_blank() -> None:
    keys = _args_keys([{"b": 1, "a": Path("x")}, {}, None])
    assert keys.tolist() == ['{"a": "x", "b": 1}', "", ""]
    assert keys.dtype == object


def test_first_args_of_each_question() -> None:
    assert _first_args(np.array([1, 0, 1]), [{"n": 1}, {"n": 2}, {"n": 3}]) == {
        1: {"n": 1}, 0: {"n": 2}}


def test_mapped_converts_each_distinct_value_once() -> None:
    seen: list[Any] = []

    def upper(v: Any) -> Any:
        seen.append(v)
        return None if v is None else v.upper()

    out = mapped(np.array(["x", "y", "x", None], dtype=object), upper)
    assert list(out) == ["X", "Y", "X", None]
    assert sorted(seen, key=str) == sorted(["x", "y", None], key=str)


def test_categorical_spreads_values_over_rows() -> None:
    cat = _categorical(["p", None, "q"], np.array([2, 0, 1, 2]))
    assert [plain(v) for v in cat] == ["q", "p", None, "q"]
    assert list(cat.categories) == ["p", "q"]
    assert len(_categorical([], np.zeros(0, dtype=int))) == 0


# -- options: preset, mode, a log read beforehand ---------------------------------------------


def test_preset_replays_under_another_preset() -> None:
    """mux's tester has no tools list: the mux preset gives it every tool, strict none."""
    log = pd.DataFrame({"agent": ["tester"], "tool": ["bash"]})
    mux = tk.load(EXAMPLES / "mux")
    assert rows(tk.replay(mux, log).calls, ["effect", "reason"]) == [("allow", "allow")]
    assert rows(tk.replay(mux, log, preset="strict").calls, ["effect", "reason"]) == [
        ("implicit-deny", "allow")]


def test_mode_is_the_engines_permission_mode() -> None:
    """No settings rule matches "make build": the permission mode decides."""
    log = pd.DataFrame({"agent": ["debugger"], "tool": ["Bash"],
                        "args": [{"command": "make build"}]})
    shop = tk.load(FIXTURES / "shop")
    assert rows(tk.replay(shop, log).calls, ["effect", "reason"]) == [("ask", "mode")]
    assert rows(tk.replay(shop, log, mode="bypassPermissions").calls,
                ["effect", "reason"]) == [("allow", "mode")]


def test_evaluate_calls_read_beforehand(proj: tk.Project) -> None:
    from toolkit.analysis.replay import evaluate
    from toolkit.analysis.transcripts import read_calls

    rp = evaluate(proj, read_calls(LOG))
    assert rp.source == ""
    assert rp.summary().split("\n")[0] == "replayed 7 call(s) from the log"
    assert rows(rp.calls, ["effect"])[:2] == [("allow",), ("explicit-deny",)]


def test_an_agent_unknown_to_the_engine_is_reported_not_guessed() -> None:
    log = pd.DataFrame({"agent": ["ghost"], "tool": ["Read"], "args": [{"file_path": "x"}]})
    rp = tk.replay(tk.load(FIXTURES / "shop"), log)
    assert rows(rp.calls, ["effect", "reason", "rule"]) == [(None, "agent", None)]
    assert rp.warnings == ["calls of agent 'ghost' were not evaluated: unknown agent 'ghost'; "
                           "known agents: code-reviewer, debugger"]


def test_a_project_without_agents_names_none(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text("tool:\n  read: {}\n")
    rp = tk.replay(tk.load(tmp_path), pd.DataFrame({"agent": ["z"], "tool": ["read"]}))
    assert rp.warnings == ["calls of agent 'z' were not evaluated: unknown agent 'z'; known "
                           "agents: (none)"]
    assert rp.rules.empty and list(rp.rules.columns) == list(RULE_COLUMNS)
    assert rp.summary().split("\n")[4] == "  rules: 0 used, 0 dead, 0 shadowed"


def test_an_empty_log() -> None:
    rp = tk.replay(tk.load(EXAMPLES / "mux"), pd.DataFrame({"agent": [], "tool": []}))
    assert rp.calls.empty and list(rp.calls.columns) == list(CALL_COLUMNS)
    assert rp.calls["line"].dtype == "Int64"
    # mux's 14 rules: code-agent 2, coder 3 + a deny, orchestrator 4, productivity 2 + an ask,
    # researcher 1
    assert rp.summary() == "\n".join([
        "replayed 0 call(s) from DataFrame", "  now:  ", "  then: ",
        "  0 regression(s) (ran then, not allowed now); 0 newly allowed (denied then, allowed "
        "now)",
        "  rules: 0 used, 14 dead, 0 shadowed"])
    assert list(rp.problems.columns) == ["file", "line", "message"] and rp.problems.empty


# -- spawn trees: which lineage each call is asked under -------------------------------------


def audit(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def spawn(child: str, parent: str, agent: str, **extra: Any) -> dict[str, Any]:
    return {"event": "spawn", "agent_id": child, "parent_id": parent, "agent": agent, **extra}


def call(session: str, tool: str, **extra: Any) -> dict[str, Any]:
    return {"event": "call", "agent_id": session, "requested_tool": tool, **extra}


def root(session: str, agent: str, **extra: Any) -> dict[str, Any]:
    return {"event": "resolve", "agent_id": session, "agent": agent, **extra}


def test_one_agent_under_two_parents_gets_each_parents_ceiling(tmp_path: Path) -> None:
    """tester (no list) under orchestrator holds bash; under researcher (read_file only) not."""
    log = audit(tmp_path / "a.jsonl", [
        root("O", "orchestrator"), spawn("O.t", "O", "tester"),
        root("R", "researcher"), spawn("R.t", "R", "tester"),
        call("O.t", "bash"), call("R.t", "bash"), call("R.t", "read_file")])
    rp = tk.replay(tk.load(EXAMPLES / "mux"), log)
    assert rows(rp.calls, ["session", "effect", "reason"]) == [
        ("O.t", "allow", "allow"), ("R.t", "implicit-deny", "ceiling"), ("R.t", "allow", "allow")]


def test_a_grandparent_bounds_its_grandchildren(tmp_path: Path) -> None:
    """researcher -> tester -> tester: the middle tester holds only read_file, so its child
    has no bash. coder -> tester -> tester: coder's deny of rm_rf reaches the grandchild."""
    log = audit(tmp_path / "a.jsonl", [
        root("R", "researcher"), spawn("R.t", "R", "tester"), spawn("R.t.t", "R.t", "tester"),
        root("C", "coder"), spawn("C.t", "C", "tester"), spawn("C.t.t", "C.t", "tester"),
        call("R.t.t", "bash"), call("R.t.t", "read_file"), call("C.t.t", "rm_rf"),
        call("C.t.t", "bash")])
    rp = tk.replay(tk.load(EXAMPLES / "mux"), log)
    assert rows(rp.calls, ["session", "tool", "effect", "reason", "rule", "file", "line"]) == [
        ("R.t.t", "bash", "implicit-deny", "ceiling", None, None, None),
        ("R.t.t", "read_file", "allow", "allow", None, None, None),
        ("C.t.t", "rm_rf", "explicit-deny", "deny", "rm_rf", "agents/coder.yaml", 3),
        ("C.t.t", "bash", "allow", "allow", None, None, None)]


def test_a_spawn_cycle_in_a_damaged_log_ends(tmp_path: Path) -> None:
    """a spawned by b and b by a: the cycle is cut (b is taken as a root), no exception."""
    log = audit(tmp_path / "a.jsonl", [spawn("a", "b", "tester"), spawn("b", "a", "tester"),
                                       call("a", "bash")])
    rp = tk.replay(tk.load(EXAMPLES / "mux"), log)
    assert rows(rp.calls, ["agent", "tool", "effect", "reason"]) == [
        ("tester", "bash", "allow", "allow")]


TG_GROUPS = {"requested_groups": ["*"]}


@pytest.mark.parametrize(("moved", "effect", "reason"), [
    (True, "allow", "allow"), (False, "implicit-deny", "ceiling")])
def test_a_child_inherits_its_parents_state_and_groups_at_the_spawn(
        tmp_path: Path, moved: bool, effect: str, reason: str) -> None:
    """TrustGraph: graph-update runs in analysis and modification only. A parent that moved to
    analysis before the spawn holds it, so its child (in analysis) may call it; a parent
    still in undefined does not, and its child is denied by the ceiling."""
    transition = [{"event": "transition", "agent_id": "r", "to": "analysis"}] if moved else []
    log = audit(tmp_path / "a.jsonl", [
        root("r", "react-agent", state="undefined", **TG_GROUPS), *transition,
        spawn("r.c", "r", "react-agent", state="analysis", **TG_GROUPS),
        call("r.c", "graph-update", state="analysis", outcome="ran", **TG_GROUPS)])
    rp = tk.replay(tk.load(EXAMPLES / "trustgraph"), log)
    assert rows(rp.calls, ["tool", "state", "groups", "effect", "reason"]) == [
        ("graph-update", "analysis", "*", effect, reason)]


# -- request groups ----------------------------------------------------------------------------


def test_each_calls_own_groups_decide(tmp_path: Path) -> None:
    """TrustGraph: knowledge-query is in group basic; plain is in default. No groups logged
    is the default request."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "toolkit.yaml").write_text("preset: trustgraph\n")
    (tmp_path / "tools.yaml").write_text(
        'tool:\n  knowledge-query:\n    group: ["basic"]\n  plain:\n    group: ["default"]\n')
    (tmp_path / "agents" / "r.md").write_text("---\nname: r\n---\n")
    log = pd.DataFrame({"agent": ["r"] * 5,
                        "tool": ["knowledge-query", "knowledge-query", "knowledge-query",
                                 "plain", "plain"],
                        "groups": [["basic"], ["write"], None, None, ["basic", "default"]]})
    rp = tk.replay(tk.load(tmp_path), log)
    assert rows(rp.calls, ["groups", "effect", "reason"]) == [
        ("basic", "allow", "allow"), ("write", "implicit-deny", "group"),
        (None, "implicit-deny", "group"), (None, "allow", "allow"),
        ("basic,default", "allow", "allow")]


def test_a_read_by_absolute_path_inside_the_project_needs_no_cwd() -> None:
    readme = str((FIXTURES / "shop" / "README.md").resolve())
    log = pd.DataFrame({"agent": [None], "tool": ["Read"], "args": [{"file_path": readme}]})
    rp = tk.replay(tk.load(FIXTURES / "shop"), log)
    assert rows(rp.calls, ["effect", "reason"]) == [("allow", "working-dir")]


# -- rule statistics ---------------------------------------------------------------------------


def test_an_exact_rule_outvoted_by_a_deny_is_shadowed(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "tools.yaml").write_text("tool:\n  send: {}\n")
    (tmp_path / "agents" / "e.md").write_text(
        "---\nname: e\ntools: [send]\ndisallowedTools: [send]\n---\n")
    rules = tk.replay(tk.load(tmp_path), pd.DataFrame({"agent": ["e"], "tool": ["send"]})).rules
    assert rows(rules, ["kind", "rule", "hits", "decisive", "status"]) == [
        ("allow", "send", 1, 0, "shadowed"), ("deny", "send", 1, 1, "used")]


def test_hits_add_up_over_distinct_questions(proj: tk.Project) -> None:
    """b's read in two states: two questions, each answered by b's read; the glob matched
    both."""
    log = pd.DataFrame({"agent": ["b", "b"], "tool": ["read", "read"], "state": ["s1", "s2"]})
    rules = tk.replay(proj, log).rules
    b = rules[rules["agent"] == "b"]
    assert rows(b, ["rule", "hits", "decisive", "status"]) == [
        ("read", 2, 2, "used"), ("*", 2, 0, "shadowed")]


def test_project_rules_count_the_calls_of_every_agent(tmp_path: Path) -> None:
    """toolkit.yaml asks before write (line 1); a denies write itself (agents/a.md:4): a's
    write is decided by a's deny, b's by the project's ask, and the ask matched both."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "tools.yaml").write_text("tool:\n  read: {}\n  write: {}\n")
    (tmp_path / "toolkit.yaml").write_text("ask: [write]\n")
    (tmp_path / "agents" / "a.md").write_text(
        "---\nname: a\ntools: ['*']\ndisallowedTools: [write]\n---\n")
    (tmp_path / "agents" / "b.md").write_text("---\nname: b\ntools: ['*']\n---\n")
    log = pd.DataFrame({"agent": ["b", "a"], "tool": ["write", "write"]})
    rp = tk.replay(tk.load(tmp_path), log)
    assert rows(rp.calls, ["agent", "effect", "reason", "rule", "file", "line"]) == [
        ("b", "ask", "approval", "write", "toolkit.yaml", 1),
        ("a", "explicit-deny", "deny", "write", "agents/a.md", 4)]
    project = rp.rules[rp.rules["agent"].isna()]
    assert rows(project, ["kind", "rule", "file", "line", "hits", "decisive", "status"]) == [
        ("ask", "write", "toolkit.yaml", 1, 2, 1, "used")]


def test_settings_rules_are_listed_only_under_the_engine_and_once() -> None:
    shop = tk.load(FIXTURES / "shop")
    by_name = tk.replay(shop, SHOP_LOG, arguments=False).rules
    assert set(by_name["layer"].dropna()) == set()  # no settings rows by name
    engine = tk.replay(shop, SHOP_LOG).rules
    # the subagents' own front-matter rules are listed once, as agent rules
    assert len(engine[engine["agent"].isna()]) == 8
    assert set(engine.loc[engine["agent"].isna(), "layer"]) == {"project"}


def test_problems_table_names_each_file(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text('{"tool": "read", "agent": "a"}\n{"agent": "a"}\n')
    rp = tk.replay(tk.load(EXAMPLES / "mux"), log)
    assert rows(rp.problems, ["file", "line", "message"]) == [
        ("calls.jsonl", 2, "call without a tool name; skipped")]


def test_distinct_refuses_more_combinations_than_an_int64_code_holds() -> None:
    two = np.array([0, 1], dtype=object)
    one = np.array([0, 0], dtype=object)
    codes, keys = _distinct([two] * 61 + [one])  # 2**61 combinations: fine
    assert codes.tolist() == [0, 1] and len(keys) == 2
    with pytest.raises(OverflowError, match=r"^too many distinct values to replay at once$"):
        _distinct([two] * 62)  # 2**62
    assert _distinct([np.array([], dtype=object)])[0].dtype == np.intp


def test_a_parent_whose_state_at_the_spawn_is_not_logged_counts_in_its_own_state(
        tmp_path: Path) -> None:
    """The spawn is logged before its parent's resolve (logs merged out of order): the
    parent's own state (analysis, where graph-update runs) is its state at the spawn."""
    log = audit(tmp_path / "a.jsonl", [
        spawn("r.c", "r", "react-agent", **TG_GROUPS),
        root("r", "react-agent", state="analysis", **TG_GROUPS),
        call("r.c", "graph-update", state="analysis", outcome="ran", **TG_GROUPS)])
    rp = tk.replay(tk.load(EXAMPLES / "trustgraph"), log)
    assert rows(rp.calls, ["tool", "state", "effect", "reason"]) == [
        ("graph-update", "analysis", "allow", "allow")]


def test_a_single_settings_rule_is_listed(tmp_path: Path) -> None:
    """A Claude Code project whose settings hold one rule (the deny of curl, line 1) and no
    subagents: its one row, used by the main conversation's curl."""
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        '{"permissions": {"deny": ["Bash(curl *)"]}}')
    log = pd.DataFrame({"agent": [None], "tool": ["Bash"],
                        "args": [{"command": "curl https://example.com"}]})
    rp = tk.replay(tk.load(tmp_path), log)
    assert rows(rp.calls, ["effect", "reason", "rule"]) == [
        ("explicit-deny", "deny-rule", "Bash(curl *)")]
    assert rows(rp.rules, ["agent", "kind", "rule", "line", "hits", "decisive", "status"]) == [
        (None, "deny", "Bash(curl *)", 1, 1, 1, "used")]


def test_hits_add_up_over_questions_that_differ_by_their_arguments(proj: tk.Project) -> None:
    """Under the engine each distinct argument set is its own question: b's two reads are two
    questions; b's read entry let both through and the glob matched both."""
    log = pd.DataFrame({"agent": ["b", "b"], "tool": ["read", "read"],
                        "args": [{"n": 1}, {"n": 2}]})
    rules = tk.replay(proj, log, arguments=True).rules
    b = rules[rules["agent"] == "b"]
    assert rows(b, ["rule", "hits", "decisive", "status"]) == [
        ("read", 2, 2, "used"), ("*", 2, 0, "shadowed")]
