"""The %tk magics in a real IPython shell whose cell errors raise (like jupysql's TestingShell)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from IPython.core.error import UsageError

import toolkit as tk
from tests.support.procs import wait_no_descendants

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
    with pytest.raises(UsageError, match=r"^tool not found: knowledge-query$"):
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
