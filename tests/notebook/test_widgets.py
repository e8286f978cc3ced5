"""Widgets without a browser: set state, simulate clicks, assert what changed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.notebook import AuditView, MatrixExplorer, ServerPanel, SpawnTree, WorkflowStepper
from toolkit.notebook.widgets.stepper import example_args

EXAMPLES = Path(tk.__file__).parent / "examples"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def trustgraph() -> Iterator[tk.Project]:
    with tk.load(EXAMPLES / "trustgraph") as proj:
        yield proj


def html_of(out: object) -> str:
    return "".join(o.get("data", {}).get("text/html", o.get("text", ""))
                   for o in out.outputs)  # type: ignore[attr-defined]


def test_matrix_explorer_updates_with_pickers_and_explains_clicked_cells(
        trustgraph: tk.Project) -> None:
    ex = MatrixExplorer(trustgraph, groups="read-only; *", states=["undefined", "analysis"])
    assert len(ex.columns) == 4
    assert ex.label("graph-update", 3) == "allow"  # *, analysis
    assert ex.label("graph-update", 2) == "state"  # *, undefined
    assert ex.effect("graph-update", 2) == "implicit-deny"
    ex.grid.selected = [ex.data.tools.index("graph-update"), 2]  # what a click in the grid sends
    assert ex.decision is not None and ex.decision.reason == "state"
    assert "tools.yaml:16" in html_of(ex.explanation)
    ex.states.value = ("results",)
    assert ex.decision is None and ex.explanation.outputs == ()  # the old trace was stale
    assert ex.grid.selected == []
    assert len(ex.columns) == 2 and ex.columns[1]["state"] == "results"
    assert ex.label("reset-workflow", 1) == "allow"
    ex.groups.value = "knowledge,compute"
    assert ex.label("reset-workflow", 0) == "group"
    ex.presets.value = ("trustgraph", "strict")
    assert {c["preset"] for c in ex.columns} == {"trustgraph", "strict"}
    bundle = ex._repr_mimebundle_()
    assert {"text/plain", "text/html", WIDGET_VIEW} <= set(bundle)
    assert "reset-workflow" in bundle["text/html"]


def test_matrix_explorer_always_says_what_the_grid_is_for(trustgraph: tk.Project) -> None:
    ex = MatrixExplorer(trustgraph, groups="read-only", states=["analysis"])
    assert ex.data is not None and ex.data.levels == ["agent"]
    assert ex.data.fixed == {"groups": "read-only", "state": "analysis",
                             "preset": "trustgraph"}
    assert "state <b>analysis</b>" in ex.context.value
    assert "groups <b>read-only</b>" in ex.context.value
    ex.states.value = ("analysis", "results")
    assert ex.data.levels == ["agent", "state"] and ex.grid.levels == ["agent", "state"]
    assert ex.grid.columns == [["react-agent", "analysis"], ["react-agent", "results"]]


def test_matrix_grid_gets_one_byte_per_cell(trustgraph: tk.Project) -> None:
    ex = MatrixExplorer(trustgraph, groups="*", states=["undefined", "analysis"])
    grid = ex.grid
    assert grid.n_rows == len(trustgraph.tools) and grid.n_cols == 2
    assert len(grid.codes) == grid.n_rows * grid.n_cols
    row = grid.tools.index("graph-update")
    code = grid.codes[row * grid.n_cols + 1]  # *, analysis
    assert grid.labels[code] == "allow" and grid.effects[code] == "allow"
    from toolkit.render.decisions import PALETTE

    assert grid.palette[code] == PALETTE[tk.Effect.ALLOW]


def test_matrix_explorer_summaries(trustgraph: tk.Project) -> None:
    ex = MatrixExplorer(trustgraph, groups="read-only")
    counts = ex.effect_counts.loc["react-agent"]
    effects = [trustgraph.explain("react-agent", t, groups=["read-only"]).effect
               for t in trustgraph.tools]
    assert counts["allow"] == effects.count(tk.Effect.ALLOW) == 2
    assert counts["implicit-deny"] == effects.count(tk.Effect.IMPLICIT_DENY)
    reach = ex.tool_reach
    assert reach.loc["knowledge-query", "may call"] == 1
    assert reach.loc["graph-update", "may call"] == 0
    ex.summarise()
    assert "Per agent: tools by effect" in ex.summary.value
    assert "toolkit-heatmap-svg" in ex.summary.value  # the heatmap, inline


def test_matrix_explorer_with_no_agents_or_no_tools(write: object) -> None:
    root = write({"agents/a.md": "---\nname: a\ntools: ['*']\n---\n"})  # type: ignore[operator]
    with tk.load(root) as proj:
        ex = MatrixExplorer(proj)
        assert "no tools to tabulate" in ex.summary.value
        assert "no tools to tabulate" in ex.static_html()
        assert ex.grid.layout.display == "none"
    with tk.load(EXAMPLES / "trustgraph") as proj:
        ex = MatrixExplorer(proj, agents=[])
        assert "No agents chosen" in ex.summary.value


def test_matrix_explorer_shows_errors_in_its_output(trustgraph: tk.Project) -> None:
    ex = MatrixExplorer(trustgraph)
    ex.reporting(lambda: trustgraph.explain("nobody", "x"))()
    assert "UnknownAgentError: unknown agent 'nobody'" in ex.messages.outputs[0]["text"]


def test_stepper_walks_the_trustgraph_workflow(trustgraph: tk.Project) -> None:
    trustgraph.connect(timeout=30)
    session = trustgraph.start("react-agent", groups=["*"])
    st = WorkflowStepper(session, args={"knowledge-query": {"query": "Acme"}})
    assert set(st.buttons) == {"knowledge-query", "text-completion"}
    assert "state undefined" in st.state_label.value
    st.buttons["knowledge-query"].click()
    assert session.state == "analysis" and "state analysis" in st.state_label.value
    assert set(st.buttons) == {"complex-analysis", "graph-update", "reset-workflow",
                               "text-completion"}
    assert "Acme Robotics" in st.result.outputs[0]["data"]["text/plain"]
    assert json.loads(st.arg_boxes["complex-analysis"].value) == {"analysis": "summary",
                                                                  "top_k": 5}
    st.buttons["complex-analysis"].click()
    assert session.state == "results"
    st.arg_boxes["text-completion"].value = "not json"
    st.buttons["text-completion"].click()
    assert "not JSON" in st.messages.outputs[0]["text"]
    st.buttons["reset-workflow"].click()
    assert session.state == "undefined"
    assert [h["to"] for h in st.history] == ["analysis", "results", "undefined"]
    assert "reset-workflow" in st.history_view.value
    assert "results → undefined" in st._repr_mimebundle_()["text/html"] or \
        "results" in st.static_html()


def test_stepper_escapes_untrusted_tool_text(write: object) -> None:
    evil = "<img src=x onerror=alert(1)>"
    root = write({"tools.yaml": f"tool:\n  t1:\n    description: '{evil}'\n",  # type: ignore[operator]
                  "agents/a.md": "---\nname: a\ntools: [t1]\n---\n"})
    with tk.load(root) as proj:
        st = WorkflowStepper(proj.start("a"))
        st.history.append({"tool": evil, "args": {"x": evil}, "from": "a", "to": "b",
                           "outcome": evil})
        st.render()
        assert "<img" not in st.history_view.value and "&lt;img" in st.history_view.value
        assert "<img" not in st.static_html()
        ex = MatrixExplorer(proj)
        ex.grid.selected = [0, 0]
        assert ex.decision is not None and ex.decision.tool == "t1"
        assert "<img src=x" not in ex.static_html()
        assert "<img src=x" not in html_of(ex.explanation)
        assert "<img src=x" not in ex.summary.value


def test_example_args_from_schema() -> None:
    tool = tk.Tool(name="t", input_schema={
        "type": "object", "required": ["q", "n", "mode"],
        "properties": {"q": {"type": "string"}, "n": {"type": "integer"},
                       "mode": {"type": "string", "enum": ["a", "b"]},
                       "limit": {"type": "integer", "default": 10},
                       "opt": {"type": ["string", "null"], "default": None}}})
    assert example_args(tool) == {"q": "", "n": 0, "mode": "a", "limit": 10}


def test_spawn_tree_shows_stripped_coordination_tools() -> None:
    with tk.load(EXAMPLES / "emergent") as proj:
        tree = SpawnTree(proj.start("orchestrator"))
        child = tree.spawn("orchestrator", "orchestrator")
        assert child.depth == 1 and tree.node_picker.value == child.id
        assert "spawn_agents" in child.resolution.stripped
        assert "stripped spawn_agents" in tree.details.outputs[1]["data"]["text/plain"]
        tree.node_picker.value = "orchestrator"
        tree.agent_picker.value = "graph-researcher"
        tree.spawn_button.click()
        assert [n.id for n in tree.nodes()] == ["orchestrator", "orchestrator.orchestrator",
                                                "orchestrator.graph-researcher"]
        assert "orchestrator.graph-researcher" in tree.tree_view.value
        tree.groups_box.value = "no-such-group"
        tree.spawn_button.click()  # narrowing to a group is allowed under '*'
        assert "stripped" in tree.static_text()


def test_spawn_tree_reports_spawn_errors() -> None:
    with tk.load(EXAMPLES / "mux") as proj:
        tree = SpawnTree(proj.start("researcher"))
        tree.agent_picker.value = "coder"  # names write_file, bash: the researcher lacks them
        tree.spawn_button.click()
        assert "SpawnError" in tree.messages.outputs[0]["text"]
        assert [n.id for n in tree.nodes()] == ["researcher"]


def test_server_panel_lights_and_logs(write: object) -> None:
    config = {"mcpServers": {
        "good": {"command": "python", "args": ["-m", "toolkit.examples.demo_server"]},
        "bad": {"command": "python", "args": ["-c", "import sys; sys.stderr.write('boom\\n'); "
                                                    "sys.exit(3)"]}}}
    root = write({".mcp.json": json.dumps(config),  # type: ignore[operator]
                  "agents/a.md": "---\nname: a\ntools: ['@good/*']\n---\n"})
    with tk.load(root) as proj:
        panel = ServerPanel(proj, timeout=20)
        assert panel.lights == {"good": "grey", "bad": "grey"}
        panel.connect_button.click()
        assert panel.lights == {"good": "green", "bad": "red"}
        assert (panel.progress.value, panel.progress.max) == (2, 2)  # each server moved it
        assert panel.progress.layout.display == "none"  # shown while connecting only
        assert panel.logs.titles == ("good", "bad")
        assert "boom" in panel.logs.children[1].value
        assert "tool(s)" in panel.rows.children[0].children[1].value
        panel.ping_button.click()
        assert panel.lights["good"] == "green"
        assert set(panel.ping_results) == {"good"} and panel.ping_results["good"][0] == "green"
        assert " ms" in panel.pinged.value and "ping at " in panel.pinged.value
        proj.close()
        assert "Project closed" in panel.banner.value  # it follows the project
        assert panel.connect_button.disabled and panel.ping_button.disabled
        assert set(panel.lights.values()) == {"grey"}
        assert "●" in panel._repr_mimebundle_()["text/html"]


def test_audit_view_filters(trustgraph: tk.Project) -> None:
    session = trustgraph.start("react-agent", groups=["*"])
    session.spawn("react-agent", groups=["read-only"])
    view = AuditView(trustgraph)
    assert {"resolve", "spawn"} <= set(view.event.options)
    view.event.value = "spawn"
    assert list(view.table["agent_id"]) == ["react-agent.react-agent"]  # type: ignore[index]
    view.event.value = "(all)"
    view.agent.value = "react-agent"
    assert set(view.table["agent_id"]) == {"react-agent"}  # type: ignore[index]
    assert "Audit log" in view._repr_mimebundle_()["text/plain"]


def test_stepper_and_spawn_tree_bound_long_tool_lists(write: object) -> None:
    tools = "".join(f"  t{i:02d}:\n    description: tool {i}\n" for i in range(60))
    root = write({"tools.yaml": f"tool:\n{tools}",  # type: ignore[operator]
                  "agents/a.md": "---\nname: a\ntools: ['*']\n---\n"})
    with tk.load(root) as proj:
        session = proj.start("a", groups=["*"])
        st = WorkflowStepper(session)
        assert len(st.buttons) == 40 and st.filter.layout.display is None
        assert "… and 20 more" in st.tools_box.children[-1].value
        st.filter.value = "t5"
        assert set(st.buttons) == {f"t5{i}" for i in range(10)}
        assert "… and 48 more" in st.static_text()
        tree = SpawnTree(session)
        assert "… and 48 more" in tree.static_text() and "t59" not in tree.static_html()


def _until(check: object, timeout: float = 10.0) -> bool:
    """Poll ``check()`` until true (views refresh from a timer thread); bounded."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def test_views_follow_the_project_and_show_it_closed(trustgraph: tk.Project) -> None:
    session = trustgraph.start("react-agent", groups=["*"])
    audit, tree, stepper = AuditView(trustgraph), SpawnTree(session), WorkflowStepper(session)
    rows = len(audit.table)  # type: ignore[arg-type]
    session.spawn("react-agent", groups=["read-only"])  # from code, not from the widgets
    assert _until(lambda: len(audit.table) > rows)  # type: ignore[arg-type]
    assert _until(lambda: "react-agent.react-agent" in tree.tree_view.value)
    trustgraph.close()
    for view in (tree, stepper):
        assert "Project closed" in view.banner.value  # type: ignore[union-attr]
    assert "trail below is complete" in audit.banner.value  # type: ignore[union-attr]
    assert tree.spawn_button.disabled
    assert all(b.disabled for b in stepper.buttons.values()) and stepper.buttons


def test_audit_view_shows_the_columns_of_the_event_kind(trustgraph: tk.Project) -> None:
    session = trustgraph.start("react-agent", groups=["read-only"])
    with pytest.raises(tk.ToolNotFoundError):
        session.call("graph-update", {})
    view = AuditView(trustgraph)
    view.event.value = "call"
    assert list(view.table.columns) == ["time", "agent_id", "tool", "state", "outcome",  # type: ignore[union-attr]
                                        "effect", "reason"]
    view.event.value = "resolve"
    assert "tool" not in view.table.columns  # type: ignore[union-attr]
    html = html_of(view.output)
    assert "NaN" not in html and "None" not in html


def test_server_panel_per_server_buttons_stale_ping_and_steady_logs(write: object) -> None:
    """Issue 23 item 9: each server has ping / stop / restart; a server that dies loses its
    green ping; the open stderr section stays open across refreshes; repeated stderr lines
    are counted once; disabled buttons are styled as disabled."""
    import os
    import signal

    from tests.support.procs import descendants, wait_dead
    from toolkit.notebook.widgets.servers import collapse_repeats

    config = {"mcpServers": {
        "good": {"command": "python", "args": ["-m", "toolkit.examples.demo_server"]},
        "other": {"command": "python", "args": ["-m", "toolkit.examples.demo_server",
                                                "--tools", "echo"]},
        "bad": {"command": "python", "args": ["-c", "import sys\nfor _ in range(3): "
                                                    "sys.stderr.write('cannot open config\\n')\n"
                                                    "sys.exit(3)"]}}}
    root = write({".mcp.json": json.dumps(config),  # type: ignore[operator]
                  "agents/a.md": "---\nname: a\ntools: ['@good/*']\n---\n"})
    with tk.load(root) as proj:
        panel = ServerPanel(proj, timeout=20)
        assert "button:disabled{opacity:.4" in panel.widget.children[0].value
        panel.connect_button.click()
        assert panel.lights == {"good": "green", "other": "green", "bad": "red"}
        assert panel.logs.children[2].value.strip() == "cannot open config (×3)"
        panel.logs.selected_index = 2
        ping, stop, restart = panel.server_buttons["bad"]
        assert ping.disabled and stop.disabled and not restart.disabled  # bad is not connected
        panel.server_buttons["good"][0].click()  # ping good alone
        assert set(panel.ping_results) == {"good"} and "good" in panel.pinged.value
        # "other" dies: its light turns red and no stale green ping stays beside it
        panel.ping_button.click()
        assert " ms" in panel.pinged.value and "other" in panel.ping_results
        pids = [p for p in descendants() if b"--tools\0echo" in
                Path(f"/proc/{p}/cmdline").read_bytes()]
        assert len(pids) == 1
        os.kill(pids[0], signal.SIGKILL)
        assert wait_dead(pids) == []
        deadline = time.monotonic() + 15
        while proj.servers.loc["other", "state"] == "connected" and time.monotonic() < deadline:
            time.sleep(0.05)
        panel.refresh()
        assert panel.lights["other"] == "red"
        assert "other no longer connected" in panel.pinged.value
        assert panel.logs.selected_index == 2  # the open section did not jump
        # stop and restart one server from its own row
        assert any(proj.pool[n].server == "good" for n in proj.pool)
        panel.server_buttons["good"][1].click()
        assert proj.servers.loc["good", "state"] == "closed" and panel.lights["good"] == "grey"
        assert not any(proj.pool[n].server == "good" for n in proj.pool)
        panel.server_buttons["good"][2].click()
        assert proj.servers.loc["good", "state"] == "connected" and panel.lights["good"] == "green"
        proj.close()
        assert all(b.disabled for row in panel.server_buttons.values() for b in row)
    assert collapse_repeats("a\na\nb\na\n") == "a (×2)\nb\na\n"
