"""``proj.risk()``: tool risk classes, the lethal trifecta, and ``toolmatrix check``'s warning."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.analysis.check import check_project
from toolkit.analysis.risk import RISKS, classify, tool_risk_frame
from toolkit.core.models import Tool

Write = Callable[..., Path]


@pytest.mark.parametrize(("name", "expected"), [
    ("Read", {"reads_private"}), ("Grep", {"reads_private"}), ("LS", {"reads_private"}),
    ("WebFetch", {"untrusted_input", "sends_out"}), ("WebSearch", {"untrusted_input", "sends_out"}),
    ("Bash", set(RISKS)), ("Edit", {"destructive"}), ("NotebookEdit", {"destructive"}),
    ("fs_read", {"reads_private"}), ("fs_write", {"destructive"}), ("shell_exec", set(RISKS)),
    ("read_file", {"reads_private"}), ("execute_command", set(RISKS)),
    ("google_search", {"untrusted_input", "sends_out"}), ("Agent", set()),
])
def test_builtin_classes(name: str, expected: set[str]) -> None:
    assert classify(Tool(name=name, source="native")) == expected


@pytest.mark.parametrize(("hints", "expected"), [
    ({"openWorldHint": True}, {"untrusted_input", "sends_out"}),
    ({"destructiveHint": True}, {"destructive"}),
    ({"destructiveHint": True, "readOnlyHint": True}, set()),  # read-only wins
    ({"readOnlyHint": True, "openWorldHint": False}, set()),
])
def test_mcp_annotations(hints: dict[str, bool], expected: set[str]) -> None:
    tool = Tool(name="@srv/x", server="srv", remote_name="x", source="mcp:srv",
                annotations=hints)
    assert classify(tool) == expected
    # an MCP tool named like a built-in is classified by its annotations, not its name
    assert classify(tool.model_copy(update={"name": "@srv/Bash", "remote_name": "Bash"})) == (
        expected)


def test_claude_code_example_flags_the_trifecta_with_its_legs(examples: Path) -> None:
    risk = tk.load(examples / "claude-code").risk()
    assert list(risk.columns) == [*RISKS, "trifecta", "via"]
    assert not risk.loc["code-reviewer", "trifecta"]  # reads only
    generalist = risk.loc["generalist"]  # no tools field: every built-in but Bash
    assert generalist["trifecta"]
    legs = dict(leg.split(": ") for leg in generalist["via"].split("; "))
    assert {"WebFetch", "WebSearch"} <= set(legs["untrusted_input"].split(", "))
    assert {"Glob", "Grep", "Read"} <= set(legs["reads_private"].split(", "))
    assert "Bash" not in generalist["via"]
    assert risk.loc["debugger", "trifecta"]  # Bash alone is all four


def test_check_warns_about_each_trifecta_agent_at_its_file(examples: Path) -> None:
    problems, ok = check_project(str(examples / "claude-code"))
    assert ok
    trifecta = [p for p in problems if "lethal trifecta" in p.message]
    assert {(p.file, p.severity) for p in trifecta} == {
        (".claude/agents/generalist.md", "warning"), (".claude/agents/debugger.md", "warning")}
    assert all(p.line == 2 for p in trifecta)


def test_overrides_by_tool_glob_and_server(write: Write) -> None:
    root = write({
        ".mcp.json": json.dumps({"mcpServers": {"crm": {"command": "crm-server"}}}),
        "tools.yaml": "tool:\n  lookup: {}\n  notes_read: {}\n  notes_send: {}\n",
        "agents/a.md": "---\nname: a\ntools: ['*']\n---\n",
    })
    proj = tk.load(root)
    assert not proj.risk().loc["a", "reads_private"]
    risk = proj.risk(overrides={"lookup": ["reads_private"], "notes_*": ["untrusted_input"],
                                "notes_send": ["sends_out"]})
    row = risk.loc["a"]
    assert row["trifecta"] and not row["destructive"]
    assert row["via"] == ("reads_private: lookup; untrusted_input: notes_read; "
                          "sends_out: notes_send")
    with pytest.raises(tk.DefinitionError, match="unknown class"):
        proj.risk(overrides={"lookup": ["secret"]})
    tools = tool_risk_frame(proj, {"lookup": ["reads_private"]})
    assert tools.loc["lookup", "risk"] == "reads_private"


def test_sub_agents_are_followed_but_never_widen_the_parent(write: Write) -> None:
    """A sub-agent holds at most its parent's tools (the ceiling, SPEC section 4 step 5)."""
    root = write({
        "toolkit.yaml": "preset: claude-code\n",
        "tools.yaml": "tool:\n  Read: {type: native}\n  WebFetch: {type: native}\n"
                      "  Task: {type: native}\n",
        ".claude/agents/lead.md": "---\nname: lead\ndescription: d\ntools: Read, Task\n---\n",
        ".claude/agents/web.md": "---\nname: web\ndescription: d\ntools: WebFetch\n---\n",
    })
    risk = tk.load(root).risk()
    assert not risk.loc["lead", "trifecta"]  # web's WebFetch is outside lead's ceiling
    assert risk.loc["web", "untrusted_input"] and not risk.loc["web", "reads_private"]


def test_tool_view_and_html(examples: Path) -> None:
    from toolkit.render.reports import risk_html

    proj = tk.load(examples / "adh-cli")
    html = risk_html(proj.risk())
    assert "lethal trifecta" in html and "<script" not in html
