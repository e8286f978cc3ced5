"""Issue 20 item 7: a folder inside ``.work-agent/`` loaded on its own reads as work-agent
reads it.

``tk.load("repo/.work-agent/tools")`` gave 0 servers with only a "no definitions found"
warning, although each ``tools/<id>/tool.json`` loaded alone: the path rule
``.work-agent/tools/*/tool.json`` saw only ``<id>/tool.json``. work-agent reads
``.work-agent/tools/<id>/tool.json`` and ``.work-agent/agents/<slug>/agent.json``
(``src-server/domain/config-loader.ts``, ``loadTool(id)`` / ``loadAgent(slug)``), so the
same files load whichever folder of the tree is given. Fixture: tests/fixtures/work-agent-repo
(the real layout of a work-agent repository, see tests/fixtures/README.md).
"""

from __future__ import annotations

from pathlib import Path

import toolkit as tk

REPO = Path(__file__).resolve().parents[2] / "fixtures" / "work-agent-repo"
OWN = REPO / ".work-agent"
# the servers the three tools/<id>/tool.json files of the fixture define (kind: mcp)
TOOL_SERVERS = ["calendar-mcp", "crm-mcp", "stallion-control"]


def test_the_tools_folder_alone_yields_its_servers() -> None:
    proj = tk.load(OWN / "tools")
    assert sorted(proj.server_configs) == TOOL_SERVERS
    assert proj.preset.name == "work-agent"
    assert "inside" in proj.preset_reason and ".work-agent" in proj.preset_reason
    assert [str(w) for w in proj.warnings] == []
    proj.close()


def test_each_tool_json_alone_gives_the_same_server() -> None:
    together = tk.load(OWN / "tools")
    for ident in TOOL_SERVERS:
        alone = tk.load(OWN / "tools" / ident / "tool.json")
        assert list(alone.server_configs) == [ident]
        mine, theirs = alone.server_configs[ident], together.server_configs[ident]
        # the same server; only the file's shown name differs (tool.json, <id>/tool.json)
        assert (mine.transport, mine.command, mine.args, mine.url) == (
            theirs.transport, theirs.command, theirs.args, theirs.url)
        assert theirs.file == f"{ident}/tool.json"
        alone.close()
    together.close()


def test_the_agents_folder_alone_reads_the_agents_not_their_memory() -> None:
    whole = tk.load(REPO)
    proj = tk.load(OWN / "agents")
    assert sorted(proj.agents) == sorted(whole.agents)
    assert "calendar-lookup" in proj.agents
    # agents/calendar-lookup/memory/conversations/conv-0001.json is work-agent's data: it
    # is neither read nor warned about (it has a top-level 'tools' key)
    assert not any("conv-0001" in str(w) for w in proj.warnings)
    proj.close()
    whole.close()


def test_archived_agents_are_not_agents_even_loaded_from_inside() -> None:
    proj = tk.load(OWN / "agents-archive")
    assert dict(proj.agents) == {}
    proj.close()
