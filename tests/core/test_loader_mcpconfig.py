"""MCP server configs read one by one as their applications read them, and the other JSON/YAML
of a repository left alone quietly (SPEC section 3, "Real layouts" and the MCP config row).

Shapes reproduced: emergent-company/emergent.memory's ``.vscode/mcp.json`` (JSON with
comments, commented-out servers, a trailing comma, a server name with a space, stdio
entries with and without ``type``, ``http`` and ``sse`` entries, ``${env:...}`` values)
and its ``.vscode/settings.json`` / ``tasks.json`` and ``.claude/settings.json``
(``enabledPlugins``); VS Code's MCP reference (``inputs`` with ``promptString`` and
``${input:...}``); Claude Code's ``.mcp.json`` (``${VAR:-default}``); the MCP user
quickstart's ``claude_desktop_config.json`` (with ``preferences`` beside ``mcpServers``);
trustgraph's ``specs/websocket/asyncapi.yaml`` (``servers`` with ``host``/``protocol``),
emergent.memory's ``mkdocs.yml`` (``!!python/name`` tags), an oversized generated
``swagger.json`` and trustgraph-templates' ``tiber/*.json`` (``//`` comments).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.systems.load import load_definitions

Write = Callable[..., Path]

VSCODE_MCP = """
{
  "inputs": [
    {"type": "promptString", "id": "gitlab-token", "description": "GitLab token",
     "password": true}
  ],
  "servers": {
    // "figma": {
    //   "type": "http",
    //   "url": "http://127.0.0.1:3845/mcp"
    // },
    "postgres": {
      "command": "./scripts/mcp-postgres-wrapper.sh",
      "args": []
    },
    "context7": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@upstash/context7-mcp"],
      "env": {
        "CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}"
      }
    },
    "gitlab": {
      "command": "npx",
      "args": ["-y", "@zereight/mcp-gitlab", "--root", "${workspaceFolder}/src"],
      "env": {"GITLAB_PERSONAL_ACCESS_TOKEN": "${input:gitlab-token}",
              "OTHER": "${input:not-declared}", "PLAIN": "${HOME}"}
    },
    "gh_grep": {
      "type": "http",
      "url": "https://mcp.grep.app"
    },
    "react-daisyui Docs": {
      "type": "sse",
      "url": "https://gitmcp.io/daisyui/react-daisyui"
    },
    /* a block comment */
    "chrome-devtools": {
      "command": "npx",
      "args": ["-y", "chrome-devtools-mcp@latest", "--browserUrl", "http://127.0.0.1:9222"]
    },
    // "kb": {
    //   "url": "${KB_MCP_URL:-https://example.com/api/mcp/rpc}"
    // }
  }
}
"""


def test_vscode_mcp_json_with_comments_inputs_and_variables(write: Write,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setenv("CONTEXT7_API_KEY", "k-123")
    root = write({".vscode/mcp.json": VSCODE_MCP})
    defs = load_definitions(root)
    assert list(defs.servers) == ["postgres", "context7", "gitlab", "gh_grep",
                                  "react-daisyui Docs", "chrome-devtools"]
    s = defs.servers
    assert (s["postgres"].transport, s["postgres"].command) == (
        "stdio", "./scripts/mcp-postgres-wrapper.sh")
    assert s["context7"].env == {"CONTEXT7_API_KEY": "k-123"}  # ${env:...}
    assert s["gitlab"].args[-1] == f"{root}/src"  # ${workspaceFolder}: the folder of .vscode/
    # ${input:...} is VS Code's prompt: kept as written; ${HOME} is not VS Code's syntax
    assert s["gitlab"].env["GITLAB_PERSONAL_ACCESS_TOKEN"] == "${input:gitlab-token}"
    assert s["gitlab"].env["PLAIN"] == "${HOME}"
    assert (s["gh_grep"].transport, s["react-daisyui Docs"].transport) == (
        "streamable-http", "sse")
    assert (s["chrome-devtools"].file, s["chrome-devtools"].line) == (".vscode/mcp.json", 38)
    assert [(p.line, p.severity) for p in defs.problems] == [(27, "warning")]
    assert "not-declared" in defs.problems[0].message


def test_claude_code_mcp_json_expands_its_variables(write: Write,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KB_MCP_URL", raising=False)
    monkeypatch.setenv("KB_TOKEN", "t")
    defs = load_definitions(write({".mcp.json": json.dumps({"mcpServers": {
        "kb": {"type": "http", "url": "${KB_MCP_URL:-https://example.com/mcp}",
               "headers": {"Authorization": "Bearer ${KB_TOKEN}"}}}}, indent=2)}))
    assert defs.servers["kb"].url == "https://example.com/mcp"
    assert defs.servers["kb"].headers == {"Authorization": "Bearer t"}


def test_claude_desktop_config_loads_beside_other_settings(write: Write) -> None:
    defs = load_definitions(write({"claude_desktop_config.json": json.dumps({
        "mcpServers": {"filesystem": {"command": "npx", "args": [
            "-y", "@modelcontextprotocol/server-filesystem", "/Users/you/projects"],
            "env": {"KEY": "value"}}},
        "preferences": {"quickEntryShortcut": "off"}, "globalShortcut": ""}, indent=2)}))
    assert defs.servers["filesystem"].args[-1] == "/Users/you/projects"
    assert defs.problems == []


def test_each_config_loads_on_its_own(write: Write) -> None:
    root = write({".vscode/mcp.json": VSCODE_MCP,
                  ".mcp.json": '{"mcpServers": {"a": {"command": "x"}}}',
                  "claude_desktop_config.json": '{"mcpServers": {"b": {"command": "y"}}}'})
    assert set(load_definitions(root / ".mcp.json").servers) == {"a"}
    assert set(load_definitions(root / "claude_desktop_config.json").servers) == {"b"}
    assert "gh_grep" in load_definitions(root / ".vscode" / "mcp.json").servers


# Files a repository holds that are no definitions: none is read, none is warned about.
UNRELATED = {
    # emergent.memory's .vscode/settings.json, JSON with comments as VS Code writes it
    ".vscode/settings.json": '{\n  // formatter\n  "djlint.showInstallError": false,\n'
                             '  "[sql]": {"editor.formatOnSave": false},\n}\n',
    ".vscode/tasks.json": '{\n\t"version": "2.0.0",\n\t"tasks": [{"label": "Typecheck",'
                          ' "type": "shell", "command": "npm run build"}]\n}\n',
    ".vscode/launch.json": '{\n  "version": "0.2.0",\n  "configurations": []\n}\n',
    # Claude Code's settings: read by the permission engine, never as an MCP config or agent
    ".claude/settings.json": json.dumps({
        "enabledPlugins": {"context7@claude-plugins-official": True},
        "permissions": {"allow": ["Bash(npm test:*)"]},
        "enabledMcpjsonServers": ["kb"]}, indent=2),
    "specs/websocket/asyncapi.yaml": (
        "asyncapi: 3.0.0\ninfo:\n  title: API\n  version: '1'\nservers:\n  production:\n"
        "    host: example.com\n    protocol: wss\n    url: wss://example.com/api\n"),
    "mkdocs.yml": ("site_name: Docs\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
                   "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"),
    "tiber/config-VM-SPR-SML.json": '// Machine has 8 CPUs\n\n[\n  {"name": "store", '
                                    '"parameters": {"tools": []}}\n]\n',
    "docs/swagger/swagger.json": '{"swagger": "2.0", "x": "' + "y" * 1_000_001 + '"}',
    "schemas/mcp-servers.schema.json": json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {"servers": {"type": "object"}}}),
}


def test_unrelated_json_and_yaml_are_ignored_quietly(write: Write) -> None:
    root = write({".mcp.json": '{"mcpServers": {"kb": {"command": "kb-server"}}}',
                  "tools.yaml": "tool:\n  read: {}\n", **UNRELATED})
    defs = load_definitions(root)
    assert defs.problems == []
    assert set(defs.servers) == {"kb"} and defs.agents == {} and "read" in defs.tools


def test_a_broken_definition_file_is_still_reported(write: Write) -> None:
    """Skipping unreadable files quietly stops where a format's top-level key shows."""
    root = write({"tools.yaml": "tool:\n  read: {}\n  write: [a, b\n",
                  "servers.json": '{\n  "mcpServers": {"a": {"command": "x"},}\n}\n', **UNRELATED})
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(root)
    assert sorted((p.file, p.line) for p in exc.value.problems) == [
        ("servers.json", 2), ("tools.yaml", 4)]
