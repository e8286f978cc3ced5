"""The %tk magics in a real IPython shell whose cell errors raise (like jupysql's TestingShell)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import toolkit as tk
from tests.support.procs import wait_no_descendants
from toolkit.notebook.magic import usage

from .conftest import TestingShell

TG = Path(tk.__file__).parent / "examples" / "trustgraph"


def run(ip: TestingShell, cell: str) -> object:
    return ip.run_cell(cell).result


def test_load_ext_registers_tk(shell_instance: TestingShell) -> None:
    shell_instance.run_cell("%load_ext toolkit")
    assert "tk" in shell_instance.magics_manager.magics["line"]
    assert "tk" in shell_instance.magics_manager.magics["cell"]


def test_load_returns_the_project_and_matrix_a_dataframe(ip: TestingShell) -> None:
    ip.run_cell(f"proj = %tk load {TG}")
    assert isinstance(ip.user_ns["proj"], tk.Project)
    ip.run_cell("x = %tk matrix --groups read-only --groups '*' --states undefined,analysis")
    table = ip.user_ns["x"]
    assert isinstance(table, pd.DataFrame)
    assert not table.loc["graph-update", ("react-agent", "*", "undefined")]
    assert table.loc["graph-update", ("react-agent", "*", "analysis")]
    reasons = run(ip, "%tk matrix --groups knowledge,compute --state results --reasons")
    assert isinstance(reasons, pd.DataFrame)
    assert reasons.loc["reset-workflow", "react-agent"] == "group"


def test_explain_returns_decisions(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    d = run(ip, "%tk explain react-agent graph-update --groups '*' --state undefined")
    assert isinstance(d, tk.Decision)
    assert (d.allowed, d.reason, d.rule.file, d.rule.line) == (False, "state", "tools.yaml", 16)
    both = run(ip, "%tk explain react-agent reset-workflow text-completion --groups knowledge,text")
    assert [x.reason for x in both] == ["group", "allow"]  # type: ignore[attr-defined]
    bundle = both._repr_mimebundle_()  # type: ignore[attr-defined]
    assert "reset-workflow" in bundle["text/html"] and "text-completion" in bundle["text/plain"]


def test_agents_table(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    table = run(ip, "%tk agents")
    assert isinstance(table, pd.DataFrame)
    assert table.loc["react-agent", "file"] == "agents/react-agent.md"


@pytest.mark.parametrize(("cell", "message"), [
    ("%tk matrix", "no project loaded: run %tk load PATH first"),
    ("%tk nope", "unknown subcommand 'nope'"),
    ("%tk", "usage: %tk load PATH"),
    ("%tk load /no/such/folder", "no such file or folder"),
])
def test_user_errors_are_one_line_usage_errors(ip: TestingShell, cell: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        ip.run_cell(cell)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_errors_after_load_fail_the_cell(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    with pytest.raises(UsageError, match="unknown agent 'nobody'; known agents: react-agent"):
        ip.run_cell("%tk explain nobody graph-update")
    with pytest.raises(UsageError, match=r"unrecognized arguments: --bogus \(usage: %tk matrix"):
        ip.run_cell("%tk matrix --bogus")
    with pytest.raises(UsageError, match="no session: run %tk start AGENT first"):
        ip.run_cell("%tk call text-completion")
    with pytest.raises(UsageError, match="cannot parse arguments"):
        ip.run_cell("%tk matrix --groups 'unbalanced")


def test_help_prints_and_returns_nothing(ip: TestingShell, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    assert run(ip, "%tk matrix --help") is None
    assert "--groups" in capsys.readouterr().out


def test_config_sets_traits(ip: TestingShell) -> None:
    ip.run_cell("%config ToolkitMagics.connect_timeout = 7.5")
    assert ip.user_ns["magics"].connect_timeout == 7.5


def test_cell_magic_defines_an_agent_and_rerun_replaces_it(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    cell = "%%tk agent\n---\nname: helper\ntools: [{tools}]\n---\nHelps with text.\n"
    ip.run_cell(cell.format(tools="text-completion"))
    proj = ip.user_ns["magics"].project
    assert proj.resolve("helper", groups=["*"]).allowed == {"text-completion"}
    ip.run_cell(cell.format(tools="text-completion, knowledge-query"))
    assert proj.resolve("helper", groups=["*"]).allowed == {"text-completion", "knowledge-query"}
    with pytest.raises(UsageError, match="duplicate agent name 'react-agent'"):
        ip.run_cell("%%tk agent\n---\nname: react-agent\ntools: [text-completion]\n---\n")
    with pytest.raises(UsageError, match="front matter"):
        ip.run_cell("%%tk agent\nno front matter here\n")
    with pytest.raises(UsageError, match="cell magic"):
        ip.run_cell("%tk agent")


def test_start_call_spawn_audit_with_a_live_server(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    status = run(ip, "%tk connect --timeout 30")
    assert status.loc["trustgraph", "state"] == "connected"  # type: ignore[union-attr]
    ip.run_cell("s = %tk start react-agent --groups '*'")
    session = ip.user_ns["s"]
    assert session.state == "undefined"
    result = run(ip, '%tk call knowledge-query {"query": "Acme"}')
    assert not result.is_error  # type: ignore[attr-defined]
    assert session.state == "analysis"
    with pytest.raises(UsageError, match=r"^tool not found: knowledge-query — blocked for this "
                                         r"session: not available in this state: "
                                         r"state 'analysis' is not in"):
        ip.run_cell("%tk call knowledge-query {}")  # not available in analysis
    with pytest.raises(UsageError, match="arguments must be a JSON object"):
        ip.run_cell("%tk call text-completion [1]")
    child = run(ip, "%tk spawn react-agent --groups read-only")
    assert child.id == "react-agent.react-agent" and child.depth == 1  # type: ignore[attr-defined]
    audit = run(ip, "%tk audit --event call")
    assert list(audit["outcome"]) == ["allowed", "blocked"]  # type: ignore[index]
    log = run(ip, "%tk servers --log trustgraph")
    assert "text/html" in log._repr_mimebundle_()  # type: ignore[attr-defined]
    assert run(ip, "%tk servers").loc["trustgraph", "tools"] == 5  # type: ignore[union-attr]
    ip.user_ns["magics"].close()
    assert wait_no_descendants() == []


def test_explain_several_tools_displays_the_reports(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    both = run(ip, "%tk explain react-agent reset-workflow graph-update --groups '*'")
    data, _ = ip.display_formatter.format(both)
    assert data["text/plain"].startswith("IMPLICIT-DENY react-agent -> reset-workflow")
    assert "IMPLICIT-DENY react-agent -> graph-update" in data["text/plain"]


def test_unload_ext_closes_the_project(shell_instance: TestingShell) -> None:
    shell_instance.run_cell("%load_ext toolkit")
    shell_instance.run_cell(f"%tk load {TG}")
    magics = shell_instance.magics_manager.registry["ToolkitMagics"]
    assert magics.project is not None
    shell_instance.run_cell("%unload_ext toolkit")
    assert magics.project is None


# -- every mistake a user can make is one line, and the cell fails ---------------------------


@pytest.mark.parametrize(("cell", "message"), [
    (f"%tk load {TG} --preset nope",
     "%tk load: argument --preset: unknown preset 'nope'; known presets: strict,"),
    ("%tk matrix --presets nope",
     "%tk matrix: argument --presets/--preset: unknown preset 'nope'; known presets: strict,"),
    ("%tk matrix --preset trustgraph,nope", "unknown preset 'nope'"),
    ("%tk matrix --agents nobody", "unknown agent 'nobody'; known agents: react-agent"),
    ("%tk explain react-agent graph-update --preset nope",
     "%tk explain: argument --preset: unknown preset 'nope'"),
    ("%tk explain react-agent graph-update --session", "no session: run %tk start AGENT first"),
    ("%tk servers --ping nope", "unknown server 'nope'; configured servers: trustgraph"),
    ("%tk servers --log nope", "unknown server 'nope'; configured servers: trustgraph"),
    ("%tk servers --ping trustgraph",
     "server 'trustgraph' is not connected; run %tk connect trustgraph first"),
    ("%tk connect nope", "unknown server(s) ['nope']; configured: ['trustgraph']"),
    ("%tk connect --timeout -1",
     "%tk connect: argument --timeout: must be a positive number of seconds, not '-1'"),
    ("%tk connect --timeout soon", "must be a positive number of seconds, not 'soon'"),
    ("%tk start nobody", "unknown agent 'nobody'; known agents: react-agent"),
    ("%tk start react-agent --user nobody",
     "unknown user 'nobody'; users in the manifest: admin, analyst, user-a, user-b"),
    ("%tk start react-agent --user user-a --groups write",
     "user 'user-a' may not request groups ['write']"),
    ("%tk spawn react-agent", "no session: run %tk start AGENT first"),
    ("%tk call text-completion", "no session: run %tk start AGENT first"),
    ("%tk audit --agent nope", "no session 'nope' in the audit trail; session ids: (none)"),
    ("%tk audit --tail -2", "%tk audit: argument --tail: must be a whole number, 0 or more"),
    ("%tk audit --tail many", "must be a whole number, 0 or more, not 'many'"),
    ("%tk explain", "%tk explain: the following arguments are required: agent, tools"),
    ("%%tk matrix\nbody", "%%tk matrix is not a cell magic; use %tk matrix on one line"),
    ("%%tk agent\n---\nname: y\ntools: 3\n---\n",
     "<cell>:3: tools must be a list of tool names or a comma-separated string, not int"),
])
def test_bad_input_after_load_is_a_one_line_usage_error(ip: TestingShell, cell: str,
                                                        message: str) -> None:
    ip.run_cell(f"%tk load {TG}")
    with pytest.raises(UsageError) as info:
        ip.run_cell(cell)  # the TestingShell raises what would fail the cell
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert "Traceback" not in str(info.value)


@pytest.mark.parametrize(("cell", "message"), [
    ("%tk spawn nobody", "unknown agent 'nobody'; known agents: react-agent"),
    ("%tk spawn react-agent --groups '*'",
     "spawn of 'react-agent' asks for groups ['*'] beyond its parent's ['read-only']"),
    ("%tk spawn react-agent --parent nope", "no session 'nope'; sessions: react-agent"),
    ("%tk call text-completion {bad",
     "%tk call: arguments must be a JSON object: Expecting property name"),
    ("%tk call text-completion [1]", "%tk call: arguments must be a JSON object, not list"),
    ("%tk call text-completion 3", "%tk call: arguments must be a JSON object, not int"),
    ("%tk audit --agent nope",
     "no session 'nope' in the audit trail; session ids: react-agent"),
])
def test_bad_input_in_a_session_is_a_one_line_usage_error(ip: TestingShell, cell: str,
                                                          message: str) -> None:
    ip.run_cell(f"%tk load {TG}")
    ip.run_cell("%tk start react-agent --groups read-only")
    with pytest.raises(UsageError) as info:
        ip.run_cell(cell)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_bad_configured_preset_names_the_config(ip: TestingShell) -> None:
    ip.run_cell("%config ToolkitMagics.preset = 'nope'")
    try:
        with pytest.raises(UsageError) as info:
            ip.run_cell(f"%tk load {TG}")
        assert str(info.value).startswith(
            "%config ToolkitMagics.preset: unknown preset 'nope'; known presets: strict,")
        assert str(info.value).endswith(
            "; set another value with %config ToolkitMagics.preset = ...")
    finally:
        ip.run_cell("%config ToolkitMagics.preset = None")  # the shell's config outlives the test


def test_a_bad_configured_timeout_names_the_config(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    ip.run_cell("%config ToolkitMagics.connect_timeout = -1")
    try:
        with pytest.raises(UsageError) as info:
            ip.run_cell("%tk connect")
        assert str(info.value) == (
            "%config ToolkitMagics.connect_timeout: must be a positive number of seconds, not "
            "'-1.0'; set another value with %config ToolkitMagics.connect_timeout = ...")
    finally:
        ip.run_cell("%config ToolkitMagics.connect_timeout = 30.0")


def test_an_unknown_audit_event_is_a_warning_line(ip: TestingShell,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ip.run_cell(f"%tk load {TG}")
    ip.run_cell("%tk start react-agent")
    capsys.readouterr()
    table = run(ip, "%tk audit --event calls")
    assert isinstance(table, pd.DataFrame) and table.empty
    assert capsys.readouterr().err.startswith(
        "warning: no 'calls' events in the audit trail; events so far: ")


def test_a_failing_cell_stops_run_all(ip: TestingShell) -> None:
    """In a plain shell (no raising) the cell fails too: nbclient and "Run all" stop there."""
    ip.run_cell(f"%tk load {TG}")
    result = InteractiveShell.run_cell(ip, "%tk matrix --presets nope")
    assert not result.success
    assert isinstance(result.error_in_exec, UsageError)


# -- unknown groups and states: a warning line, and the answer -------------------------------


def test_unknown_state_or_group_in_matrix_is_a_warning_line_each_time(
        ip: TestingShell, capsys: pytest.CaptureFixture[str]) -> None:
    ip.run_cell(f"%tk load {TG}")
    capsys.readouterr()
    for _ in range(2):  # Python shows a warning once; the magic says it every time
        table = run(ip, "%tk matrix --states nostate --groups nogroup")
        assert isinstance(table, pd.DataFrame) and not table.any().any()
        err = capsys.readouterr().err.splitlines()
        assert [line.split(" (known:")[0] for line in err] == [
            "warning: requested group 'nogroup' is not a group of any tool",
            "warning: invalid state 'nostate': no tool lists it in state or "
            "available_in_states"]


def test_unknown_state_group_and_tool_in_explain_are_warning_lines(
        ip: TestingShell, capsys: pytest.CaptureFixture[str]) -> None:
    ip.run_cell(f"%tk load {TG}")
    capsys.readouterr()
    found = run(ip, "%tk explain react-agent graph-update reset-workflw --state nostate "
                    "--groups nogroup")
    assert [d.reason for d in found] == ["group", "pool"]  # type: ignore[attr-defined]
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("warning: requested group 'nogroup' is not a group of any tool")
    assert err[1].startswith("warning: invalid state 'nostate'")
    assert err[2] == ("warning: no tool 'reset-workflw' in the project; did you mean: "
                      "reset-workflow?")
    assert len(err) == 3  # once each, not once per tool


def test_unknown_state_at_start_is_a_warning_line(ip: TestingShell,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ip.run_cell(f"%tk load {TG}")
    capsys.readouterr()
    session = run(ip, "%tk start react-agent --state nostate")
    assert session.state == "nostate"  # type: ignore[attr-defined]
    assert capsys.readouterr().err.startswith("warning: invalid state 'nostate'")
    run(ip, "%tk start react-agent --groups '*'")
    assert capsys.readouterr().err == ""  # '*' and the default state are known


def test_none_means_no_groups_in_every_magic(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    for text in ("none", "[]", "''"):
        d = run(ip, f"%tk explain react-agent text-completion --groups {text}")
        assert d.groups == () and d.reason == "group"  # type: ignore[attr-defined]
    table = run(ip, "%tk matrix --groups none --groups 'read-only; *'")
    assert list(table.columns) == [  # type: ignore[attr-defined]
        ("react-agent", "(none)"), ("react-agent", "read-only"), ("react-agent", "*")]
    session = run(ip, "%tk start react-agent --groups none")
    assert session.groups == () and session.allowed == frozenset()  # type: ignore[attr-defined]


# -- %tk call on a tool the session may not call: the person learns why ---------------------


def test_call_of_a_blocked_tool_says_which_step_blocks_it(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    ip.run_cell("%tk start react-agent --groups admin")  # state undefined
    with pytest.raises(UsageError) as info:
        ip.run_cell("%tk call reset-workflow")
    assert str(info.value) == (
        "tool not found: reset-workflow — blocked for this session: not available in this "
        "state: state "
        "'undefined' is not in available_in_states ['analysis', 'results'] (tools.yaml:41) — "
        "%tk explain react-agent reset-workflow --groups 'admin' --state undefined")
    ip.run_cell("%tk start react-agent --groups read-only --state results")
    with pytest.raises(UsageError, match=r"^tool not found: reset-workflow — blocked for this "
                                         r"session: not in the requested groups: "
                                         r"tool groups \['admin'\] "
                                         r"do not meet requested \['read-only'\]"):
        ip.run_cell("%tk call reset-workflow")


def test_call_from_a_child_is_explained_with_its_lineage(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    ip.run_cell("%tk start react-agent --groups read-only")
    ip.run_cell("%tk spawn react-agent")
    with pytest.raises(UsageError) as info:
        ip.run_cell("%tk call reset-workflow")
    assert str(info.value) == (
        "tool not found: reset-workflow — blocked for this session: not among the parent's "
        "tools: parent "
        "'react-agent' does not hold reset-workflow (groups read-only, state undefined)")


def test_call_of_a_misspelt_tool_names_the_nearest(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    ip.run_cell("%tk start react-agent --groups read-only")
    with pytest.raises(UsageError) as info:
        ip.run_cell("%tk call text-complection")
    assert str(info.value) == ("tool not found: text-complection — no such tool in the project; "
                               "did you mean: text-completion?")
    with pytest.raises(UsageError) as info:  # nearest among the project's tools too
        ip.run_cell("%tk call reset-workfow")
    assert str(info.value).endswith("did you mean: reset-workflow?")
    with pytest.raises(UsageError) as info:
        ip.run_cell("%tk call zzz")
    assert str(info.value) == ("tool not found: zzz — no such tool in the project; this "
                               "session may call: knowledge-query, text-completion")


def test_agent_facing_error_is_unchanged(ip: TestingShell) -> None:
    """Session.call still says only "tool not found" (an agent learns nothing more)."""
    ip.run_cell(f"%tk load {TG}")
    session = run(ip, "%tk start react-agent --groups admin")
    with pytest.raises(tk.ToolNotFoundError) as info:
        session.call("reset-workflow")  # type: ignore[attr-defined]
    assert str(info.value) == "tool not found: reset-workflow"


# -- the subcommand table --------------------------------------------------------------------


def test_every_subcommand_registers_itself() -> None:
    from toolkit.notebook.cmd import SUBCOMMANDS

    assert list(SUBCOMMANDS) == ["load", "agents", "matrix", "explain", "connect", "servers",
                                 "start", "call", "spawn", "audit", "agent", "why", "replay",
                                 "diff", "risk", "lock", "test", "lint", "probe", "convert"]
    assert [n for n, c in SUBCOMMANDS.items() if c.cell] == ["agent"]
    assert usage().startswith("usage: %tk load PATH | agents | matrix | explain AGENT TOOL |")


def _notebook_imports() -> dict[str, set[str]]:
    """Module -> the toolkit.notebook modules it imports (TYPE_CHECKING and lazy ones too)."""
    root = Path(tk.__file__).parent.parent
    files = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
             for p in (root / "toolkit" / "notebook").rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = ".".join([*package[:len(package) - node.level + 1], *(
                    [node.module] if node.module else [])]) if node.level else node.module or ""
                found.update({base, *(f"{base}.{a.name}" for a in node.names)})
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        edges[name] = {m for m in found if m in files and m != name}
    return edges


def test_no_import_cycle_among_notebook_modules_outside_widgets() -> None:
    edges = _notebook_imports()
    assert not any(m.endswith(".magic") for name in edges if ".cmd" in name
                   for m in edges[name])

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in edges[start] - seen:
            seen.add(nxt)
            if nxt == goal or reaches(nxt, goal, seen):
                return True
        return False

    in_cycles = [m for m in edges if "widgets" not in m and reaches(m, m, set())]
    assert in_cycles == []


def test_load_warms_up_the_mcp_client_in_the_background(examples: Path) -> None:
    """After %tk load of a project with servers, the next %tk connect need not import the SDK."""
    code = ("import sys, threading\n"
            "from IPython.core.interactiveshell import InteractiveShell\n"
            "shell = InteractiveShell.instance()\n"
            "shell.run_line_magic('load_ext', 'toolkit')\n"
            "assert 'mcp' not in sys.modules\n"
            f"shell.run_line_magic('tk', 'load {examples}/trustgraph')\n"
            "[t.join(60) for t in threading.enumerate() if t.name == 'toolkit warm-up']\n"
            "print('mcp' in sys.modules, 'pandas' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.split()[-2:] == ["True", "True"]


def test_connect_shows_progress_for_several_servers(write: Any) -> None:
    """Each server that answers (or fails) moves the bar; a single server shows none."""
    import json

    from toolkit.notebook.cmd.connect import progress

    demo = {"command": "python", "args": ["-m", "toolkit.examples.demo_server"]}
    root = write({".mcp.json": json.dumps({"mcpServers": {"a": demo, "b": demo}}),
                  "agents/x.md": "---\nname: x\ntools: ['@a/*']\n---\n"})
    with tk.load(root) as proj:
        with progress(proj, ["a", "b"]) as bar:
            proj.connect(timeout=30)
        assert (bar.value, bar.max) == (2, 2)
        with progress(proj, ["a"]) as none:
            assert none is None


def test_cell_agent_shows_a_misspelt_tool_with_the_nearest_name(
        ip: TestingShell, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23 item 10: 0 tools and no word why; now the cell's own warning, with a hint."""
    ip.run_cell(f"%tk load {TG}")
    capsys.readouterr()
    resolution = run(ip, "%%tk agent\n---\nname: kq\ntools: [knowlege-query]\n---\n")
    assert resolution.allowed == frozenset()  # type: ignore[attr-defined]
    err = capsys.readouterr().err
    assert ("warning: <cell>:3: agent 'kq' names tool 'knowlege-query', which is not in the "
            "pool yet") in err
    assert err.rstrip().endswith("did you mean: knowledge-query?")
    assert "group 'default'" not in err  # the request's oddities are not the cell's
    # under a preset that refuses an unknown name, the error says what was meant too
    mux = Path(tk.__file__).parent / "examples" / "mux"
    ip.run_cell(f"%tk load {mux}")
    with pytest.raises(UsageError, match=r"names tool 'red_file'.*did you mean: read_file"):
        ip.run_cell("%%tk agent\n---\nname: kq\ntools: [red_file]\n---\n")
