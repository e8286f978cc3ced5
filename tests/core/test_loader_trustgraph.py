"""TrustGraph tool configuration read as TrustGraph reads it (SPEC section 3, "Real layouts").

Fixtures reproduce the real shapes: trustgraph-ai/trustgraph-templates'
``templates/*/runtime-config/tools.jsonnet`` entries as ``config-composer.jsonnet``
composes them (``tool: {[tool.id]: tool}``: ``id``, ``name``, ``description``, ``type``,
``collection``, ``arguments``); the objects TrustGraph's ``tg-set-tool`` and
``tg-set-mcp-tool`` store (``mcp-tool``, ``group``, ``state``, ``applicable-states``;
``mcp`` entries ``{url, remote-name, auth-token}``), stored as JSON strings and dumped by
``tg-export-workspace-config`` (``{"source_workspace", "source_version", "config"}``);
TrustGraph's validator (``agent/tool_filter.py`` ``validate_tool_config``) and its test
``tests/unit/test_agent/test_tool_filter.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.systems.load import load_definitions

Write = Callable[..., Path]

# The composed runtime config of templates/2.8 (tools.jsonnet), plus an MCP tool as
# tg-set-tool --type mcp-tool --mcp-tool weather ... and tg-set-mcp-tool store them.
COMPOSED = {
    "tool": {
        "knowledge-query": {
            "id": "knowledge-query", "name": "Knowledge query",
            "description": "This tool queries a knowledge base.", "type": "knowledge-query",
            "collection": "default",
            "arguments": [{"name": "question", "type": "string",
                           "description": "A simple natural language question."}]},
        "llm-completion": {
            "id": "llm-completion", "name": "LLM text completion", "type": "text-completion",
            "description": "This tool queries an LLM.",
            "arguments": [{"name": "question", "type": "string", "description": "Q"}]},
        "current-weather": {
            "name": "Current weather", "description": "Weather now", "type": "mcp-tool",
            "mcp-tool": "weather", "group": ["read-only"], "state": "reported",
            "applicable-states": ["undefined"],
            "arguments": [{"name": "city", "type": "string", "description": "City"}]},
    },
    "mcp": {
        "weather": {"url": "http://127.0.0.1:9/mcp", "remote-name": "get_weather",
                    "auth-token": "token-123"},
        "forecast": {"url": "http://127.0.0.1:9/mcp", "auth-token": "token-123"},
    },
}


def test_tools_are_keyed_by_config_id_and_name_is_a_title(write: Write) -> None:
    proj = tk.load(write({"config.json": json.dumps(COMPOSED, indent=2),
                          "toolkit.yaml": "preset: trustgraph\n",
                          "agents/agent.md": "---\nname: agent\n---\n"}))
    assert {"knowledge-query", "llm-completion", "current-weather"} <= set(proj.tools)
    assert proj.tools["llm-completion"].title == "LLM text completion"
    assert "LLM text completion" not in proj.tools
    weather = proj.tools["current-weather"]
    assert (weather.groups, weather.state, weather.available_in_states) == (
        ("read-only",), "reported", ("undefined",))


def test_mcp_tool_field_binds_to_the_mcp_maps_tool(write: Write) -> None:
    defs = load_definitions(write({"config.json": json.dumps(COMPOSED, indent=2)}))
    # one server per URL (named after the first MCP tool id there), Streamable HTTP as
    # TrustGraph's mcp-tool service connects, the auth token as a bearer header
    assert set(defs.servers) == {"weather"}
    server = defs.servers["weather"]
    assert (server.transport, server.url) == ("streamable-http", "http://127.0.0.1:9/mcp")
    assert server.headers == {"Authorization": "Bearer token-123"}
    # bound to the MCP tool's remote-name (default: its id)
    assert defs.tools["current-weather"].mcp_tool_id == "@weather/get_weather"
    assert defs.problems == []
    # another URL (or token) is another server
    other = {**COMPOSED, "mcp": {**COMPOSED["mcp"], "forecast": {"url": "http://h:1/mcp"}}}
    assert set(load_definitions(write({"config.json": json.dumps(other)})).servers) == {
        "weather", "forecast"}


def test_mcp_tool_without_an_mcp_map_names_the_tool_by_id(write: Write) -> None:
    defs = load_definitions(write({"tools.yaml": (
        "tool:\n  lookup:\n    type: mcp-tool\n    mcp-tool: lookup-id\n")}))
    assert defs.tools["lookup"].mcp_tool_id == "lookup-id"


@pytest.mark.parametrize(("entry", "line", "says"), [
    ('group: "read-only"', 3, ("Tool 'group' field must be a list of strings",
                               "tool 'read' group", 'write group: ["read-only"]')),
    ('applicable-states: "undefined"', 3,
     "Tool 'applicable-states' field must be a list of strings"),
    ("available_in_states: analysis", 3, "available_in_states must be a list of strings"),
    ("group: [read-only, 7]", 3, "All group names must be strings"),
    ("applicable-states: [undefined, 1]", 3, "All state names must be strings"),
    ("state: [a]", 3, "Tool 'state' field must be a string"),
    ("state: null", 3, "Tool 'state' field must be a string"),
    ("group: null", 3, "Tool 'group' field must be a list of strings"),
    ("mcp-tool: a\n    mcp_tool_id: a", 4, "keep one spelling"),
])
def test_a_tool_trustgraphs_validator_rejects_is_a_definition_error(write: Write, entry: str,
                                                                    line: int,
                                                                    says: str | tuple[str, ...]
                                                                    ) -> None:
    root = write({"tools.yaml": "tool:\n  read:\n    " + entry + "\n"})
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(root)
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == ("tools.yaml", line)
    for words in (says,) if isinstance(says, str) else says:
        assert words in problem.message, problem.message


def test_what_trustgraph_accepts_loads(write: Write) -> None:
    """Empty names and an unknown ``type`` pass TrustGraph's validator (the type is checked
    only against its implementations, which toolkit does not run); null spec spellings are unset."""
    proj = tk.load(write({"tools.yaml": (
        "tool:\n  read:\n    type: graph-update\n    group: ['']\n"
        "    available_in_states: null\n    collection: default\n")}))
    assert proj.tools["read"].groups == ("",)
    assert proj.tools["read"].available_in_states is None


def test_stored_json_strings_and_export_dumps_load(write: Write) -> None:
    """tg-export-workspace-config: config values as TrustGraph stores them (JSON strings)."""
    stored = {key: json.dumps(value) for key, value in COMPOSED["tool"].items()}
    dump = {"source_workspace": "default", "source_version": 7,
            "config": {"tool": stored,
                       "mcp": {k: json.dumps(v) for k, v in COMPOSED["mcp"].items()},
                       "prompt": {"system": "You are helpful."}}}
    root = write({"workspace.json": json.dumps(dump, indent=2)})
    defs = load_definitions(root)
    assert set(defs.tools) == set(COMPOSED["tool"])
    assert defs.tools["current-weather"].mcp_tool_id == "@weather/get_weather"
    assert defs.tools["current-weather"].line == 8  # the entry's own line
    assert defs.problems == []


def test_a_stored_entry_that_is_not_json_is_located(write: Write) -> None:
    root = write({"workspace.json": '{\n  "config": {\n    "tool": {\n'
                                    '      "kq": "{name: no quotes}"\n    }\n  }\n}\n'})
    with pytest.raises(tk.DefinitionError, match="TrustGraph reads it as JSON") as exc:
        tk.load(root)
    assert (exc.value.problems[0].file, exc.value.problems[0].line) == ("workspace.json", 4)


def test_an_mcp_tool_without_url_is_a_warning(write: Write) -> None:
    defs = load_definitions(write({"tools.yaml": "tool:\n  a: {}\nmcp:\n  broken: {}\n"}))
    assert defs.servers == {}
    assert [(p.line, p.severity) for p in defs.problems] == [(4, "warning")]


def test_a_processor_group_config_is_not_a_group_map(write: Write) -> None:
    """trustgraph's dev-tools/proc-group/group.yaml: processors, not tool groups."""
    root = write({"tools.yaml": "tool:\n  a: {}\n", "dev-tools/proc-group/group.yaml": """
        _defaults: &defaults
          pubsub_backend: rabbitmq
          log_level: INFO

        processors:
          - class: trustgraph.agent.orchestrator.Processor
            params:
              <<: *defaults
              id: agent-manager
    """})
    defs = load_definitions(root)
    assert defs.problems == [] and defs.group_assignments == []
