"""Issue 23 item 16: the matrix grid as itables and Perspective users expect it, in real
JupyterLab 4 and Debian's Chromium.

Labels are sized from the theme font's real glyphs (never cut with room to spare); a merged
header run shows its label over the run (or in every column of it); the grid is a keyboard
and ARIA grid (Tab, arrows, Enter explains like a click; role=grid/row/gridcell/columnheader/
rowheader, aria-rowcount/colcount for the virtualised rows); a header click sorts by effect,
then name (a second click reverses); reset clears filters and sort; the tools filter takes a
comma list; the rows × columns in view export as CSV (a Blob download) or to the clipboard
(with a message when the browser refuses). Every cell checked is the effect explain() gives.

The lab serves a scratch project (TrustGraph's example plus a long tool name, a name that
looks like HTML and one that looks like a spreadsheet formula) and a generated fleet, from
its temporary notebooks folder.

Outside CI the module skips when /usr/bin/chromium is missing; under ``CI=true`` it must run.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

import toolkit as tk
from tests.support.lab import (
    NOTEBOOK,
    ROOT,
    Lab,
    errors,
    jupyterlab,
    launch,
    menu,
    open_notebook,
    require_chromium,
    wait_idle,
)
from toolkit.core.decision import Effect

pytestmark = pytest.mark.slow

require_chromium()

LONG = "svc07_synchronise_inventory_records_with_the_regional_warehouse_v2"
HOSTILE = "<img/src=x/onerror=window.__tkPwned=1>"
FORMULA = "=1+2"
EXTRA_TOOLS = "".join(
    f'\n  "{name}":\n    type: mcp-tool\n    name: "{label}"\n    description: "{label}"\n'
    f'    group: ["read-only", "basic"]\n'
    for name, label in ((LONG, "long"), (HOSTILE, "hostile"), (FORMULA, "formula")))
#: The explorer of the scratch project, in the notebook and in this process alike.
PICKERS = dict(groups="read-only; *", states=["undefined", "analysis", "results"],
               presets=["strict", "trustgraph"])
NB = "grid.ipynb"
CELLS = [
    "import sys\nsys.path.insert(0, '..')\nfrom pathlib import Path\nimport toolkit as tk\n"
    "from toolkit.notebook import MatrixExplorer\nfrom bench.gen import generate\n"
    "proj = tk.load('scratch-project')\n"
    "generate(Path('fleet'), n_agents=60, n_tools=400)\nfleet = tk.load('fleet')",
    f"MatrixExplorer(proj, **{PICKERS!r})",
    "MatrixExplorer(fleet, groups='*')",
]
EFFECT_ORDER = [e.value for e in Effect]


def scratch_project(folder: Path) -> Path:
    """TrustGraph's example with three more tools (a long name, an HTML-like one, a formula)."""
    shutil.copytree(ROOT / "toolkit" / "examples" / "trustgraph", folder)
    with (folder / "tools.yaml").open("a", encoding="utf-8") as tools:
        tools.write(EXTRA_TOOLS)
    return folder


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with jupyterlab(tmp_path_factory.mktemp("lab")) as running:
        scratch_project(running.notebooks / "scratch-project")
        notebook = new_notebook(cells=[new_code_cell(c) for c in CELLS], metadata={
            "kernelspec": {"display_name": "Python 3", "language": "python",
                           "name": "python3"}})
        nbformat.write(notebook, running.notebooks / NB)
        yield running


@pytest.fixture(scope="module")
def page(lab: Lab) -> Iterator[Any]:
    """The notebook run once (Run All); every test starts from the reset button."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=30_000)
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            opened = open_notebook(browser, lab, NB)
            menu(opened, "Run", "Run All Cells")
            wait_idle(opened, 180_000)
            failed = [e for e in errors(opened) if "Traceback" in e or "Error" in e]
            assert failed == [], failed
            for index in range(2):
                grid = opened.locator(".toolkit-matrix-grid").nth(index)
                grid.locator(".tk-cell").first.wait_for()
            yield opened
        finally:
            browser.close()


@pytest.fixture(scope="module")
def proj(lab: Lab) -> Iterator[tk.Project]:
    """The scratch project loaded in this process, to check cells against explain()."""
    with tk.load(lab.notebooks / "scratch-project") as loaded:
        yield loaded


@pytest.fixture(scope="module")
def columns(proj: tk.Project) -> list[dict[str, Any]]:
    """The scratch explorer's columns (agent, groups, state, preset), in the grid's order."""
    from toolkit.notebook import MatrixExplorer

    return MatrixExplorer(proj, **PICKERS).columns  # type: ignore[arg-type]


def explorer(page: Any, index: int = 0) -> Any:
    return page.locator(".toolkit-live.toolkit-matrix-explorer").nth(index)


def fresh_grid(page: Any, index: int = 0) -> Any:
    """The grid of explorer ``index``, filters and sort reset."""
    from playwright.sync_api import expect

    grid = explorer(page, index).locator(".toolkit-matrix-grid")
    grid.locator(".tk-reset").click()
    expect(grid.locator(".tk-filter-tools")).to_have_value("")
    return grid


def effect(proj: tk.Project, column: dict[str, Any], tool: str) -> str:
    d = proj.explain(column["agent"], tool, groups=list(column["groups"]), state=column["state"],
                     preset=column["preset"])
    return str(d.effect.value)


def row_labels(grid: Any) -> list[str]:
    return [t.strip() for t in grid.locator(".tk-rowlabel").all_text_contents()]


def test_labels_fit_their_text_measured_in_the_theme_font(page: Any) -> None:
    """Row and column labels are as wide (tall) as their text: none is cut while there is
    room (the old 6.6 px per character cut 'complex-analysis' and every longer name)."""
    grid = fresh_grid(page)
    assert LONG in row_labels(grid)
    cut = grid.evaluate("""(root) => {
        const out = [];
        for (const e of root.querySelectorAll('.tk-rowlabel, .tk-collabel')) {
            const vertical = getComputedStyle(e).writingMode !== 'horizontal-tb';
            const over = vertical ? e.scrollHeight - e.clientHeight : e.scrollWidth - e.clientWidth;
            if (over > 0) out.push(`${e.textContent} (${over} px)`);
        }
        return out;
    }""")
    assert cut == []


def test_every_column_of_a_merged_header_run_shows_its_label(page: Any) -> None:
    """Above the last level, a run of equal values is one label centred over the run, or its
    label in each column: no column of a run is blank."""
    grid = fresh_grid(page)
    problems = grid.evaluate("""(root) => {
        const heads = [...root.querySelectorAll('.tk-collabel')];
        const cells = [...root.querySelectorAll('.tk-cell')];
        const top = Math.min(...cells.map((c) => c.getBoundingClientRect().top));
        const columns = cells.map((c) => c.getBoundingClientRect())
            .filter((r) => Math.abs(r.top - top) < 1);
        const out = [];
        for (const band of new Set(heads.map((h) => h.style.top))) {
            const inBand = heads.filter((h) => h.style.top === band);
            for (const col of columns) {
                const mid = (col.left + col.right) / 2;
                const head = inBand.find((h) => {
                    const r = h.getBoundingClientRect();
                    return r.left <= mid && mid <= r.right;
                });
                if (!head || !head.textContent.trim()) {
                    out.push(`band ${band}: no label over the column at x=${mid}`);
                    continue;
                }
                const range = document.createRange();
                range.selectNodeContents(head);
                const text = range.getBoundingClientRect();
                const box = head.getBoundingClientRect();
                const over = text.left < col.right && text.right > col.left;
                const centred = Math.abs((text.left + text.right) - (box.left + box.right)) <= 4;
                if (!over && !centred) out.push(`band ${band}: '${head.textContent}' is `
                    + `neither over the column at x=${mid} nor centred over its run`);
            }
        }
        return out;
    }""")
    assert problems == []
    runs = grid.locator(".tk-collabel[aria-colspan]")
    assert runs.count() > 0  # the scratch explorer has runs (one agent, two group sets)


def test_aria_grid_roles_and_sizes(page: Any, proj: tk.Project) -> None:
    grid = fresh_grid(page)
    table = grid.get_by_role("grid")
    levels, n_rows, n_cols = 4, len(proj.tools), 12  # agent, groups, state, preset
    assert table.get_attribute("aria-rowcount") == str(levels + n_rows)
    assert table.get_attribute("aria-colcount") == str(1 + n_cols)
    assert table.get_attribute("tabindex") == "0"
    body_rows = grid.locator(".tk-spacer [role=row]")
    assert body_rows.count() == n_rows
    assert grid.locator(".tk-colhead [role=row]").count() == levels
    heads = grid.get_by_role("rowheader").all_text_contents()
    assert heads == row_labels(grid)
    assert grid.get_by_role("gridcell").count() == n_rows * n_cols
    assert grid.get_by_role("columnheader").count() >= n_cols
    first = body_rows.first
    assert first.get_attribute("aria-rowindex") == str(levels + 1)
    assert first.get_by_role("gridcell").first.get_attribute("aria-colindex") == "2"


def _active(page: Any, grid: Any) -> Any:
    cell_id = grid.locator(".tk-grid").get_attribute("aria-activedescendant")
    assert cell_id
    return page.locator(f"[id='{cell_id}']")


def test_arrow_keys_move_the_focused_cell_and_enter_explains_it(page: Any, proj: tk.Project,
                                                                 columns: list[dict[str, Any]]
                                                                 ) -> None:
    from playwright.sync_api import expect

    grid = fresh_grid(page)
    cells_before = page.locator(f"{NOTEBOOK} .jp-Cell").count()
    grid.locator(".tk-grid").focus()
    active = _active(page, grid)
    assert (active.get_attribute("data-tool"), active.get_attribute("data-col")) == (
        row_labels(grid)[0], "0")
    for key in ("ArrowDown", "ArrowDown", "ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
    active = _active(page, grid)
    tool, column = row_labels(grid)[2], 2
    assert (active.get_attribute("data-tool"), active.get_attribute("data-col")) == (
        tool, str(column))
    assert "tk-active" in str(active.get_attribute("class"))
    page.keyboard.press("Enter")
    decision = explorer(page).locator(".toolkit-decision")
    expect(decision).to_contain_text(tool)
    expect(decision.locator(".toolkit-effect").first).to_have_attribute(
        "data-effect", effect(proj, columns[column], tool))
    # arrows and Enter were the grid's: no notebook cell moved, none entered edit mode
    assert page.locator(f"{NOTEBOOK} .jp-Cell").count() == cells_before
    assert page.locator(f"{NOTEBOOK} .jp-mod-editMode").count() == 0


def test_keyboard_reaches_cells_beyond_the_virtualised_view(page: Any) -> None:
    """Ctrl+End goes to the last cell of the fleet's 400 × 60: the grid scrolls and paints it."""
    grid = fresh_grid(page, 1)
    table = grid.get_by_role("grid")
    assert table.get_attribute("aria-rowcount") == str(1 + 400)
    assert table.get_attribute("aria-colcount") == str(1 + 60)
    assert grid.locator(".tk-cell").count() < 400 * 60  # virtualised
    grid.locator(".tk-grid").focus()
    page.keyboard.press("Control+End")
    active = _active(page, grid)
    assert active.get_attribute("data-col") == str(59)
    assert active.get_attribute("data-tool") == row_labels(grid)[-1]
    assert active.get_attribute("aria-colindex") == str(1 + 60)
    row = active.locator("xpath=..")
    assert row.get_attribute("aria-rowindex") == str(1 + 400)
    page.keyboard.press("Control+Home")
    assert _active(page, grid).get_attribute("data-col") == "0"


def test_a_header_click_sorts_by_effect_then_name_and_a_second_click_reverses(
        page: Any, proj: tk.Project, columns: list[dict[str, Any]]) -> None:
    grid = fresh_grid(page)
    tools = list(proj.tools)
    # the column whose cells differ most
    column = max(range(len(columns)),
                 key=lambda c: len({effect(proj, columns[c], t) for t in tools}))
    expected = sorted(tools, key=lambda t: (EFFECT_ORDER.index(effect(proj, columns[column], t)),
                                            t))
    head = grid.locator(f".tk-collabel[data-col='{column}']")
    head.click()
    assert row_labels(grid) == expected
    assert head.get_attribute("aria-sort") == "ascending"
    head.click()
    assert row_labels(grid) == expected[::-1]
    assert head.get_attribute("aria-sort") == "descending"
    # a tool's label sorts the columns by that tool's effects
    grid.locator(".tk-rowlabel", has_text="graph-update").click()
    shown = grid.locator(".tk-cell[data-tool='graph-update']")
    ranks = [EFFECT_ORDER.index(str(e)) for e in
             (shown.nth(i).get_attribute("data-effect") for i in range(shown.count()))]
    assert ranks == sorted(ranks) and len(set(ranks)) > 1


def test_reset_clears_filters_and_sort(page: Any, proj: tk.Project) -> None:
    from playwright.sync_api import expect

    grid = fresh_grid(page)
    original = row_labels(grid)
    grid.locator(".tk-collabel[data-col='0']").click()
    grid.locator(".tk-filter-tools").fill("graph*")
    grid.locator(".tk-filter-columns").fill("analysis")
    grid.locator(".tk-filter-effect").select_option(index=1)
    grid.locator(".tk-sort-columns").select_option(index=1)
    grid.locator(".tk-reset").click()
    expect(grid.locator(".tk-info")).to_have_text(
        f"{len(proj.tools)} of {len(proj.tools)} tools × 12 of 12 columns")
    assert row_labels(grid) == original
    for box in (".tk-filter-tools", ".tk-filter-columns"):
        expect(grid.locator(box)).to_have_value("")
    for select in (".tk-filter-server", ".tk-filter-group", ".tk-filter-effect", ".tk-sort",
                   ".tk-sort-columns"):
        expect(grid.locator(select)).to_have_value("-1")
    assert grid.locator(".tk-collabel[aria-sort='ascending']").count() == 0


def test_the_tools_filter_takes_a_comma_list(page: Any, proj: tk.Project) -> None:
    from playwright.sync_api import expect

    grid = fresh_grid(page)
    grid.locator(".tk-filter-tools").fill("graph*, text*")
    expect(grid.locator(".tk-info")).to_contain_text(f"2 of {len(proj.tools)} tools")
    assert row_labels(grid) == ["graph-update", "text-completion"]
    grid.locator(".tk-filter-tools").fill("knowledge, reset*, nothing-here")
    assert row_labels(grid) == ["knowledge-query", "reset-workflow"]


def _expected_csv(proj: tk.Project, columns: list[dict[str, Any]], tools: list[str],
                  shown: list[int], levels: list[str]) -> str:
    from toolkit.core.models import groups_label

    def text(c: dict[str, Any]) -> str:
        values = {"agent": c["agent"], "groups": groups_label(tuple(c["groups"])),
                  "state": c["state"], "preset": c["preset"]}
        return " · ".join(values[level] for level in levels)

    def field(value: str) -> str:
        value = f"'{value}" if value[:1] in ("=", "+", "-", "@") else value
        return f'"{value}"' if any(ch in value for ch in ',"\n') else value

    lines = [",".join(field(v) for v in ["tool", *(text(columns[c]) for c in shown)])]
    lines += [",".join(field(v) for v in [t, *(effect(proj, columns[c], t) for c in shown)])
              for t in tools]
    return "\r\n".join(lines) + "\r\n"


def test_csv_download_and_clipboard_hold_the_filtered_view(page: Any, proj: tk.Project,
                                                           columns: list[dict[str, Any]]
                                                           ) -> None:
    from playwright.sync_api import expect

    grid = fresh_grid(page)
    grid.locator(".tk-filter-tools").fill("graph*, =*, <img*")
    grid.locator(".tk-filter-columns").fill("analysis")
    expect(grid.locator(".tk-info")).to_contain_text(
        f"3 of {len(proj.tools)} tools × 4 of 12 columns")
    tools = row_labels(grid)
    assert sorted(tools) == sorted(["graph-update", FORMULA, HOSTILE])
    shown = [c for c, col in enumerate(columns) if "analysis" in col["state"]]
    expected = _expected_csv(proj, columns, tools, shown, ["agent", "groups", "state", "preset"])
    assert "'=1+2" in expected  # a spreadsheet reads the name, not a formula

    with page.expect_download() as download:
        grid.locator(".tk-export-csv").click()
    saved = download.value
    assert saved.suggested_filename == "toolmatrix.csv"
    assert Path(saved.path()).read_bytes().decode("utf-8") == expected
    expect(grid.locator(".tk-status")).to_contain_text("3 tool(s) × 4 column(s)")

    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    grid.locator(".tk-export-copy").click()
    expect(grid.locator(".tk-status")).to_contain_text("copied as CSV")
    assert page.evaluate("() => navigator.clipboard.readText()") == expected


def test_a_refused_clipboard_says_so_and_points_to_the_download(page: Any) -> None:
    from playwright.sync_api import expect

    grid = fresh_grid(page)
    page.evaluate("() => { navigator.clipboard.writeText = "
                  "() => Promise.reject(new Error('denied by the test')); }")
    grid.locator(".tk-export-copy").click()
    expect(grid.locator(".tk-status")).to_contain_text(
        "the browser did not allow copying (denied by the test)")
    expect(grid.locator(".tk-status")).to_contain_text("CSV button")


def test_tool_names_are_text_never_html(page: Any) -> None:
    grid = fresh_grid(page)
    assert HOSTILE in row_labels(grid)
    assert HOSTILE in grid.get_by_role("rowheader").all_text_contents()
    assert grid.locator(".tk-grid img").count() == 0
    assert page.evaluate("() => window.__tkPwned") is None
