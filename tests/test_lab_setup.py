"""``make lab`` as a newcomer meets it, and what the README says of the notebooks
(issue 23 item 21): LAB_ARGS reach JupyterLab, its URL with the token is printed, the
checkpoints JupyterLab writes beside the notebooks are ignored, every notebook is named."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.procs import free_port

ROOT = Path(__file__).resolve().parents[1]
STAMP = ".venv/.installed"  # never reinstall the venv from a test (make -o: treat as done)


def test_readme_names_every_teaching_notebook() -> None:
    readme = (ROOT / "README.md").read_text()
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9]*.ipynb"))
    assert len(notebooks) == 10
    assert "The ten teaching notebooks" in readme and "six teaching notebooks" not in readme
    assert [n for n in notebooks if f"`{n}`" not in readme] == []


def test_notebook_checkpoints_are_ignored(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(["git", "check-ignore", "-q", "--no-index",
                           "notebooks/.ipynb_checkpoints/01-quickstart-checkpoint.ipynb"],
                          cwd=ROOT, check=False)
    assert done.returncode == 0


def test_make_lab_passes_lab_args() -> None:
    if shutil.which("make") is None:
        pytest.skip("no make")
    done = subprocess.run(["make", "-n", "-o", STAMP, "lab",
                           "LAB_ARGS=--port 8899 --ip 0.0.0.0 --no-browser"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    recipe = done.stdout.replace("\\\n", " ")  # the recipe's continued lines, joined
    command = next(line for line in recipe.splitlines() if "jupyter lab" in line)
    assert "--port 8899 --ip 0.0.0.0 --no-browser" in command
    assert command.rstrip().endswith("notebooks/01-quickstart.ipynb")


def test_make_lab_prints_the_url_with_its_token(tmp_path: Path) -> None:
    if shutil.which("make") is None or not (ROOT / ".venv" / "bin" / "jupyter").exists():
        pytest.skip("no make or no JupyterLab in .venv")
    port = free_port()
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(["make", "-o", STAMP, "lab",
                             f"LAB_ARGS=--no-browser --port {port} --ip 127.0.0.1"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    seen: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            if re.search(rf"http://127\.0\.0\.1:{port}/lab\?token=\w+", line):
                break
        output = "".join(seen)
        assert re.search(rf"http://127\.0\.0\.1:{port}/lab\?token=\w+", output), output
        assert "open the URL with ?token=" in output
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # make, JupyterLab and its children: our group
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


if sys.platform == "win32":  # pragma: no cover - make lab is a POSIX recipe
    pytestmark = pytest.mark.skip("POSIX only")
