"""adh-cli's ``agents/<name>/agent.md`` read as adh-cli's ``AgentLoader`` reads it (SPEC
section 3, "Real layouts"): a file without front matter is an agent named after its
folder, with no description and no tools. The fixture reproduces the shape of
allenhutchison/adh-cli (``adh_cli/agents/<name>/agent.md``; its loader test
``test_load_agent_no_frontmatter``); no file was copied."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]

PLAIN = """\
# System Prompt

You summarise pull requests. You have no tools.
"""
TESTER = """\
---
name: tester
description: Build and test automation specialist
model: gemini-flash-latest
tools:
  - read_file
  - execute_command
---

# System Prompt

Run the checks.
"""


def test_an_agent_md_without_front_matter_is_named_after_its_folder(write: Write) -> None:
    root = write({"registry.yaml": "tool:\n  read_file: {}\n  execute_command: {}\n",
                  "adh_cli/agents/summariser/agent.md": PLAIN,
                  "adh_cli/agents/tester/agent.md": TESTER})
    proj = tk.load(root, preset="adh-cli")
    plain = proj.agents["summariser"]
    assert (plain.description, plain.allow, plain.format, plain.line) == ("", (), "adh-cli", 1)
    assert plain.file == "adh_cli/agents/summariser/agent.md"
    assert "You summarise pull requests" in plain.system_prompt
    assert proj.resolve("summariser").allowed == set()
    assert proj.resolve("tester").allowed == {"read_file", "execute_command"}
    assert proj.warnings == []


def test_an_agent_md_given_alone_loads_too(write: Write) -> None:
    root = write({"agents/plain/agent.md": PLAIN})
    proj = tk.load(root / "agents" / "plain" / "agent.md", preset="adh-cli")
    assert set(proj.agents) == {"plain"}


def test_other_markdown_without_front_matter_is_still_not_an_agent(write: Write) -> None:
    root = write({"agents/plain/agent.md": PLAIN, "agents/README.md": "# Agents\n"})
    assert set(tk.load(root).agents) == {"plain"}
    with pytest.raises(tk.DefinitionError, match="not a recognised definition file"):
        tk.load(root / "agents" / "README.md")


def test_invalid_front_matter_in_agent_md_stays_an_error(write: Write) -> None:
    """adh-cli: yaml.safe_load with no retry; a YAMLError is 'Invalid YAML frontmatter'."""
    root = write({"agents/a/agent.md": "---\nname: a\ndescription: Use when: asked\n---\n"})
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(root, preset="adh-cli")
    assert (exc.value.file, exc.value.line) == ("agents/a/agent.md", 3)
