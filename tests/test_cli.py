"""``toolmatrix check | matrix | explain``."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from toolkit.cli import main

Write = Callable[..., Path]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_check_passes_on_every_shipped_example(examples: Path) -> None:
    for example in ["trustgraph", "emergent", "work-agent", "adh-cli", "mux", "claude-code"]:
        code, out, err = run("check", str(examples / example))
        assert code == 0, (example, out, err)


def test_check_reports_file_line_message_and_exits_1(write: Write) -> None:
    root = write({
        "tools.yaml": "tool:\n  read: {}\n",
        "agents/a.md": "---\nname: a\ntools: [read, raed]\n---\n",
        "agents/b.md": "---\nname: b\ntools: [read]\n  bad: [\n---\n",
    })
    code, out, err = run("check", str(root))
    assert code == 1
    lines = out.splitlines()
    assert any(line.startswith("agents/a.md:3: ") and "'raed'" in line for line in lines)
    assert any(line.startswith("agents/b.md:") and "YAML syntax error" in line for line in lines)
    assert "2 error(s)" in err


def test_check_warns_about_guidelines_mentioning_undeclared_tools(write: Write) -> None:
    root = write({
        "tools.yaml": "tool:\n  execute_command: {}\n  google_search: {}\n",
        "agents/tester/agent.md": """
            ---
            name: tester
            tools: [execute_command]
            ---
            # Prompt

            ## Tool Usage Guidelines

            **execute_command**: run tests.

            **google_search**: look things up.
        """,
    })
    code, out, _ = run("check", str(root))
    assert code == 0
    assert "agents/tester/agent.md:11: agent 'tester': Tool Usage Guidelines mention " \
           "'google_search', which the agent does not declare in tools (warning)" in out
    assert "mention 'execute_command'" not in out  # (the trifecta warning names it: a shell)
    code, _, _ = run("check", "--strict-warnings", str(root))
    assert code == 1


def test_check_reports_unreachable_and_dead_end_states(write: Write) -> None:
    root = write({"tools.yaml": """
        tool:
          start: {state: working}
          stuck: {available_in_states: [working]}
          orphan: {available_in_states: [limbo], state: undefined}
    """})
    code, out, _ = run("check", str(root))
    assert code == 0
    assert "state 'limbo' is unreachable" in out
    assert "state 'working' is a dead end" in out


def test_matrix_csv_markdown_json(examples: Path) -> None:
    path = str(examples / "trustgraph")
    code, out, _ = run("matrix", path, "--groups", "read-only,knowledge", "--format", "csv")
    assert code == 0
    rows = dict(line.split(",", 1) for line in out.strip().splitlines()[1:])
    assert rows == {"complex-analysis": "-", "graph-update": "-", "knowledge-query": "yes",
                    "reset-workflow": "-", "text-completion": "yes"}
    code, out, _ = run("matrix", path, "--groups", "*", "--state", "analysis", "--state",
                       "results", "--format", "markdown")
    assert code == 0 and out.startswith("| tool | react-agent / analysis | react-agent / results |")
    code, out, _ = run("matrix", path, "--groups", "admin", "--state", "results",
                       "--format", "json")
    data = json.loads(out)
    assert data["index"] == sorted(data["index"])
    assert dict(zip(data["index"], [r[0] for r in data["data"]], strict=True))[
        "reset-workflow"] is True


def test_matrix_reasons(examples: Path) -> None:
    code, out, _ = run("matrix", str(examples / "trustgraph"), "--reasons", "--format", "csv")
    assert code == 0
    assert "graph-update,group" in out


def test_explain_prints_trace_and_exit_status(examples: Path) -> None:
    path = str(examples / "trustgraph")
    code, out, _ = run("explain", path, "react-agent", "reset-workflow", "--groups",
                       "knowledge,compute", "--state", "results")
    assert code == 3
    assert out.startswith("IMPLICIT-DENY react-agent -> reset-workflow")
    assert "group        fail" in out
    code, out, _ = run("explain", path, "react-agent", "knowledge-query", "--groups", "knowledge")
    assert code == 0 and out.startswith("ALLOW")


def test_explain_unknown_agent_is_one_clear_line(examples: Path) -> None:
    code, _, err = run("explain", str(examples / "trustgraph"), "nobody", "x")
    assert code == 2
    assert err.strip() == "toolmatrix: error: unknown agent 'nobody'; known agents: react-agent"


def test_console_script_is_installed(examples: Path) -> None:
    exe = shutil.which("toolmatrix", path=str(Path(sys.executable).parent))
    assert exe is not None
    done = subprocess.run([exe, "check", str(examples / "mux")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- a mistake is one line on stderr with a non-zero exit status, never a traceback ----------


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("toolmatrix: error: ")
    return lines[0]


def test_usage_mistakes_are_one_line_with_exit_2(examples: Path) -> None:
    path = str(examples / "trustgraph")
    cases = [
        ((), "the following arguments are required: command (see toolmatrix --help)"),
        (("bogus",), "argument command: invalid choice: 'bogus'"),
        (("matrix",), "the following arguments are required: path (see toolmatrix matrix --help)"),
        (("matrix", path, "--format", "xml"), "argument --format: invalid choice: 'xml'"),
        (("matrix", path, "--preset", "nope"), "argument --preset: invalid choice: 'nope'"),
        (("explain", path, "react-agent"), "the following arguments are required: tool"),
        (("explain", path, "react-agent", "x", "--preset", "nope"), "invalid choice: 'nope'"),
        (("check", path, "--bogus"), "unrecognized arguments: --bogus"),
        (("matrix", path, "--agents", "nobody"),
         "unknown agent 'nobody'; known agents: react-agent"),
    ]
    for argv, message in cases:
        code, out, err = run(*argv)
        assert code == 2, argv
        assert out == ""
        assert message in _one_error_line(err), argv


def test_missing_project_is_one_line_with_exit_1() -> None:
    for verb in (("matrix", "/no/such/project"), ("explain", "/no/such/project", "a", "b")):
        code, _, err = run(*verb)
        assert code == 1
        assert _one_error_line(err) == ("toolmatrix: error: /no/such/project: no such file or "
                                        "folder: /no/such/project; pass a project folder or a "
                                        "definition file")


def test_broken_definitions_list_each_problem_then_one_error_line(write: Write) -> None:
    root = write({"tools.yaml": "tool:\n  read: {}\n",
                  "agents/a.md": "---\nname: a\ntools: [raed]\n---\n",
                  "agents/b.md": "---\nname: b\ntools: [wirte]\n---\n"})
    code, out, err = run("matrix", str(root))
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("agents/a.md:3: ") and lines[1].startswith("agents/b.md:3: ")
    assert lines[-1] == ("toolmatrix: error: 2 problems in the definitions (listed above); fix "
                         "them, then run toolmatrix check PATH")


# -- unknown groups and states are warnings; 'none' means no groups ---------------------------


def test_matrix_unknown_state_and_group_are_warning_lines(examples: Path) -> None:
    code, out, err = run("matrix", str(examples / "trustgraph"), "--state", "nostate",
                         "--groups", "nogroup", "--format", "csv")
    assert code == 0
    assert out.startswith("tool,react-agent\n")  # the answer is still printed
    assert [line.split(" (known:")[0] for line in err.splitlines()] == [
        "toolmatrix: warning: requested group 'nogroup' is not a group of any tool",
        "toolmatrix: warning: invalid state 'nostate': no tool lists it in state or "
        "available_in_states"]


def test_explain_unknown_state_group_and_tool_are_warning_lines(examples: Path) -> None:
    code, out, err = run("explain", str(examples / "trustgraph"), "react-agent", "graph-update",
                         "reset-workflw", "--state", "nostate", "--groups", "nogroup")
    assert code == 3
    assert out.startswith("IMPLICIT-DENY react-agent -> graph-update")
    lines = err.splitlines()
    assert lines[0].startswith("toolmatrix: warning: requested group 'nogroup' is not a group")
    assert lines[1].startswith("toolmatrix: warning: invalid state 'nostate'")
    assert lines[2] == ("toolmatrix: warning: no tool 'reset-workflw' in the project; did you "
                        "mean: reset-workflow?")
    assert len(lines) == 3


def test_none_means_no_groups_in_matrix_and_explain(examples: Path) -> None:
    path = str(examples / "trustgraph")
    code, out, err = run("matrix", path, "--groups", "none", "--groups", "read-only; []",
                         "--format", "csv")
    assert code == 0 and err == ""
    header, *rows = out.strip().splitlines()
    assert header == "tool,react-agent / (none),react-agent / read-only,react-agent / (none)"
    assert "text-completion,-,yes,-" in rows
    code, out, err = run("explain", path, "react-agent", "text-completion", "--groups", "none")
    assert code == 3 and err == ""
    assert "groups=(none)" in out and "group        fail" in out
