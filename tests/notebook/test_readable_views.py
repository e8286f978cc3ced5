"""Issue 23, "Readable views" (items 14, 18, 19, 15): what a newcomer reads in the views.

Each view is checked against ``proj.explain`` / ``proj.check_call`` (the one decision), and
against ``proj.reasons()`` (the table label every cell carries as ``data-label``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import VERDICTS, Effect, Reason
from toolkit.notebook import AuditView
from toolkit.render.decisions import (
    MISSING,
    PALETTE,
    STEP_NAMES,
    reason_words,
    relative_paths,
    step_name,
)

Write = Callable[[dict[str, str]], Path]


class _Rows(HTMLParser):
    """Every table row of a page: its attributes and the text of each cell; spans' attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[dict[str, str | None], list[str], list[dict[str, str | None]]]] = []
        self.cell_styles: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "tr":
            self.rows.append((found, [], []))
        elif tag in ("td", "th") and self.rows:
            self._cell = []
            self.cell_styles.append(str(found.get("style") or ""))
        elif tag == "span" and self.rows:
            self.rows[-1][2].append(found)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1][1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _rows(html: str) -> _Rows:
    parser = _Rows()
    parser.feed(html)
    return parser


def _trace(html: str) -> _Rows:
    """The rows of a decision's trace table only."""
    return _rows(html[html.index("<table class='toolkit-trace'>"):])


# -- item 14: one wording for the deciding step --------------------------------------------------

def test_every_verdict_reads_right_and_denies_never_read_like_a_permission() -> None:
    """A denied tool's words say it is not allowed; an allowed tool's words say it is."""
    words = {v: reason_words(v.effect, v.reason) for v in VERDICTS}
    assert words[VERDICTS[0]] == "in the allow list"  # decide(): allowed by the allow step
    for verdict, text in words.items():
        if verdict.effect is Effect.IMPLICIT_DENY:
            assert text.startswith("not ") or "removed" in text, verdict
        if verdict.effect is Effect.DENY:
            assert "deny" in text, verdict
    assert reason_words(Effect.IMPLICIT_DENY, Reason.ALLOW) == "not in the allow list"
    assert len(set(words.values())) == len(words)  # each verdict its own words


def test_implicit_deny_reads_not_in_the_allow_list_in_every_view(examples: Path) -> None:
    """emergent's delegator has no allow rule reaching entities_create: the resolution table
    (what %tk start / %%tk agent show), the decision and the audit view all say "not in the
    allow list", never "allow", and carry proj.reasons()'s label for the same cell."""
    with tk.load(examples / "emergent") as proj:
        d = proj.explain("delegator", "entities_create", groups=["*"])
        assert (d.effect, d.reason) == (Effect.IMPLICIT_DENY, Reason.ALLOW)
        label = proj.reasons(["delegator"], groups=[["*"]]).loc["entities_create"].iloc[0]
        assert label == d.label == "implicit"

        session = proj.start("delegator", groups=["*"])
        row = next(r for r in _rows(session._repr_mimebundle_()["text/html"]).rows
                   if r[1] and r[1][0] == "entities_create")
        assert row[1][1:] == [d.effect.value, "not in the allow list"]
        reason = next(s for s in row[2] if s.get("class") == "toolkit-reason")
        assert reason["data-label"] == label

        html = d._repr_mimebundle_()["text/html"]
        assert "not in the allow list" in html.split("</p>", 1)[0]  # the decision's first line
        assert "<i>allow</i>" not in html
        steps = [cells[0].lstrip("\u25b6\xa0") for _, cells, _ in _trace(html).rows[1:]]
        assert steps == [step_name(s.name) for s in d.trace]
        assert "allow list" in steps and "allow" not in steps

        with pytest.raises(tk.ToolNotFoundError):
            session.call("entities_create", {})
        view = AuditView(proj)
        view.event.value = "call"
        row = _rows(view.static_html()).rows[-1]
        assert row[1][-1] == reason_words(d.effect, d.reason) == "not in the allow list"
        assert any(s.get("data-label") == label for s in row[2])
        assert view.static_text().splitlines()[-1].endswith("not in the allow list")


def test_step_names_have_one_wording_in_every_trace(examples: Path) -> None:
    """Every step of every trace of the examples is named from STEP_NAMES, in order."""
    for example in ("trustgraph", "emergent", "work-agent", "claude-code"):
        with tk.load(examples / example) as proj:
            for agent in proj.agents:
                for tool in proj.tools:
                    d = proj.explain(agent, tool, groups=["*"])
                    steps = [c[0].lstrip("\u25b6\xa0")
                             for _, c, _ in _trace(d._repr_mimebundle_()["text/html"]).rows[1:]]
                    assert steps == [STEP_NAMES[s.name] for s in d.trace], (agent, tool)


# -- item 18: traces ----------------------------------------------------------------------------

@pytest.mark.parametrize("example", ["trustgraph", "emergent", "work-agent", "mux"])
def test_the_deciding_step_is_highlighted_and_agrees_with_explain(examples: Path,
                                                                  example: str) -> None:
    with tk.load(examples / example) as proj:
        for agent in proj.agents:
            for tool in proj.tools:
                d = proj.explain(agent, tool, groups=["*"], state="analysis")
                rows = _trace(d._repr_mimebundle_()["text/html"]).rows[1:]
                marked = [cells for attrs, cells, _ in rows
                          if attrs.get("class") == "toolkit-deciding"]
                assert len(marked) == 1, (agent, tool)
                assert marked[0][0] == "\u25b6\xa0" + step_name(d.reason), (agent, tool)
                deciding = next(a for a, _, _ in rows if a.get("class") == "toolkit-deciding")
                assert "font-weight:bold" in str(deciding["style"])


def _claude_project(write: Write) -> Path:
    """A Claude Code project whose settings deny reading .env and configure two PreToolUse
    hooks for Bash (the shape of notebooks/data/claude-permissions/acme-app/.claude/
    settings.json, with a second hook as a project that also logs commands would have)."""
    hook = {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check-bash.sh'}
    log = {"type": "command", "command": "jq -r .tool_input.command >> ~/.claude/bash.log"}
    settings = {"permissions": {"deny": ["Read(./.env)", "Bash(curl *)"],
                                "allow": ["Bash(npm run lint)"]},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]},
                                         {"matcher": "Bash|Write", "hooks": [log]}]}}
    return write({"app/.claude/settings.json": json.dumps(settings, indent=2),
                  "home/.claude/settings.json": json.dumps(
                      {"permissions": {"allow": ["Read(~/.config/acme/**)"]}}, indent=2),
                  "app/src/app.ts": "export {}\n"})


def test_call_trace_highlights_the_deciding_rule_and_left_aligns_prose(write: Write) -> None:
    root = _claude_project(write)
    with tk.load(root / "app", home=root / "home", managed=False) as proj:
        d = proj.check_call("Read", {"file_path": ".env"})
        assert (d.effect, d.reason) == (Effect.DENY, Reason.DENY_RULE)
        html = d._repr_mimebundle_()["text/html"]
        page = _trace(html)
        marked = [(a, c) for a, c, _ in page.rows if a.get("class") == "toolkit-deciding"]
        assert len(marked) == 1
        _attrs, cells = marked[0]
        assert cells[0] == "\u25b6\xa0deny list" and cells[1] == "fail"
        assert d.rule.text in cells[2]
        assert PALETTE[Effect.DENY] in html[html.index("toolkit-deciding"):][:400]
        styles = _rows(html).cell_styles
        assert styles and all("text-align:left" in s for s in styles)


def test_the_hook_note_is_shown_once(write: Write) -> None:
    """Two hooks match Bash: each has its row, the note that toolkit does not run them is
    said once; with a what-if answer the advice to pass one is not repeated."""
    root = _claude_project(write)
    with tk.load(root / "app", home=root / "home", managed=False) as proj:
        d = proj.check_call("Bash", {"command": "npm run lint && curl -s https://x.example"})
        hooks = [s for s in d.trace if s.name == Reason.HOOK]
        assert len(hooks) == 2 and all("runs before this call" in s.detail for s in hooks)
        html = d._repr_mimebundle_()["text/html"]
        assert html.count("may change its outcome") == 1
        assert html.count("runs before this call") == 0
        assert html.count("hook=") == 1  # the advice, once
        rows = [c for _, c, _ in _trace(html).rows if c and c[0] == "PreToolUse hook"]
        assert len(rows) == 2
        assert "check-bash.sh" in rows[0][2] and "bash.log" in rows[1][2]
        what_if = proj.check_call("Bash", {"command": "npm run lint"}, hook="deny")
        html = what_if._repr_mimebundle_()["text/html"]
        assert html.count("may change its outcome") == 1 and "hook=" not in html
        assert "what-if answer" in html


def test_call_paths_are_relative_to_the_project_folder(write: Write) -> None:
    root = _claude_project(write)
    app = str((root / "app").resolve())
    with tk.load(root / "app", home=root / "home", managed=False) as proj:
        d = proj.check_call("Read", {"file_path": ".env"})
        assert app in d.message  # the engine's own message names the absolute path
        html = d._repr_mimebundle_()["text/html"]
        head, rest = html.split("</small></p>", 1)[0], html.split("(paths below", 1)[1]
        assert "Read .env" in head and app + "/" not in head
        assert app not in rest  # the cwd is named once, above; nothing below repeats it
        misses = d.near_misses
        assert any(str((root / "home").resolve()) in m.rule.where for m in misses)
        assert "../home/.claude/settings.json:" in html
    assert relative_paths("/a/app-x/f and /a/app/f", "/a/app") == "../app-x/f and f"


# -- item 18: the audit view ----------------------------------------------------------------------

def test_audit_view_uses_the_palette_one_missing_mark_and_keeps_names_whole(
        examples: Path) -> None:
    with tk.load(examples / "trustgraph") as proj:
        session = proj.start("react-agent", groups=["read-only"])
        with pytest.raises(tk.ToolNotFoundError):
            session.call("graph-update", {})
        session.spawn("react-agent", groups=["read-only"])
        d = proj.explain("react-agent", "graph-update", groups=["read-only"])
        view = AuditView(proj)
        html, text = view.static_html(), view.static_text()
        for shown in (html, text):
            assert not re.search(r"\b(NaN|nan|None|<NA>)\b", shown), shown
        assert MISSING in html and MISSING in text
        page = _rows(html)
        call = next(r for r in page.rows if "call" in r[1])
        effect = next(s for s in call[2] if s.get("class") == "toolkit-effect")
        assert effect["data-effect"] == d.effect.value
        assert PALETTE[d.effect] in str(effect["style"])
        head = page.rows[0][1]
        for column, style in zip(head, page.cell_styles[len(head):2 * len(head)], strict=True):
            assert ("white-space:nowrap" in style) == (column != "reason"), column
        view.event.value = "spawn"
        spawn = _rows(view.static_html()).rows[1][1]
        assert spawn[view.table.columns.get_loc("depth")] == "1"  # type: ignore[union-attr]
        assert view.static_text().split()[-3] == "1"  # depth, not 1.0
