"""``proj.lint()``'s shortcuts change no answer (issue 24 item 2, the speed of figure 10).

lint answers most of its questions ("do these two rules share a call?", "is anything left
of this rule once the stronger ones are taken out?") with a candidate string checked by
matching, and stops walking a product of automata where a dropped automaton accepts every
continuation. Both are meant to be exact: a string that matches every kept regex and no
dropped one *is* a witness, and nothing can be kept past such a state. These tests run lint
twice over real settings files, once as is and once with both shortcuts switched off (every
question answered by walking the automata alone, every cache emptied first), and require
the same frame, witnesses included.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
import toolkit.analysis.lint as lint_module
from tests.support.claude import build_project, permissions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: Real settings files (SOURCES.md beside each) in which lint finds something (the finding
#: beside each); the slowest to lint without the shortcuts (a minute and more) are left out.
REAL = [
    "claude-settings-real/isaiahdupree-acd.settings.json",  # 2 redundant
    "convert/iris-user-employee-onboarding.settings.json",  # redundant, dead
    "convert/irishusha-agentic-planning-poker.settings.json",  # 5 redundant asks
    "convert/ironcondorbursatil-monitormercadoargy.settings.json",  # 2 conflicts
    "convert/somang-youth-storyboard.settings.json",  # redundant, dead
    "convert/someoneisworking-zelda3d.settings.json",  # redundant
    "convert/songhyeonjin-jarvis-agent.settings.json",  # 3 redundant, dead
    "convert/songshgeo-python-project-template.settings.json",  # redundant
]


def _clear() -> None:
    for value in vars(lint_module).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()
    lint_module._BY_ID.clear()


@pytest.fixture
def no_shortcuts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """lint on the automata alone: no candidate strings, no pruning at accepting sinks."""
    _clear()
    monkeypatch.setattr(lint_module, "_candidates", lambda keep: [])
    monkeypatch.setattr(lint_module, "_sink", lambda fsm: frozenset())
    yield
    _clear()


def _frame(root: Path) -> list[dict[str, Any]]:
    proj = tk.load(root, preset="claude-code", home=False, managed=False)
    try:
        frame = proj.lint()
    finally:
        proj.close()
    return json.loads(frame.to_json(orient="records"))


def _project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    shutil.copy(FIXTURES / name, root / ".claude" / "settings.json")
    return root


@pytest.mark.parametrize("name", REAL)
def test_real_settings_lint_the_same_with_and_without_the_shortcuts(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, name)
    _clear()
    fast = _frame(root)
    _clear()
    monkeypatch.setattr(lint_module, "_candidates", lambda keep: [])
    monkeypatch.setattr(lint_module, "_sink", lambda fsm: frozenset())
    slow = _frame(root)
    _clear()
    assert fast == slow
    assert any(row["status"] != "ok" for row in fast)  # something was found to compare


def test_the_candidates_prove_overlaps_without_automata() -> None:
    """Two any-depth path denies meet on a path holding both names (``.env.test/.env``), and
    the shortcut finds it by splicing one rule's sample after the other's folder."""
    _clear()
    root = "/r"
    a = lint_module._lang(rf"{root}/(?:(?:.+/)?\.env\.test(?:/[\s\S]*)?)", None, ("",))
    b = lint_module._lang(rf"{root}/(?:(?:.+/)?\.env(?:/[\s\S]*)?)", None, ("",))
    found = lint_module._candidates((a, b))
    assert found and all(a.accepts(c) and b.accepts(c) for c in found)
    assert a._fsm is None and b._fsm is None  # no automaton was built


def test_a_sink_of_a_dropped_automaton_ends_the_walk() -> None:
    """``git reset --hard`` minus ``git reset *``: after "git reset " the dropped automaton
    accepts whatever follows, so nothing past it is walked, and nothing is left."""
    _clear()
    narrow = lint_module._lang(r"(?s)git\ reset\ \-\-hard(?: .*)?", None, ("",))
    broad = lint_module._lang(r"(?s)git\ reset(?: .*)?", None, ("",))
    assert lint_module._sink(broad.fsm)
    assert not lint_module._exists((narrow,), (broad,))
    assert lint_module._exists((broad,), (narrow,))


def test_the_shortcuts_keep_the_documented_findings(tmp_path: Path,
                                                    no_shortcuts: None) -> None:
    """The hand-worked project of test_lint.py, on the automata alone, gives the statuses
    test_lint expects (the shortcuts are not what makes them right)."""
    from tests.analysis.test_lint import EXPECTED, PROJECT

    proj = build_project(tmp_path, project=PROJECT)
    rows = {(r["kind"], int(r["line"])): (r["status"], r["by"] if isinstance(r["by"], str)
                                          else None) for r in proj.lint().to_dict("records")}
    proj.close()
    assert rows == EXPECTED


@pytest.mark.parametrize("shortcuts", [True, False])
def test_a_path_deny_inside_another_is_redundant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 shortcuts: bool) -> None:
    """``Read(src/secret/**)`` (anchored: a slash in the middle) lies inside
    ``Read(src/**)`` (one segment: a ``src`` folder at any depth), on every tool the two
    denies are consulted on (the read tools, Edit and Write): nothing is left of it, which
    no candidate string can show; the walk on the automata must prove it."""
    _clear()
    if not shortcuts:
        monkeypatch.setattr(lint_module, "_candidates", lambda keep: [])
        monkeypatch.setattr(lint_module, "_sink", lambda fsm: frozenset())
    proj = build_project(tmp_path, project=permissions(deny=["Read(src/**)",
                                                              "Read(src/secret/**)"]))
    rows = {r["rule"]: r for r in proj.lint().to_dict("records")}
    proj.close()
    _clear()
    assert (rows["Read(src/secret/**)"]["status"], rows["Read(src/secret/**)"]["by"]) == (
        "redundant", "Read(src/**)")
    assert rows["Read(src/secret/**)"]["verified"] is True
    assert rows["Read(src/**)"]["status"] == "ok"


def _bfs(keep: list[Any], drop: list[Any]) -> str | None:
    """The witness search as it was before A*: breadth first over tuples of states, moves
    in the joint alphabet's order (the reference the faster search must agree with)."""
    from collections import deque

    fsms = tuple(lint_module._automaton(f) for f in (*keep, *drop))
    moves, n = lint_module._moves(fsms), len(keep)
    steps = [lint_module._steps(f) for f in fsms]
    start = tuple(f.initial if f.initial in lint_module._live(f) else None for f in fsms)
    if None in start[:n]:
        return None
    seen, queue = {start: ""}, deque([start])
    while queue:
        states = queue.popleft()
        if all(states[i] in fsms[i].finals for i in range(n)) and not any(
                s is not None and s in fsms[i].finals for i, s in enumerate(states) if i >= n):
            return seen[states]
        for char, keys in moves:
            out = [steps[i].get(s, {}).get(k) if s is not None else None
                   for i, (s, k) in enumerate(zip(states, keys, strict=True))]
            if None in out[:n]:
                continue
            target = tuple(out)
            if target not in seen:
                seen[target] = seen[states] + char
                queue.append(target)
    return None


def test_the_witness_search_spells_what_breadth_first_spells() -> None:
    """A* over the product (with its distance bound) returns breadth first's string: the
    shortest, then the most readable, for path, command and readable-form languages, kept
    and dropped."""
    _clear()
    universe = r"/(?:(?:[^/\n.][^/\n]*|\.[^/\n.][^/\n]*|\.\.[^/\n]+)/)*" \
               r"(?:[^/\n.][^/\n]*|\.[^/\n.][^/\n]*|\.\.[^/\n]+)"
    path = [lint_module._lang(rf"/r1/(?:{body})", universe, ("",)) for body in (
        r"src/mod2/[\s\S]*", r"(?:.+/)?[^/]*\.pem(?:/[\s\S]*)?", r"(?:.+/)?\.env(?:/[\s\S]*)?",
        r"(?:.+/)?secrets0/[\s\S]*")]
    command = [lint_module._lang(r, None, ("",)) for r in (
        r"(?s)git(?: .*)?", r"(?s)git\ push(?: .*)?", r"(?s).*\-\-force.*", r"(?s)rm\ \-rf.*")]
    nice = [lint_module._lang(r, None, ("",)) for r in lint_module._NICE]
    cases = [(list(pair), []) for group in (path, command) for pair in pairwise(group)]
    cases += [([path[0]], [path[1]]), ([path[2]], [path[3]]), ([command[0]], [command[1]]),
              ([command[0], command[2]], [command[1]]), ([path[0], path[1], nice[1]], []),
              ([command[1], nice[0]], [command[2]]), ([command[3], nice[2]], [])]
    for keep, drop in cases:
        assert lint_module._search(keep, drop) == _bfs(keep, drop), (keep, drop)
    _clear()
