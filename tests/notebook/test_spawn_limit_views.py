"""The spawn tree and %tk spawn show a spawn refused at max_depth (SPEC section 4 step 6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError

import toolkit as tk
from tests.notebook.conftest import TestingShell
from toolkit.notebook import SpawnTree


def test_spawn_tree_shows_a_spawn_refused_at_max_depth(examples: Path) -> None:
    with tk.load(examples / "emergent") as e:
        tree = SpawnTree(e.start("orchestrator"))
        one = tree.spawn("orchestrator", "delegator")
        two = tree.spawn(one.id, "delegator")
        assert tree.node_picker.value == two.id
        assert "cannot spawn (max_depth 2)" in tree.static_text()
        assert "cannot spawn (max_depth 2)" in tree.tree_view.value
        assert "cannot spawn: " in tree.details.outputs[1]["data"]["text/plain"]
        tree.agent_picker.value = "summarizer"
        tree.spawn_button.click()
        shown = tree.messages.outputs[0]["text"]
        assert shown.startswith("SpawnError: 'orchestrator.delegator.delegator' (depth 2) "
                                "cannot spawn 'summarizer': max_depth 2 reached")
        assert len([n for n in tree.nodes()]) == 3  # nothing was spawned
        tree.force_box.value = True  # a host that spawns anyway
        tree.spawn_button.click()
        assert [n.depth for n in tree.nodes()][-1] == 3
        assert tree.messages.outputs[0]["text"].startswith("warning: forced spawn")


def test_tk_spawn_refused_at_max_depth_is_one_line(ip: TestingShell, examples: Path) -> None:
    ip.run_cell(f"%tk load {examples / 'emergent'}")
    ip.run_cell("%tk start orchestrator")
    ip.run_cell("%tk spawn delegator")
    ip.run_cell("%tk spawn delegator")
    with pytest.raises(UsageError, match=r"^'orchestrator\.delegator\.delegator' \(depth 2\) "
                                         r"cannot spawn 'summarizer': max_depth 2 reached[^\n]*$"):
        ip.run_cell("%tk spawn summarizer")
    with pytest.warns(UserWarning, match="forced spawn"):
        child = ip.run_cell("%tk spawn summarizer --force").result
    assert child.depth == 3
