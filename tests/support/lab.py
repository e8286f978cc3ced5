"""JupyterLab on loopback and Debian's Chromium driven by Playwright (tests and benchmarks).

One server serves a temporary root holding copies of the teaching notebooks
and links to ``toolkit/`` and ``bench/`` (the notebooks load ``../toolkit/examples``
and ``../bench/gen.py``). Chromium is Debian's (``/usr/bin/chromium``), never a
Playwright download.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.procs import descendants, free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
#: The notebook shown (a restored workspace may hold hidden ones too).
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def require_chromium() -> None:
    """At a browser test module's top: run it with Debian's Chromium. Under ``CI=true`` a
    missing /usr/bin/chromium is an error (``.ci/run`` installs it: the browser tests must
    run in CI); elsewhere the module is skipped with how to install it."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI=true but /usr/bin/chromium is missing: .ci/run installs it "
                           "(apt-get install -y chromium)")
    import pytest

    pytest.skip("no /usr/bin/chromium: install Debian's Chromium (apt-get install chromium) "
                "to run the browser tests", allow_module_level=True)


@dataclass
class Lab:
    """A running JupyterLab: its process, port, token and notebook folder."""

    proc: subprocess.Popen[bytes]
    port: int
    token: str
    notebooks: Path

    def url(self, notebook: str) -> str:
        """The URL that opens ``notebooks/<notebook>`` alone, in a workspace of its own."""
        workspace = re.sub(r"[^a-z0-9]", "", notebook.lower())
        return (f"http://127.0.0.1:{self.port}/lab/workspaces/{workspace}/tree/notebooks/"
                f"{notebook}?reset&token={self.token}")

    def kernel_pids(self) -> list[int]:
        """Pids of the running kernels (ipykernel processes under the server)."""
        out = []
        for pid in descendants(self.proc.pid):
            with contextlib.suppress(OSError):
                if b"ipykernel" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    out.append(pid)
        return out


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate the server's process group, then kill it (bounded)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def jupyterlab(tmp: Path) -> Iterator[Lab]:
    """JupyterLab on 127.0.0.1 with a token, every notebook cell in the DOM; stopped after."""
    root = tmp / "root"
    notebooks = root / "notebooks"
    notebooks.mkdir(parents=True)
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, notebooks / nb.name)
    for extra in ("05-transcript.jsonl", "data"):
        source = ROOT / "notebooks" / extra
        if source.exists():
            (notebooks / extra).symlink_to(source)
    (root / "toolkit").symlink_to(ROOT / "toolkit")  # the notebooks load ../toolkit/examples
    (root / "bench").symlink_to(ROOT / "bench")  # and ../bench/gen.py
    settings = tmp / "settings" / "@jupyterlab"
    (settings / "notebook-extension").mkdir(parents=True)
    # Every cell in the DOM (no virtual scrolling), so tests see every widget.
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}))
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
           "JUPYTER_CONFIG_DIR": str(tmp / "config"), "JUPYTER_PLATFORM_DIRS": "1"}
    argv = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            f"--LabApp.user_settings_dir={tmp / 'settings'}",
            f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly", "--ServerApp.terminals_enabled=False"]
    if os.geteuid() == 0:
        argv.append("--allow-root")  # CI containers run as root
    log = (tmp / "lab.log").open("wb")
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    lab = Lab(proc, port, token, notebooks)
    try:
        wait_for_port(port, proc, timeout=60)
        yield lab
    finally:
        children = descendants(proc.pid)  # kernels and their MCP servers
        try:  # a clean shutdown stops the kernels too
            request = urllib.request.Request(f"http://127.0.0.1:{port}/api/shutdown",
                                             method="POST",
                                             headers={"Authorization": f"token {token}"})
            urllib.request.urlopen(request, timeout=10).close()
            proc.wait(timeout=20)
        except Exception:
            _stop(proc)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in children):
            time.sleep(0.1)
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        log.close()


def launch(pw: Any) -> Any:
    """Debian's Chromium, headless, with the flags a container needs."""
    return pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=60_000)


def open_notebook(browser: Any, lab: Lab, notebook: str,
                  before: Callable[[Any], None] | None = None) -> Any:
    """A new page with ``notebook`` open and its kernel idle (``before(page)`` runs first)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    if before is not None:
        before(page)
    page.set_default_timeout(60_000)
    page.goto(lab.url(notebook), timeout=90_000)
    page.locator(".jp-NotebookPanel").first.wait_for()
    select = page.locator(".jp-Dialog").get_by_role("button", name="Select", exact=True)
    with contextlib.suppress(PlaywrightTimeoutError):  # a fresh settings folder may ask
        select.click(timeout=10_000)
    page.get_by_text("| Idle").first.wait_for(timeout=90_000)
    with contextlib.suppress(PlaywrightTimeoutError):  # the news toast covers screenshots
        page.locator(".jp-toast-button", has_text="No").first.click(timeout=2_000)
    return page


def menu(page: Any, *path: str) -> None:
    """Click through the menu bar: ``menu(page, "Run", "Run All Cells")``."""
    page.get_by_role("menuitem", name=path[0], exact=True).click()
    for item in path[1:]:
        page.get_by_role("menuitem", name=item, exact=True).click()


def wait_idle(page: Any, timeout: float = 120_000) -> None:
    """Wait until no cell is queued or running (no ``[*]`` prompt) and the kernel is idle."""
    page.wait_for_function(
        "() => ![...document.querySelectorAll('.jp-InputArea-prompt')]"
        ".some(p => p.textContent.includes('*'))", timeout=timeout)
    page.get_by_text("| Idle").first.wait_for(timeout=timeout)


def errors(page: Any) -> list[str]:
    """The text of every error output in the notebook."""
    return list(page.locator(".jp-OutputArea-output[data-mime-type="
                             "'application/vnd.jupyter.stderr']").all_inner_texts())


def cell(page: Any, index: int) -> Any:
    """The ``index``-th cell of the open notebook."""
    return page.locator(f"{NOTEBOOK} .jp-Cell").nth(index)


def run_cell(page: Any, index: int) -> None:
    """Select cell ``index`` and run it (Shift+Enter)."""
    target = cell(page, index)
    target.scroll_into_view_if_needed()
    target.locator(".jp-InputPrompt").click()
    page.keyboard.press("Shift+Enter")


def kernel_rss_mb(pid: int) -> float:
    """Resident memory of a process in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
