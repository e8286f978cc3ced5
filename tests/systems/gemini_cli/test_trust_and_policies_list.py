"""Gemini CLI: workspace trust (``isWorkspaceTrusted``, cli/config/trustedFolders.ts and
core/utils/trust.ts ``checkPathTrust``; settings.ts drops the workspace settings of an
untrusted folder: ``isTrusted ?? false``) and ``/policies list``
(cli/ui/commands/policiesCommand.ts), google-gemini/gemini-cli@5411f11."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect

EXAMPLE = Path(tk.__file__).parent / "examples" / "gemini-cli"
SH = "run_shell_command"


@pytest.fixture(autouse=True)
def _no_trust_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)


def _project(tmp_path: Path, trusted_folders: dict[str, str] | None = None,
             user_settings: dict[str, object] | None = None) -> tuple[Path, Path]:
    root = tmp_path / "work" / "proj"
    shutil.copytree(EXAMPLE / ".gemini", root / ".gemini")
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    if trusted_folders is not None:
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(
            {k.replace("ROOT", str(root)).replace("PARENT", str(root.parent)): v
             for k, v in trusted_folders.items()}))
    if user_settings is not None:
        (home / ".gemini" / "settings.json").write_text(json.dumps(user_settings))
    return root, home


def _effects(root: Path, home: Path) -> tuple[Effect, Effect]:
    proj = tk.load(root, home=home, managed=False)
    try:
        npm = proj.check_call(SH, {"command": "npm test"}, runtime="gemini-cli").effect
        fetch = proj.check_call("web_fetch", {"prompt": "x"}, runtime="gemini-cli").effect
    finally:
        proj.close()
    return npm, fetch


def test_unlisted_folder_is_untrusted_and_its_settings_ignored(tmp_path: Path) -> None:
    """checkPathTrust: no trustedFolders.json entry -> isTrusted undefined -> settings.ts
    ``?? false``: the example's tools.allowed / tools.exclude do not apply, and it says so."""
    root, home = _project(tmp_path)
    proj = tk.load(root, home=home, managed=False)
    engine = proj.engines["gemini-cli"]
    assert engine.config.trusted is False
    assert any("not trusted" in str(p) for p in engine.problems)
    d = proj.check_call(SH, {"command": "npm test"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK and "write.toml" in d.message
    d = proj.check_call(SH, {"command": "git status"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK and "untrusted" in d.message  # the git heuristic
    proj.close()


@pytest.mark.parametrize(("table", "trusted"), [
    ({"ROOT": "TRUST_FOLDER"}, True),
    ({"ROOT/child": "TRUST_PARENT"}, True),
    ({"PARENT": "TRUST_FOLDER"}, True),
    ({"ROOT": "DO_NOT_TRUST"}, False),
    # the longest matching entry decides
    ({"PARENT": "TRUST_FOLDER", "ROOT": "DO_NOT_TRUST"}, False),
    ({"PARENT": "DO_NOT_TRUST", "ROOT": "TRUST_FOLDER"}, True),
])
def test_trusted_folders_json(tmp_path: Path, table: dict[str, str], trusted: bool) -> None:
    """LoadedTrustedFolders.isPathTrusted: TRUST_FOLDER / TRUST_PARENT / DO_NOT_TRUST, the
    longest rule path wins."""
    root, home = _project(tmp_path, table)
    npm, fetch = _effects(root, home)
    if trusted:
        assert (npm, fetch) == (Effect.ALLOW, Effect.DENY)  # tools.allowed, tools.exclude
    else:
        assert (npm, fetch) == (Effect.ASK, Effect.ASK)


def test_folder_trust_disabled_trusts_every_folder(tmp_path: Path) -> None:
    """isFolderTrustEnabled: security.folderTrust.enabled false in the user settings."""
    root, home = _project(tmp_path, user_settings={"security": {"folderTrust":
                                                                {"enabled": False}}})
    assert _effects(root, home) == (Effect.ALLOW, Effect.DENY)


@pytest.mark.parametrize(("value", "trusted"), [("true", True), ("false", False)])
def test_trust_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    value: str, trusted: bool) -> None:
    """checkPathTrust: GEMINI_CLI_TRUST_WORKSPACE overrides trustedFolders.json."""
    root, home = _project(tmp_path, {"ROOT": "DO_NOT_TRUST" if trusted else "TRUST_FOLDER"})
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", value)
    assert _effects(root, home) == ((Effect.ALLOW, Effect.DENY) if trusted
                                    else (Effect.ASK, Effect.ASK))


# -- /policies list -----------------------------------------------------------------------------

def test_policies_list_in_geminis_order(tmp_path: Path) -> None:
    """policiesCommand.ts: the rules by priority, grouped Normal / Auto Edit / Yolo / Plan,
    each ``N. **DECISION** tool: `name` (args match: ...) [Priority: p] [Source: s]``."""
    root, home = _project(tmp_path, {"ROOT": "TRUST_FOLDER"})
    (home / ".gemini" / "policies").mkdir()
    (home / ".gemini" / "policies" / "team.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "curl"\n'
        'decision = "deny"\npriority = 900\n\n'
        '[[rule]]\ntoolName = "glob"\ndecision = "allow"\npriority = 10\nmodes = ["yolo"]\n')
    proj = tk.load(root, home=home, managed=False, runtime="gemini-cli")
    engine = proj.engines["gemini-cli"]
    text = engine.policies_list()
    lines = text.splitlines()
    assert lines[:3] == ["**Active Policies**", "", "### Normal Mode Policies"]
    assert lines[3] == ("1. **DENY** tool: `run_shell_command` (args match: "
                        '`\\"command\\":\\"curl(?:[\\s"]|\\\\")`) [Priority: 4.9] '
                        "[Source: User: team.toml]")
    heads = [line for line in lines if line.startswith("### ")]
    assert heads == ["### Normal Mode Policies",
                     "### Auto Edit Mode Policies (combined with normal mode policies)",
                     "### Yolo Mode Policies (combined with normal mode policies)",
                     "### Plan Mode Policies (combined with normal mode policies)"]
    yolo = text.split("### Yolo")[1].split("### Plan")[0]
    assert "**ALLOW** tool: `glob` [Priority: 4.01] [Source: User: team.toml]" in yolo
    # the priorities never rise within a section: the engine's order (getRules)
    normal = text.split("### Auto Edit")[0]
    priorities = [float(line.split("[Priority: ")[1].split("]")[0])
                  for line in normal.splitlines() if "[Priority: " in line]
    assert priorities == sorted(priorities, reverse=True) and len(priorities) > 10
    # the same order as a table: proj.permissions for the gemini-cli engine
    frame = proj.permissions
    assert list(frame["priority"].dropna()) == sorted(frame["priority"].dropna(), reverse=True)
    assert frame.iloc[0]["source"] == "User: team.toml"
    proj.close()
