"""Policy.add_agent: an agent defined at run time is validated like a loaded one."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk

AGENT = "---\nname: helper\ntools: [text-completion]\n---\nHelps.\n"


def test_add_agent_from_markdown_resolves(examples: Path) -> None:
    proj = tk.load(examples / "trustgraph")
    definition = proj.add_agent(AGENT)
    assert definition.name == "helper" and definition.file == "<cell>"
    assert proj.resolve("helper", groups=["*"]).allowed == {"text-completion"}
    assert "helper" in proj.matrix().columns


def test_add_agent_duplicate_needs_replace(examples: Path) -> None:
    proj = tk.load(examples / "trustgraph")
    with pytest.raises(tk.DefinitionError, match="duplicate agent name 'react-agent'"):
        proj.add_agent("---\nname: react-agent\ntools: [text-completion]\n---\n")
    proj.add_agent("---\nname: react-agent\ntools: [text-completion]\n---\n", replace=True)
    assert proj.resolve("react-agent", groups=["*"]).allowed == {"text-completion"}


def test_add_agent_error_changes_nothing(examples: Path) -> None:
    proj = tk.load(examples / "mux")  # mux: an unknown exact name is an error
    before = dict(proj.agents)
    with pytest.raises(tk.DefinitionError) as info:
        proj.add_agent("---\nname: coder\ntools: [no_such_tool]\n---\n", replace=True)
    assert "no_such_tool" in str(info.value)
    assert dict(proj.agents) == before
    assert "read_file" in proj.resolve("coder").allowed


def test_add_agent_without_front_matter_is_a_definition_error(examples: Path) -> None:
    proj = tk.load(examples / "trustgraph")
    with pytest.raises(tk.DefinitionError, match="front matter"):
        proj.add_agent("just a prompt")
