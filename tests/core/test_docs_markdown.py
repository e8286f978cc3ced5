"""Documentation pages with front matter are not agents (seen in trustgraph-ai/trustgraph:
~550 docs pages whose front matter is ``title`` / ``nav_order`` / ``parent``, Jekyll-style)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import toolkit as tk

Write = Callable[[dict[str, str]], Path]


def test_docs_pages_beside_agents_are_skipped_quietly(write: Write) -> None:
    root = write({
        "docs/index.md": "---\ntitle: Home\nnav_order: 1\n---\n# Welcome\n",
        "docs/guide/tools.md": "---\nlayout: default\ntitle: Tools\nparent: Guide\n---\n",
        "agents/researcher/agent.md": "---\nname: researcher\ndescription: r\n"
                                      "tools: []\n---\nResearch.\n",
        "notes.md": "---\ntools: []\n---\nAn agent named after its file.\n",
    })
    proj = tk.load(root, preset="adh-cli")
    assert sorted(proj.agents) == ["notes", "researcher"]
    assert not [w for w in proj.warnings if "docs/" in str(w)]


def test_a_front_matter_file_given_alone_is_still_read_as_an_agent(write: Write) -> None:
    root = write({"page.md": "---\ndescription: a helper\n---\nPrompt.\n"})
    proj = tk.load(root / "page.md")
    assert list(proj.agents) == ["page"]
