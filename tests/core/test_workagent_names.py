"""work-agent's naming and matching rules, checked against its own functions.

The expected values below were produced by running work-agent's TypeScript with node
(``normalizeToolName`` from ``src-server/utils/tool-name-normalizer.ts`` at commit
5d9394c, the last with ``.work-agent/``; ``matchesToolPattern`` from
``src-server/runtime/mcp-tool-names.ts`` and ``isAutoApproved`` from
``src-server/runtime/tool-approval.ts`` on branch ``feat/codex-convergence``), so the
Python ports are held to what work-agent really does, edge cases included.
"""

from __future__ import annotations

import pytest

from toolkit.systems.work_agent.names import (
    is_auto_approved,
    matches_tool_pattern,
    normalize_tool_name,
    parse_tool_name,
)

NORMALIZED = {  # input -> what node printed for normalizeToolName(input)
    "sat-outlook_calendar_view": "satOutlook_calendarView",
    "stallion-control_list_agents": "stallionControl_listAgents",
    "mcp-server-fetch_fetch": "mcpServerFetch_fetch",
    "my-server_tool_name": "myServer_toolName",
    "my-tool": "myTool",
    "fs.read_file": "fs.read_file",
    "aws.knowledge_search-docs": "aws.knowledge_searchDocs",
    "server_tool_v2": "server_toolV2",
    "server_2fa_code": "server_2faCode",
    "my-2server_x": "my-2server_x",
    "Server-Name_Tool-Name": "Server-Name_Tool-Name",
    "-leading_tool": "Leading_tool",
    "--double_tool": "-Double_tool",
    "trailing-_tool": "trailing-_tool",
    "a__b": "a_B",
    "a_-b": "a_B",
    "a_B_c": "a_BC",
    "_leading": "_leading",
    "snake_case_only": "snake_caseOnly",
    "x-_-y_z-_a": "x-_YZ-A",
    "é-a_b": "éA_b",
    "a-b-c_d-e-f": "aBC_dEF",
    "_": "_",
    "": "",
    "a_": "a_",
    "-": "-",
    "a-_b_c-": "a-_bC-",
}


@pytest.mark.parametrize(("name", "expected"), NORMALIZED.items())
def test_normalize_tool_name_as_work_agent_does(name: str, expected: str) -> None:
    assert normalize_tool_name(name) == expected


def test_parse_tool_name_splits_at_the_first_underscore() -> None:
    assert parse_tool_name("sat-outlook_calendar_view") == ("sat-outlook", "calendar_view")
    # its doc comment says "simple_tool" -> server null; the code returns server "simple"
    assert parse_tool_name("simple_tool") == ("simple", "tool")
    assert parse_tool_name("plain") == (None, "plain")


TOOLS = ["sat-outlook_calendar_view", "stallion-control_add_agent", "files_read_file", "sat_x"]
# (original tool name, pattern, matchesToolPattern, isAutoApproved on either name), from node
MATCHES = [
    ("sat-outlook_calendar_view", "sat-outlook_*", True, True),
    ("sat-outlook_calendar_view", "satOutlook_*", True, True),
    ("sat-outlook_calendar_view", "sat-outlook/*", True, False),
    ("sat-outlook_calendar_view", "satOutlook/*", True, False),
    ("sat-outlook_calendar_view", "sat_*", False, False),
    ("sat-outlook_calendar_view", "sat-*", False, True),
    ("sat-outlook_calendar_view", "*_view", False, True),
    ("sat-outlook_calendar_view", "*", False, True),
    ("sat-outlook_calendar_view", "sat-outlook_calendar_view", True, True),
    ("sat-outlook_calendar_view", "satOutlook_calendarView", True, True),
    ("sat-outlook_calendar_view", "sat-outlook_calendar_*", True, True),
    ("sat-outlook_calendar_view", "satOutlook_calendar*", False, True),
    ("sat-outlook_calendar_view", "sat-outlook_calendar_vie?", False, False),
    ("sat-outlook_calendar_view", "sat-outlook.calendar_view", False, False),
    ("sat-outlook_calendar_view", "*_*", False, True),
    ("stallion-control_add_agent", "stallion-control_add_*", True, True),
    ("stallion-control_add_agent", "stallionControl_add*", False, True),
    ("files_read_file", "files/*", True, False),
    ("files_read_file", "files_*", True, True),
    ("files_read_file", "files_readFile", True, True),
    ("files_read_file", "filesReadFile", False, False),
    ("sat_x", "sat_*", True, True),
]


@pytest.mark.parametrize(("original", "pattern", "matches", "approved"), MATCHES)
def test_patterns_match_as_work_agent_matches_them(original: str, pattern: str, matches: bool,
                                                   approved: bool) -> None:
    normalized = normalize_tool_name(original)
    assert matches_tool_pattern(pattern, normalized, original) is matches
    assert is_auto_approved(pattern, [normalized, original]) is approved
