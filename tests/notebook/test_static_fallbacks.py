"""Every object and widget also renders as text/html + text/plain (GitHub, nbviewer, files)."""

from __future__ import annotations

from pathlib import Path

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

