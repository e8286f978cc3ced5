"""After Kernel > Restart, a live view says so and stops acting (issue 23 item 7), in real
JupyterLab in Debian's Chromium.

Before: the widgets stayed as they were, and a click on the matrix grid showed the
previous cell's decision (the kernel behind it was gone). Now every live view carries a
guard (``toolkit/notebook/widgets/guard.js``) that, once its kernel restarts, shows
"Kernel restarted: … Re-run the cell" above the view and disables its controls.

Outside CI the module skips when /usr/bin/chromium is missing; under ``CI=true`` it must
run (``make browser`` installs Chromium).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import nbformat
import pytest

from tests.support.lab import (
    Lab,
    jupyterlab,
    launch,
    menu,
    open_notebook,
    require_chromium,
    wait_idle,
)

pytestmark = pytest.mark.slow

require_chromium()

CELLS = [
    "import toolkit as tk\n"
    "from toolkit.notebook import MatrixExplorer, ServerPanel\n"
    "proj = tk.load('../toolkit/examples/claude-code')",
    "ServerPanel(proj)",
    "MatrixExplorer(proj)",
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with jupyterlab(tmp_path_factory.mktemp("lab")) as running:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, running.notebooks / "restart.ipynb")
        yield running


def test_views_say_kernel_restarted_and_disable_their_controls(lab: Lab) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        chromium = launch(pw)
        try:
            page = open_notebook(chromium, lab, "restart.ipynb")
            menu(page, "Run", "Run All Cells")
            wait_idle(page)
            panel = page.locator(".toolkit-server-panel")
            expect(panel).to_be_visible()
            explorer = page.locator(".toolkit-live").nth(1)
            expect(explorer).to_be_visible()
            assert page.locator(".toolkit-dead-note").count() == 0  # alive: no note
            connect = panel.get_by_role("button", name="connect", exact=True)
            expect(connect).to_be_enabled()

            page.get_by_role("menuitem", name="Kernel", exact=True).click()
            restart = re.compile(r"^Restart Kernel(…|\.\.\.)")
            page.get_by_role("menuitem", name=restart).first.click()
            page.locator(".jp-Dialog").get_by_role("button", name="Confirm Kernel Restart").click()
            page.get_by_text("| Idle").first.wait_for(timeout=90_000)

            notes = page.locator(".toolkit-dead-note")
            expect(notes).to_have_count(2)  # one per view
            expect(notes.first).to_contain_text("Kernel restarted")
            expect(notes.first).to_contain_text("Re-run the cell")
            # Every control of both views is disabled (the connect button among them).
            disabled = page.locator(".toolkit-dead button").evaluate_all(
                "bs => bs.map(b => [b.textContent, b.disabled])")
            assert ["connect", True] in disabled and len(disabled) > 5, disabled
            assert all(d for _, d in disabled), disabled
            # The rest of the view takes no clicks (pointer-events off, dimmed).
            style: Any = explorer.evaluate(
                "el => getComputedStyle(el.querySelector(':scope > :not(.toolkit-dead-note)'))"
                ".pointerEvents")
            assert style == "none"
            menu(page, "Kernel", "Shut Down Kernel")
            page.close()
        finally:
            chromium.close()
