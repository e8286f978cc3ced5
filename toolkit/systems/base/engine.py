"""What every permission engine does alike: tools whose calls argument rules decide.

A tool an agent holds, whose calls some rule decides by their arguments (Claude Code's
``Bash(git push *)``, say), shows ``conditional`` in ``explain`` and the matrix: the
tool is granted, each call is decided by ``check_call``. An engine's ``conditional`` /
``conditional_verdict`` are these two functions.
"""

from __future__ import annotations

from dataclasses import replace

from ...core.decision import Decision, Effect, Step, Verdict, decide
from ...core.models import Rule

__all__ = ["ConditionalRules", "conditional", "conditional_verdict"]


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
