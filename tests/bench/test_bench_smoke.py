"""Smoke test of the benchmark harness: every figure at a tiny size, no timing asserted.

The peer-venv comparisons (openai-agents, langchain-mcp-adapters, fastmcp) are
left out: creating their venvs needs minutes of network. Every harness
function still runs with toolmatrix's side, and the results table is written.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench import calls, fanout, imports, permissions, resolution, runtimes
from bench import replay as replay_bench
from bench.gen import contexts, generate
from bench.run import main, table


def test_naive_loop_agrees_with_the_matrix(tmp_path: Path) -> None:
    """The fnmatch comparison computes the same allowed pairs as toolkit."""
    import toolkit as tk

    gen = generate(tmp_path / "p", n_agents=12, n_tools=120)
    proj = tk.load(gen.root)
    groups, state = resolution.ONE_CONTEXT
    assert resolution.ours_context(proj, groups, state) == resolution.naive_context(
        gen, groups, state)
    expanded = resolution.expanded(proj, groups, state)
    assert set(expanded) == set(proj.agents)


def test_resolution_rows(tmp_path: Path) -> None:
    """Figures 1 and 2 at a tiny size produce their rows with values."""
    scale = resolution.Scale(agents=10, tools=100, contexts=4, repeat=1, naive_repeat=1,
                             new_tools=10)
    rows = resolution.measure(scale, peers=False, workdir=tmp_path)
    assert [r.figure.split(" ", 1)[0] for r in rows] == ["1.", "1a.", "1c.", "2."]
    assert all(r.ours > 0 for r in rows)
    assert len(contexts(4)[0]) * len(contexts(4)[1]) == 4


@pytest.mark.slow
def test_fanout_and_calls_rows() -> None:
    """Figures 3 and 4 against real stdio servers, tiny."""
    rows = fanout.measure(2, 1, peers=False)
    assert rows[0].peers["toolkit sequential"] > 0
    rows = calls.measure(10, 1)
    assert len(rows) == 2
    assert all(r.ours > 0 and r.peers["raw mcp call_tool"] > 0 for r in rows)


def test_import_rows() -> None:
    """Figure 5: import toolkit is measured; the load_ext row is a value or says n/a."""
    rows = imports.measure(1)
    assert rows[0].ours > 0
    assert rows[1].ours > 0 or (math.isnan(rows[1].ours) and "n/a" in rows[1].note)
    assert "| figure |" in table(rows)


def test_command_writes_results(tmp_path: Path) -> None:
    """``python -m bench --quick --no-peers`` writes the results file."""
    out = tmp_path / "RESULTS.md"
    assert main(["--quick", "--no-peers", "--only", "5", "--out", str(out)]) == 0
    text = out.read_text()
    assert "Machine:" in text and "| 5." in text


def test_permission_rows(tmp_path: Path) -> None:
    """Figure 6: check_call against ~250 rules is measured (and decided right) at a tiny size."""
    rows = permissions.measure(5, workdir=tmp_path)
    assert [r.figure.split(" ", 1)[0] for r in rows] == ["6.", "6b."]
    assert all(r.ours > 0 for r in rows) and "250 rules" in rows[0].note


def test_runtime_check_call_rows(tmp_path: Path) -> None:
    """Figure 9: check_call against 250 rules of each runtime (Claude Code, Gemini CLI, Codex)
    is measured, each decision checked first (allowed, three parts), at a tiny size."""
    rows = runtimes.measure(3, workdir=tmp_path)
    assert [r.figure.split(" ", 1)[0] for r in rows] == ["9.", "9a.", "9b.", "9c.", "9d.", "9e."]
    assert all(r.ours > 0 for r in rows)
    assert all(f"{runtimes.N_RULES} " in r.figure for r in rows[:3])


def test_replay_rows(tmp_path: Path) -> None:
    """Figure 7: tk.replay of a generated log is measured (in a fresh interpreter), tiny."""
    rows = replay_bench.measure(replay_bench.Scale(calls=3000, agents=4, tools=100, repeat=1,
                                                   transcript_calls=100), workdir=tmp_path)
    assert [r.figure.split(" ", 1)[0] for r in rows] == ["7.", "7b."]
    assert all(r.ours > 0 for r in rows) and "3,000 logged calls" in rows[0].figure


def test_notebook_view_static_size() -> None:
    """Figure 8c at a tiny size: the static fallback of an explorer is measured."""
    from bench import notebook_view

    size, html = notebook_view.static_size(20, 200)
    assert 0 < html < size < 1_000_000


def test_analysis_rows(tmp_path: Path) -> None:
    """Figure 10 (lint and probes of a generated settings file) at a tiny size."""
    from bench import analysis

    assert sum(len(v) for v in analysis.settings()["permissions"].values()) == 600
    rows = analysis.measure(1, 40, workdir=tmp_path)
    assert [r.figure.split(" ", 1)[0] for r in rows] == ["10.", "10b."]
    assert all(r.ours > 0 for r in rows)
