"""Issue 23 item 17: ``%tk matrix`` shows each cell's effect in the shared palette, while the
DataFrame it returns stays ``proj.matrix()``'s booleans (SPEC section 8).

A Claude Code project where ``Bash(curl *)`` is denied: the builder's ``Bash`` is granted
(True in the frame) but its calls' arguments decide (``conditional``), and ``Edit`` asks:
the view shows both apart from a plain allow. The view is bounded, escapes every name, and
belongs to the returned frame only (a derived or edited frame shows as pandas shows it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

import toolkit as tk
from bench.gen import generate
from tests.support.claude import build_project, permissions
from toolkit.core.decision import Effect
from toolkit.render.decisions import MARKS, PALETTE, STYLED_COLUMNS, STYLED_ROWS, matrix_styler

from .conftest import TestingShell

REGISTRY = "tool:\n" + "".join(f"  {name}: {{}}\n" for name in (
    "Bash", "Read", "Edit", "Grep"))
AGENTS = {
    "builder": "---\nname: builder\ndescription: builds\ntools: Bash, Read, Edit\n---\nBuild.\n",
    "reader": "---\nname: reader\ndescription: reads\ntools: Read, Grep\n---\nRead.\n",
}
_CELL = re.compile(r'<td id="[^"]*" class="data row(\d+) col(\d+) toolkit-effect-([a-z-]+)" >'
                   r"([^<]*)</td>")


def cells(html: str) -> dict[tuple[int, int], tuple[str, str]]:
    """(row, column) -> (effect class, text) of every cell of a styled matrix."""
    return {(int(r), int(c)): (effect, text) for r, c, effect, text in _CELL.findall(html)}


def html_of(ip: TestingShell, obj: object) -> str:
    data, _ = ip.display_formatter.format(obj)
    return str(data["text/html"])


def _curl_denied(tmp_path: Path) -> tk.Project:
    return build_project(tmp_path, project=permissions(deny=["Bash(curl *)"], ask=["Edit"]),
                         agents=AGENTS, files={"tools.yaml": REGISTRY})


def test_conditional_and_ask_cells_are_shown_apart_from_allow(ip: TestingShell,
                                                              tmp_path: Path) -> None:
    proj = _curl_denied(tmp_path)
    ip.user_ns["magics"].project = proj
    ip.run_cell("x = %tk matrix")
    table = ip.user_ns["x"]
    # the values are the API's: the same plain DataFrame of booleans as proj.matrix()
    assert type(table) is pd.DataFrame and table.equals(proj.matrix())
    assert table.loc["Bash", "builder"] and table.loc["Edit", "builder"]
    shown = cells(html_of(ip, table))
    assert len(shown) == min(STYLED_ROWS, len(table)) * table.shape[1]
    tools, agents = list(table.index), list(table.columns)
    position = {(tools[r], agents[c]): v for (r, c), v in shown.items()}
    assert position["Bash", "builder"] == (Effect.CONDITIONAL.value, MARKS[Effect.CONDITIONAL])
    assert position["Edit", "builder"] == (Effect.ASK.value, MARKS[Effect.ASK])
    assert position["Read", "builder"] == (Effect.ALLOW.value, MARKS[Effect.ALLOW])
    assert position["Bash", "reader"] == (Effect.IMPLICIT_DENY.value,
                                          MARKS[Effect.IMPLICIT_DENY])
    page = html_of(ip, table)
    for effect in (Effect.ALLOW, Effect.ASK, Effect.CONDITIONAL):
        assert re.search(rf"td\.toolkit-effect-{effect.value} \{{\s*background-color: "
                         rf"{PALETTE[effect]};", page), effect
    assert "toolkit-legend" in page  # the legend names each colour and mark


def test_reasons_show_the_labels_in_their_effects_colours(ip: TestingShell,
                                                          tmp_path: Path) -> None:
    proj = _curl_denied(tmp_path)
    ip.user_ns["magics"].project = proj
    ip.run_cell("r = %tk matrix --reasons")
    table = ip.user_ns["r"]
    assert table.equals(proj.reasons())
    shown = cells(html_of(ip, table))
    assert len(shown) == min(STYLED_ROWS, len(table)) * table.shape[1]
    effects = proj.effects()
    for (r, c), (effect, text) in shown.items():
        assert text == table.iat[r, c]  # the label, as the frame holds it
        assert effect == effects.iat[r, c]


def test_a_big_matrix_stays_bounded(ip: TestingShell, tmp_path: Path) -> None:
    generate(tmp_path / "fleet", n_agents=40, n_tools=300)
    ip.run_cell(f"%tk load {tmp_path / 'fleet'}")
    ip.run_cell("big = %tk matrix --groups '*'")
    table = ip.user_ns["big"]
    assert table.shape == (300, 40)
    page = html_of(ip, table)
    assert len(cells(page)) == STYLED_ROWS * STYLED_COLUMNS
    assert "… and 275 more tool(s), 10 more column(s)" in page
    assert len(page) < 200_000
    names = [t for t in table.index if t in page]
    assert len(names) == STYLED_ROWS  # never thousands of names


def test_derived_or_edited_frames_show_as_pandas_shows_them(ip: TestingShell,
                                                            tmp_path: Path) -> None:
    proj = _curl_denied(tmp_path)
    ip.user_ns["magics"].project = proj
    ip.run_cell("x = %tk matrix")
    table = ip.user_ns["x"]
    assert "toolkit-effect-" in html_of(ip, table)
    for other in (table.copy(), table.iloc[:2], pd.DataFrame({"a": [1]})):
        assert html_of(ip, other) == other._repr_html_()
    table.loc["Bash", "builder"] = False  # the colours would now contradict the value
    assert html_of(ip, table) == table._repr_html_()


def test_the_styler_escapes_names_and_values() -> None:
    hostile = "<img src=x onerror=alert(1)>"
    effects = pd.DataFrame({hostile: [Effect.ALLOW.value]}, index=[hostile])
    page = matrix_styler(effects, text=pd.DataFrame({hostile: [hostile]}, index=[hostile])
                         ).to_html()
    assert hostile not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
