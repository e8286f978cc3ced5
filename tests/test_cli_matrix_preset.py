"""``toolmatrix matrix --preset X`` loads and resolves under X (issue 13), as ``explain`` does."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from toolkit.cli import main

Write = Callable[..., Path]

# An emergent blueprint agent naming a tool its pool lacks: emergent skips it with a
# warning (shape of emergent.memory's blueprints/multi-agent/agents/web-researcher.yaml).
FILES = {
    "tools.yaml": "tool:\n  graph_query: {}\n  graph_write: {}\n",
    "blueprints/multi-agent/agents/web-researcher.yaml": (
        "name: web-researcher\nflowType: agentic\nmaxSteps: 20\n"
        "tools:\n  - brave_web_search\n  - graph_query\n"),
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_matrix_honours_the_preset(write: Write) -> None:
    root = str(write(FILES))
    code, _out, err = run("matrix", root)  # strict: an unknown name is an error
    assert code == 1 and "brave_web_search" in err
    code, out, err = run("matrix", root, "--preset", "emergent", "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[1:] == ["graph_query,yes", "graph_write,-"]
    code, out, _err = run("matrix", root, "--preset", "emergent", "--preset", "trustgraph",
                          "--format", "csv")
    assert code == 0 and "graph_write,-,-" in out.splitlines()


def test_explain_and_matrix_agree_under_a_preset(write: Write) -> None:
    root = str(write(FILES))
    code, out, err = run("matrix", root, "--preset", "emergent", "--format", "csv")
    assert code == 0, err
    header, *rows = out.splitlines()
    agents = header.split(",")[1:]
    cells = {(tool, agent): mark for tool, *marks in (row.split(",") for row in rows)
             for agent, mark in zip(agents, marks, strict=True)}
    # emergent: the blueprint's known tool is allowed, the other denied, brave_web_search skipped
    assert cells == {("graph_query", "web-researcher"): "yes",
                     ("graph_write", "web-researcher"): "-"}
    for (tool, agent), mark in cells.items():  # explain gives every cell's answer too
        code, out, _ = run("explain", root, agent, tool, "--preset", "emergent")
        if mark == "yes":
            assert code == 0 and out.startswith(f"ALLOW {agent} -> {tool}"), (tool, out)
        else:
            assert code == 3 and out.startswith(f"IMPLICIT-DENY {agent} -> {tool}"), (tool, out)
