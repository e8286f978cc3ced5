"""Every notebook view shows the effect explain() gives, in the one palette.

For every shipped example and every agent: the matrix explorer's buttons and its
static HTML, a session's HTML (the Resolution table `%tk start` and `%%tk agent`
show), the workflow stepper's buttons and the spawn tree's tool list are checked
cell by cell against ``proj.explain``.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

import toolkit as tk
from tests.notebook.conftest import TestingShell
from tests.notebook.test_matrix_view import cells, html_of
from tests.support.runtimes import RUNTIMES, three_runtimes
from toolkit.notebook import MatrixExplorer, SpawnTree, WorkflowStepper, fleet
from toolkit.notebook.widgets.base import first_names
from toolkit.notebook.widgets.stepper import MAX_BUTTONS
from toolkit.policy import MAIN
from toolkit.render.decisions import MARKS, PALETTE, STYLED_COLUMNS, STYLED_ROWS

EXAMPLES = ["trustgraph", "emergent", "work-agent", "adh-cli", "mux", "claude-code"]


class _Effects(HTMLParser):
    """Every ``data-effect`` in a page, in document order, with the text of the row head."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str]] = []  # (row head, effect)
        self._head = ""
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "code":
            self._in_head = True
        if tag == "span" and "data-effect" in found:
            self.cells.append((self._head, str(found["data-effect"])))

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._in_head = False

    def handle_data(self, data: str) -> None:
        if self._in_head:
            self._head = data


def _effects(html: str) -> list[tuple[str, str]]:
    parser = _Effects()
    parser.feed(html)
    return parser.cells


@pytest.mark.parametrize("example", EXAMPLES)
def test_matrix_explorer_cells_and_static_html_agree_with_explain(examples: Path,
                                                                  example: str) -> None:
    with tk.load(examples / example) as proj:
        explorer = MatrixExplorer(proj, groups="default; *; none", states=list(proj.states))
        grid = explorer.grid
        assert explorer.table is not None
        # the static preview: every cell of the (small) matrix, or its first rows × columns
        preview = fleet.preview_html(explorer.data)  # type: ignore[arg-type]
        shown = _effects(preview)
        rows = min(fleet.PREVIEW_ROWS, grid.n_rows)
        columns = min(fleet.PREVIEW_COLUMNS, grid.n_cols)
        assert len(shown) == rows * columns > 0
        assert preview in explorer.static_html()
        cells = iter(shown)
        for row, tool in enumerate(grid.tools):
            for column, context in enumerate(explorer.columns):
                d = proj.explain(context["agent"], tool, groups=list(context["groups"]),
                                 state=context["state"], preset=context["preset"])
                code = grid.codes[row * grid.n_cols + column]  # what the browser paints
                assert grid.effects[code] == d.effect, (tool, context)
                assert grid.palette[code] == PALETTE[d.effect], (tool, context)
                if row < rows and column < columns:
                    assert next(cells) == (tool, d.effect), (tool, context)


@pytest.mark.parametrize("example", EXAMPLES)
def test_tk_matrix_view_agrees_with_explain(ip: TestingShell, examples: Path,
                                            example: str) -> None:
    """``%tk matrix``'s rich display (issue 23 item 17): each shown cell's colour class and
    mark is the effect explain() gives, and agrees with the frame's True/False."""
    ip.run_cell(f"%tk load {examples / example}")
    proj = ip.user_ns["magics"].project
    states = ",".join(proj.states)
    ip.run_cell(f"m = %tk matrix --groups 'default; *; none' --states {states}")
    table = ip.user_ns["m"]
    shown = cells(html_of(ip, table))
    assert len(shown) == min(STYLED_ROWS, table.shape[0]) * min(STYLED_COLUMNS,
                                                                table.shape[1]) > 0
    names = list(table.columns.names)
    for (row, column), (effect, mark) in shown.items():
        tool, key = table.index[row], table.columns[column]
        context = dict(zip(names, key if isinstance(key, tuple) else (key,), strict=True))
        groups = context.get("groups", "default")
        d = proj.explain(context["agent"], tool,
                         groups=[] if groups == "(none)" else groups.split(","),
                         state=context.get("state"))
        assert (effect, mark) == (d.effect.value, MARKS[d.effect]), (tool, key)
        assert bool(table.iat[row, column]) == d.allowed, (tool, key)


@pytest.mark.parametrize("example", EXAMPLES)
def test_session_html_stepper_and_spawn_tree_agree_with_explain(examples: Path,
                                                                example: str) -> None:
    with tk.load(examples / example) as proj:
        for agent in proj.agents:
            session = proj.start(agent, groups=["*"])
            rows = dict(_effects(session._repr_mimebundle_()["text/html"]))
            assert set(rows) == set(session.pool), agent
            stepper = WorkflowStepper(session)
            for tool in session.pool:
                d = proj.explain(agent, tool, groups=["*"], state=session.state)
                assert rows[tool] == d.effect, (agent, tool)
                # at most MAX_BUTTONS buttons (the filter finds the others), each an allowed tool
                assert (tool in stepper.buttons) == d.allowed or (
                    d.allowed and len(stepper.buttons) == MAX_BUTTONS), (agent, tool)
                if tool in stepper.buttons:
                    assert stepper.buttons[tool].style.button_color == PALETTE[d.effect]
            tree = SpawnTree(session).static_text()
            listed = tree.split(": ", 1)[1].split(";")[0]
            expected = first_names(sorted(t for t in session.pool
                                          if proj.explain(agent, t, groups=["*"]).allowed))
            assert listed == expected, agent  # the first 12 names and how many more
            session.close()


@pytest.mark.parametrize("example", EXAMPLES)
def test_audit_records_of_blocked_calls_carry_explains_effect_and_reason(
        examples: Path, example: str) -> None:
    with tk.load(examples / example) as proj:
        for agent in proj.agents:
            session = proj.start(agent, groups=["read-only"])
            blocked = [t for t in session.pool if t not in session.allowed]
            for tool in blocked:
                with pytest.raises(tk.ToolNotFoundError):
                    session.call(tool, {})
            calls = [e for e in proj.audit_log.events if e["event"] == "call"
                     and e["agent_id"] == session.id]
            assert len(calls) == len(blocked)
            for tool, record in zip(blocked, calls, strict=True):
                d = proj.explain(agent, tool, groups=["read-only"], state=session.state)
                assert record["outcome"] == "blocked"
                assert (record["effect"], record["reason"]) == (d.effect, d.reason), (agent, tool)
            session.close()


@pytest.mark.parametrize("example", EXAMPLES)
def test_explorer_codes_equal_the_reasons_frame(examples: Path, example: str) -> None:
    """The explorer reads the core's codes directly; they are the cells proj.reasons() shows."""
    with tk.load(examples / example) as proj:
        agents, groups = list(proj.agents), [("*",), ("read-only",), ()]
        states, presets = list(proj.states), ["strict", proj.preset.name]
        data = fleet.matrix_data(proj, agents, groups, states, presets)
        frame = fleet.codes_from_frame(proj, agents, groups, states, presets)
        assert data.codes.shape == frame.shape and (data.codes == frame).all()


def test_explorer_codes_follow_a_redefined_agent(examples: Path) -> None:
    """The explorer keeps the last codes while the grants are the same objects; a redefined
    agent (a new grant) is tabulated afresh."""
    with tk.load(examples / "trustgraph") as proj:
        first = fleet.matrix_data(proj, groups=[("*",)], states=["analysis"])
        again = fleet.matrix_data(proj, groups=[("*",)], states=["analysis"])
        assert again.codes is first.codes  # the same grants over the same pool
        row = first.tools.index("graph-update")
        assert first.codes[row, 0] == fleet.CODE_LABELS.index("allow")
        proj.add_agent("---\nname: react-agent\ndisallowedTools: [graph-update]\n---\n",
                       replace=True)
        after = fleet.matrix_data(proj, groups=[("*",)], states=["analysis"])
        assert fleet.CODE_LABELS[after.codes[row, 0]] == "deny"
        assert str(proj.explain("react-agent", "graph-update", groups=["*"],
                                state="analysis").effect) == "explicit-deny"


@pytest.mark.parametrize("example", ["trustgraph", "emergent", "claude-code"])
def test_per_tool_reach_counts_distinct_agents(examples: Path, example: str) -> None:
    """"Per tool: how many agents may call it" counts agents, not agent × context columns:
    an agent counts once when explain() allows the tool in any of the explorer's contexts."""
    with tk.load(examples / example) as proj:
        groups, states = ["*", "default"], list(proj.states)[:2]
        explorer = MatrixExplorer(proj, groups="; ".join(groups), states=states)
        assert len(explorer.columns) == len(proj.agents) * len(groups) * len(states) > 0
        reach = explorer.tool_reach
        for tool in proj.tools:
            decisions = {a: [proj.explain(a, tool, groups=[g], state=s)
                             for g in groups for s in states] for a in proj.agents}
            may = sum(any(d.allowed for d in ds) for ds in decisions.values())
            assert reach.loc[tool, "may call"] == may, tool
            for effect in ("allow", "implicit-deny"):
                having = sum(any(d.effect == effect for d in ds) for ds in decisions.values())
                assert reach.loc[tool, effect] == having, (tool, effect)
        page = fleet.reach_html(explorer.data)  # type: ignore[arg-type]
        assert f"of {len(proj.agents)} agent(s)" in page


def _panel_text(explorer: MatrixExplorer) -> str:
    return "\n".join(o["data"]["text/plain"] for o in explorer.explanation.outputs)


def _panel_html(explorer: MatrixExplorer) -> str:
    return "".join(o["data"]["text/html"] for o in explorer.explanation.outputs)


@pytest.mark.parametrize("example", EXAMPLES)
def test_matrix_explorer_default_is_explains_default(examples: Path, example: str) -> None:
    """With no context arguments, each cell is what proj.explain(agent, tool) says with none;
    the context is named above the grid and the panel shows the call that reproduces it."""
    with tk.load(examples / example) as proj:
        explorer = MatrixExplorer(proj)
        assert explorer.messages.outputs == ()  # no warning about a default nobody asked for
        for column, c in enumerate(explorer.columns):
            for tool in proj.tools:
                plain = proj.explain(c["agent"], tool)
                assert explorer.effect(tool, column) == plain.effect, (c["agent"], tool)
        context = explorer.context.value
        assert "Context:" in context and "the default context" in context
        for level, value in (("groups", "default"), ("state", "undefined"),
                             ("preset", proj.preset.name)):
            assert f"{level} <b>{value}</b>" in context, level
        agent, tool = explorer.columns[0]["agent"], next(iter(proj.tools))
        clicked = explorer.click(tool, 0)
        call = f'proj.explain("{agent}", "{tool}")'
        assert call in _panel_text(explorer)
        assert call.replace('"', "&quot;") in _panel_html(explorer)
        assert (f"groups default · state undefined · preset {proj.preset.name}"
                in _panel_text(explorer))
        again = eval(call, {"proj": proj})  # the panel's call gives the panel's decision
        assert (again.effect, again.reason, again.groups, again.state) == (
            clicked.effect, clicked.reason, clicked.groups, clicked.state)


def test_matrix_explorer_panel_reproduces_a_cell_of_another_context(examples: Path) -> None:
    with tk.load(examples / "trustgraph") as proj:
        explorer = MatrixExplorer(proj, groups="read-only; *", states=["undefined", "analysis"],
                                  presets=["strict", "trustgraph"])
        assert "groups <b>read-only</b> | <b>*</b>" in explorer.context.value
        assert "the default context" not in explorer.context.value
        for column, c in enumerate(explorer.columns):
            clicked = explorer.click("graph-update", column)
            call = _panel_text(explorer).splitlines()[1].removeprefix("reproduce it: ")
            assert call == explorer.explain_call("graph-update", column)
            assert ("preset=" in call) == (c["preset"] != proj.preset.name)
            again = eval(call, {"proj": proj})
            assert (again.effect, again.reason, again.groups, again.state, again.preset) == (
                clicked.effect, clicked.reason, clicked.groups, clicked.state, clicked.preset)


@pytest.mark.parametrize("runtime", ["claude-code", "codex", "gemini-cli"])
def test_matrix_explorer_with_several_runtimes_agrees_with_explain(tmp_path: Path,
                                                                   runtime: str) -> None:
    """A project with Claude Code, Gemini CLI and Codex settings: the explorer offers the
    runtime; every painted cell is ``explain(..., runtime=)``; the runtime is named above the
    grid and in the panel, whose ``proj.explain(...)`` call reproduces the cell."""
    repo, home = three_runtimes(tmp_path)
    with tk.load(repo, home=home, managed=False) as proj:
        explorer = MatrixExplorer(proj, groups="default; *")
        assert explorer.runtime is not None
        assert list(explorer.runtime.options) == list(RUNTIMES)
        assert explorer.runtime.value == proj.default_runtime
        explorer.runtime.value = runtime  # what picking it does
        assert f"runtime <b>{runtime}</b>" in explorer.context.value
        assert [c["agent"] for c in explorer.columns][:2] == [MAIN, MAIN]
        grid = explorer.grid
        for row, tool in enumerate(grid.tools):
            for column, context in enumerate(explorer.columns):
                d = proj.explain(context["agent"], tool, groups=list(context["groups"]),
                                 state=context["state"], preset=context["preset"],
                                 runtime=runtime)
                code = grid.codes[row * grid.n_cols + column]
                assert grid.effects[code] == d.effect, (tool, context)
        for tool in ("Bash", "run_shell_command", "shell", "WebFetch", "web_fetch"):
            for column in range(len(explorer.columns)):
                clicked = explorer.click(tool, column)
                lines = _panel_text(explorer).splitlines()
                assert f"runtime {runtime}" in lines[0]
                call = lines[1].removeprefix("reproduce it: ")
                assert call.endswith(f'runtime="{runtime}")')
                again = eval(call, {"proj": proj})
                assert (again.effect, again.reason, again.rule, again.runtime) == (
                    clicked.effect, clicked.reason, clicked.rule, runtime)
                assert explorer.effect(tool, column) == clicked.effect.value
