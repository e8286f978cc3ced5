"""Real Codex files from public repositories (``tests/fixtures/codex/real``, each naming its
source): every one loads in a tmp project, or is a located error in Codex's words."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.errors import DefinitionError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "codex" / "real"


def _project(tmp_path: Path, *, rules: str | None = None, config: str | None = None
             ) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    (root / ".codex" / "rules").mkdir(parents=True)
    if rules:
        shutil.copy(REAL / rules, root / ".codex" / "rules" / "default.rules")
    if config:
        shutil.copy(REAL / config, root / ".codex" / "config.toml")
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{root.resolve()}"]\ntrust_level = "trusted"\n')
    return root, home


def _shell(proj: tk.Project, command: str, **kw: object) -> tk.Decision:
    return proj.check_call("shell", {"command": ["bash", "-lc", command]}, runtime="codex",
                           **kw)  # type: ignore[arg-type]


def test_hubspot_cli_rules(tmp_path: Path) -> None:
    root, home = _project(tmp_path, rules="hubspot-cli.default.rules")
    proj = tk.load(root, home=home)
    d = _shell(proj, "git status --short")
    assert d.effect is Effect.ALLOW and d.rule.line == 7
    assert d.details["requirement"] == {"skip": {"bypassSandbox": True,
                                                 "proposedExecpolicyAmendment": None}}
    d = _shell(proj, "git push -u origin main")
    assert d.effect is Effect.ASK
    assert d.message == ("`bash -lc 'git push -u origin main'` requires approval: Committing "
                         "or pushing changes requires explicit user approval")
    assert _shell(proj, "gh api repos/x/y", mode="never").effect is Effect.IMPLICIT_DENY


def test_altinn_studio_rules(tmp_path: Path) -> None:
    root, home = _project(tmp_path, rules="altinn-studio.default.rules")
    proj = tk.load(root, home=home)
    d = _shell(proj, "tree -L 2 && git diff --stat | wc -l")
    assert d.effect is Effect.ALLOW
    assert d.details["execpolicy_check"]["decision"] == "allow"
    assert [p.effect for p in d.parts] == [Effect.ALLOW] * 3
    assert _shell(proj, "make deploy").effect is Effect.ALLOW  # the workspace sandbox runs it
    assert _shell(proj, "make deploy", mode="untrusted").effect is Effect.ASK


def test_tanf_app_rules_are_a_located_error(tmp_path: Path) -> None:
    """Codex refuses the file: two ``match`` examples do not match ``["cat", ".env"]``."""
    root, home = _project(tmp_path, rules="tanf-app.default.rules")
    with pytest.raises(DefinitionError) as err:
        tk.load(root, home=home)
    text = str(err.value)
    assert ".codex/rules/default.rules:5" in text
    assert "expected every example to match at least one rule" in text
    assert "unmatched examples: [\"cat .env.local\", \"cat tdrs-backend/.env\"]" in text
    assert "(problem is on or around line 5)" in text


def test_cordyscrm_config(tmp_path: Path) -> None:
    root, home = _project(tmp_path, config="cordyscrm.config.toml")
    proj = tk.load(root, home=home)
    engine = proj.engines["codex"]
    assert engine.settings.approval_policy == "on-request"  # type: ignore[attr-defined]
    assert engine.settings.sandbox_mode == "workspace-write"  # type: ignore[attr-defined]
    d = _shell(proj, "mvn -q package")
    assert d.effect is Effect.ALLOW and "workspace-write" in d.message
    escalated = proj.check_call("shell", {"command": ["mvn", "deploy"],
                                          "sandbox_permissions": "require_escalated"},
                                runtime="codex")
    assert escalated.effect is Effect.ASK


def test_tradingview_mcp_config(tmp_path: Path) -> None:
    root, home = _project(tmp_path, config="tradingview-mcp-jackson.config.toml")
    proj = tk.load(root, home=home)
    engine = proj.engines["codex"]
    assert list(engine.settings.mcp_servers) == ["tradingview"]  # type: ignore[attr-defined]
    d = proj.check_call("mcp__tradingview__chart", {}, runtime="codex")
    assert d.effect is Effect.ALLOW
