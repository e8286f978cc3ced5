"""``tk.diff``: two versions of a policy compared cell by cell, and the new access."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.policies import bare_bash
from toolkit.analysis.diff import more_permissive

Write = Callable[..., Path]


def copy(examples: Path, name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(examples / name, target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def test_same_policy_has_no_changes(examples: Path) -> None:
    d = tk.diff(examples / "trustgraph", examples / "trustgraph")
    assert d.changes.empty and d.new_access.empty
    assert d.summary() == "0 cell(s) changed, 0 grant new access"


def test_group_and_state_edits_of_trustgraph(examples: Path, tmp_path: Path) -> None:
    new = copy(examples, "trustgraph", tmp_path)
    # reset-workflow joins the "basic" group; graph-update is no longer available in analysis
    edit(new / "tools.yaml", 'group: ["admin"]', 'group: ["admin", "basic"]')
    edit(new / "tools.yaml", 'available_in_states: ["analysis", "modification"]',
         'available_in_states: ["modification"]')
    d = tk.diff(examples / "trustgraph", new)
    assert isinstance(d, tk.PolicyDiff)
    changes = d.changes
    assert list(changes.columns[:7]) == ["agent", "tool", "context", "before", "after",
                                         "rule_before", "rule_after"]
    lost = changes[changes["tool"] == "graph-update"]
    assert set(lost["state"]) == {"analysis"} and set(lost["after"]) == {"implicit-deny"}
    assert set(lost["rule_after"]) == {"available_in_states: modification (tools.yaml:16)"}
    access = d.new_access
    assert set(access["tool"]) == {"reset-workflow"}
    assert set(access["groups"]) == {"basic"}
    assert set(access["rule_before"]) == {"groups: admin (tools.yaml:39)"}
    # every cell is what each version's explain says
    old_proj, new_proj = tk.load(examples / "trustgraph"), tk.load(new)
    for row in changes.itertuples():
        groups = tuple(row.groups.split(","))
        assert old_proj.explain(row.agent, row.tool, groups=groups,
                                state=row.state).effect == row.before
        assert new_proj.explain(row.agent, row.tool, groups=groups,
                                state=row.state).effect == row.after


def test_agents_and_tools_added_or_removed(write: Write, tmp_path: Path) -> None:
    old = write({"tools.yaml": "tool:\n  read: {}\n  send: {}\n",
                 "agents/a.md": "---\nname: a\ntools: [read]\n---\n"})
    new = tmp_path.with_name(tmp_path.name + "-v2")  # beside the project, not inside it
    shutil.copytree(old, new)
    (new / "tools.yaml").write_text("tool:\n  read: {}\n  send: {}\n  delete: {}\n")
    (new / "agents" / "a.md").write_text("---\nname: a\ntools: ['*']\n---\n")
    (new / "agents" / "b.md").write_text("---\nname: b\ntools: [read]\n---\n")
    d = tk.diff(tk.load(old), new)
    assert d.agents_added == ["b"] and d.tools_added == ["delete"]
    assert set(d.new_access["groups"]) == {"default", "*"}  # the contexts: default request and *
    access = d.new_access[d.new_access["groups"] == "default"].set_index(["agent", "tool"])
    assert access.loc[("a", "send"), "rule_after"] == "* (agents/a.md:3)"
    assert access.loc[("a", "delete"), "before"] == "implicit-deny"  # not in the old pool
    assert access.loc[("b", "read"), "before"] == "(no agent)"
    assert "agents added: b" in d.summary() and "tools added: delete" in d.summary()
    # the way back removes all of it: no new access
    assert tk.diff(new, old).new_access.empty


def test_a_preset_change_is_a_policy_change(write: Write, tmp_path: Path) -> None:
    old = write({"tools.yaml": "tool:\n  read: {}\n", "agents/a.md": "---\nname: a\n---\n",
                 "toolkit.yaml": "preset: strict\n"})
    new = tmp_path.with_name(tmp_path.name + "-v2")  # beside the project, not inside it
    shutil.copytree(old, new)
    (new / "toolkit.yaml").write_text("preset: mux\n")  # an omitted list now gives all
    d = tk.diff(old, new)
    rows = d.new_access[["agent", "tool", "before", "after"]].drop_duplicates()
    assert rows.values.tolist() == [["a", "read", "implicit-deny", "allow"]]


@pytest.mark.parametrize(("before", "after", "more"), [
    ("explicit-deny", "allow", True), ("implicit-deny", "ask", True), ("ask", "allow", True),
    ("ask", "conditional", True), ("allow", "ask", False), ("allow", "explicit-deny", False),
    ("(no agent)", "allow", True), ("allow", "(no agent)", False)])
def test_more_permissive(before: str, after: str, more: bool) -> None:
    assert more_permissive(before, after) is more


def test_diff_view_renders_escaped(examples: Path, tmp_path: Path) -> None:
    new = copy(examples, "trustgraph", tmp_path)
    edit(new / "tools.yaml", 'group: ["admin"]', 'group: ["admin", "<b>x</b>"]')
    bundle = tk.diff(examples / "trustgraph", new)._repr_mimebundle_()
    assert "grant new access" in bundle["text/plain"]
    assert "&lt;b&gt;x&lt;/b&gt;" in bundle["text/html"] and "<b>x</b>" not in bundle["text/html"]


def test_claude_code_settings_change_is_read_from_the_paths(tmp_path: Path) -> None:
    """A path is loaded with its Claude Code settings layers: a settings deny shows up."""
    old = tmp_path / "old"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "shop", old)
    (old / ".claude" / "agents" / "helper.md").write_text(
        "---\nname: helper\ndescription: no tools field: every tool\n---\n")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    settings = new / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["permissions"]["deny"].append("WebFetch")
    data["permissions"]["allow"].remove("Bash(npm test *)")
    settings.write_text(json.dumps(data, indent=2))
    d = tk.diff(old, new)
    fetch = d.changes[d.changes["tool"] == "WebFetch"]
    assert set(fetch["agent"]) == {"code-reviewer", "debugger", "helper"}
    assert set(fetch["after"]) == {"explicit-deny"}
    assert set(fetch.loc[fetch["agent"] == "helper", "before"]) == {"allow"}
    assert {r.split(" (")[0] for r in fetch["rule_after"]} == {"WebFetch"}
    assert d.new_access.empty  # a new deny and a removed allow grant nothing
    back = tk.diff(new, old).new_access  # the way back gives helper WebFetch again
    cells = back[back["context"] != "calls"]
    assert set(zip(cells["agent"], cells["tool"], strict=True)) == {("helper", "WebFetch")}
    # and lets calls through again: npm test unasked, WebFetch for the main conversation
    calls = back[back["context"] == "calls"]
    assert {("(main)", "Bash"), ("(main)", "WebFetch")} <= set(zip(
        calls["agent"], calls["tool"], strict=True))


def test_argument_rules_replaced_by_a_bare_allow_is_new_access(tmp_path: Path) -> None:
    """conditional -> allow grants more: before, argument rules decided each Bash call (git
    push and curl denied); after, every command runs unasked."""
    old = tmp_path / "old"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "shop", old)
    new = bare_bash(old, tmp_path / "new")
    # what each version says on its own (explain, check_call), independent of diff
    before, after = tk.load(old), tk.load(new)
    assert before.explain("debugger", "Bash").effect == "conditional"
    assert after.explain("debugger", "Bash").effect == "allow"
    push = {"command": "git push origin main"}
    assert before.check_call("Bash", push, agent="debugger").effect.value == "explicit-deny"
    assert after.check_call("Bash", push, agent="debugger").effect.value == "allow"
    d = tk.diff(old, new)
    access = d.new_access[d.new_access["context"] != "calls"]  # the matrix cells
    assert set(zip(access["agent"], access["tool"], access["before"], access["after"],
                   strict=True)) == {("debugger", "Bash", "conditional", "allow")}
    assert set(access["groups"]) == {"default", "*"}
    assert len(access) == len(d.changes)  # every changed cell grants more
    # the main conversation's Bash calls too: a command the old rules denied runs now
    calls = d.new_access[d.new_access["context"] == "calls"]
    main = calls[(calls["agent"] == "(main)") & (calls["tool"] == "Bash")]
    assert list(main["before"]) == ["explicit-deny"] and list(main["after"]) == ["allow"]
    assert f"{len(access)} grant new access; argument rules let through new calls: " \
        f"{len(calls)} row(s)" in d.summary()
    # the way back takes the access away: a change, but no new access
    back = tk.diff(new, old)
    assert len(back.changes) == len(access) and back.new_access.empty


@pytest.mark.parametrize(("before", "after", "more"), [
    ("conditional", "allow", True), ("allow", "conditional", False),
    ("conditional", "ask", False), ("implicit-deny", "conditional", True),
    ("conditional", "conditional", False)])
def test_conditional_ranks_between_ask_and_allow(before: str, after: str, more: bool) -> None:
    assert more_permissive(before, after) is more
