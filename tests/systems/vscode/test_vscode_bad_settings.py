"""VS Code settings toolkit cannot fully read: each is a warning at its file:line, and none turns
a call VS Code asks about into one toolkit allows.

A JavaScript regex Python's ``re`` cannot compile (``\\p{Zs}`` under ``/u``: VS Code compiles it
with ``new RegExp(pattern, flags)`` in ``_doConvertAutoApproveEntryToRegex``,
commandLineAutoApprover.ts) is unreadable: on a ``false`` entry it is taken to match every
command (the call asks), on a ``true`` entry none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.errors import DefinitionError


def load(tmp_path: Path, settings: str | bytes) -> tk.Project:
    (tmp_path / ".vscode").mkdir()
    target = tmp_path / ".vscode" / "settings.json"
    if isinstance(settings, bytes):
        target.write_bytes(settings)
    else:
        target.write_text(settings)
    (tmp_path / "tools.yaml").write_text(
        "tool:\n  run_in_terminal: {}\n  fetch_webpage: {}\n")
    return tk.load(tmp_path, home=False, managed=False, runtime="vscode")


FORCE = "/^git push\\\\p{Zs}+--force/u"  # the JSON text of the key /^git push\p{Zs}+--force/u


def test_an_unreadable_false_regex_asks_and_is_a_located_warning(tmp_path: Path) -> None:
    # line 3 writes the regex VS Code reads as "git push, a space separator, --force"
    proj = load(tmp_path, '{\n  "chat.tools.terminal.autoApprove": {"git": true,\n'
                          f'    "{FORCE}": false}}\n}}\n')
    d = proj.check_call("run_in_terminal", {"command": "git push --force"})
    assert d.effect is Effect.ASK  # VS Code: the deny entry matches, never auto-approved
    assert d.rule.line == 3 and d.rule.text.startswith("/^git push")
    # the unreadable deny entry is taken to match every command, so this asks too
    assert proj.check_call("run_in_terminal", {"command": "git status"}).effect is Effect.ASK
    warnings = [p for p in proj.engines["vscode"].problems if "cannot read" in p.message]
    assert [(w.file, w.line) for w in warnings] == [(".vscode/settings.json", 3)]
    assert "bad escape" in warnings[0].message and "\\p{Zs}" in warnings[0].message
    assert any("regex toolkit cannot read" in w for w in d.warnings)
    assert any(str(w).startswith(".vscode/settings.json:3: ") for w in proj.warnings)


def test_an_unreadable_match_command_line_deny_asks(tmp_path: Path) -> None:
    settings = {"chat.tools.terminal.autoApprove": {
        "git": True, "/git push\\p{Zs}/u": {"approve": False, "matchCommandLine": True}}}
    proj = load(tmp_path, json.dumps(settings, indent=1))
    d = proj.check_call("run_in_terminal", {"command": "git push origin"})
    assert d.effect is Effect.ASK and "(matchCommandLine)" in d.rule.text
    assert any("cannot read" in p.message for p in proj.engines["vscode"].problems)


def test_an_unreadable_true_regex_approves_nothing(tmp_path: Path) -> None:
    proj = load(tmp_path, '{"chat.tools.terminal.autoApprove": {"/^make\\\\p{L}*/u": true}}')
    assert proj.check_call("run_in_terminal", {"command": "make"}).effect is Effect.ASK
    assert [p.line for p in proj.engines["vscode"].problems if "cannot read" in p.message] == [1]


@pytest.mark.parametrize(("settings", "line", "words"), [
    ('{\n "chat.tools.urls.autoApprove": 5\n}', 2, "must be an object"),
    ('{\n "chat.tools.urls.autoApprove": {\n  "https://x.com": 7\n }\n}', 3, "'https://x.com'"),
    ('{\n "chat.tools.urls.autoApprove": {\n  "https://x.com": {"approveRequest": "yes"}}\n}',
     3, "'https://x.com'"),
    ('{\n "chat.tools.eligibleForAutoApproval": []\n}', 2, "must be an object"),
    ('{\n "chat.tools.eligibleForAutoApproval": {\n  "fetch_webpage": "no"\n }\n}', 3,
     "'fetch_webpage'"),
])
def test_wrong_url_and_eligible_shapes_are_located_warnings(tmp_path: Path, settings: str,
                                                            line: int, words: str) -> None:
    proj = load(tmp_path, settings)
    problems = proj.engines["vscode"].problems
    assert [(p.file, p.line, p.severity) for p in problems] == [
        (".vscode/settings.json", line, "warning")]
    assert words in problems[0].message and "VS Code ignores" in problems[0].message


def test_a_wrong_url_value_approves_nothing(tmp_path: Path) -> None:
    proj = load(tmp_path, '{"chat.tools.urls.autoApprove": {"https://x.com": 7}}')
    assert proj.check_call("fetch_webpage", {"urls": ["https://x.com"]}).effect is Effect.ASK


def test_settings_that_are_not_utf8_name_the_byte_and_the_fix(tmp_path: Path) -> None:
    raw = b'{\n "chat.tools.terminal.autoApprove": {\n  "ls\xff": true}\n}\n'
    with pytest.raises(DefinitionError) as err:
        load(tmp_path, raw)
    assert (err.value.file, err.value.line) == (".vscode/settings.json", 3)
    assert "not UTF-8" in str(err.value) and "save the file as UTF-8" in str(err.value)
