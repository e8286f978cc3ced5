"""The answers every engine shares live once, in ``base.engine.EngineDefaults`` (h16 finding
10): no server approvals, no inheritance gaps, and ``applies_agent_tools`` False, a member of
the ``PermissionEngine`` protocol that ``Policy.check_call`` reads directly."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.systems import registry
from toolkit.systems.base.engine import EngineDefaults

#: runtime -> whether its check_call applies an agent's own tool list itself
APPLIES_AGENT_TOOLS = {"claude-code": True, "opencode": True, "gemini-cli": False,
                       "codex": False, "vscode": False, "cursor": False}


@pytest.mark.parametrize("runtime", sorted(APPLIES_AGENT_TOOLS))
def test_every_engine_says_whether_it_applies_the_agent_s_tools(tmp_path: Path,
                                                                 runtime: str) -> None:
    engine = registry.empty_engine(str(tmp_path), runtime)
    assert engine.applies_agent_tools is APPLIES_AGENT_TOOLS[runtime]


@pytest.mark.parametrize("runtime", ["gemini-cli", "codex", "opencode", "vscode", "cursor"])
def test_engines_without_approvals_or_gaps_take_the_defaults(tmp_path: Path,
                                                             runtime: str) -> None:
    engine = registry.empty_engine(str(tmp_path), runtime)
    assert isinstance(engine, EngineDefaults)
    for name in ("approvals", "gaps", "gap_problems"):
        assert getattr(type(engine), name) is getattr(EngineDefaults, name), name
    assert engine.approvals({}) == [] and engine.gaps([]) == [] and engine.gap_problems([]) == []


def test_an_engine_that_reads_no_agents_still_applies_the_agent_s_tool_list(
        tmp_path: Path) -> None:
    """Gemini CLI's engine reads no agent definitions (applies_agent_tools False): the agent's
    own tool list decides first, as the matrix shows it."""
    (tmp_path / ".gemini").mkdir()
    (tmp_path / "tools.yaml").write_text("tool:\n  run_shell_command: {}\n  read_file: {}\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "reader.md").write_text(
        "---\nname: reader\ntools: [read_file]\n---\nReads.\n")
    proj = tk.load(tmp_path, home=False, managed=False)
    d = proj.check_call("run_shell_command", {"command": "ls"}, agent="reader",
                        runtime="gemini-cli")
    assert d.effect is proj.explain("reader", "run_shell_command").effect
    assert not d.effect.granted and d.effect is not Effect.ASK
