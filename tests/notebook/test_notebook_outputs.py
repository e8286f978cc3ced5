"""What a newcomer reads in the teaching notebooks after Run All (issue 23 item 13): built by
``notebooks/_build.py`` into a temporary folder and run in a real kernel there (the tracked
notebooks are never written), each cell's output says what the prose above it says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.notebook.test_notebooks import NOTEBOOKS, build_into
from tests.support.procs import wait_no_descendants


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("notebooks")
    build_into(folder)
    return folder


def run(built: Path, name: str) -> list[Any]:
    """The code cells of ``name`` as built, after running them (the notebooks' own folder is
    the kernel's working directory: they read ../toolkit/examples; they write nothing there)."""
    nb = nbformat.read(built / f"{name}.ipynb", as_version=4)
    NotebookClient(nb, timeout=180, startup_timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    nbformat.write(nb, built / f"{name}.run.ipynb")
    assert wait_no_descendants(timeout=15) == []
    return [c for c in nb.cells if c.cell_type == "code"]


def cell(cells: list[Any], start: str) -> Any:
    return next(c for c in cells if c.source.lstrip().startswith(start))


def streams(c: Any, name: str) -> str:
    return "".join(o.text for o in c.outputs if o.output_type == "stream" and o.name == name)


def plain(c: Any) -> str:
    return "".join(o.data.get("text/plain", "") for o in c.outputs if "data" in o)


@pytest.mark.slow
def test_05_the_agent_cell_shows_what_the_text_says(built: Path) -> None:
    cells = run(built, "05-policy-debugging")
    agent = cell(cells, "%%tk agent")
    shown = plain(agent)
    assert "analyst [trustgraph] groups=* state=analysis" in shown
    assert "3 tool(s)" in shown and "reset-workflow" not in shown.split(":", 1)[1]
    assert streams(agent, "stderr") == ""  # no warning about a group nobody asked for


@pytest.mark.slow
def test_07_the_generated_fleet_loads_without_a_warning(built: Path) -> None:
    cells = run(built, "07-fleet-scale")
    loaded = plain(cell(cells, "import sys, tempfile"))
    assert "warning" not in loaded and "expected.json" not in loaded, loaded


@pytest.mark.slow
def test_09_check_is_not_red_and_the_risk_matrix_is_a_table(built: Path) -> None:
    cells = run(built, "09-diff-lock-risk")
    check = next(c for c in cells if '["check", "../toolkit/examples/claude-code"' in c.source)
    assert streams(check, "stderr") == ""
    assert "0 error(s), 2 warning(s)" in streams(check, "stdout")
    risk = next(c for c in cells if '"--risk"' in c.source)
    markdown = "".join(o.data.get("text/markdown", "") for o in risk.outputs if "data" in o)
    assert markdown.startswith("| tool | risk |")
    assert not any(line.startswith("|") for line in streams(risk, "stdout").splitlines())


@pytest.mark.slow
def test_10_the_runtimes_disagree_where_the_text_says(built: Path) -> None:
    cells = run(built, "10-three-runtimes")
    loaded = cell(cells, "import json, shutil, tempfile")
    assert "('claude-code', 'codex', 'gemini-cli')" in plain(loaded)
    assert streams(loaded, "stderr") == ""  # trusted: no warning that a runtime is skipped
    table = plain(cell(cells, "def why(d):"))
    for command in ("npm run lint", "npm install left-pad", "cat .env",
                    "git diff > /tmp/patch.diff"):
        assert command in table
    for agreed in ("npm test ", "git status", "rm -rf build", "git push origin main"):
        assert agreed not in table
