"""The matrix with several runtimes side by side (SPEC section 13: ``proj.matrix(runtimes="*")``).

The repository is notebook 10's (``notebooks/data/three-runtimes/acme-api``: one team's
Claude Code, Gemini CLI and Codex policies), copied into ``tmp_path`` with a home folder that
trusts it (``tests/support/runtimes.py``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk
from tests.support.runtimes import RUNTIMES, three_runtimes
from toolkit.core.decision import Effect, Reason
from toolkit.policy import MAIN


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    repo, home = three_runtimes(tmp_path)
    return tk.load(repo, home=home, managed=False)


def test_the_repository_holds_three_runtimes(proj: tk.Project) -> None:
    assert proj.runtimes == RUNTIMES
    assert proj.default_runtime == "claude-code"  # the first found, as check_call's engine


def test_every_cell_equals_explain_under_its_runtime(proj: tk.Project) -> None:
    effects = proj.effects(runtimes="*")
    allowed = proj.matrix(runtimes="*")
    assert effects.columns.names == ["runtime", "agent"]
    assert list(dict.fromkeys(effects.columns.get_level_values("runtime"))) == list(RUNTIMES)
    assert list(dict.fromkeys(effects.columns.get_level_values("agent"))) == [MAIN, "reviewer"]
    checked = 0
    for runtime, agent in effects.columns:
        for tool in effects.index:
            d = proj.explain(agent, tool, runtime=runtime)
            assert effects.loc[tool, (runtime, agent)] == d.effect.value, (runtime, agent, tool)
            assert bool(allowed.loc[tool, (runtime, agent)]) == d.allowed, (runtime, agent, tool)
            assert d.runtime == runtime
            checked += 1
    assert checked == len(effects.index) * 6


def test_the_main_column_agrees_with_check_call(proj: tk.Project) -> None:
    """A name-level deny is a deny for any call (a bare one included); a bare call denied
    under a granted cell is a conditional cell's (its arguments decide: Gemini CLI's
    tools.allowed narrowing run_shell_command); an ask cell asks; what the runtime lacks is
    not its tool."""
    effects = proj.effects(runtimes="*")
    for runtime in RUNTIMES:
        for tool, effect in effects[(runtime, MAIN)].items():
            explained = proj.explain(None, tool, runtime=runtime)
            if explained.reason is Reason.POOL:
                continue  # another runtime's built-in: check_call has no such tool to judge
            call = proj.check_call(tool, {}, runtime=runtime)
            if effect == Effect.DENY.value:
                assert call.effect is Effect.DENY, (runtime, tool)
            elif call.effect is Effect.DENY:  # only arguments can let such a tool's call run
                assert effect == Effect.CONDITIONAL.value, (runtime, tool)
            if effect == Effect.ASK.value:
                assert call.effect is Effect.ASK, (runtime, tool)


def test_the_same_question_three_verdicts(proj: tk.Project) -> None:
    effects = proj.effects(runtimes="*")
    main = effects.xs(MAIN, level="agent", axis=1)
    # each runtime's own web fetch tool: denied by Claude Code's deny rule and by Gemini
    # CLI's tools.exclude; Codex has no such tool
    assert main.loc["WebFetch", "claude-code"] == Effect.DENY.value
    assert main.loc["web_fetch", "gemini-cli"] == Effect.DENY.value
    # the shell tools: argument rules decide Claude Code's and Codex's
    assert main.loc["Bash", "claude-code"] == Effect.CONDITIONAL.value
    assert main.loc["shell", "codex"] == Effect.CONDITIONAL.value
    # another runtime's built-in is no tool of this one
    for tool, runtime in (("Bash", "codex"), ("shell", "gemini-cli"),
                          ("run_shell_command", "claude-code")):
        assert main.loc[tool, runtime] == Effect.IMPLICIT_DENY.value
        d = proj.explain(None, tool, runtime=runtime)
        assert d.reason is Reason.POOL and "not of" in d.message and d.rule.file is None


def test_each_runtime_decides_with_its_own_rule(proj: tk.Project) -> None:
    """The rule behind a deny cell is the runtime's own, with its file and line."""
    claude = proj.explain(None, "WebFetch", runtime="claude-code")
    assert (claude.rule.text, claude.rule.where) == ("WebFetch", ".claude/settings.json:20")
    gemini = proj.explain(None, "web_fetch", runtime="gemini-cli")
    assert gemini.rule.where == ".gemini/settings.json:5"


def test_the_default_matrix_is_unchanged(proj: tk.Project) -> None:
    """Without runtimes= the matrix is the default runtime's, with no runtime level and no
    main-conversation column, cell for cell what explain() says."""
    before = proj.effects()
    assert before.columns.names == ["agent"] and list(before.columns) == ["reviewer"]
    for tool in before.index:
        assert before.loc[tool, "reviewer"] == proj.explain("reviewer", tool).effect.value
    claude = proj.effects(runtimes=["claude-code"], agents=["reviewer"])
    own = [t for t in before.index if proj.explain("reviewer", t, runtime="claude-code").reason
           is not Reason.POOL]
    pd.testing.assert_series_equal(before.loc[own, "reviewer"],
                                   claude.loc[own, ("claude-code", "reviewer")],
                                   check_names=False)


def test_runtimes_are_named_or_listed(proj: tk.Project) -> None:
    two = proj.effects(runtimes=["gemini-cli", "codex"], agents=[None])
    assert list(two.columns) == [("gemini-cli", MAIN), ("codex", MAIN)]
    one = proj.matrix(runtimes="codex", agents=["reviewer"])
    assert list(one.columns) == [("codex", "reviewer")]  # the level stays for one runtime
    with pytest.raises(ValueError, match="no permission engine for runtime 'nope'"):
        proj.matrix(runtimes=["nope"])
    with pytest.raises(ValueError, match="runtimes= is empty"):
        proj.matrix(runtimes=[])


def test_runtimes_combine_with_contexts_and_presets(proj: tk.Project) -> None:
    table = proj.reasons(runtimes="*", agents=["reviewer"], presets=["strict", "claude-code"])
    assert table.columns.names == ["runtime", "agent", "preset"]
    for runtime, agent, preset in table.columns:
        for tool in ("Read", "read_file", "shell", "Bash"):
            d = proj.explain(agent, tool, preset=preset, runtime=runtime)
            assert table.loc[tool, (runtime, agent, preset)] == d.verdict.label or (
                d.effect is Effect.CONDITIONAL
                and table.loc[tool, (runtime, agent, preset)] == Effect.CONDITIONAL.value)


def test_a_project_with_one_runtime_shows_it(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        '{"permissions": {"deny": ["WebSearch"]}}')
    proj = tk.load(tmp_path, home=False, managed=False)
    table = proj.effects(runtimes="*")
    assert list(table.columns) == [("claude-code", MAIN)]
    assert table.loc["WebSearch", ("claude-code", MAIN)] == Effect.DENY.value


def test_permissions_list_every_runtimes_rules(proj: tk.Project) -> None:
    rules = proj.permissions
    assert list(rules.columns[:2]) == ["runtime", "text"]
    assert set(rules["runtime"]) == set(RUNTIMES)
    codex = rules[rules["runtime"] == "codex"]
    assert list(codex["line"]) == [3, 11, 17, 24, 32]
    assert codex["file"].eq(".codex/rules/acme.rules").all()
    gemini = rules[rules["runtime"] == "gemini-cli"]
    user = gemini[gemini["layer"] == "user"]
    assert "~/.gemini/policies/acme.toml" in set(user["file"])
    assert gemini["priority"].dropna().is_monotonic_decreasing  # Gemini's order: highest first
    disabled = gemini[gemini["status"] == "disabled"]
    assert list(disabled["file"]) == [".gemini/policies/acme.toml"]
    claude = rules[rules["runtime"] == "claude-code"]
    assert ("Bash(curl:*)", "project", 18) in set(zip(claude["text"], claude["layer"],
                                                      claude["line"], strict=True))
    assert claude["priority"].isna().all()  # Claude Code has no priorities


def test_a_narrowed_gemini_shell_tool_is_conditional_not_denied(proj: tk.Project) -> None:
    """policy-engine.ts getExcludedTools: ``if (rule.argsPattern) { if (rule.toolName &&
    rule.decision !== PolicyDecision.DENY) processedTools.add(rule.toolName); continue; }``."""
    allowed = proj.check_call("run_shell_command", {"command": "npm test"}, runtime="gemini-cli")
    assert allowed.effect is Effect.ALLOW  # the tool is not removed from the model's context
    cell = proj.explain(None, "run_shell_command", runtime="gemini-cli")
    assert cell.effect is Effect.CONDITIONAL
