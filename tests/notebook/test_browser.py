"""A real browser: JupyterLab on loopback, Debian's Chromium driven by Playwright.

Opens ``03-groups-and-states``, runs all cells, checks the stepper's buttons
render, clicks one and checks the shown state changed; saves screenshots to
``docs/screenshots/``. Outside CI it skips when /usr/bin/chromium is missing;
under ``CI=true`` it must run (``.ci/run`` installs Chromium).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.procs import descendants, free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "docs" / "screenshots"
NOTEBOOK = "03-groups-and-states.ipynb"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]

pytestmark = pytest.mark.slow

if not CHROMIUM.exists():
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI=true but /usr/bin/chromium is missing: .ci/run installs it "
                           "(apt-get install -y chromium)")
    pytest.skip("no /usr/bin/chromium: install Debian's Chromium (apt-get install chromium) to "
                "run the browser test", allow_module_level=True)


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


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


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[str]:
    """JupyterLab on 127.0.0.1 with a token, serving a temp root; yields the notebook's URL."""
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, root / "notebooks" / NOTEBOOK)
    (root / "toolkit").symlink_to(ROOT / "toolkit")  # the notebook loads ../toolkit/examples
    settings = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Every cell in the DOM (no virtual scrolling), so the test sees the last cell's widget.
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_PLATFORM_DIRS": "1"}
    argv = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
            f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly", "--ServerApp.terminals_enabled=False"]
    if os.geteuid() == 0:
        argv.append("--allow-root")  # CI containers run as root
    log = (tmp_path / "lab.log").open("wb")
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    children: list[int] = []
    try:
        wait_for_port(port, proc, timeout=60)
        yield f"http://127.0.0.1:{port}/lab/tree/notebooks/{NOTEBOOK}?token={token}"
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
        _kill([p for p in children if Path(f"/proc/{p}").exists()])
        log.close()


def test_stepper_in_jupyterlab_with_chromium(lab: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import expect, sync_playwright

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                     timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(lab, timeout=90_000)
            page.locator(".jp-NotebookPanel").first.wait_for()
            select = page.locator(".jp-Dialog").get_by_role("button", name="Select",
                                                            exact=True)
            # JupyterLab may ask which kernel to start (a fresh settings folder).
            with contextlib.suppress(PlaywrightTimeoutError):
                select.click(timeout=15_000)
            page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=90_000)
            # The "official Jupyter news?" toast would cover part of the screenshots.
            with contextlib.suppress(PlaywrightTimeoutError):
                page.locator(".jp-toast-button", has_text="No").first.click(timeout=5_000)
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()

            state = page.locator(".toolkit-stepper-state").first
            buttons = page.locator(".toolkit-stepper .toolkit-stepper-tool")
            page.locator(".toolkit-audit").first.wait_for(timeout=120_000)  # the last cell ran
            expect(state).to_contain_text("state analysis", timeout=60_000)
            expect(buttons).to_have_count(4)  # complex-analysis, graph-update, reset, text
            assert "complex-analysis" in buttons.all_inner_texts()
            stepper = page.locator(".toolkit-stepper").first
            stepper.scroll_into_view_if_needed()
            stepper.screenshot(path=str(SCREENSHOTS / "03-stepper-before.png"))

            before = state.inner_text()
            buttons.filter(has_text="complex-analysis").first.click()
            expect(state).to_contain_text("state results", timeout=60_000)
            assert state.inner_text() != before
            expect(buttons).to_have_count(2)  # reset-workflow, text-completion
            expect(page.locator(".toolkit-stepper-history")).to_contain_text("complex-analysis")
            stepper.screenshot(path=str(SCREENSHOTS / "03-stepper-after.png"))
            page.screenshot(path=str(SCREENSHOTS / "03-groups-and-states.png"))
        finally:
            browser.close()
    for name in ("03-stepper-before.png", "03-stepper-after.png", "03-groups-and-states.png"):
        assert (SCREENSHOTS / name).stat().st_size > 5_000, name
