"""Issue 23 "Readable views", what only a browser shows: the heatmap and a decision's trace in
real JupyterLab 4 (Debian's Chromium), in the JupyterLab Dark theme.

The heatmap's text takes the theme's colour (light on dark, where it was black on near-black),
its caption fits inside it, its labels and cells carry tooltips; a trace's prose is left-aligned
(JupyterLab right-aligns table cells) and its deciding step is marked.

Outside CI the module skips when /usr/bin/chromium is missing; under ``CI=true`` it must run.
"""

from __future__ import annotations

import json
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
    wait_idle,
)

pytestmark = pytest.mark.slow

require_chromium()

NOTEBOOK = "readable-views.ipynb"
CELLS = [
    "import toolkit as tk\nfrom toolkit.notebook import fleet\n"
    "proj = tk.load('../toolkit/examples/trustgraph')",
    "fleet.Heatmap(fleet.matrix_data(proj, groups=[('*',)], "
    "states=['undefined', 'analysis', 'results']))",
    "proj.explain('react-agent', 'graph-update')",
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """JupyterLab in its Dark theme (the user setting Settings > Theme writes), with the
    notebook of this module."""
    tmp = tmp_path_factory.mktemp("lab")
    with jupyterlab(tmp) as running:
        (tmp / "settings" / "@jupyterlab" / "apputils-extension" /
         "themes.jupyterlab-settings").write_text(json.dumps({"theme": "JupyterLab Dark"}))
        cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
                  "outputs": [], "source": source} for i, source in enumerate(CELLS)]
        notebook = {"cells": cells, "nbformat": 4, "nbformat_minor": 5, "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3",
                           "language": "python"}}}
        (running.notebooks / NOTEBOOK).write_text(json.dumps(notebook))
        yield running


@pytest.fixture(scope="module")
def dark_page(lab: Lab) -> Iterator[Any]:
    """The notebook run in the JupyterLab Dark theme."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        page = open_notebook(browser, lab, NOTEBOOK)
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
        menu(page, "Run", "Run All Cells")
        wait_idle(page)
        page.locator(".toolkit-heatmap-svg").first.wait_for()
        assert errors(page) == []
        yield page
        browser.close()


def _luminance(css: str) -> float:
    """Relative luminance (0 black .. 1 white) of a computed ``rgb(...)`` / ``rgba(...)``."""
    parts = [float(x) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
    return (0.2126 * parts[0] + 0.7152 * parts[1] + 0.0722 * parts[2]) / 255


def test_heatmap_text_is_light_on_the_dark_theme_and_the_caption_fits(dark_page: Any) -> None:
    found = dark_page.evaluate("""() => {
        const svg = document.querySelector('.toolkit-heatmap-svg');
        const texts = [...svg.querySelectorAll('text')];
        const width = svg.width.baseVal.value;
        return {
          fills: texts.map(t => getComputedStyle(t).fill),
          background: getComputedStyle(svg.querySelector('rect')).fill,
          outside: texts.filter(t => { const b = t.getBBox();
            return t.getAttribute('transform') === null && (b.x < 0 || b.x + b.width > width);
          }).map(t => t.textContent),
          caption: texts[texts.length - 1].textContent,
          titled: texts.filter(t => t.querySelector('title')).length,
          tips: svg.querySelectorAll('rect > title').length,
          count: texts.length,
        };
    }""")
    assert _luminance(found["background"]) < 0.2  # the theme's dark background
    assert found["fills"] and all(_luminance(f) > 0.6 for f in found["fills"]), found["fills"]
    assert found["outside"] == [], found["outside"]  # no label or caption cut off
    assert found["caption"].startswith("share of each group's tools")
    assert found["titled"] == found["count"] - 1  # every label has its tooltip (not the caption)
    assert found["tips"] == 3 * 9  # one per cell: 3 states x 9 groups


def test_trace_prose_is_left_aligned_and_the_deciding_step_marked(dark_page: Any) -> None:
    found = dark_page.evaluate("""() => {
        const table = document.querySelector('.toolkit-trace');
        const cells = [...table.querySelectorAll('td, th')];
        const deciding = table.querySelector('tr.toolkit-deciding');
        return {
          aligns: [...new Set(cells.map(c => getComputedStyle(c).textAlign))],
          deciding: deciding && deciding.cells[0].textContent,
          weight: deciding && getComputedStyle(deciding.cells[2]).fontWeight,
          mark: deciding && getComputedStyle(deciding.cells[0]).borderLeftWidth,
        };
    }""")
    assert found["aligns"] == ["left"]
    assert found["deciding"] == "\u25b6\xa0groups"  # graph-update fails the group step
    assert int(found["weight"]) >= 700 and found["mark"] == "4px"
