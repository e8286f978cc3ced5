"""Issue 24 item 2: static rule analysis — ``proj.lint()``, ``toolmatrix lint``, ``%tk lint``.

Expected statuses are worked out by hand from Claude Code's permissions documentation:
deny rules are checked before ask rules before allow rules whatever their order; a
trailing `` *`` (or ``:*``) is a prefix at a word boundary that also matches the bare
command; a relative path rule without a slash in the middle matches at any depth
(gitignore); a one-segment directory deny such as ``Read(docs/**)`` matches that folder at
any depth; a Read deny also blocks Edit and Write of the path, not NotebookEdit; an Edit
allow also grants reading; ``WebFetch(domain:*.x.org)`` matches subdomains only. Every
witness is run through ``proj.check_call`` here, independently of ``verified``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.claude import build_project, permissions
from toolkit.analysis.lint import LINT_COLUMNS, _fsm, _literal_prefix
from toolkit.cli import main

# .claude/settings.json as write_json lays it out (indent 2): allow from line 4, ask, deny.
PROJECT = permissions(
    allow=["Bash(git *)",                      # 4  conflict: ask Bash(git push *) inside it
           "Bash(npm run test:*)",             # 5  redundant: inside Bash(npm run *)
           "Bash(npm run *)",                  # 6  ok
           "Bash(rm *)",                       # 7  shadowed by deny Bash(rm *)
           "Bash(npm run *)",                  # 8  shadowed: repeats line 6
           "Read(src/**)",                     # 9  conflict: deny Read(.env) at any depth
           "Read(./src/app.ts)",               # 10 redundant: inside Read(src/**), no deny
           "Edit(docs/**)",                    # 11 conflict: Read(docs/**) deny, NotebookEdit left
           "WebFetch(domain:docs.python.org)",  # 12 shadowed by deny *.python.org
           "WebFetch(domain:pypi.org)",        # 13 ok
           "mcp__github__get_issue",           # 14 dead: no github server
           "Bash(git push --force *)"],        # 15 shadowed: deny Bash(git push --force*)
    ask=["Bash(git push *)"],                  # 18 ok
    deny=["Bash(curl *)",                      # 21 ok
          "Read(.env)",                        # 22 ok
          "Bash(rm *)",                        # 23 ok
          "Bash(rm -rf *)",                    # 24 redundant: inside deny Bash(rm *)
          "WebFetch(domain:*.python.org)",     # 25 ok
          "Read(docs/**)",                     # 26 ok
          "Bash(git push --force*)",           # 27 ok
          "Grepp"])                            # 28 dead: no such tool

EXPECTED = {
    ("allow", 4): ("conflict", "Bash(git push --force*)"),  # the first deny / ask met
    ("allow", 5): ("redundant", "Bash(npm run *)"),
    ("allow", 6): ("ok", None),
    ("allow", 7): ("shadowed", "Bash(rm *)"),
    ("allow", 8): ("shadowed", "Bash(npm run *)"),
    ("allow", 9): ("conflict", "Read(.env)"),
    ("allow", 10): ("redundant", "Read(src/**)"),
    ("allow", 11): ("conflict", "Read(.env)"),  # docs/.env: the first deny met
    ("allow", 12): ("shadowed", "WebFetch(domain:*.python.org)"),
    ("allow", 13): ("ok", None),
    ("allow", 14): ("dead", None),
    ("allow", 15): ("shadowed", "Bash(git push --force*)"),
    ("ask", 18): ("ok", None),
    ("deny", 21): ("ok", None),
    ("deny", 22): ("ok", None),
    ("deny", 23): ("ok", None),
    ("deny", 24): ("redundant", "Bash(rm *)"),
    ("deny", 25): ("ok", None),
    ("deny", 26): ("ok", None),
    ("deny", 27): ("ok", None),
    ("deny", 28): ("dead", None),
}
_EFFECT = {"deny": {"explicit-deny"}, "ask": {"ask"}, "allow": {"allow"}}


@pytest.fixture
def proj(tmp_path: Path) -> Any:
    project = build_project(tmp_path, project=PROJECT)
    yield project
    project.close()


def _rows(frame: Any) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["kind"], int(r["line"])): r for r in frame.to_dict("records")}


def test_statuses_and_deciding_rules_match_the_documented_semantics(proj: Any) -> None:
    frame = proj.lint()
    assert list(frame.columns) == list(LINT_COLUMNS)
    rows = _rows(frame)
    got = {key: (row["status"], row["by"] if isinstance(row["by"], str) else None)
           for key, row in rows.items()}
    assert got == EXPECTED


def _deciders(d: Any) -> list[tuple[Any, ...]]:
    return [(r.text, r.line) for r in (d.rule, *(p.rule for p in d.parts))]


def test_every_witness_is_decided_as_the_finding_says(proj: Any) -> None:
    """The witness call, through check_call: shadowed / conflict -> decided by ``by`` with
    its effect; redundant -> the rule's own effect, by it or by ``by``."""
    for row in proj.lint().to_dict("records"):
        if row["status"] in ("ok", "dead"):
            assert row["witness"] is None
            continue
        w = row["witness"]
        d = proj.check_call(w["tool"], w["args"])
        by_line = int(row["by_where"].rsplit(":", 1)[1])
        if row["status"] == "redundant":
            assert d.effect.value in _EFFECT[row["kind"]], row
            assert {(row["rule"], row["line"]), (row["by"], by_line)} & set(_deciders(d)), row
        else:
            by_kind = next(r.kind for r in proj.engine.settings.rules if r.text == row["by"]
                           and r.rule.line == by_line)
            assert d.effect.value in _EFFECT[by_kind], row
            assert (row["by"], by_line) in _deciders(d), row
        assert row["verified"] is True, row


def test_witnesses_are_the_shortest_readable_calls(proj: Any) -> None:
    rows = _rows(proj.lint())
    root = str(proj.engine.settings.root)
    assert rows[("allow", 4)]["witness"] == {"tool": "Bash",
                                             "args": {"command": "git push --force"}}
    assert rows[("allow", 7)]["witness"] == {"tool": "Bash", "args": {"command": "rm"}}
    assert rows[("allow", 15)]["witness"] == {"tool": "Bash",
                                              "args": {"command": "git push --force"}}
    assert rows[("allow", 9)]["witness"] == {"tool": "Read",
                                             "args": {"file_path": f"{root}/src/.env"}}
    assert rows[("allow", 12)]["witness"] == {"tool": "WebFetch",
                                              "args": {"url": "https://docs.python.org/"}}


def test_the_edit_allow_is_not_shadowed_because_notebookedit_escapes_the_read_deny(
        proj: Any) -> None:
    """permissions#read-and-edit: a Read deny blocks Edit and Write, not NotebookEdit."""
    root = str(proj.engine.settings.root)
    d = proj.check_call("NotebookEdit", {"notebook_path": f"{root}/docs/a.ipynb"},
                        mode="default")
    assert (d.effect.value, d.rule.text) == ("allow", "Edit(docs/**)")


def test_a_whole_tool_deny_shadows_every_rule_of_the_tool(tmp_path: Path) -> None:
    proj = build_project(tmp_path, project=permissions(
        allow=["WebFetch(domain:example.com)", "Bash(npm test)"],
        ask=["Bash(git *)"], deny=["WebFetch", "Bash(git *)"]))
    rows = _rows(proj.lint())
    assert (rows[("allow", 4)]["status"], rows[("allow", 4)]["by"]) == ("shadowed", "WebFetch")
    assert rows[("allow", 5)]["status"] == "ok"
    assert (rows[("ask", 8)]["status"], rows[("ask", 8)]["by"]) == ("shadowed", "Bash(git *)")
    assert all(r["verified"] for r in rows.values() if r["status"] == "shadowed")
    proj.close()


def test_deny_and_ask_together_shadow_and_the_witness_names_the_deciding_rule(
        tmp_path: Path) -> None:
    """``Bash(git push *)`` is "git push" or "git push <anything>": a deny of the bare
    command alone leaves a conflict; with an ask of the rest it is shadowed, and its shortest
    witness "git push" is decided by the deny (deny before ask)."""
    proj = build_project(tmp_path, project=permissions(
        allow=["Bash(git push *)"], deny=["Bash(git push)"]))
    row = _rows(proj.lint())[("allow", 4)]
    assert (row["status"], row["by"], row["witness"]["args"]) == (
        "conflict", "Bash(git push)", {"command": "git push"})
    proj.close()
    proj = build_project(tmp_path / "b", project=permissions(
        allow=["Bash(git push *)"], ask=["Bash(git push -*)", "Bash(git push *)"],
        deny=["Bash(git push)"]))
    rows = _rows(proj.lint())
    row = rows[("allow", 4)]
    assert (row["status"], row["by"], row["verified"]) == ("shadowed", "Bash(git push)", True)
    # the narrower ask is inside the broader one: removing it changes no effect
    assert rows[("ask", 7)]["status"] == "redundant"
    proj.close()


def test_the_automata_decide_inclusion_not_samples() -> None:
    narrow = _fsm(r"(?s)npm run test(?: .*)?")
    broad = _fsm(r"(?s)npm run(?: .*)?")
    assert narrow.difference(broad).empty()
    assert not broad.difference(narrow).empty()
    assert _literal_prefix(r"(?s)rm\ \-rf(?: .*)?") == "rm -rf"
    assert _literal_prefix(r"ab*c") == "a"


def test_cli_lint_table_json_sarif_and_exit_status(proj: Any, tmp_path: Path) -> None:
    path = str(proj.root)
    out, err = io.StringIO(), io.StringIO()
    assert main(["lint", path, "--no-home"], out, err) == 1  # shadowed and dead rules
    text = out.getvalue()
    assert ".claude/settings.json:7: shadowed: allow Bash(rm *)" in text
    assert "witness Bash 'rm'" in text
    assert text.strip().splitlines()[-1].startswith("21 rule(s): 2 dead, 4 shadowed, 3 redundant")
    out = io.StringIO()
    assert main(["lint", path, "--no-home", "--format", "json", "--fail-on", ""], out, err) == 0
    data = json.loads(out.getvalue())
    assert data["ok"] is True and len(data["rules"]) == 21
    out = io.StringIO()
    assert main(["lint", path, "--no-home", "--format", "sarif", "--fail-on", "conflict"],
                out, err) == 1
    sarif = json.loads(out.getvalue())
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"dead", "shadowed", "redundant", "conflict"}
    assert main(["lint", path, "--fail-on", "nonsense"], io.StringIO(), err) == 2


def test_a_clean_policy_exits_zero(tmp_path: Path) -> None:
    proj = build_project(tmp_path, project=permissions(
        allow=["Bash(npm run *)", "Read(src/**)"], deny=["Bash(curl *)", "Read(.env)"]))
    root = str(proj.root)
    proj.close()
    out = io.StringIO()
    assert main(["lint", root, "--no-home"], out, io.StringIO()) == 0
    assert "1 conflict" in out.getvalue()  # Read(src/**) meets Read(.env) under src/


def test_magic_lint(proj: Any) -> None:
    from toolkit.notebook.cmd import SUBCOMMANDS

    class State:
        def require_project(self) -> Any:
            return proj

    frame = SUBCOMMANDS["lint"].run(State(), "--status shadowed", None)
    assert sorted(frame["line"].tolist()) == [7, 8, 12, 15]
