"""Every teaching notebook (01-10), Run All, then every live widget used (issue 23: the
live-after-Run-All promise), in real JupyterLab in Debian's Chromium.

For each notebook: Run All ends with no error output; then every live view on the page
(``.toolkit-live``) is used as a student would: each of its pickers set to another option,
each enabled button clicked (at most a few per view, so the walk stays short), and a cell
of each matrix grid clicked. After each action the kernel is idle again, the view is
still alive (no "project closed" banner, no "kernel restarted" note), and no error
appeared anywhere in the notebook. A view that went dead after Run All, or a control that
raises, fails the walk.

Outside CI the module skips when /usr/bin/chromium is missing; under ``CI=true`` it must
run (``make browser`` installs Chromium).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.lab import (
    Lab,
    errors,
    jupyterlab,
    launch,
    menu,
    open_notebook,
    require_chromium,
)
from tests.support.lab import wait_idle as lab_wait_idle

pytestmark = pytest.mark.slow

require_chromium()

NOTEBOOKS = ["01-quickstart", "02-mcp-servers", "03-groups-and-states", "04-spawn-hierarchy",
             "05-policy-debugging", "06-agent-switching", "07-fleet-scale",
             "08-claude-code-permissions", "09-diff-lock-risk", "10-three-runtimes"]
#: Buttons a walk leaves alone: they end what the rest of the walk uses.
SPARE = {"stop", "restart", "close"}
BUTTONS_PER_VIEW = 4


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with jupyterlab(tmp_path_factory.mktemp("lab")) as running:
        yield running


@pytest.fixture(scope="module")
def browser(lab: Lab) -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=30_000)
    with sync_playwright() as pw:
        chromium = launch(pw)
        try:
            yield chromium
        finally:
            chromium.close()


def settle(page: Any) -> None:
    """Wait until the kernel is idle and the views had a moment to refresh."""
    lab_wait_idle(page)
    page.wait_for_timeout(400)


def problems(page: Any) -> list[str]:
    """Errors in the notebook, and views that are no longer alive."""
    out = [e for e in errors(page) if "Error" in e or "Traceback" in e]
    out += page.locator(".toolkit-live .toolkit-closed").all_inner_texts()
    out += page.locator(".toolkit-dead-note").all_inner_texts()
    return out


def use_view(page: Any, view: Any, where: str) -> list[str]:
    """Use one live view; returns what it did (for the failure message)."""
    done: list[str] = []
    selects = view.locator("select:enabled")
    for i in range(min(selects.count(), 3)):
        select = selects.nth(i)
        options = select.locator("option").all_inner_texts()
        if len(options) > 1:
            select.select_option(index=1)
            settle(page)
            done.append(f"{where}: picked {options[1]!r}")
            assert problems(page) == [], (done, problems(page))
    clicked = 0
    buttons = view.locator("button:enabled")
    for i in range(buttons.count()):
        if clicked >= BUTTONS_PER_VIEW:
            break
        button = buttons.nth(i)
        if not button.is_visible():
            continue
        label = (button.inner_text() or button.get_attribute("title") or "").strip()
        if label in SPARE:
            continue
        button.click()
        settle(page)
        clicked += 1
        done.append(f"{where}: clicked {label!r}")
        assert problems(page) == [], (done, problems(page))
    cells = view.locator(".tk-cell")
    if cells.count():
        cells.first.click()
        settle(page)
        done.append(f"{where}: clicked a grid cell")
        assert problems(page) == [], (done, problems(page))
        assert view.locator(".toolkit-decision").count() >= 1, done
    return done


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_run_all_then_use_every_widget(lab: Lab, browser: Any, name: str) -> None:
    page = open_notebook(browser, lab, f"{name}.ipynb")
    try:
        menu(page, "Run", "Run All Cells")
        settle(page)
        assert problems(page) == [], problems(page)
        views = page.locator(".toolkit-live")
        count = views.count()
        done: list[str] = []
        for i in range(count):
            view = views.nth(i)
            view.scroll_into_view_if_needed()
            done += use_view(page, view, f"{name} view {i + 1}")
        print(f"{name}: {count} live view(s); " + "; ".join(done))
        assert problems(page) == [], (done, problems(page))
    finally:
        menu(page, "Kernel", "Shut Down Kernel")
        page.close()
