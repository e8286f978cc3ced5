"""The fleet heatmap's row labels are agent names, which are untrusted text: each is escaped in
the SVG, in its label as in its tooltip (h16 finding 9: test_readable_views put hostile text
in a group name only, so an unescaped row label went unnoticed)."""

from __future__ import annotations

from pathlib import Path

import toolkit as tk

NAME = "x<b onmouseover=alert(1)>&y"
ESCAPED = "x&lt;b onmouseover=alert(1)&gt;&amp;y"


def test_row_labels_are_escaped(tmp_path: Path) -> None:
    from toolkit.notebook import fleet

    (tmp_path / "tools.yaml").write_text("tool:\n  lookup: {}\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "a.md").write_text(
        f'---\nname: "{NAME}"\ntools: [lookup]\n---\n')
    with tk.load(tmp_path, home=False, managed=False) as proj:
        assert list(proj.agents) == [NAME]
        heat = fleet.Heatmap(fleet.matrix_data(proj, groups=[("*",)]))
        for text in (heat.svg(), heat.html()):
            assert "<b " not in text and "onmouseover=alert(1)>" not in text
            assert f"text-anchor='end'><title>{ESCAPED}</title>{ESCAPED}</text>" in text
