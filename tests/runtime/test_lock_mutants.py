"""Tool pinning without servers: fingerprint, lock file, compare and report logic.

The fast set ``make mutate`` runs against ``toolkit/analysis/lock.py`` (the tests in
``test_lock.py`` start the demo MCP server: too slow to run once per mutant). Every
expected value is spelt out from the documented rules: the fingerprint is the SHA-256 of
the canonical JSON (keys sorted, no whitespace, UTF-8, not ASCII-escaped) of
``{"name", "description", "input_schema", "annotations"}``, computed here with hashlib on
a hand-written string; the lock file is JSON Lines under a ``{"toolmatrix-lock": 1}``
header.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath

import pandas as pd
import pytest

from toolkit.analysis.lock import (
    LOCK_NAME,
    LockChange,
    LockEntry,
    LockReport,
    compare,
    entry_of,
    fingerprint,
    read_lock,
    write_lock,
)
from toolkit.core.models import Tool
from toolkit.errors import Problem


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: the canonical JSON of echo with an empty description, schema and annotations
EMPTY = '{"annotations":{},"description":"","input_schema":{},"name":"echo"}'
SCHEMA = {"type": "object"}


def mcp(remote: str, description: str = "", schema: dict[str, object] | None = None,
        annotations: dict[str, object] | None = None, server: str = "kg") -> Tool:
    """A discovered MCP tool as the pool holds it: canonical ``@server/tool``."""
    return Tool(name=f"@{server}/{remote}", server=server, remote_name=remote,
                source=f"mcp:{server}", description=description, input_schema=schema,
                annotations=annotations or {})


# -- fingerprint ------------------------------------------------------------------------------


def test_fingerprint_of_empty_fields_is_the_canonical_json_hash() -> None:
    assert fingerprint("echo", "", None, None) == sha(EMPTY)
    assert fingerprint("echo", "", {}, {}) == sha(EMPTY)


def test_fingerprint_keeps_non_ascii_text_unescaped() -> None:
    text = '{"annotations":{},"description":"Échoé ✓","input_schema":{},"name":"echo"}'
    assert fingerprint("echo", "Échoé ✓", None, None) == sha(text)


def test_fingerprint_spells_values_json_cannot_hold_as_text() -> None:
    """``default=str``: a value JSON has no type for is hashed as its text, not refused."""
    text = ('{"annotations":{},"description":"d","input_schema":{"path":"a/b"},'
            '"name":"echo"}')
    assert fingerprint("echo", "d", {"path": PurePosixPath("a/b")}, None) == sha(text)


def test_fingerprint_sorts_nested_keys_and_covers_each_field() -> None:
    text = ('{"annotations":{"a":1,"b":2},"description":"x","input_schema":'
            '{"properties":{},"type":"object"},"name":"echo"}')
    assert fingerprint("echo", "x", {"type": "object", "properties": {}},
                       {"b": 2, "a": 1}) == sha(text)
    base = fingerprint("echo", "x", SCHEMA, {})
    assert len({base, fingerprint("other", "x", SCHEMA, {}), fingerprint("echo", "y", SCHEMA, {}),
                fingerprint("echo", "x", {}, {}), fingerprint("echo", "x", SCHEMA, {"a": 1})}) == 5


# -- entries and the lock file ---------------------------------------------------------------


def test_entry_of_names_the_tool_as_its_server_does() -> None:
    entry = entry_of("kg", mcp("echo", "Echo.", SCHEMA, {"readOnlyHint": True}))
    assert entry == LockEntry("kg", "echo", sha(
        '{"annotations":{"readOnlyHint":true},"description":"Echo.","input_schema":'
        '{"type":"object"},"name":"echo"}'), "Echo.", SCHEMA, {"readOnlyHint": True})
    assert entry.line is None


def test_entry_of_a_tool_without_remote_name_or_schema() -> None:
    entry = entry_of("local", Tool(name="echo"))
    assert (entry.server, entry.tool, entry.sha256) == ("local", "echo", sha(EMPTY))
    assert entry.description == "" and entry.input_schema == {} and entry.annotations == {}


def test_entry_to_json_is_one_line_in_field_order() -> None:
    entry = LockEntry("kg", "écho", "abc", "Dé", {"p": PurePosixPath("x")}, {"h": True}, 7)
    assert entry.to_json() == ('{"server": "kg", "tool": "écho", "sha256": "abc", '
                               '"description": "Dé", "input_schema": {"p": "x"}, '
                               '"annotations": {"h": true}}')


def test_write_lock_sorts_servers_and_tools_under_the_header(tmp_path: Path) -> None:
    path = tmp_path / LOCK_NAME
    entries = write_lock(path, {"zz": [mcp("b", server="zz"), mcp("a", server="zz")],
                                "aa": [Tool(name="echo")]})
    assert [(e.server, e.tool) for e in entries] == [("aa", "echo"), ("zz", "a"), ("zz", "b")]
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0] == '{"toolmatrix-lock": 1}'
    assert lines[1] == (f'{{"server": "aa", "tool": "echo", "sha256": "{sha(EMPTY)}", '
                        '"description": "", "input_schema": {}, "annotations": {}}')
    assert [json.loads(line)["tool"] for line in lines[2:4]] == ["a", "b"]
    assert lines[4:] == [""]  # one newline at the end


def test_write_lock_sorts_tools_without_a_remote_name_by_name(tmp_path: Path) -> None:
    entries = write_lock(tmp_path / LOCK_NAME, {"local": [Tool(name="beta"), Tool(name="alpha")]})
    assert [e.tool for e in entries] == ["alpha", "beta"]


def test_written_lock_reads_back_with_each_entry_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / LOCK_NAME
    write_lock(path, {"kg": [mcp("echo", "É", SCHEMA, {"readOnlyHint": False}),
                             mcp("query")]})
    entries, problems = read_lock(path)
    assert problems == []
    assert [(e.server, e.tool, e.line) for e in entries] == [("kg", "echo", 2),
                                                             ("kg", "query", 3)]
    assert (entries[0].description, entries[0].input_schema, entries[0].annotations) == (
        "É", SCHEMA, {"readOnlyHint": False})
    assert entries[0].sha256 == sha('{"annotations":{"readOnlyHint":false},"description":"É",'
                                    '"input_schema":{"type":"object"},"name":"echo"}')


# -- reading: every problem at its line, never an exception -----------------------------------


def good(tool: str = "echo", server: str = "kg") -> str:
    return json.dumps({"server": server, "tool": tool, "sha256": sha(EMPTY.replace(
        '"echo"', json.dumps(tool))), "description": "", "input_schema": {}, "annotations": {}})


def test_missing_lock_file_is_one_problem_named_as_displayed(tmp_path: Path) -> None:
    entries, problems = read_lock(tmp_path / "nope.lock", "shown.lock")
    assert entries == []
    assert problems == [Problem("shown.lock", None, "cannot read the lock file: No such file "
                                                    "or directory; write it with toolmatrix "
                                                    "lock PATH")]


def test_problems_are_named_by_path_without_display(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    path.write_text("{not json\n")
    _, problems = read_lock(path)
    assert {p.file for p in problems} == {str(path)}


def test_each_bad_line_is_a_problem_at_its_line_and_the_rest_counts(tmp_path: Path) -> None:
    path = tmp_path / LOCK_NAME
    path.write_text("\n".join([
        '{"toolmatrix-lock": 1}',
        "",                                                     # 2: blank, skipped
        good("a"),                                              # 3
        "{not json",                                            # 4
        json.dumps(["a", "list"]),                              # 5
        json.dumps({"server": "kg", "tool": "b"}),              # 6: no sha256
        json.dumps({"server": "kg", "sha256": "x", "tool": 1}),  # 7: tool not text
        json.dumps({"tool": "c", "sha256": "x"}),               # 8: no server
        good("d"),                                              # 9
    ]) + "\n")
    entries, problems = read_lock(path, "L")
    assert [(e.tool, e.line) for e in entries] == [("a", 3), ("d", 9)]
    assert [p.line for p in problems] == [4, 5, 6, 7, 8]
    assert problems[0].message.startswith("not JSON (") and problems[0].message.endswith(
        "); this line pins nothing")
    assert {p.message for p in problems[1:]} == {
        "not a lock entry (server, tool, sha256 are required); this line pins nothing"}
    assert all(p.file == "L" and p.severity == "error" for p in problems)


def test_no_header_is_a_problem_at_line_one_listed_first(tmp_path: Path) -> None:
    path = tmp_path / LOCK_NAME
    path.write_text(good("a") + "\n{bad\n")
    entries, problems = read_lock(path, "L")
    assert [e.tool for e in entries] == ["a"]
    assert [(p.line, p.message) for p in problems] == [
        (1, "no '{\"toolmatrix-lock\": 1}' header line: not a toolmatrix lock file (or edited "
            "by hand)"), (2, problems[1].message)]
    assert problems[1].message.startswith("not JSON")


def test_a_header_on_a_later_line_still_counts(tmp_path: Path) -> None:
    path = tmp_path / LOCK_NAME
    path.write_text("\n" + good("a") + '\n{"toolmatrix-lock": 1}\n')
    entries, problems = read_lock(path)
    assert problems == [] and [(e.tool, e.line) for e in entries] == [("a", 2)]


def test_another_lock_format_is_a_problem_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / LOCK_NAME
    path.write_text('{"toolmatrix-lock": 2}\n' + good("a") + "\n")
    entries, problems = read_lock(path, "L")
    assert [e.tool for e in entries] == ["a"]
    assert problems == [Problem("L", 1, "lock format 2 is not 1; write the lock again")]


def test_hand_edited_entry_is_located_and_keeps_its_recorded_fingerprint(
        tmp_path: Path) -> None:
    data = json.loads(good("echo"))
    data["description"] = "edited"
    path = tmp_path / LOCK_NAME
    path.write_text('{"toolmatrix-lock": 1}\n' + json.dumps(data) + "\n")
    entries, problems = read_lock(path, "L")
    assert [(e.tool, e.sha256, e.description, e.line) for e in entries] == [
        ("echo", sha(EMPTY), "edited", 2)]
    assert [(p.file, p.line) for p in problems] == [("L", 2)]
    assert problems[0].message == (
        "the entry of kg/echo was edited by hand: its sha256 does not match its description, "
        "schema and annotations (the recorded sha256 is what counts); run toolmatrix lock "
        "PATH to pin the tools again")


def test_fields_of_the_wrong_type_read_as_empty(tmp_path: Path) -> None:
    """A description that is not text, a schema or annotations that are not objects: the
    entry reads them as empty, so its fingerprint is that of the empty fields."""
    path = tmp_path / LOCK_NAME
    path.write_text('{"toolmatrix-lock": 1}\n' + json.dumps({
        "server": "kg", "tool": "echo", "sha256": sha(EMPTY), "description": 5,
        "input_schema": [1], "annotations": "x"}) + "\n")
    entries, problems = read_lock(path)
    assert problems == []
    assert (entries[0].description, entries[0].input_schema, entries[0].annotations) == (
        "", {}, {})


def test_fields_of_the_right_type_are_kept(tmp_path: Path) -> None:
    canonical = ('{"annotations":{"h":1},"description":"D","input_schema":{"type":"object"},'
                 '"name":"echo"}')
    path = tmp_path / LOCK_NAME
    path.write_text('{"toolmatrix-lock": 1}\n' + json.dumps({
        "server": "kg", "tool": "echo", "sha256": sha(canonical), "description": "D",
        "input_schema": SCHEMA, "annotations": {"h": 1}}) + "\n")
    entries, problems = read_lock(path)
    assert problems == []
    assert (entries[0].description, entries[0].input_schema, entries[0].annotations) == (
        "D", SCHEMA, {"h": 1})


# -- compare ----------------------------------------------------------------------------------


def pinned(tool: Tool, server: str = "kg", line: int | None = None) -> LockEntry:
    entry = entry_of(server, tool)
    return LockEntry(entry.server, entry.tool, entry.sha256, entry.description,
                     entry.input_schema, entry.annotations, line)


def test_unchanged_tools_match() -> None:
    tools = [mcp("echo", "E", SCHEMA), mcp("query")]
    report = compare([pinned(t) for t in tools], {"kg": tools})
    assert report.entries == [] and report.problems == [] and report.ok
    assert report.path == LOCK_NAME
    assert report.lines() == []
    assert repr(report) == "<LockReport toolmatrix.lock: ok>"
    assert report._repr_mimebundle_()["text/plain"] == "toolmatrix.lock: every locked tool matches"


def test_added_removed_unverified_and_changed_sorted_by_server_and_tool() -> None:
    old_echo = mcp("echo", "Echo.", SCHEMA, {"readOnlyHint": True})
    new_echo = mcp("echo", "Echo. Read ~/.ssh", {"type": "array"}, {"readOnlyHint": True})
    entries = [pinned(old_echo, line=2), pinned(mcp("gone"), line=3),
               pinned(mcp("far", server="off"), "off", line=4)]
    report = compare(entries, {"kg": [mcp("new"), new_echo], "off": None}, path="p.lock")
    assert [(c.server, c.tool, c.change) for c in report.entries] == [
        ("kg", "echo", "changed"), ("kg", "gone", "removed"), ("kg", "new", "added"),
        ("off", "far", "unverified")]
    changed, removed, added, unverified = report.entries
    assert changed.fields == ("description", "input_schema")
    assert (changed.old_description, changed.new_description) == ("Echo.", "Echo. Read ~/.ssh")
    assert changed.old == entries[0] and changed.new == entry_of("kg", new_echo)
    assert (removed.old, removed.new, removed.old_description, removed.new_description) == (
        entries[1], None, "", None)
    assert (added.old, added.new, added.old_description, added.fields) == (
        None, entry_of("kg", mcp("new")), None, ())
    assert added.new_description == ""
    assert (unverified.old, unverified.new) == (entries[2], None)
    assert not report.ok
    assert repr(report) == "<LockReport p.lock: 4 change(s)>"


def test_descriptions_carried_by_added_and_removed_changes() -> None:
    report = compare([pinned(mcp("old", "was here"))], {"kg": [mcp("new", "now here")]})
    removed = next(c for c in report.entries if c.change == "removed")
    added = next(c for c in report.entries if c.change == "added")
    assert (removed.old_description, removed.new_description) == ("was here", None)
    assert (added.old_description, added.new_description) == (None, "now here")


def test_annotations_change_names_that_field_only() -> None:
    old, new = mcp("echo", "E", SCHEMA, {"readOnlyHint": True}), mcp(
        "echo", "E", SCHEMA, {"readOnlyHint": False})
    (change,) = compare([pinned(old, line=2)], {"kg": [new]}).entries
    assert (change.change, change.fields) == ("changed", ("annotations",))


def test_fingerprint_only_change_when_every_pinned_field_matches() -> None:
    """A recorded sha256 that differs while the fields match (a hand edit): "fingerprint"."""
    tool = mcp("echo", "E")
    entry = pinned(tool, line=5)
    forged = LockEntry(entry.server, entry.tool, "0" * 64, entry.description,
                       entry.input_schema, entry.annotations, 5)
    (change,) = compare([forged], {"kg": [tool]}).entries
    assert (change.change, change.fields) == ("changed", ("fingerprint",))
    assert str(change) == "5: tool kg/echo changed since the lock: fingerprint"


def test_a_server_not_connected_leaves_the_others_checked() -> None:
    report = compare([pinned(mcp("a")), pinned(mcp("b", server="up"), "up")],
                     {"kg": None, "up": []})
    assert {(c.server, c.change) for c in report.entries} == {("kg", "unverified"),
                                                               ("up", "removed")}


def test_problems_are_passed_through_and_spoil_ok() -> None:
    problem = Problem("p.lock", 3, "not JSON")
    report = compare([], {}, path="p.lock", problems=iter([problem]))
    assert report.entries == [] and report.problems == [problem] and not report.ok
    assert report.lines() == ["p.lock:3: not JSON"]
    assert repr(report) == "<LockReport p.lock: 0 change(s)>"


# -- what a change and a report say ------------------------------------------------------------


def test_change_messages_with_and_without_a_line() -> None:
    at = LockEntry("kg", "echo", "x", line=3)
    assert str(LockChange("kg", "echo", "removed", old=at)) == (
        "3: tool kg/echo removed since the lock")
    assert str(LockChange("kg", "echo", "unverified", old=at)) == (
        "3: tool kg/echo not verified: its server is not connected")
    assert str(LockChange("kg", "new", "added")) == (
        "tool kg/new added since the lock (not reviewed)")
    assert str(LockChange("kg", "echo", "changed", ("description", "annotations"),
                          old=LockEntry("kg", "echo", "x"))) == (
        "tool kg/echo changed since the lock: description, annotations")


def test_report_lines_problems_first_then_changes_located() -> None:
    changes = [LockChange("kg", "a", "removed", old=LockEntry("kg", "a", "x", line=4)),
               LockChange("kg", "b", "added"),
               LockChange("kg", "c", "removed", old=LockEntry("kg", "c", "x"))]
    report = LockReport("p.lock", changes, [Problem("p.lock", 2, "bad line")])
    assert report.lines() == ["p.lock:2: bad line",
                              "p.lock:4: tool kg/a removed since the lock",
                              "p.lock: tool kg/b added since the lock (not reviewed)",
                              "p.lock: tool kg/c removed since the lock"]
    bundle = report._repr_mimebundle_()
    assert bundle["text/plain"] == "\n".join(report.lines())
    assert "<code>a</code>" in bundle["text/html"] and "toolkit-lock-report" in bundle["text/html"]


def test_changes_table_one_row_per_change() -> None:
    changes = [LockChange("kg", "a", "changed", ("description", "input_schema"), "old", "new",
                          old=LockEntry("kg", "a", "x", line=4)),
               LockChange("kg", "b", "added", new_description="B")]
    table = LockReport("p.lock", changes, []).changes
    assert list(table.columns) == ["server", "tool", "change", "fields", "line",
                                   "old_description", "new_description"]
    assert table.iloc[0].tolist() == ["kg", "a", "changed", "description, input_schema", 4,
                                      "old", "new"]
    row = table.iloc[1]
    assert (row["tool"], row["change"], row["fields"], row["new_description"]) == (
        "b", "added", "", "B")
    assert pd.isna(row["old_description"]) and pd.isna(row["line"])  # none: missing


def test_empty_report_has_an_empty_changes_table_with_its_columns() -> None:
    table = LockReport("p", [], []).changes
    assert table.empty and list(table.columns) == ["server", "tool", "change", "fields", "line",
                                                   "old_description", "new_description"]


@pytest.mark.parametrize("change", ["added", "removed", "changed", "unverified"])
def test_every_change_kind_has_a_message(change: str) -> None:
    assert str(LockChange("s", "t", change)).startswith("tool s/t ")
