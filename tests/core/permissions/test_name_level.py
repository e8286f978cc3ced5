"""Settings rules at the tool level: a bare deny removes a tool, a bare ask asks, and a tool whose
calls depend on argument rules is ``conditional`` in explain, resolve and the matrix (SPEC 11:
"The matrix shows a tool whose rules depend on arguments as conditional, and explain lists the
argument rules that would decide")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import toolkit as tk
from tests.support.claude import permissions
from toolkit.core.decision import Effect, effect_of_label

Make = Callable[..., tk.Project]
#: A generic tool registry naming Claude Code's built-ins, so they are in the pool.
REGISTRY = "tool:\n" + "".join(f"  {name}: {{}}\n" for name in (
    "Bash", "Read", "Edit", "WebFetch", "WebSearch", "Grep"))
AGENTS = {
    "builder": "---\nname: builder\ndescription: builds\ntools: Bash, Read, Edit, WebFetch, "
               "WebSearch\n---\nBuild.\n",
    "reader": "---\nname: reader\ndescription: reads\ntools: Read, Grep\n---\nRead.\n",
}


@pytest.fixture
def proj(make: Make) -> tk.Project:
    return make(project=permissions(["Bash(npm run *)"], ask=["WebSearch"],
                                    deny=["WebFetch", "Read(./.env)"]),
                agents=AGENTS, files={"tools.yaml": REGISTRY})


def test_a_bare_deny_removes_the_tool(proj: tk.Project) -> None:
    """permissions#manage-permissions: "A bare tool name like Bash removes the tool from
    Claude's context entirely"."""
    d = proj.explain("builder", "WebFetch")
    assert (d.effect, d.reason, d.rule.text, d.rule.layer, d.rule.file, d.rule.line) == (
        Effect.DENY, "deny", "WebFetch", "project", ".claude/settings.json", 10)
    assert "WebFetch" not in proj.resolve("builder").allowed
    assert proj.effects().loc["WebFetch", "builder"] == "explicit-deny"


def test_a_bare_ask_asks(proj: tk.Project) -> None:
    d = proj.explain("builder", "WebSearch")
    assert (d.effect, d.rule.text) == (Effect.ASK, "WebSearch")
    assert proj.effects().loc["WebSearch", "builder"] == "ask"


def test_argument_rules_make_a_tool_conditional_everywhere(proj: tk.Project) -> None:
    d = proj.explain("builder", "Bash")
    assert d.effect is Effect.CONDITIONAL and d.allowed
    listed = [s.rule.text for s in d.trace if s.name == "arguments"]
    assert listed == ["Bash(npm run *)"]
    assert "argument rules decide each call" in d.message
    reader = proj.explain("reader", "Read")  # Read(./.env) covers Read and Grep
    assert reader.effect is Effect.CONDITIONAL
    assert [s.rule.text for s in reader.trace if s.name == "arguments"] == ["Read(./.env)"]
    effects = proj.effects()
    assert effects.loc["Bash", "builder"] == "conditional"
    assert effects.loc["Grep", "reader"] == "conditional"
    assert effects.loc["Edit", "builder"] == "allow"  # no argument rule for Edit
    assert proj.reasons().loc["Bash", "builder"] == "conditional"
    assert effect_of_label("conditional") is Effect.CONDITIONAL
    assert bool(proj.matrix().loc["Bash", "builder"])  # conditional is held
    assert proj.resolve("builder").effect("Bash") is Effect.CONDITIONAL


def test_every_cell_agrees_with_explain(proj: tk.Project) -> None:
    effects = proj.effects()
    for tool in effects.index:
        for agent in effects.columns:
            assert effects.loc[tool, agent] == proj.explain(agent, tool).effect.value


def test_a_subagents_own_pattern_is_conditional_for_it_only(make: Make) -> None:
    agents = {"tester": "---\nname: tester\ndescription: tests\ntools: Bash, Read\n---\n",
              "plain": "---\nname: plain\ndescription: p\ntools: Bash\n---\n"}
    proj = make(agents=agents, files={"tools.yaml": REGISTRY})
    from toolkit.core.models import Rule

    definition = proj.agents["tester"]
    rules = (Rule(kind="allow", pattern="Bash", spec="npm test:*", agent="tester",
                  file=definition.file, line=4), *(definition.allow or ())[1:])
    proj.add_agent(definition.model_copy(update={"allow": rules}), replace=True)
    assert proj.explain("tester", "Bash").effect is Effect.CONDITIONAL
    assert proj.explain("plain", "Bash").effect is Effect.ALLOW
