"""The matrix agrees with explain cell by cell, and has the documented shape."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk

EXAMPLES = ["trustgraph", "emergent", "work-agent", "adh-cli", "mux", "claude-code"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_matrix_agrees_with_explain_for_every_cell(examples: Path, example: str) -> None:
    proj = tk.load(examples / example)
    group_sets = [["default"], ["*"], ["read-only", "knowledge"], []]
    states = ["undefined", "analysis", "results"]
    table = proj.matrix(groups=group_sets, states=states)
    reasons = proj.reasons(groups=group_sets, states=states)
    for agent in proj.agents:
        for groups in group_sets:
            label = ",".join(groups) if groups else "(none)"
            for state in states:
                for tool in proj.tools:
                    d = proj.explain(agent, tool, groups=groups, state=state)
                    assert table.loc[tool, (agent, label, state)] == d.allowed, (agent, tool)
                    expected = "implicit" if d.reason == "allow" and not d.allowed else d.reason
                    assert reasons.loc[tool, (agent, label, state)] == expected


def test_single_context_has_agent_columns_only(examples: Path) -> None:
    proj = tk.load(examples / "mux")
    table = proj.matrix()
    assert list(table.columns) == list(proj.agents)
    assert table.columns.name == "agent" and table.index.name == "tool"
    assert table.dtypes.unique().tolist() == [bool]
    assert set(table.index) == set(proj.tools)


def test_matrix_levels_for_groups_states_presets(examples: Path) -> None:
    proj = tk.load(examples / "trustgraph")
    table = proj.matrix(groups=[["*"], ["admin"]], states=["analysis", "results"],
                        presets=["trustgraph", "mux"])
    assert isinstance(table.columns, pd.MultiIndex)
    assert table.columns.names == ["agent", "groups", "state", "preset"]
    assert table.shape == (5, 1 * 2 * 2 * 2)
    assert table.loc["reset-workflow", ("react-agent", "admin", "results", "trustgraph")]
    assert not table.loc["graph-update", ("react-agent", "admin", "results", "trustgraph")]


def test_groups_argument_forms(examples: Path) -> None:
    proj = tk.load(examples / "trustgraph")
    one = proj.matrix(groups=["read-only", "knowledge"])
    assert set(one.index[one["react-agent"]]) == {"knowledge-query", "text-completion"}
    same = proj.matrix(groups="read-only,knowledge")
    assert one.equals(same)
    none = proj.matrix(groups=[])
    assert not none.to_numpy().any()


def test_matrix_of_unknown_agent_is_clear(examples: Path) -> None:
    with pytest.raises(tk.UnknownAgentError, match="known agents"):
        tk.load(examples / "mux").matrix(agents=["nobody"])
