"""One decision, many views: the vocabulary, its one precedence, and every core view of it.

The precedence is written once (``decide``); the matrix applies it vectorised, so
a test checks the two on every combination of failing steps. Then every shipped
example, agent, tool and context is checked across the core views: Resolution
(its verdicts and its HTML), the matrix (booleans, labels, effects) and explain().
"""

from __future__ import annotations

import itertools
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import toolkit as tk
from toolkit.core import matrix
from toolkit.core.decision import LABELS, STEPS, VERDICTS, Effect, Reason, decide, effect_of_label
from toolkit.render.decisions import PALETTE, legend_html

EXAMPLES = ["trustgraph", "emergent", "work-agent", "adh-cli", "mux", "claude-code"]


def test_first_failing_step_decides_and_deny_is_explicit() -> None:
    assert decide() == (Effect.ALLOW, Reason.ALLOW)
    assert decide(asks=True) == (Effect.ASK, Reason.APPROVAL)
    assert decide({Reason.STATE, Reason.GROUP}) == (Effect.IMPLICIT_DENY, Reason.GROUP)
    assert decide({Reason.ALLOW, Reason.DENY}, asks=True) == (Effect.DENY, Reason.DENY)
    assert decide({Reason.POOL, Reason.DENY}) == (Effect.IMPLICIT_DENY, Reason.POOL)
    assert decide({Reason.ALLOW}).label == "implicit"  # the one label that differs from reason


def test_vectorised_precedence_equals_decide_for_every_combination() -> None:
    steps = [s for s in STEPS if s is not Reason.APPROVAL]
    combos = [set(c) for r in range(len(steps) + 1) for c in itertools.combinations(steps, r)]
    for asks in (False, True):
        fails = {s: np.array([s in c for c in combos]) for s in steps}
        passed = np.full(len(combos), 1 if asks else 0, dtype=np.int8)
        codes = matrix.first_failure(fails, passed)
        for code, combo in zip(codes, combos, strict=True):
            assert VERDICTS[code] == decide(combo, asks=asks), combo


def test_every_label_maps_back_to_its_effect_and_every_effect_has_a_colour() -> None:
    assert len(set(LABELS)) == len(LABELS)
    for verdict in VERDICTS:
        assert effect_of_label(verdict.label) is verdict.effect
    assert set(PALETTE) == set(Effect)
    legend = legend_html()
    assert all(e.value in legend for e in Effect)


def test_effect_compares_as_its_documented_string() -> None:
    assert Effect.DENY == "explicit-deny" and Effect.IMPLICIT_DENY == "implicit-deny"
    assert tk.Effect is Effect and tk.Reason is Reason


class _Cells(HTMLParser):
    """(tool, data-effect) of each row of a Resolution's HTML table."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, str] = {}
        self._in_code = False
        self._tool: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "code":
            self._in_code = True
        if tag == "span" and "data-effect" in found and self._tool is not None:
            self.rows[self._tool] = str(found["data-effect"])
            self._tool = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._in_code = False

    def handle_data(self, data: str) -> None:
        if self._in_code:
            self._tool = data


def _contexts(proj: tk.Project) -> list[tuple[tuple[str, ...], str]]:
    group_sets = [("default",), ("*",), (), *((g,) for g in proj.groups)]
    return [(g, s) for g in group_sets for s in proj.states]


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_core_view_says_what_explain_says(examples: Path, example: str) -> None:
    proj = tk.load(examples / example)
    contexts = _contexts(proj)
    group_sets = list(dict.fromkeys(g for g, _ in contexts))
    states = list(proj.states)
    effects = proj.effects(groups=[list(g) for g in group_sets], states=states)
    labels = proj.reasons(groups=[list(g) for g in group_sets], states=states)
    allowed = proj.matrix(groups=[list(g) for g in group_sets], states=states)
    checked = 0
    assert list(effects.columns) == list(labels.columns) == list(allowed.columns)
    for agent in proj.agents:
        for groups, state in contexts:
            r = proj.resolve(agent, groups=list(groups), state=state)
            html = _Cells()
            html.feed(r._repr_mimebundle_()["text/html"])
            assert set(html.rows) == set(proj.tools)
            values = {"agent": agent, "groups": ",".join(groups) if groups else "(none)",
                      "state": state}
            column = tuple(values[str(n)] for n in effects.columns.names)
            column = column[0] if len(column) == 1 else column
            for tool in proj.tools:
                d = proj.explain(agent, tool, groups=list(groups), state=state)
                where = (example, agent, tool, groups, state)
                assert r.verdict(tool) == d.verdict, where
                assert (tool in r.allowed) == d.allowed, where
                assert (tool in r.ask) == (d.effect is Effect.ASK), where
                assert html.rows[tool] == d.effect, where
                assert effects.loc[tool, column] == d.effect, where
                assert labels.loc[tool, column] == d.label, where
                assert allowed.loc[tool, column] == d.allowed, where
                checked += 1
    assert checked == len(proj.agents) * len(contexts) * len(proj.tools) > 0


def test_resolution_html_no_longer_shows_an_implicit_deny_as_allow(examples: Path) -> None:
    # The case the issue reported: emergent's delegator and entities_create.
    proj = tk.load(examples / "emergent")
    d = proj.explain("delegator", "entities_create")
    assert d.effect == "implicit-deny"
    html = _Cells()
    html.feed(proj.resolve("delegator")._repr_mimebundle_()["text/html"])
    assert html.rows["entities_create"] == "implicit-deny"


def test_unknown_group_or_state_is_reported_not_silently_evaluated(examples: Path) -> None:
    proj = tk.load(examples / "trustgraph")
    d = proj.explain("react-agent", "graph-update", groups="knowlege", state="analysys")
    assert any("'knowlege'" in w for w in d.warnings)
    assert any("'analysys'" in w for w in d.warnings)
    assert "warning: invalid state 'analysys'" in d.report()
    with pytest.warns(UserWarning, match="analysys"):
        table = proj.matrix(states=["analysys"])
    assert any("analysys" in w for w in table.attrs["warnings"])
    assert proj.explain("react-agent", "graph-update").warnings == ()
