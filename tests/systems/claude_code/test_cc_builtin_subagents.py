"""Issue 20 item 2: Claude Code's built-in subagents are agents of every Claude Code project.

Expected tool sets are the documented ones: the sub-agents documentation ("Built-in
subagents": Explore and Plan read-only, denied Write and Edit; general-purpose all tools)
and the Agent tool's own list of agent types ("statusline-setup ... (Tools: Read, Edit)",
"Explore ... (Tools: All tools except Agent, ExitPlanMode, Edit, Write, NotebookEdit)",
"claude-code-guide ... (Tools: Glob, Grep, Read, WebFetch, WebSearch)"). Transcripts:
``tests/fixtures/claude-builtin-subagents/`` (see ``tests/fixtures/README.md``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "claude-builtin-subagents"
APP = FIXTURES / "app"
PROJECTS = FIXTURES / "projects" / "-home-dev-app"
V1 = PROJECTS / "1a2b3c4d-0000-4000-8000-000000000001.jsonl"
V2 = PROJECTS / "1a2b3c4d-0000-4000-8000-000000000002.jsonl"


@pytest.fixture
def app() -> tk.Project:
    proj = tk.load(APP, home=False, managed=False)
    yield proj
    proj.close()


def test_built_in_subagents_answer_by_name_with_their_documented_tools(
        app: tk.Project) -> None:
    assert sorted(app.resolve("statusline-setup").allowed) == ["Edit", "Read"]
    assert sorted(app.resolve("claude-code-guide").allowed) == [
        "Glob", "Grep", "Read", "WebFetch", "WebSearch"]
    for read_only in ("Explore", "Plan"):
        held = set(app.resolve(read_only).allowed)
        assert {"Read", "Grep", "Glob", "Bash"} <= held
        assert not held & {"Edit", "Write", "NotebookEdit", "ExitPlanMode", "Agent"}
    assert {"Edit", "Write", "Bash", "WebFetch"} <= set(app.resolve("general-purpose").allowed)
    # listed agents stay the project's own (none here)
    assert list(app.agents) == []


def test_built_in_subagents_run_under_the_sessions_settings(app: tk.Project) -> None:
    d = app.check_call("Bash", {"command": "pnpm add lodash"}, agent="general-purpose")
    assert (d.effect, d.rule.text) == (Effect.DENY, "Bash(pnpm add *)")
    d = app.check_call("Bash", {"command": "pnpm test"}, agent="Explore")
    assert (d.effect, d.rule.text) == (Effect.ALLOW, "Bash(pnpm test)")
    d = app.check_call("Edit", {"file_path": "src/a.ts"}, agent="Explore")
    assert d.effect is Effect.DENY and d.reason.value == "agent-tools"


def test_a_project_subagent_of_the_same_name_replaces_the_built_in(tmp_path: Path) -> None:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "explore.md").write_text(
        "---\nname: Explore\ndescription: our own explorer\ntools: Read\n---\n",
        encoding="utf-8")
    proj = tk.load(tmp_path, home=False, managed=False)
    assert sorted(proj.resolve("Explore").allowed) == ["Read"]
    assert list(proj.agents) == ["Explore"]
    proj.close()


def test_an_unknown_subagent_type_is_still_unknown(app: tk.Project) -> None:
    with pytest.raises(tk.UnknownAgentError):
        app.agent("no-such-agent")


def test_v1_inline_sidechain_calls_are_the_launching_subagent_types(app: tk.Project) -> None:
    rp = tk.replay(app, V1)
    side = rp.calls[rp.calls["agent"] == "general-purpose"]
    assert list(side["args"].map(lambda a: a["command"])) == ["pnpm add lodash", "pnpm test"]
    assert list(side["effect"]) == [Effect.DENY.value, Effect.ALLOW.value]
    assert "sidechain" not in set(rp.calls["agent"])
    # the deny added since blocks a call that ran: a regression, and the rule is used
    assert [a["command"] for a in rp.regressions["args"]] == ["pnpm add lodash"]
    rule = rp.rules[rp.rules["rule"] == "Bash(pnpm add *)"].iloc[0]
    assert (rule["status"], rule["hits"]) == ("used", 1)
    assert not any("not evaluated" in n for n in rp.warnings)


def test_v2_subagent_files_of_a_built_in_type_are_evaluated(app: tk.Project) -> None:
    rp = tk.replay(app, V2)
    explore = rp.calls[rp.calls["agent"] == "Explore"]
    assert list(explore["tool"]) == ["Grep", "Bash"]
    assert list(explore["effect"]) == [Effect.ALLOW.value, Effect.DENY.value]
    assert [a["command"] for a in rp.regressions["args"]] == ["pnpm add date-fns"]


def test_a_whole_project_folder_of_both_versions(app: tk.Project) -> None:
    rp = tk.replay(app, PROJECTS)
    assert sorted(set(rp.calls["agent"]) - {"(main)"}) == ["Explore", "general-purpose"]
    assert sorted(a["command"] for a in rp.regressions["args"]) == [
        "pnpm add date-fns", "pnpm add lodash"]
    rule = rp.rules[rp.rules["rule"] == "Bash(pnpm add *)"].iloc[0]
    assert rule["status"] == "used" and rule["hits"] == 2


def test_names_only_replay_knows_the_built_ins(app: tk.Project) -> None:
    rp = tk.replay(app, PROJECTS, arguments=False)
    explore = rp.calls[rp.calls["agent"] == "Explore"]
    assert list(explore["effect"].isna()) == [False, False]
