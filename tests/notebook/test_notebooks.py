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

from tests.notebook.conftest import changed_files, user_files
from tests.support.procs import wait_no_descendants

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
BUILD = NOTEBOOKS / "_build.py"
NAMES = ["01-quickstart", "02-mcp-servers", "03-groups-and-states", "04-spawn-hierarchy",
         "05-policy-debugging", "06-agent-switching", "07-fleet-scale",
         "08-claude-code-permissions", "09-diff-lock-risk", "10-three-runtimes"]


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


def build_into(folder: Path) -> None:
    """Run ``notebooks/_build.py`` with ``folder`` as its output folder."""
    subprocess.run([sys.executable, str(BUILD), str(folder)], check=True, timeout=60,
                   capture_output=True)


def _code_only(text: str) -> object:
    nb = json.loads(text)
    return [(c["cell_type"], c["source"]) for c in nb["cells"]]


def test_notebooks_match_their_build_script(tmp_path: Path) -> None:
    build_into(tmp_path)
    assert sorted(p.stem for p in tmp_path.glob("*.ipynb")) == sorted(NAMES)
    differ = []
    for name in NAMES:
        built, tracked = (tmp_path / f"{name}.ipynb").read_text(), (
            NOTEBOOKS / f"{name}.ipynb").read_text()
        if built != tracked:
            same_cells = _code_only(built) == _code_only(tracked)
            differ.append(f"{name}.ipynb" + (" (outputs or metadata only: saved after a run?)"
                                             if same_cells else ""))
    assert differ == [], (f"differ from notebooks/_build.py: {'; '.join(differ)}. Run python "
                          "notebooks/_build.py (it rewrites them) and commit the notebooks")


def test_the_build_script_writes_only_into_the_folder_it_is_given(tmp_path: Path) -> None:
    before = user_files()
    build_into(tmp_path)
    assert changed_files(before, user_files()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{n}.ipynb" for n in NAMES)
    bad = subprocess.run([sys.executable, str(BUILD), str(tmp_path / "missing")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert "does not exist" in bad.stderr


def test_a_failing_cell_fails_the_notebook(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%load_ext toolkit"),
                                         nbformat.v4.new_code_cell("%tk matrix")])
    client = NotebookClient(nb, timeout=60, startup_timeout=60, kernel_name="python3")
    from nbclient.exceptions import CellExecutionError

    with pytest.raises(CellExecutionError, match="no project loaded"):
        client.execute()
