"""Figure 8: the matrix view of 200 agents × 5,000 tools in JupyterLab and Chromium.

A notebook loads the generated fleet (``gen.py``) in one cell; the next cell
shows ``MatrixExplorer(proj, groups="*")``. Timed in the page: from Shift+Enter on that
cell to the first frame drawn with the grid's first cells in it (the browser's
own clock, median of several runs). A ``MutationObserver`` sees the cells put
into the page (the grid stamps ``data-painted`` then, before any layout or
drawing); from there two nested ``requestAnimationFrame`` callbacks wait out the
frame that lays out and draws them, and the second one's time is the figure
(at most one frame late, never early). Counted: the bytes the page received over
the kernel websocket while that cell ran; read from /proc: the kernel's resident memory before the
cell and with the view open. The static fallback (what a saved notebook shows
without a widget front end) is measured in this process: its size as an
output, JSON-encoded, as it would sit in the ``.ipynb``.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from .common import ROOT, Row

sys.path.insert(0, str(ROOT))  # tests.support: the JupyterLab + Chromium helpers

_LOAD = """\
import sys
sys.path.insert(0, {root!r})
import toolkit as tk
from toolkit.notebook import MatrixExplorer
from bench.gen import generate
from pathlib import Path
generate(Path({fleet!r}), n_agents={agents}, n_tools={tools})
proj = tk.load({fleet!r})
"""

#: Installed before Shift+Enter: when a grid with cells is stamped after ``start``, wait
#: two frames (the one that draws the cells ends before the second callback runs) and
#: leave ``{drawn, inserted}`` (ms after ``start``) in ``window.__tkPaint``.
_WATCH = """(start) => {
    window.__tkPaint = null;
    const found = () => {
        for (const g of document.querySelectorAll('.toolkit-matrix-grid')) {
            const t = Number(g.dataset.painted || 0);
            if (t > start && g.querySelector('.tk-cell')) return t;
        }
        return 0;
    };
    const observer = new MutationObserver(() => {
        const inserted = found();
        if (!inserted) return;
        observer.disconnect();
        requestAnimationFrame(() => requestAnimationFrame(() => {
            window.__tkPaint = {drawn: performance.now() - start, inserted: inserted - start};
        }));
    });
    observer.observe(document.body, {childList: true, subtree: true, attributes: true,
                                     attributeFilter: ['data-painted']});
}"""

_DRAWN = "() => window.__tkPaint"


def static_size(agents: int, tools: int) -> tuple[int, int]:
    """(bytes of the static output, bytes of the whole HTML export of one explorer cell)."""
    import toolkit as tk
    from bench.gen import generate
    from toolkit.notebook import MatrixExplorer

    root = Path(tempfile.mkdtemp(prefix="bench-static-")) / "fleet"
    generate(root, n_agents=agents, n_tools=tools)
    with tk.load(root) as proj:
        explorer = MatrixExplorer(proj, groups="*")  # the fleet's tools are in named groups
        static = explorer._static_bundle()
        return len(json.dumps(static)), len(static["text/html"])


def browser(agents: int, tools: int, repeat: int) -> dict[str, Any]:
    """First drawn frame and DOM insertion (ms, each run), bytes received while the cell ran,
    kernel RSS (MB)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook
    from playwright.sync_api import sync_playwright

    from tests.support.lab import (
        cell,
        jupyterlab,
        kernel_rss_mb,
        launch,
        open_notebook,
        run_cell,
        wait_idle,
    )

    tmp = Path(tempfile.mkdtemp(prefix="bench-paint-"))
    received: list[int] = []

    def listen(page: Any) -> None:
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda frame: received.append(len(frame))))

    with jupyterlab(tmp) as lab, sync_playwright() as pw:
        nb = new_notebook(cells=[
            new_code_cell(_LOAD.format(root=str(ROOT), fleet=str(tmp / "fleet"), agents=agents,
                                       tools=tools)),
            new_code_cell('MatrixExplorer(proj, groups="*")')],
            metadata={"kernelspec": {"display_name": "Python 3", "language": "python",
                                     "name": "python3"}})
        nbformat.write(nb, lab.notebooks / "paint.ipynb")
        chromium = launch(pw)
        try:
            page = open_notebook(chromium, lab, "paint.ipynb", before=listen)
            run_cell(page, 0)
            wait_idle(page)
            kernel = lab.kernel_pids()[0]
            before_mb = kernel_rss_mb(kernel)
            paints, inserted, sizes = [], [], []
            for _ in range(repeat):
                target = cell(page, 1)
                target.scroll_into_view_if_needed()
                target.locator(".jp-InputPrompt").click()
                start = page.evaluate("() => performance.now()")
                page.evaluate(_WATCH, start)
                received.clear()
                page.keyboard.press("Shift+Enter")
                handle = page.wait_for_function(_DRAWN, timeout=60_000, polling=50)
                seen = handle.json_value()
                paints.append(float(seen["drawn"]))
                inserted.append(float(seen["inserted"]))
                wait_idle(page)
                sizes.append(sum(received))
            open_mb = kernel_rss_mb(kernel)
        finally:
            chromium.close()
    return {"paints": paints, "inserted": inserted, "bytes": sizes, "rss_before": before_mb,
            "rss_open": open_mb}


def measure(agents: int = 200, tools: int = 5000, repeat: int = 5) -> list[Row]:
    """Figure 8 rows: first paint, bytes sent, static fallback size, kernel memory."""
    from tests.support.lab import CHROMIUM

    size, html = static_size(agents, tools)
    rows = []
    if CHROMIUM.exists():
        seen = browser(agents, tools, repeat)
        paint = statistics.median(seen["paints"]) / 1000
        rows.append(Row(f"8. Matrix view {agents} agents × {tools} tools in Chromium: first "
                        "paint (Shift+Enter to the first frame drawn with the grid's cells: "
                        "two requestAnimationFrames after they enter the page)", paint,
                        target="≤ 1 s", met=paint <= 1.0,
                        note="each run (ms): " + ", ".join(f"{p:.0f}" for p in seen["paints"])
                        + "; cells put into the page (before layout and drawing) at "
                        + ", ".join(f"{p:.0f}" for p in seen["inserted"])
                        + " ms; the summaries and static view follow the grid"))
        sent = statistics.median(seen["bytes"])
        rows.append(Row("8a. Kernel → browser bytes while that cell runs (websocket frames)",
                        sent, unit="B", note="the cells travel as one int8 buffer "
                        f"({agents * tools / 1e6:.1f} MB), names as JSON arrays"))
        rows.append(Row("8b. Kernel resident memory with the view open", seen["rss_open"] * 1e6,
                        unit="B", note=f"before the cell: {seen['rss_before']:.0f} MB (project "
                        "loaded)"))
    rows.append(Row("8c. Static fallback of that view (one output, as saved in the .ipynb)",
                    size, unit="B", target="≤ 1 MB", met=size <= 1_000_000,
                    note=f"HTML {html / 1e3:.0f} kB: summaries, heatmap image, first 25 × 30 "
                    "cells and how many more"))
    return rows
