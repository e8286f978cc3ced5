"""Every teaching notebook runs top to bottom in a fresh kernel (nbclient), offline."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.support.procs import wait_no_descendants

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = ["01-quickstart", "02-mcp-servers", "03-groups-and-states", "04-spawn-hierarchy",
         "05-policy-debugging", "06-agent-switching", "07-fleet-scale",
         "08-claude-code-permissions", "09-diff-lock-risk"]


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_in_a_fresh_kernel(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    client = NotebookClient(nb, timeout=120, startup_timeout=60, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    started = time.monotonic()
    client.execute()  # raises CellExecutionError on the first failing cell
    elapsed = time.monotonic() - started
    print(f"{name}: {elapsed:.1f} s")
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
    assert wait_no_descendants(timeout=15) == [], "kernel or MCP servers left running"


def test_notebooks_are_committed_without_outputs_or_widget_state() -> None:
    for name in NAMES:
        nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())
        assert "widgets" not in nb["metadata"], name
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, name


def test_notebooks_match_their_build_script(tmp_path: Path) -> None:
    before = {n: (NOTEBOOKS / f"{n}.ipynb").read_text() for n in NAMES}
    subprocess.run([sys.executable, str(NOTEBOOKS / "_build.py")], check=True, timeout=60,
                   capture_output=True)
    after = {n: (NOTEBOOKS / f"{n}.ipynb").read_text() for n in NAMES}
    assert before == after, "run python notebooks/_build.py and commit the notebooks"


def test_a_failing_cell_fails_the_notebook(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%load_ext toolkit"),
                                         nbformat.v4.new_code_cell("%tk matrix")])
    client = NotebookClient(nb, timeout=60, startup_timeout=60, kernel_name="python3")
    from nbclient.exceptions import CellExecutionError

    with pytest.raises(CellExecutionError, match="no project loaded"):
        client.execute()
