"""What every permission engine does alike: tools whose calls argument rules decide, and
the answers of an engine with nothing of its own to say.

A tool an agent holds, whose calls some rule decides by their arguments (Claude Code's
``Bash(git push *)``, say), shows ``conditional`` in ``explain`` and the matrix: the
tool is granted, each call is decided by ``check_call``. An engine's ``conditional`` /
``conditional_verdict`` are these two functions. :class:`EngineDefaults` adds the rest of
the defaults: no MCP server approvals, no inheritance gaps, and the agent's tool list
applied by ``Policy`` (``applies_agent_tools = False``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ...core.decision import Decision, Effect, Step, Verdict, decide
from ...core.models import AgentDefinition, Rule, ServerConfig
from ...errors import Problem

__all__ = ["ConditionalRules", "EngineDefaults", "conditional", "conditional_verdict"]


def conditional(decision: Decision, rules: tuple[Rule, ...]) -> Decision:
    """``decision`` (a granted tool) as ``conditional``, listing the argument rules."""
    if not decision.effect.granted or not rules:
        return decision
    verdict = decide(asks=decision.effect is Effect.ASK, conditional=True)
    steps = tuple(Step("arguments", "pass", f"{r.kind} {r.text} ({r.layer})", r)
                  for r in rules)
    listing = ", ".join(r.text for r in rules)
    return replace(decision, effect=verdict.effect, reason=verdict.reason,
                   message=f"{decision.message}; argument rules decide each call "
                           f"({listing}): ask check_call", trace=decision.trace + steps)


def conditional_verdict(verdict: Verdict) -> Verdict:
    """A granted verdict as conditional (``decide(conditional=True)``)."""
    if not verdict.effect.granted:
        return verdict
    return decide(asks=verdict.effect is Effect.ASK, conditional=True)


class ConditionalRules:
    """An engine's ``conditional`` / ``conditional_verdict``: the two functions above, so
    each engine inherits them instead of writing the same two delegations."""

    @staticmethod
    def conditional(decision: Decision, rules: tuple[Rule, ...]) -> Decision:
        """``decision`` (a granted tool) as ``conditional``, listing the argument rules."""
        return conditional(decision, rules)

    @staticmethod
    def conditional_verdict(verdict: Verdict) -> Verdict:
        """A granted verdict as conditional."""
        return conditional_verdict(verdict)


class EngineDefaults(ConditionalRules):
    """The answers of an engine that has none of its own: it reads no agent definitions (so
    ``Policy.check_call`` applies the agent's tool list first), approves no MCP server and
    knows no inheritance gap. An engine overrides what its runtime does have."""

    #: whether ``check_call`` applies an agent's own tool list itself
    applies_agent_tools: bool = False

    def approvals(self, servers: Mapping[str, ServerConfig]) -> list[Any]:
        """No server approvals: the runtime has no per-server approval setting."""
        return []

    def gaps(self, agents: Iterable[AgentDefinition]) -> list[dict[str, Any]]:
        """No inheritance gaps: the runtime's subagents inherit nothing toolkit checks."""
        return []

    def gap_problems(self, agents: Iterable[AgentDefinition]) -> list[Problem]:
        """No gaps, so no warnings."""
        return []
