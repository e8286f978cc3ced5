"""The format table (``toolkit.systems.base.formats``): which row claims which file.

Path rules come before content sniffs; a file no row claims is skipped quietly in a
folder (SPEC section 3: unrelated JSON/YAML) unless it carries a format's key; and a
new format is one loader plus one row.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from toolkit.core.models import Tool
from toolkit.errors import DefinitionError
from toolkit.systems.base.formats import Format, by_data
from toolkit.systems.base.source import SourceFile
from toolkit.systems.load import Definitions, load_definitions
from toolkit.systems.registry import FORMATS

Write = Callable[..., Path]
EXAMPLES = Path(__file__).parents[2] / "toolkit" / "examples"

#: Each shipped example file (path under toolkit/examples) and the row that must read it.
EXPECTED_ROWS = [
    ("*/toolkit.yaml", "toolkit-manifest"),
    ("*/.mcp.json", "mcp-config"),
    ("*/tools.yaml", "trustgraph-tools"),
    ("adh-cli/registry.yaml", "trustgraph-tools"),
    ("adh-cli/agents/*/agent.md", "front-matter-agent"),
    ("claude-code/.claude/agents/*.md", "claude-code-agent"),
    ("emergent/agents/*.md", "front-matter-agent"),
    ("emergent/blueprints/*/agents/*.yaml", "emergent-agent"),
    ("trustgraph/agents/*.md", "front-matter-agent"),
    ("work-agent/agents/*/agent.json", "work-agent"),
    ("work-agent/catalog.json", "work-agent-catalog"),
    ("mux/agents/*.yaml", "mux"),
    ("mux/agents/*.json", "mux"),
    ("gemini-cli/.gemini/settings.json", "gemini-settings"),
    ("README.md", None),  # no front matter: not an agent
]


def _example_files() -> list[Path]:
    return sorted(p for p in EXAMPLES.rglob("*")
                  if p.is_file() and p.suffix in FORMATS.suffixes and "__pycache__" not in p.parts
                  and "demo_server" not in p.parts)


def _expected_row(rel: str) -> str | None:
    for pattern, row in EXPECTED_ROWS:
        if fnmatch.fnmatchcase(rel, pattern):
            return row
    pytest.fail(f"no expected row for example file {rel}; add it to EXPECTED_ROWS")


@pytest.mark.parametrize("path", _example_files(), ids=lambda p: p.relative_to(EXAMPLES).as_posix())
def test_each_shipped_example_file_is_claimed_by_its_row(path: Path) -> None:
    rel = path.relative_to(EXAMPLES).as_posix()
    project = EXAMPLES / rel.split("/")[0] if "/" in rel else EXAMPLES
    claimed = FORMATS.claim(SourceFile.at(path, project))
    assert (claimed.name if claimed else None) == _expected_row(rel)


def test_every_row_but_the_group_map_has_a_shipped_example() -> None:
    claimed = {row.name for p in _example_files()
               if (row := FORMATS.claim(SourceFile.at(p, EXAMPLES))) is not None}
    # work-agent's real .work-agent/ layout (tools/<id>/tool.json, and its own data files,
    # which are not read) is exercised by tests/core/test_workagent_layout.py's fixtures; the
    # shipped work-agent example keeps the spec's agent.json + catalog.json shape.
    # Claude Code's non-agent markdown (commands, skills, CLAUDE.md) and plugin layouts are
    # exercised by tests/core/test_claude_code_layout.py.
    # The runtimes' own permission files (VS Code, OpenCode, Cursor) are exercised by
    # tests/systems/<runtime>/ over real repositories' files (tests/fixtures/<runtime>/).
    assert {f.name for f in FORMATS.formats} - claimed == {"group-map", "work-agent-tool",
                                                           "work-agent-data",
                                                           "claude-code-markdown",
                                                           "vscode-settings", "opencode-agent",
                                                           "opencode-config",
                                                           "cursor-permissions"}


# Unrelated files as real repositories hold them: an npm package manifest, a VS Code
# launch configuration and workspace settings, a JSON Schema (shaped like the ones
# published for agent configs: "tools" only under "properties") and a Compose file.
UNRELATED = {
    "package.json": json.dumps({
        "name": "@acme/agents", "version": "1.4.0", "private": True,
        "scripts": {"test": "vitest run", "build": "tsc -p ."},
        "dependencies": {"@modelcontextprotocol/sdk": "^1.0.0"},
        "devDependencies": {"typescript": "^5.4.0"}}, indent=2),
    ".vscode/launch.json": json.dumps({
        "version": "0.2.0",
        "configurations": [{"type": "debugpy", "request": "launch", "name": "Python: Current File",
                            "program": "${file}", "console": "integratedTerminal"}]}, indent=2),
    ".vscode/settings.json": json.dumps({
        "editor.formatOnSave": True, "python.defaultInterpreterPath": ".venv/bin/python"},
        indent=2),
    "schemas/agent.schema.json": json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/agent.schema.json", "title": "Agent", "type": "object",
        "properties": {"name": {"type": "string"},
                       "tools": {"type": "array", "items": {"type": "string"}}},
        "required": ["name"]}, indent=2),
    "docker-compose.yml": "services:\n  web:\n    image: nginx:1.27\n    ports: ['8080:80']\n",
}


def test_unrelated_json_and_yaml_are_claimed_by_no_row_and_skipped_quietly(write: Write) -> None:
    root = write({"tools.yaml": "tool:\n  read: {}\n",
                  "agents/a.md": "---\nname: a\ntools: [read]\n---\n", **UNRELATED})
    for name in UNRELATED:
        assert FORMATS.claim(SourceFile.at(root / name, root)) is None, name
    defs = load_definitions(root)
    assert defs.problems == []
    assert set(defs.agents) == {"a"} and set(defs.tools) == {"read"}


def test_an_unrelated_file_given_alone_is_a_definition_error(write: Write) -> None:
    root = write(UNRELATED)
    with pytest.raises(DefinitionError, match="not a recognised definition file") as exc:
        load_definitions(root / "package.json")
    assert (exc.value.file, exc.value.line) == ("package.json", 1)


def test_a_near_miss_is_a_warning_at_its_key(write: Write) -> None:
    """A file with a format's key in the wrong shape is not skipped silently."""
    root = write({"tools.yaml": "# registry\ntool: [read, write]\n",
                  "agents/coder.yaml": "name: coder\nALLOWED_TOOLS_LIST: [x]\nAllowed-Tools: 3\n"})
    defs = load_definitions(root)
    warnings = sorted((p.file, p.line, p.message) for p in defs.problems)
    assert [p.severity for p in defs.problems] == ["warning", "warning"]
    assert warnings[0][:2] == ("agents/coder.yaml", 3) and "'Allowed-Tools'" in warnings[0][2]
    assert "mux agent config" in warnings[0][2]
    assert warnings[1][:2] == ("tools.yaml", 2) and "'tool' suggests a tool: map" in warnings[1][2]


def test_a_path_rule_beats_content(write: Write) -> None:
    """``.mcp.json`` is an MCP config by its name: a tool map in it is an error, not a registry."""
    root = write({".mcp.json": '{\n  "tool": {"read": {}}\n}\n'})
    source = SourceFile.at(root / ".mcp.json", root)
    assert FORMATS["trustgraph-tools"].claims_content(source)
    assert FORMATS.claim(source) is FORMATS["mcp-config"]
    with pytest.raises(DefinitionError, match="'mcpServers' or 'servers' mapping"):
        load_definitions(root / ".mcp.json")


def _load_tool_json(file: SourceFile, defs: Definitions) -> None:
    """A throwaway loader: one ``{"id": ..., "description": ...}`` tool per file."""
    src = file.located
    defs.add_tool(Tool(name=src.data["id"], description=src.data.get("description", ""),
                       file=src.file, line=src.line(("id",))))


def _load_tool_list(file: SourceFile, defs: Definitions) -> None:
    """A throwaway loader: ``{"toolList": [names]}``."""
    src = file.located
    for i, name in enumerate(src.data["toolList"]):
        defs.add_tool(Tool(name=name, file=src.file, line=src.line(("toolList", i))))


def test_registering_a_row_makes_a_new_format_load(write: Write) -> None:
    # A layout the table does not know yet (shaped like work-agent's tool folders, which the
    # table now knows: so a made-up .toolbox/), holding a "tools" key that the work-agent row
    # would otherwise warn about, and a content format.
    root = write({
        ".toolbox/tools/search/tool.json": '{\n  "id": "search",\n  "tools": 1\n}\n',
        "lists/extra.json": '{\n  "toolList": ["fetch", "summarize"]\n}\n',
    })
    before = load_definitions(root)
    assert before.tools == {}
    assert [p.file for p in before.problems] == []  # .toolbox is not even walked yet

    formats = FORMATS.copy()
    formats.register(Format("tool-json", _load_tool_json, paths=(".toolbox/tools/*/tool.json",)))
    formats.register(Format("tool-list", _load_tool_list, sniff=by_data(
        lambda data: isinstance(data, dict) and isinstance(data.get("toolList"), list))),
        before="group-map")
    defs = load_definitions(root, formats=formats)
    assert set(defs.tools) == {"search", "fetch", "summarize"}
    assert (defs.tools["search"].file, defs.tools["search"].line) == (
        ".toolbox/tools/search/tool.json", 2)
    assert defs.tools["summarize"].line == 2
    assert defs.problems == []
    # a new row goes before the broad fallback rows (group-map), which stay last
    assert [f.name for f in formats.formats][-3:] == ["tool-json", "tool-list", "group-map"]
    assert "tool-json" not in {f.name for f in FORMATS.formats}  # the shipped table is untouched


def test_a_row_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match="already registered"):
        FORMATS.copy().register(Format("mux", _load_tool_list))
