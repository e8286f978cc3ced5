"""Every object and widget also renders as text/html + text/plain (GitHub, nbviewer, files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from toolkit.notebook import AuditView, MatrixExplorer, ServerPanel, SpawnTree, WorkflowStepper
from toolkit.notebook.views import Decisions, TextView

TG = Path(tk.__file__).parent / "examples" / "trustgraph"


def test_objects_and_widgets_have_html_and_text() -> None:
    with tk.load(TG) as proj:
        session = proj.start("react-agent", groups=["*"])
        d = proj.explain("react-agent", "graph-update")
        objects = [proj, session, d, Decisions([d, d]), TextView("<b>raw</b>", "log"),
                   MatrixExplorer(proj), WorkflowStepper(session), SpawnTree(session),
                   ServerPanel(proj), AuditView(proj)]
        for obj in objects:
            bundle = obj._repr_mimebundle_()  # type: ignore[attr-defined]
            assert bundle["text/plain"].strip(), type(obj).__name__
            assert bundle["text/html"].strip().startswith("<"), type(obj).__name__
        assert "&lt;b&gt;raw" in TextView("<b>raw</b>")._repr_mimebundle_()["text/html"]


def test_a_call_result_shows_server_content_escaped() -> None:
    """A tool's answer is server data: text, structured content and errors render as text."""
    from toolkit.runtime.builtins import CallResult

    result = CallResult([{"type": "text", "text": "<img src=x onerror=alert(1)>"},
                         {"type": "image", "data": "AAAA", "mimeType": "image/png"}],
                        {"note": "<script>bad()</script>"}, is_error=True)
    bundle = result._repr_mimebundle_()
    page = bundle["text/html"]
    assert "<img" not in page and "<script" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;script&gt;bad()&lt;/script&gt;" in page
    assert "[image block, image/png, 4 characters of data]" in page
    assert bundle["text/plain"].splitlines()[:2] == ["CallResult (error)",
                                                     "<img src=x onerror=alert(1)>"]
    with tk.load(TG) as proj:  # and a real answer from the demo server renders the same way
        proj.connect()
        answer = proj.start("react-agent", groups=["*"]).call(
            "knowledge-query", {"query": "Alice"})
        assert "CallResult (ok)" in answer._repr_mimebundle_()["text/plain"]
        assert answer._repr_mimebundle_()["text/html"].startswith("<div")



# -- saved notebooks: what nbconvert, GitHub and nbviewer show without a kernel ------------------

_SAVED = '''
import sys
sys.path.insert(0, {root!r})
import toolkit as tk
from toolkit.notebook import AuditView, MatrixExplorer, ServerPanel, SpawnTree, WorkflowStepper
proj = tk.load({tg!r})
MatrixExplorer(proj, groups="read-only; *", states=["undefined", "analysis"])
'''
_FLEET = '''
from bench.gen import generate
from pathlib import Path
generate(Path({fleet!r}), n_agents=200, n_tools=5000)
fleet = tk.load({fleet!r})
MatrixExplorer(fleet)
'''
_OTHERS = '''
s = proj.start("react-agent", groups=["*"])
s.spawn("react-agent", groups=["read-only"])
display(WorkflowStepper(s), SpawnTree(s), ServerPanel(proj), AuditView(proj))
'''


def _execute(tmp_path: Path, store_widget_state: bool) -> Any:
    from nbclient import NotebookClient
    from nbformat.v4 import new_code_cell, new_notebook

    root = str(Path(__file__).resolve().parents[2])
    cells = [new_code_cell(_SAVED.format(root=root, tg=str(TG))),
             new_code_cell(_FLEET.format(fleet=str(tmp_path / "fleet"))),
             new_code_cell(_OTHERS)]
    nb = new_notebook(cells=cells, metadata={"kernelspec": {
        "display_name": "Python 3", "language": "python", "name": "python3"}})
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   store_widget_state=store_widget_state).execute()
    assert ("widgets" in nb.metadata) == store_widget_state
    return nb


def _cells_of(page: str) -> list[tuple[str, str, str]]:
    """(tool, column, effect) of every effect-coloured cell of the matrix previews."""
    from html.parser import HTMLParser

    class Parser(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.rows: list[tuple[str, str, str]] = []
            self.in_matrix = 0
            self.tool = ""
            self.column = 0
            self.in_code = False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found = dict(attrs)
            if tag == "table" and found.get("class") == "toolkit-matrix":
                self.in_matrix += 1
            if not self.in_matrix:
                return
            if tag == "tr":
                self.column = 0
            if tag == "code":
                self.in_code = True
            if tag == "span" and "data-effect" in found:
                self.rows.append((self.tool, str(self.column), str(found["data-effect"])))
                self.column += 1

        def handle_endtag(self, tag: str) -> None:
            if tag == "table" and self.in_matrix:
                self.in_matrix -= 1
            if tag == "code":
                self.in_code = False

        def handle_data(self, data: str) -> None:
            if self.in_code:
                self.tool = data

    parser = Parser()
    parser.feed(page)
    return parser.rows


@pytest.mark.slow
@pytest.mark.parametrize("store_widget_state", [True, False],
                         ids=["with-widget-state", "without-widget-state"])
def test_saved_notebook_shows_summaries_heatmap_and_first_rows_offline(
        tmp_path: Path, store_widget_state: bool) -> None:
    """Executed like `jupyter nbconvert --execute` (widget state saved or not), then exported
    to HTML like `--to html`: every view's static output is there, with the right effects."""
    from nbconvert import HTMLExporter

    nb = _execute(tmp_path, store_widget_state)
    for cell in nb.cells:
        for output in cell.outputs:
            assert output.get("output_type") != "error", output
            assert len(json.dumps(output)) <= 1_000_000  # any project size: bounded
    page, _ = HTMLExporter().from_notebook_node(nb)
    # the trustgraph explorer: columns (read-only, undefined) (read-only, analysis)
    # (*, undefined) (*, analysis); cells checked against explain()
    with tk.load(TG) as proj:
        expected = []
        for tool in sorted(proj.tools):
            for column, (groups, state) in enumerate(
                    [(["read-only"], "undefined"), (["read-only"], "analysis"),
                     (["*"], "undefined"), (["*"], "analysis")]):
                d = proj.explain("react-agent", tool, groups=groups, state=state)
                expected.append((tool, str(column), str(d.effect)))
    shown = _cells_of(page)
    assert shown[:len(expected)] == expected
    assert ("graph-update", "3", "allow") in shown and ("graph-update", "2", "implicit-deny") \
        in shown
    # the fleet: summaries, the heatmap as an image, the first rows and how many more
    assert page.count("Per agent: tools by effect") >= 2
    assert "Per tool: how many agents may call it" in page
    assert page.count("toolkit-heatmap-svg") >= 2  # inline SVG: its tooltips and theme colours
    assert "… and 4975 more tool(s), 170 more column(s)" in page
    assert "agent-000" in page and "5000 tool(s) × 200 column(s)" in page
    # the other widgets' static views
    for text in ("react-agent.react-agent", "available now", "Audit log", "configured"):
        assert text in page, text


def test_heatmap_values_and_pixels_agree_with_explain() -> None:
    import struct
    import zlib

    from toolkit.notebook import fleet

    with tk.load(TG) as proj:
        data = fleet.matrix_data(proj, groups=[("*",)], states=["analysis"])
        heat = fleet.Heatmap(data, by="group")
        for group in heat.values.columns:
            members = [t for t in proj.tools if group in proj.tools[t].groups]
            granted = [proj.explain("react-agent", t, groups=["*"], state="analysis").allowed
                       for t in members]
            assert heat.values.loc["react-agent", group] == sum(granted) / len(granted)
        png = heat._cells_png()
        width, height = struct.unpack(">II", png[16:24])
        assert (width, height) == (len(heat.values.columns), 1)
        idat = png[png.index(b"IDAT") + 4:png.index(b"IEND") - 8]
        row = zlib.decompress(idat)[1:]  # filter byte, then RGB
        full = [row[3 * j:3 * j + 3] for j in range(width)]
        for j, group in enumerate(heat.values.columns):
            if heat.values.loc["react-agent", group] == 1.0:
                assert full[j] == bytes((0x1a, 0x7f, 0x37))  # PALETTE[allow]
            if heat.values.loc["react-agent", group] == 0.0:
                assert full[j] == bytes((0xf6, 0xf8, 0xfa))
        assert "react-agent" in heat.svg() and heat.svg() in heat.html()


def test_project_summary_lists_counts_and_first_names(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.gen import generate

    generate(tmp_path / "fleet", n_agents=200, n_tools=2000)
    with tk.load(tmp_path / "fleet") as proj:
        bundle = proj._repr_mimebundle_()
        assert len(bundle["text/html"]) < 3_000  # was 73 KB: every one of 2,200 names
        assert "200 agent(s): <code>agent-000</code>" in bundle["text/html"]
        assert "… and 192 more" in bundle["text/html"]
        assert "… and 1992 more" in bundle["text/plain"]
        assert "agent-199" not in bundle["text/plain"]
