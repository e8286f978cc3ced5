"""Explain: effect, deciding step, the rule's file and line, and the full trace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]


@pytest.fixture
def proj(write: Write) -> tk.Project:
    root = write({
        "toolkit.yaml": "preset: strict\ndeny: [danger]\n",
        "tools.yaml": """
            tool:
              read_notes: {group: [read-only]}
              write_file:
                group: [write]
                available_in_states: [modification]
              danger: {}
              search_a: {}
              search_b: {}
        """,
        "agents/researcher.md": """
            ---
            name: researcher
            tools:
              - read_notes
              - write_file
              - search_*
              - danger
            disallowedTools: search_b
            ask: [search_a]
            ---
            Research.
        """,
    })
    return tk.load(root)


def test_explicit_deny_points_at_deny_rule(proj: tk.Project) -> None:
    d = proj.explain("researcher", "search_b", groups=["*"])
    assert (d.allowed, d.effect, d.reason) == (False, "explicit-deny", "deny")
    assert (d.rule.file, d.rule.line) == ("agents/researcher.md", 8)


def test_project_level_deny_wins_over_exact_allow(proj: tk.Project) -> None:
    d = proj.explain("researcher", "danger", groups=["*"])
    assert d.effect == "explicit-deny"
    assert (d.rule.file, d.rule.line) == ("toolkit.yaml", 2)
    assert "project" in d.message


def test_state_filter_decides_why_researcher_cannot_write(proj: tk.Project) -> None:
    d = proj.explain("researcher", "write_file", groups=["write"], state="analysis")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "state")
    assert d.rule.file == "tools.yaml" and d.rule.line == 5
    assert "'analysis'" in d.message
    ok = proj.explain("researcher", "write_file", groups=["write"], state="modification")
    assert ok.allowed and ok.effect == "allow"
    assert (ok.rule.file, ok.rule.line) == ("agents/researcher.md", 5)


def test_group_filter_decides(proj: tk.Project) -> None:
    d = proj.explain("researcher", "read_notes")  # default group only
    assert (d.allowed, d.reason) == (False, "group")
    assert (d.rule.file, d.rule.line) == ("tools.yaml", 2)


def test_ask_effect_for_approval_rule(proj: tk.Project) -> None:
    d = proj.explain("researcher", "search_a")
    assert (d.allowed, d.effect, d.reason) == (True, "ask", "approval")
    assert d.rule.line == 9
    assert "search_a" in proj.resolve("researcher").ask


def test_allowed_by_glob_points_at_glob_line(write: Write) -> None:
    root = write({"tools.yaml": "tool:\n  search_a: {}\n",
                  "a.md": "---\nname: a\ntools:\n  - search_*\n---\n"})
    d = tk.load(root).explain("a", "search_a")
    assert d.effect == "allow" and d.rule.pattern == "search_*" and d.rule.line == 4


def test_unknown_tool_is_pool_step(proj: tk.Project) -> None:
    d = proj.explain("researcher", "nonexistent")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "pool")
    assert d.rule.file is None and d.rule.line is None
    assert [s.name for s in d.trace] == ["pool"]


def test_trace_records_every_step_in_order(proj: tk.Project) -> None:
    d = proj.explain("researcher", "write_file", groups=["write"], state="analysis")
    assert [s.name for s in d.trace] == ["pool", "deny", "allow", "ceiling", "coordination",
                                         "group", "state", "approval"]
    outcomes = {s.name: s.outcome for s in d.trace}
    assert outcomes == {"pool": "pass", "deny": "pass", "allow": "pass", "ceiling": "skip",
                        "coordination": "skip", "group": "pass", "state": "fail",
                        "approval": "pass"}


def test_implicit_deny_when_no_rule_matches(write: Write) -> None:
    root = write({"tools.yaml": "tool:\n  a: {}\n  b: {}\n",
                  "x.md": "---\nname: x\ntools: [a]\n---\n"})
    d = tk.load(root).explain("x", "b")
    assert (d.effect, d.reason) == ("implicit-deny", "allow")
    assert d.rule.file is None


def test_explain_renders_as_text_and_escaped_html(write: Write) -> None:
    root = write({"tools.yaml": "tool:\n  '<img>': {}\n",
                  "x.md": "---\nname: x\ntools: ['<img>']\n---\n"})
    d = tk.load(root).explain("x", "<img>")
    bundle = d._repr_mimebundle_()
    assert "ALLOW x -> <img>" in bundle["text/plain"]
    assert "<img>" not in bundle["text/html"] and "&lt;img&gt;" in bundle["text/html"]


def test_unknown_agent_lists_known_ones(proj: tk.Project) -> None:
    with pytest.raises(tk.UnknownAgentError, match="known agents: researcher"):
        proj.explain("nobody", "read_notes")
