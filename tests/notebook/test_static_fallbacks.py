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
