"""mux configs written with the Go struct's field names (SPEC section 3, "Real layouts").

mux (2389-research/mux, commit 7476edff) builds agents in Go: ``agent/config.go``'s
``Config{Name, AllowedTools, DeniedTools, Registry, LLMClient, SystemPrompt,
ApprovalFunc, MaxIterations, HookManager}`` and ``agent/presets.go``'s ``Preset{Name,
SystemPrompt, AllowedTools, DeniedTools, MaxIterations}`` (``ExplorerPreset``: read tools,
MaxIterations 20). The structs have no tags, so the fixtures write them as
``encoding/json`` would read them: Go field names, matched ignoring case.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]

REGISTRY = """
tool:
  read_file: {}
  read: {}
  glob: {}
  grep: {}
  search: {}
  list_files: {}
  list_directory: {}
  ls: {}
  write_file: {}
  bash: {}
"""

# agent/presets.go ExplorerPreset, as YAML with the Go field names.
EXPLORER = """
Name: explorer
SystemPrompt: You are an explorer. Read and search; never modify.
AllowedTools: [read_file, read, glob, grep, search, list_files, list_directory, ls]
MaxIterations: 20
"""

# agent.Config as encoding/json would dump it (func and pointer fields null), one key
# spelt in lowerCamel (encoding/json matches field names ignoring case).
CODER_JSON = """{
  "Name": "coder",
  "allowedTools": ["read_file", "write_file", "bash"],
  "DeniedTools": ["bash"],
  "Registry": null,
  "LLMClient": null,
  "SystemPrompt": "Write code.",
  "ApprovalFunc": null,
  "MaxIterations": 0,
  "HookManager": null
}
"""


@pytest.fixture
def proj(write: Write) -> tk.Project:
    return tk.load(write({"toolkit.yaml": "preset: mux\n", "tools.yaml": REGISTRY,
                          "agents/explorer.yaml": EXPLORER, "agents/coder.json": CODER_JSON}))


def test_go_field_names_load(proj: tk.Project) -> None:
    explorer = proj.agents["explorer"]
    assert explorer.format == "mux" and explorer.system_prompt.startswith("You are an explorer")
    assert set(proj.resolve("explorer").allowed) == {
        "read_file", "read", "glob", "grep", "search", "list_files", "list_directory", "ls"}
    assert set(proj.resolve("coder").allowed) == {"read_file", "write_file"}  # deny wins
    assert proj.explain("coder", "bash").rule.line == 4


def test_fields_that_do_not_concern_tools_are_kept_and_ignored(proj: tk.Project) -> None:
    assert proj.agents["explorer"].metadata == {"MaxIterations": 20}
    assert proj.agents["coder"].metadata == {"MaxIterations": 0, "Registry": None,
                                             "LLMClient": None, "ApprovalFunc": None,
                                             "HookManager": None}


def test_snake_case_and_go_names_of_one_field_together_are_an_error(write: Write) -> None:
    root = write({"agents/m.yaml": "Name: m\nallowedTools: [read]\nAllowedTools: [read]\n"})
    with pytest.raises(tk.DefinitionError, match="two spellings of one field") as exc:
        tk.load(root)
    assert exc.value.problems[0].line == 3


def test_a_key_no_struct_has_is_still_an_error(write: Write) -> None:
    root = write({"agents/m.yaml": "Name: m\nAllowedTools: [read]\nMaxIteration: 3\n"})
    with pytest.raises(tk.DefinitionError, match="did you mean 'MaxIterations'") as exc:
        tk.load(root)
    assert exc.value.problems[0].line == 3


def test_a_project_file_naming_only_itself_is_not_a_mux_agent(write: Write) -> None:
    """``name:`` alone is a mux agent (inheriting its tools) only in an agents folder."""
    root = write({"tools.yaml": REGISTRY, "project.yaml": "name: shop\ndescription: Shop\n",
                  "agents/tester.yaml": "name: tester\n"})
    proj = tk.load(root, preset="mux")
    assert set(proj.agents) == {"tester"}
