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


# -- item 19: the workflow stepper and the replay explorer ---------------------------------------

#: A long argument object, as a graph query tool's defaults are (the stepper prefills it).
LONG_ARGS = {"query": "MATCH (n:Company)-[:SUPPLIES]->(m) RETURN n", "limit": 25,
             "fields": ["name", "country", "founded", "employees"]}


def _offline_project(write: Write) -> Path:
    """A built-in fs_read (runs offline) and a registry tool, in the shapes of
    tests/runtime/test_closed_project.py's project."""
    tools = ("tool:\n  fs_read: {builtinPolicy: {name: fs_read}}\n"
             "  graph-search:\n    description: search\n")
    return write({"tools.yaml": tools, "notes.txt": "notes\n",
                  "agents/a.md": "---\nname: a\ntools: [fs_read, graph-search]\n---\n"})


def test_stepper_error_clears_the_previous_result(write: Write) -> None:
    from toolkit.notebook import WorkflowStepper

    with tk.load(_offline_project(write)) as proj:
        st = WorkflowStepper(proj.start("a", groups=["*"]), args={"fs_read": {"path": "notes.txt"}})
        st.buttons["fs_read"].click()
        assert "notes" in st.result.outputs[0]["data"]["text/plain"]
        st.arg_boxes["fs_read"].value = "{not json"
        st.buttons["fs_read"].click()
        assert "not JSON" in st.messages.outputs[0]["text"]
        assert st.result.outputs == ()  # no stale answer below the error
        st.arg_boxes["fs_read"].value = "[1, 2]"
        st.buttons["fs_read"].click()
        assert "must be a JSON object" in st.messages.outputs[0]["text"]
        assert st.result.outputs == ()


def _width_chars(box: object) -> int:
    found = re.match(r"calc\((\d+)ch", str(box.layout.width))  # type: ignore[attr-defined]
    assert found, box.layout.width  # type: ignore[attr-defined]
    return int(found.group(1))


def test_stepper_args_box_is_sized_to_its_json(write: Write) -> None:
    from toolkit.notebook import WorkflowStepper

    with tk.load(_offline_project(write)) as proj:
        st = WorkflowStepper(proj.start("a", groups=["*"]), args={"graph-search": LONG_ARGS})
        long_box = st.arg_boxes["graph-search"]
        assert len(json.dumps(LONG_ARGS)) > 100  # what the 420 px box cut off
        assert json.loads(long_box.value) == LONG_ARGS
        lines = long_box.value.splitlines()
        assert getattr(long_box, "rows", 1) >= len(lines) > 1
        assert _width_chars(long_box) >= max(map(len, lines))
        short_box = st.arg_boxes["fs_read"]
        assert _width_chars(short_box) >= len(short_box.value)


def _replay_log(write: Write, examples: Path) -> Path:
    """notebooks/05-transcript.jsonl's shape: six calls of a ReAct session, no outcome."""
    calls = [("knowledge-query", {"query": "Acme"}),
             ("complex-analysis", {"analysis": "degree_centrality", "top_k": 3}),
             ("text-completion", {"prompt": "Summarise the analysis"}), ("reset-workflow", {}),
             ("knowledge-query", {"query": "Globex"}),
             ("graph-update", {"kind": "entity", "id": "acme-robotics"})]
    lines = "".join(json.dumps({"seq": i, "agent": "react-agent", "groups": ["knowledge",
                                                                              "compute"],
                                "tool": t, "args": a}) + "\n" for i, (t, a) in enumerate(calls, 1))
    return write({"calls.jsonl": lines}) / "calls.jsonl"


def test_replay_explorer_has_no_blank_then_and_says_no_regressions(write: Write,
                                                                   examples: Path) -> None:
    from toolkit.notebook import ReplayExplorer

    rp = tk.replay(tk.load(examples / "trustgraph"), _replay_log(write, examples))
    assert len(rp.calls) == 6 and rp.calls["observed"].isna().all()
    ex = ReplayExplorer(rp)
    for picker in (ex.agent, ex.effect, ex.rule, ex.observed):
        assert all(str(o).strip() for o in picker.options), picker.description
    assert ex.observed.disabled  # nothing recorded: nothing to pick
    ex.regressions.value = True
    assert len(ex.table) == 0 and "0 of 6 call(s)" in ex.count.value
    shown = ex.output.outputs[0]["data"]
    assert "No regressions" in shown["text/plain"] and "<table" not in shown["text/html"]
    assert "does not record what happened" in ex.static_html()
    assert "No regressions" in ex.static_text()


def test_replay_explorer_unknown_outcomes_are_an_option(shop_replay: object) -> None:
    from toolkit.analysis.replay import Replay
    from toolkit.notebook import ReplayExplorer

    assert isinstance(shop_replay, Replay)
    ex = ReplayExplorer(shop_replay)
    assert list(ex.observed.options) == ["(all)", "denied", "error", "ran", "unknown"]
    assert not ex.observed.disabled
    ex.observed.value = "unknown"
    assert len(ex.table) == int(shop_replay.calls["observed"].isna().sum()) == 1
    ex.observed.value = "(all)"
    ex.rule.value = "Edit(src/**)"  # an allow rule: no call it decides is denied
    ex.effect.value = Effect.DENY.value
    assert len(ex.table) == 0
    assert "No call matches these filters" in ex.output.outputs[0]["data"]["text/plain"]


@pytest.fixture(scope="module")
def shop_replay() -> object:
    """tests/notebook/test_replay_views.py's replay: the shop project over its transcripts."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    return tk.replay(tk.load(fixtures / "shop"), fixtures / "claude-projects")


# -- item 15: the heatmap -------------------------------------------------------------------------

def _svg_texts(svg: str) -> list[tuple[str, str]]:
    """(shown text, its <title>) of every <text> element of an SVG."""
    import xml.etree.ElementTree as ET

    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg)
    out = []
    for text in root.iter(f"{ns}text"):
        title = text.find(f"{ns}title")
        shown = "".join(t for t in [text.text or "", *(c.tail or "" for c in text)])
        out.append((shown, "" if title is None else str(title.text)))
    return out


def test_heatmap_row_labels_are_distinct_with_full_names_as_tooltips(write: Write) -> None:
    """Fleet agents named like a real organisation's (a long shared prefix, a number at the
    end): cut at 25 characters they all read the same; shortened in the middle they don't."""
    from toolkit.notebook import fleet

    names = [f"customer-support-agent-eu-west-{i:03d}" for i in range(12)]
    files = {"tools.yaml": "tool:\n  lookup: {group: [basic]}\n  refund: {group: [admin]}\n"}
    files |= {f"agents/{n}.md": f"---\nname: {n}\ntools: [lookup{', refund' if i % 2 else ''}]"
                                "\n---\n" for i, n in enumerate(names)}
    with tk.load(write(files)) as proj:
        heat = fleet.Heatmap(fleet.matrix_data(proj, groups=[("*",)]))
        rows = [(shown, title) for shown, title in _svg_texts(heat.svg()) if title in names]
        assert [t for _, t in rows] == sorted(names)  # every row labelled, full name as title
        shown = [s for s, _ in rows]
        assert len(set(shown)) == len(shown)  # no two rows look the same
        assert all(len(s) <= fleet.LABEL_CHARS for s in shown)
        assert all(s[-3:] == t[-3:] for s, t in rows)  # the distinguishing number is shown
        assert len({t[:25] for t in names}) == 1  # what the old cut at 25 characters showed


def test_heatmap_cells_have_tooltips_that_agree_with_explain(examples: Path) -> None:
    from toolkit.notebook import fleet

    with tk.load(examples / "trustgraph") as proj:
        states = ["undefined", "analysis"]
        heat = fleet.Heatmap(fleet.matrix_data(proj, groups=[("*",)], states=states),
                             by="group")
        svg = heat.svg()
        tips = re.findall(r"<rect [^>]*><title>([^<]*)</title></rect>", svg)
        assert len(tips) == heat.values.size
        for state, row in zip(states, heat.values.index, strict=True):
            for group in heat.values.columns:
                members = [t for t in proj.tools if group in proj.tools[t].groups]
                n = sum(proj.explain("react-agent", t, groups=["*"], state=state).allowed
                        for t in members)
                share = n / len(members)
                assert (f"{row} · {group}: may call {n} of {len(members)} tool(s) "
                        f"({share:.0%})") in tips


def test_heatmap_uses_the_theme_colours_inline_and_escapes_names(write: Write) -> None:
    """Inline SVG (an <img> can neither show <title> tooltips nor see the theme's colours);
    text in --jp-ui-font-color1; a caption as wide as the SVG allows; untrusted names
    escaped."""
    from toolkit.notebook import fleet

    evil = "<script>alert(1)</script>"
    files = {"tools.yaml": f"tool:\n  lookup: {{group: ['{evil}']}}\n",
             "agents/a.md": "---\nname: a\ntools: [lookup]\n---\n"}
    with tk.load(write(files)) as proj:
        heat = fleet.Heatmap(fleet.matrix_data(proj, groups=[("*",)]))
        html = heat.html()
        assert "<img" not in html and "<svg" in html and "<script>" not in html
        assert "&lt;script&gt;" in html
        svg = heat.svg()
        head = svg[:svg.index(">")]
        assert "color:var(--jp-ui-font-color1" in head
        assert "fill='currentColor'" in svg and "var(--jp-layout-color0" in svg
        width = float(re.search(r"width='(\d+)'", head).group(1))  # type: ignore[union-attr]
        caption = _svg_texts(svg)[-1][0]
        assert caption.startswith("share of each") and caption.endswith("for its share)")
        assert 4 + fleet.CHAR_PX * len(caption) <= width  # the caption is not cut off


def test_big_heatmap_has_one_tooltip_per_row(write: Write) -> None:
    from toolkit.notebook import fleet

    names = [f"agent-{i:03d}" for i in range(300)]
    files = {"tools.yaml": "tool:\n" + "".join(f"  t{j}: {{group: [g{j}]}}\n" for j in range(4))}
    files |= {f"agents/{n}.md": f"---\nname: {n}\ntools: [t{i % 4}]\n---\n"
              for i, n in enumerate(names)}
    with tk.load(write(files)) as proj:
        heat = fleet.Heatmap(fleet.matrix_data(proj, groups=[("*",)]))
        assert heat.values.size > fleet.MAX_CELL_TIPS
        tips = re.findall(r"<rect [^>]*><title>([^<]*)</title></rect>", heat.svg())
        assert len(tips) == len(heat.values) == 200  # max_rows
        assert tips[1] == "agent-001 may call: g1 100%"
        assert len(heat.html()) < 60_000


def test_replay_tables_use_the_same_words_and_missing_mark(write: Write, examples: Path) -> None:
    """Item 14 and 18 in the replay views: each call's deciding step in words, with
    proj.reasons()'s label, and one mark for a missing value (no time in this log)."""
    from toolkit.notebook import ReplayExplorer

    proj = tk.load(examples / "trustgraph")
    rp = tk.replay(proj, _replay_log(write, examples))
    for html in (ReplayExplorer(rp).static_html(), rp._repr_mimebundle_()["text/html"]):
        page = _rows(html)
        head = page.rows[0][1]
        calls = [r for r in page.rows[1:] if len(r[1]) == len(head)]
        assert len(calls) == len(rp.calls)
        for (_, cells, spans), call in zip(calls, rp.calls.itertuples(), strict=True):
            d = proj.explain("react-agent", call.tool, groups=call.groups.split(","),
                             state=call.state)
            assert cells[head.index("reason")] == reason_words(d.effect, d.reason)
            labels = [s["data-label"] for s in spans if s.get("class") == "toolkit-reason"]
            assert labels == [d.label]
            assert cells[head.index("session")] == MISSING
