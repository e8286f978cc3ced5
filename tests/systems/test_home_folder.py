"""``tk.load(..., home=...)`` means one thing for every runtime (``base.paths.home_folder``):
False no user layer, None or True the real ``~``, a path that folder with ``~`` expanded.
Before, VS Code raised pathlib's TypeError on ``home=True`` and neither VS Code nor Cursor
expanded ``~`` (h16 finding 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.systems.base.paths import home_folder

# per runtime: the project's own file, a user-layer file under ~ and the call it decides,
# which the user file turns from the first effect into the second
CASES = {
    "gemini-cli": ({".gemini/settings.json": "{}"},
                   {".gemini/policies/user.toml": '[[rule]]\ntoolName = "run_shell_command"\n'
                                                  'decision = "deny"\npriority = 100\n'},
                   ("run_shell_command", {"command": "ls"})),
    "opencode": ({"opencode.json": "{}"},
                 {".config/opencode/opencode.json": '{"permission": {"bash": "deny"}}'},
                 ("bash", {"command": "ls"})),
    "cursor": ({".cursor/cli.json": '{"permissions": {"allow": ["Shell(ls)"]}}'},
               {".cursor/cli-config.json": '{"permissions": {"allow": [], '
                                           '"deny": ["Shell(ls)"]}}'},
               ("Shell", {"command": "ls"})),
    "vscode": ({".vscode/settings.json": '{"chat.tools.terminal.autoApprove": {"make": true}}'},
               {".config/Code/User/settings.json":
                '{"chat.tools.terminal.autoApprove": {"ls": false}}'},
               ("run_in_terminal", {"command": "ls"})),
}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.mark.parametrize("runtime", sorted(CASES))
def test_home_true_and_a_tilde_path_read_the_user_layer(tmp_path: Path, runtime: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    project, user, (tool, args) = CASES[runtime]
    write(tmp_path / "p", project)
    write(tmp_path / "h", user)

    def effect(home: object) -> Effect:
        proj = tk.load(tmp_path / "p", home=home, managed=False, runtime=runtime)
        return proj.check_call(tool, args, runtime=runtime).effect

    without = effect(False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert effect("~/h") is not without  # ~ expanded: tmp_path/h, the user file read
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    with_user = effect(True)  # True: the real ~ (tmp_path/h)
    assert with_user is not without and effect(None) is with_user
    assert with_user in (Effect.DENY, Effect.ASK)


def test_home_folder_reads_every_spelling(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    default = Path("/etc/runtime")
    assert home_folder(False, default) is None
    assert home_folder(None, default) == default and home_folder(True, default) == default
    assert home_folder("~/x", default) == tmp_path / "x"
    assert home_folder(tmp_path / "y", default) == tmp_path / "y"
