"""Every widget of every notebook in a real browser: JupyterLab on loopback, Debian's Chromium.

One JupyterLab server and one Chromium serve every test of this module (each
notebook in its own page). Each test runs its notebook as a person would (Run
All, or all cells but the closing one), acts on the widgets (click, type, pick)
and checks what the page shows: the stepper's buttons and the audit rows it
adds, the spawn tree's new node, the server panel's lights when a server dies
and after the project closes, the matrix explorer's filter, "no rows" and a
clicked cell's trace (with the effect explain() gives), and the fleet-scale
grid at 200 × 5,000 (its time to first paint is printed, not asserted: the
figure lives in bench/RESULTS.md). Screenshots go to a build folder (printed; a
temporary one unless ``TOOLMATRIX_SCREENSHOTS=DIR`` names one): tests never write into the
working tree. ``TOOLMATRIX_SCREENSHOTS=docs/screenshots`` retakes the README's screenshots.

Outside CI the module skips when /usr/bin/chromium is missing; under
``CI=true`` it must run (``make browser`` installs Chromium).
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.lab import (
    NOTEBOOK,
    Lab,
    cell,
    errors,
    jupyterlab,
    launch,
    menu,
    open_notebook,
    require_chromium,
    wait_idle,
)
from tests.support.procs import descendants

ROOT = Path(__file__).resolve().parents[2]
#: Where the screenshots go: set by the ``browser`` fixture (see :func:`screenshot_folder`).
SCREENSHOTS = Path()

pytestmark = pytest.mark.slow

require_chromium()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with jupyterlab(tmp_path_factory.mktemp("lab")) as running:
        yield running


def screenshot_folder(tmp: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """``$TOOLMATRIX_SCREENSHOTS`` when set (``docs/screenshots`` retakes the README's,
    relative to the repository), else ``tmp``: the tracked screenshots change only when asked."""
    asked = environ.get("TOOLMATRIX_SCREENSHOTS", "").strip()
    return ROOT / asked if asked else tmp


@pytest.fixture(scope="module")
def browser(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    global SCREENSHOTS
    SCREENSHOTS = screenshot_folder(tmp_path_factory.mktemp("screenshots"))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots go to {SCREENSHOTS}")
    expect.set_options(timeout=30_000)  # a loaded 2-core machine renders slowly
    with sync_playwright() as pw:
        chromium = launch(pw)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def notebook(lab: Lab, browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page with the notebook ``request.param`` open; its kernel shut down after."""
    page = open_notebook(browser, lab, request.param)
    try:
        yield page
    finally:
        menu(page, "Kernel", "Shut Down Kernel")
        page.close()


def test_screenshots_go_to_a_build_folder_unless_asked(tmp_path: Path) -> None:
    assert screenshot_folder(tmp_path, {}) == tmp_path
    assert screenshot_folder(tmp_path, {"TOOLMATRIX_SCREENSHOTS": " "}) == tmp_path
    assert screenshot_folder(tmp_path, {"TOOLMATRIX_SCREENSHOTS": "docs/screenshots"}) == (
        ROOT / "docs" / "screenshots")


def run_all(page: Any, timeout: float = 180_000) -> None:
    menu(page, "Run", "Run All Cells")
    wait_idle(page, timeout)
    assert not [e for e in errors(page) if "Traceback" in e or "Error" in e], errors(page)


def run_new_cell(page: Any, code: str) -> None:
    """Add a cell below the last one, type ``code`` into it and run it (as a person would)."""
    last = page.locator(f"{NOTEBOOK} .jp-Cell").count() - 1
    cell(page, last).locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")  # a new cell below, in command mode
    page.keyboard.press("Enter")  # edit it
    page.keyboard.type(code)
    page.keyboard.press("Shift+Enter")
    wait_idle(page)


def shoot(locator: Any, name: str) -> None:
    """A screenshot of one widget, the viewport grown to hold it whole (no page chrome over it)."""
    page = locator.page
    size = page.viewport_size
    box = locator.bounding_box()
    if box is not None and box["height"] > size["height"] - 200:
        page.set_viewport_size({"width": size["width"],
                                "height": min(3000, int(box["height"]) + 300)})
    try:
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=str(SCREENSHOTS / name))
    finally:
        page.set_viewport_size(size)
    assert (SCREENSHOTS / name).stat().st_size > 5_000, name


@pytest.mark.parametrize("notebook", ["03-groups-and-states.ipynb"], indirect=True)
def test_stepper_and_audit_view_in_jupyterlab(notebook: Any) -> None:
    from playwright.sync_api import expect

    page = notebook
    run_all(page)
    state = page.locator(".toolkit-stepper-state").first
    buttons = page.locator(".toolkit-live.toolkit-stepper .toolkit-stepper-tool")
    expect(state).to_contain_text("state analysis", timeout=60_000)
    expect(buttons).to_have_count(4)  # complex-analysis, graph-update, reset, text
    stepper = page.locator(".toolkit-live.toolkit-stepper").first
    shoot(stepper, "03-stepper-before.png")
    audit = page.locator(".toolkit-live.toolkit-audit").first
    calls_before = audit.locator("tbody tr", has_text="complex-analysis").count()

    buttons.filter(has_text="complex-analysis").first.click()
    expect(state).to_contain_text("state results", timeout=60_000)
    expect(buttons).to_have_count(2)  # reset-workflow, text-completion
    expect(stepper.locator(".toolkit-stepper-history")).to_contain_text("complex-analysis")
    shoot(stepper, "03-stepper-after.png")
    # the audit view follows the project: the click's call and transition appear by themselves
    expect(audit.locator("tbody tr", has_text="complex-analysis")).to_have_count(
        calls_before + 2, timeout=20_000)
    shoot(audit, "03-audit-view.png")
    page.screenshot(path=str(SCREENSHOTS / "03-groups-and-states.png"))


@pytest.mark.parametrize("notebook", ["04-spawn-hierarchy.ipynb"], indirect=True)
def test_spawn_tree_spawns_and_closes_in_jupyterlab(notebook: Any) -> None:
    from playwright.sync_api import expect

    page = notebook
    run_all(page)  # the closing cell is shown, not run: the tree stays live (issue 23 item 5)
    tree = page.locator(".toolkit-live.toolkit-spawn-tree").last
    expect(tree).to_contain_text(".delegator")  # the notebook's tree.spawn(root, "delegator")
    pickers = tree.locator("select")
    pickers.nth(0).select_option(index=0)  # the root
    pickers.nth(1).select_option("graph-researcher")
    tree.locator(".toolkit-spawn-button").click()
    expect(tree).to_contain_text(re.compile(r"orchestrator(\.\d+)?\.graph-researcher depth 1"),
                                 timeout=30_000)
    shoot(tree, "04-spawn-tree.png")
    run_new_cell(page, "emergent.close(); mux.close()")
    expect(tree.locator(".toolkit-closed")).to_contain_text("Project closed", timeout=30_000)
    expect(tree.locator(".toolkit-spawn-button")).to_be_disabled()


def _server_pid(lab: Lab, needle: str) -> int:
    for pid in descendants(lab.proc.pid):
        try:
            if needle.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    raise AssertionError(f"no process running {needle}")


@pytest.mark.parametrize("notebook", ["02-mcp-servers.ipynb"], indirect=True)
def test_server_panel_lights_follow_the_servers_in_jupyterlab(notebook: Any, lab: Lab) -> None:
    from playwright.sync_api import expect

    page = notebook
    run_all(page)  # the closing cell is shown, not run: the panel stays live (issue 23 item 5)
    panel = page.locator(".toolkit-live.toolkit-server-panel").first
    expect(panel.locator(".toolkit-server-green")).to_have_count(2)  # demo, time
    expect(panel.locator(".toolkit-server-red")).to_have_count(1)  # broken
    panel.get_by_role("button", name="ping all").click()
    expect(panel.locator(".toolkit-ping-result")).to_contain_text(re.compile(r"\d ms"))
    shoot(panel, "02-server-panel.png")

    os.kill(_server_pid(lab, "mcp-server-time"), signal.SIGKILL)  # a server dies
    expect(panel.locator(".toolkit-server-red")).to_have_count(2, timeout=30_000)
    expect(panel.locator(".toolkit-server-red", has_text="time")).to_contain_text("failed")
    shoot(panel, "02-server-panel-stopped.png")

    run_new_cell(page, "proj.close()")
    expect(panel.locator(".toolkit-closed")).to_contain_text("Project closed", timeout=30_000)
    expect(panel.get_by_role("button", name="connect")).to_be_disabled()
    expect(panel.get_by_role("button", name="ping all")).to_be_disabled()
    expect(panel.locator(".toolkit-server-green")).to_have_count(0)


@pytest.mark.parametrize("notebook", ["06-agent-switching.ipynb"], indirect=True)
def test_server_panel_stays_live_after_run_all(notebook: Any) -> None:
    """Issue 23 item 5: Run All no longer closes the project under the class's widgets."""
    from playwright.sync_api import expect

    page = notebook
    run_all(page)
    panel = page.locator(".toolkit-live.toolkit-server-panel").last
    expect(panel.locator(".toolkit-server-green")).to_have_count(1)  # files
    assert panel.locator(".toolkit-closed").count() == 0
    expect(panel.get_by_role("button", name="connect", exact=True)).to_be_enabled()
    panel.get_by_role("button", name="ping all").click()
    expect(panel.locator(".toolkit-ping-result")).to_contain_text(re.compile(r"files \d"))
    shoot(panel, "06-server-panel.png")


@pytest.mark.parametrize("notebook", ["05-policy-debugging.ipynb"], indirect=True)
def test_matrix_explorer_filters_and_explains_in_jupyterlab(notebook: Any) -> None:
    from playwright.sync_api import expect

    page = notebook
    run_all(page)
    explorer = page.locator(".toolkit-live.toolkit-matrix-explorer").last
    grid = explorer.locator(".toolkit-matrix-grid")
    expect(grid.locator(".tk-cell").first).to_be_visible()
    context = explorer.locator(".toolkit-matrix-context")
    expect(context).to_contain_text("preset trustgraph")  # the level every column shares
    tools = grid.locator(".tk-filter-tools")
    cells = page.locator(f"{NOTEBOOK} .jp-Cell").count()
    tools.press_sequentially("ddaa")  # typed text, not notebook shortcuts (d d deletes a cell)
    expect(tools).to_have_value("ddaa")
    assert page.locator(f"{NOTEBOOK} .jp-Cell").count() == cells
    tools.fill("graph-*")
    expect(grid.locator(".tk-rowlabel")).to_have_count(1)
    expect(grid.locator(".tk-info")).to_contain_text("1 of 5 tools")
    tools.fill("no-such-tool")
    expect(grid.locator(".tk-empty")).to_contain_text("no rows")
    tools.fill("")
    grid.locator(".tk-filter-columns").fill("analyst")
    expect(grid.locator(".tk-info")).to_contain_text("× 6 of 12 columns")

    target = grid.locator(".tk-cell[data-tool='reset-workflow']").last
    shown_effect = target.get_attribute("data-effect")
    target.click()
    decision = explorer.locator(".toolkit-decision")
    expect(decision).to_contain_text("reset-workflow")
    expect(decision.locator(".toolkit-effect").first).to_have_attribute("data-effect",
                                                                       str(shown_effect))
    shoot(explorer, "05-matrix-explorer.png")
    # changing a picker clears the explanation of the old grid
    explorer.locator("input[type='text']").first.fill("*")
    explorer.locator("input[type='text']").first.press("Enter")
    expect(decision).to_have_count(0, timeout=20_000)


def _first_paint_ms(page: Any, index: int) -> float:
    """Run cell ``index`` (which shows a MatrixExplorer); ms from Shift+Enter to its grid
    painting its first cells."""
    target = cell(page, index)
    target.scroll_into_view_if_needed()
    target.locator(".jp-InputPrompt").click()
    start = page.evaluate("() => performance.now()")
    page.keyboard.press("Shift+Enter")
    handle = page.wait_for_function(
        """(start) => {
            const grids = document.querySelectorAll('.toolkit-matrix-grid');
            for (const g of grids) {
              const t = Number(g.dataset.painted || 0);
              if (t > start && g.querySelector('.tk-cell')) return t - start;
            }
            return false;
        }""", arg=start, timeout=60_000, polling="raf")
    return float(handle.json_value())


@pytest.mark.parametrize("notebook", ["07-fleet-scale.ipynb"], indirect=True)
def test_big_matrix_at_200_by_5000_in_jupyterlab(notebook: Any,
                                                 tmp_path: Path) -> None:
    from playwright.sync_api import expect

    page = notebook
    run_all(page, 300_000)
    explorer = page.locator(".toolkit-live.toolkit-matrix-explorer").first
    grid = explorer.locator(".toolkit-matrix-grid")
    expect(grid.locator(".tk-info")).to_contain_text("5000 of 5000 tools × 200 of 200 columns")
    assert 0 < grid.locator(".tk-cell").count() < 3_000  # only the cells in view are in the DOM
    shoot(explorer, "07-fleet-explorer.png")

    grid.locator(".tk-filter-effect").select_option(label="has explicit-deny")
    grid.locator(".tk-filter-tools").fill("svc03_*")
    expect(grid.locator(".tk-info")).to_contain_text(re.compile(r"^\d+ of 5000 tools"))
    assert grid.locator(".tk-cell[data-effect='explicit-deny']").count() > 0
    grid.locator(".tk-sort").select_option(label="most agents first")
    grid.locator(".tk-cell[data-effect='explicit-deny']").first.click()
    decision = explorer.locator(".toolkit-decision")
    expect(decision).to_contain_text("EXPLICIT-DENY")
    shoot(explorer, "07-fleet-explorer-filtered.png")

    body = grid.locator(".tk-body")
    body.evaluate("b => { b.scrollTop = 50000; b.scrollLeft = 2000; }")
    expect(grid.locator(".tk-rowlabel").first).not_to_have_text("svc00_delete_doc200")

    paints = [_first_paint_ms(page, 3) for _ in range(3)]
    wait_idle(page)
    print(f"\nfirst paint of the 200 × 5,000 explorer in Chromium: {json.dumps(paints)} ms")
    (tmp_path / "paint.json").write_text(json.dumps(paints))
    time.sleep(0.2)
