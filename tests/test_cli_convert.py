"""``toolmatrix convert PATH --to R [--out DIR] [--strict] [--format table|json]`` (SPEC section
13, issue 22 part 2): the same conversion as ``tk.convert``, printed compactly or written
under ``--out`` (never into the source project); exit 0, 1 with ``--strict`` on a difference
no listed loss explains, 2 on bad input."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.analysis import convert as convert_package
from toolkit.cli import main

SETTINGS = {"permissions": {
    "allow": ["Bash(git status)", "Bash(npm run test:*)", "Edit"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(rm -rf:*)", "Read(./.env)"]}}


def _project(tmp_path: Path, settings: dict | str = SETTINGS) -> Path:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    text = settings if isinstance(settings, str) else json.dumps(settings, indent=2)
    (root / ".claude" / "settings.json").write_text(text, encoding="utf-8")
    return root


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["convert", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_without_out_it_prints_what_it_would_write_and_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    code, out, err = run(str(root), "--to", "codex")
    assert (code, err) == (0, "")
    conv = tk.convert(tk.load(root, home=False, managed=False), to="codex")
    for path, text in conv.files.items():
        assert f"--- would write {path} ---\n{text}" in out
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_losses_are_one_line_each_with_file_line_and_the_summary_ends(tmp_path: Path) -> None:
    root = _project(tmp_path)
    code, out, _ = run(str(root), "--to", "codex")
    assert code == 0
    # Bash(git status) is line 4 of the settings; Codex cannot allow an exact command
    assert ".claude/settings.json:4: dropped: Bash(git status) — a prefix_rule cannot say an " \
           "exact command" in out
    assert ".claude/settings.json:13: dropped: Read(./.env) — Codex rules speak of commands " \
           "only" in out
    assert "runtime: semantics: Claude Code strips the wrappers" in out
    conv = tk.convert(tk.load(root, home=False, managed=False), to="codex")
    assert out.rstrip("\n").endswith(conv.summary())
    # differences grouped by their loss, with a count and an example
    assert f"calls deciding differently ({len(conv.check)}):" in out
    assert "weaker, e.g. Bash 'timeout 30 rm -rf': explicit-deny -> ask" in out


def test_differences_lists_every_call(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _, out, _ = run(str(root), "--to", "gemini-cli", "--differences")
    conv = tk.convert(tk.load(root, home=False, managed=False), to="gemini-cli")
    lines = [line for line in out.splitlines() if line.endswith(", listed]")]
    assert len(lines) == len(conv.check) > 0


def test_out_writes_the_files_there_and_home_files_under_home(tmp_path: Path) -> None:
    root = _project(tmp_path)
    code, out, _ = run(str(root), "--to", "gemini-cli", "--out", str(tmp_path / "out"))
    target = tmp_path / "out" / "home" / ".gemini" / "policies" / "converted.toml"
    assert code == 0 and f"wrote {target}" in out
    conv = tk.convert(tk.load(root, home=False, managed=False), to="gemini-cli")
    assert target.read_text() == conv.files["~/.gemini/policies/converted.toml"]
    assert sorted(p.name for p in root.rglob("*")) == [".claude", "settings.json"]


def test_out_inside_the_source_project_is_refused(tmp_path: Path) -> None:
    root = _project(tmp_path)
    for out_dir in (root, root / "converted", root / ".claude"):
        code, out, err = run(str(root), "--to", "opencode", "--out", str(out_dir))
        assert code == 2 and out == ""
        assert f"--out {out_dir} is inside the source project" in err
    assert sorted(p.name for p in root.rglob("*")) == [".claude", "settings.json"]


def test_json_is_the_conversion(tmp_path: Path) -> None:
    root = _project(tmp_path)
    code, out, _ = run(str(root), "--to", "opencode", "--format", "json")
    data = json.loads(out)
    conv = tk.convert(tk.load(root, home=False, managed=False), to="opencode")
    assert code == 0
    assert (data["source"], data["target"], data["ok"]) == ("claude-code", "opencode", True)
    assert data["files"] == conv.files and data["written"] is None
    assert data["counts"] == conv.counts
    assert [r["rule"] for r in data["losses"]] == list(conv.losses["rule"])
    assert len(data["differences"]) == len(conv.check)
    read_env = next(r for r in data["losses"] if r["rule"] == "Read(./.env)")
    assert (read_env["line"], read_env["action"]) == (13, "stricter")


def test_strict_passes_when_every_difference_is_a_listed_loss(tmp_path: Path) -> None:
    root = _project(tmp_path)
    for target in ("gemini-cli", "codex", "opencode", "cursor", "claude-code"):
        code, _, err = run(str(root), "--to", target, "--strict")
        assert (code, err) == (0, ""), target


def test_strict_fails_on_a_difference_no_loss_explains(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that forgets its losses: the same files, every difference now unlisted."""
    real = convert_package.TARGETS["codex"]

    def forgetful(rules, root, mode):  # type: ignore[no-untyped-def]
        return dataclasses.replace(real(rules, root, mode), losses=[])

    monkeypatch.setitem(convert_package.TARGETS, "codex", forgetful)  # type: ignore[arg-type]
    root = _project(tmp_path)
    code, out, _ = run(str(root), "--to", "codex", "--strict")
    assert code == 1
    assert "NOT LISTED]" in out and "not explained by a listed loss" in out
    code, _, _ = run(str(root), "--to", "codex")
    assert code == 0  # without --strict the report is printed and the exit status is 0


def test_bad_input_exits_2_with_a_located_message(tmp_path: Path) -> None:
    code, out, err = run(str(tmp_path / "nope"), "--to", "codex")
    assert code == 2 and "no such file or folder" in err and out == ""
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(str(empty), "--to", "codex")
    assert code == 2 and "no policy to convert" in err
    broken = _project(tmp_path, '{"permissions": {\n')
    code, _, err = run(str(broken), "--to", "codex")
    assert code == 2 and ".claude/settings.json:2: JSON syntax error" in err
    code, _, err = run(str(broken), "--to", "vim")
    assert code == 2 and "invalid choice: 'vim'" in err
    code, _, err = run(str(_project(tmp_path / "b")), "--to", "codex", "--source", "codex")
    assert code == 2 and "cannot convert from 'codex'" in err
    (tmp_path / "afile").write_text("")
    code, _, err = run(str(_project(tmp_path / "c")), "--to", "codex", "--out",
                       str(tmp_path / "afile"))
    assert code == 2 and "cannot write the converted files there" in err
    assert "Traceback" not in err


def test_an_opencode_project_converts_to_claude_code_and_strict_passes(tmp_path: Path) -> None:
    """--source opencode: OpenCode's last-match-wins map, written as Claude Code settings."""
    root = tmp_path / "oc"
    root.mkdir()
    (root / "opencode.json").write_text(json.dumps({"permission": {"bash": {
        "*": "ask", "git *": "allow", "git push *": "deny"}}}), encoding="utf-8")
    out = tmp_path / "out"
    code, text, err = run(str(root), "--source", "opencode", "--to", "claude-code", "--out",
                          str(out), "--strict")
    assert (code, err) == (0, "")
    written = json.loads((out / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "Bash(git *)" in written["permissions"]["allow"]
    assert "Bash(git push *)" in written["permissions"]["deny"]
    assert "opencode -> claude-code" in text
    # the catch-all ask is OpenCode's default for the rest: listed with its file:line
    assert "opencode.json:" in text and "dropped: bash" in text


def test_a_gemini_cli_policy_in_home_converts_with_home(tmp_path: Path) -> None:
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "p.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\n'
        'decision = "allow"\npriority = 100\n', encoding="utf-8")
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(root): "TRUST_FOLDER"}), encoding="utf-8")
    code, text, err = run(str(root), "--home", str(home), "--to", "opencode", "--strict")
    assert (code, err) == (0, "")
    assert '"git status *": "allow"' in text
