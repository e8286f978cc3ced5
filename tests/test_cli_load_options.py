"""The load options every verb that loads a project shares (``cli/_common.add_load_options``,
h16 review finding 10): one spelling, one meaning, help that speaks of every runtime;
``convert`` keeps its documented default (the project's files only) explicitly."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main
from toolkit.errors import ToolkitError
from toolkit.runtime import project as runtime_project

VERBS = ("probe", "lint", "test", "why")


@pytest.mark.parametrize("verb", [*VERBS, "convert"])
def test_help_says_what_each_option_does_for_every_runtime(
        verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for runtime_home in ("~/.claude/settings.json", "Gemini CLI ~/.gemini/", "Codex ~/.codex/",
                         "OpenCode ~/.config/opencode/", "Cursor ~/.cursor/",
                         "VS Code ~/.config/Code/User/settings.json"):
        assert runtime_home in text, (verb, runtime_home)
    assert "--no-home" in text and "--managed PATH" in text
    assert "its .claude/settings.json is the user layer" not in text
    if verb == "convert":
        assert "Default: none, the project's files only" in text
        assert "--runtime-args" not in text
    else:
        assert "default: the real home folder" in text
        assert "--runtime-args" in text and "--claude" in text


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The keyword arguments each verb loads its project with (the load itself stops)."""
    calls: list[dict[str, Any]] = []

    def fake_load(path: Any, **kwargs: Any) -> Any:
        calls.append({"path": str(path), **kwargs})
        raise ToolkitError("stop here")

    monkeypatch.setattr(runtime_project, "load", fake_load)
    return calls


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    return main(list(argv), io.StringIO(), err), err.getvalue()


def _argv(verb: str, root: str, *extra: str) -> list[str]:
    head = [verb, root, "Bash", "ls"] if verb == "why" else [verb, root]
    if verb == "convert":
        head += ["--to", "gemini-cli"]
    return [*head, *extra]


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_loads_alike(verb: str, tmp_path: Path,
                                loaded: list[dict[str, Any]]) -> None:
    root = str(tmp_path)
    _run(*_argv(verb, root))
    _run(*_argv(verb, root, "--no-home", "--managed", "/m",
                "--claude=--allowedTools 'Bash(make *)'", "--runtime-args=-a never"))
    _run(*_argv(verb, root, "--home", "/h"))
    assert [(c["home"], c["managed"]) for c in loaded] == [(None, None), (False, "/m"),
                                                           ("/h", None)]
    assert loaded[1]["cli"] == ["--allowedTools", "Bash(make *)", "-a", "never"]
    assert loaded[0]["cli"] == [] and loaded[0]["path"] == root


def test_convert_keeps_its_default_of_no_home_and_no_managed(
        tmp_path: Path, loaded: list[dict[str, Any]]) -> None:
    root = str(tmp_path)
    _run(*_argv("convert", root))
    _run(*_argv("convert", root, "--home", "/h", "--managed", "/m"))
    _run(*_argv("convert", root, "--no-home"))
    assert [(c["home"], c["managed"]) for c in loaded] == [(False, False), ("/h", "/m"),
                                                           (False, False)]


@pytest.mark.parametrize("verb", VERBS)
def test_flags_that_are_not_shell_words_are_a_usage_error(verb: str, tmp_path: Path) -> None:
    code, err = _run(*_argv(verb, str(tmp_path), "--runtime-args=-a 'never"))
    assert code == 2 and "--claude / --runtime-args: No closing quotation" in err
    assert "Traceback" not in err
