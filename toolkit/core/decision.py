"""The decision vocabulary: effects, the steps that decide them, and their precedence.

Where is allow / ask / deny decided? In :func:`decide`, and nowhere else.
Resolution, explain and the matrix find out which steps of SPEC section 4 a
tool fails (each in its own way: one tool with details, a whole pool, numpy
arrays); :func:`decide` turns that into a :class:`Verdict` — the effect and
the step that decided it. Every table, widget, HTML view, CLI line and audit
record shows a ``Verdict`` or a :class:`Decision` (a verdict with its rule and
trace); none of them derives an effect on its own.

This module renders nothing; :mod:`toolkit.core.render` draws these types.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, NamedTuple

from .models import NO_RULE, Rule, groups_label

__all__ = [
    "LABELS",
    "STEPS",
    "VERDICTS",
    "Decision",
    "Effect",
    "Reason",
    "Step",
    "Verdict",
    "decide",
    "effect_of_label",
]


class Effect(StrEnum):
    """What happens when an agent calls a tool (compares equal to its string value)."""

    ALLOW = "allow"  # runs
    ASK = "ask"  # runs once approved
    CONDITIONAL = "conditional"  # runs for some arguments only (argument rules decide per call)
    DENY = "explicit-deny"  # a deny rule matched: deny always wins
    IMPLICIT_DENY = "implicit-deny"  # nothing allowed it, or a filter removed it

    @property
    def granted(self) -> bool:
        """The tool is in the agent's tool set (``Resolution.allowed``): allow, ask, conditional."""
        return self in (Effect.ALLOW, Effect.ASK, Effect.CONDITIONAL)


class Reason(StrEnum):
    """The step that decided (``Decision.reason``), named as in SPEC section 4."""

    POOL = "pool"
    DENY = "deny"
    ALLOW = "allow"
    CEILING = "ceiling"
    COORDINATION = "coordination"
    GROUP = "group"
    STATE = "state"
    APPROVAL = "approval"


#: The steps of SPEC section 4, in the order they are evaluated: the first that fails decides.
STEPS: tuple[Reason, ...] = tuple(Reason)


class Verdict(NamedTuple):
    """An effect and the step that decided it: one cell of a matrix, one row of a resolution."""

    effect: Effect
    reason: Reason

    @property
    def label(self) -> str:
        """The short word a table cell shows (``proj.reasons()``): the deciding step.

        Allowed cells read ``allow`` (or ``approval`` when they ask); the one
        step name that would be ambiguous, a tool no allow rule reaches, reads
        ``implicit``.
        """
        if self.effect is Effect.IMPLICIT_DENY and self.reason is Reason.ALLOW:
            return "implicit"
        return self.reason.value


def decide(failed: Iterable[Reason] = (), *, asks: bool = False) -> Verdict:
    """THE precedence: which effect a tool has, given the steps it fails.

    The first failing step in :data:`STEPS` order decides: a failed ``deny``
    step is an explicit deny, any other failed step an implicit deny. When no
    step fails the tool is allowed — as ``ask`` when an approval rule applies.

    >>> decide({Reason.GROUP, Reason.DENY})
    Verdict(effect=<Effect.DENY: 'explicit-deny'>, reason=<Reason.DENY: 'deny'>)
    >>> decide(asks=True).effect
    <Effect.ASK: 'ask'>
    """
    first = min(failed, key=STEPS.index, default=None)
    if first is None:
        return Verdict(Effect.ASK, Reason.APPROVAL) if asks else Verdict(Effect.ALLOW,
                                                                         Reason.ALLOW)
    return Verdict(Effect.DENY if first is Reason.DENY else Effect.IMPLICIT_DENY, first)


#: Every verdict the name-level steps can give, allowed ones first (the matrix's int8 codes).
VERDICTS: tuple[Verdict, ...] = (decide(), decide(asks=True),
                                 *(decide({s}) for s in STEPS if s is not Reason.APPROVAL))
#: The label of each verdict, in :data:`VERDICTS` order.
LABELS: tuple[str, ...] = tuple(v.label for v in VERDICTS)
_EFFECT_OF_LABEL = {v.label: v.effect for v in VERDICTS}


def effect_of_label(label: str) -> Effect:
    """The effect behind a table label (``"implicit"`` -> implicit-deny, ``"approval"`` -> ask)."""
    return _EFFECT_OF_LABEL[label]


@dataclass(frozen=True)
class Step:
    """One step of a decision's trace: its name, outcome and the rule behind it."""

    name: str
    outcome: Literal["pass", "fail", "skip"]
    detail: str
    rule: Rule = NO_RULE

    def __str__(self) -> str:
        where = f" ({self.rule.where})" if self.rule.file else ""
        return f"{self.name:<12} {self.outcome:<4}  {self.detail}{where}"


@dataclass(frozen=True)
class Decision:
    """The answer to "may ``agent`` call ``tool`` here, and why?" (a Cedar-style response).

    ``effect`` and ``reason`` come from :func:`decide`; ``rule`` is the rule
    behind the deciding step (``rule.file`` / ``rule.line``), ``trace`` every
    step evaluated, ``warnings`` what was odd about the question itself (an
    unknown state or group, say).

    >>> # d = proj.explain("researcher", "write_file", state="analysis")
    >>> # d.allowed, d.effect, d.reason, d.rule.file, d.rule.line
    """

    agent: str
    tool: str
    effect: Effect
    reason: Reason
    message: str  # one line for people
    canonical: str | None = None
    rule: Rule = NO_RULE
    trace: tuple[Step, ...] = ()
    preset: str = ""
    groups: tuple[str, ...] = ()
    state: str = ""
    depth: int = 0
    warnings: tuple[str, ...] = ()
    #: "tool": may the agent hold this tool (explain)? "call": does this call run (check_call)?
    question: Literal["tool", "call"] = "tool"
    #: for a compound shell command: one decision per part, in order
    parts: tuple[Decision, ...] = ()

    @property
    def allowed(self) -> bool:
        """For a tool: in the agent's set (allow, ask, conditional). For a call: runs unasked."""
        if self.question == "call":
            return self.effect is Effect.ALLOW
        return self.effect.granted

    @property
    def verdict(self) -> Verdict:
        """The effect and deciding step, as one matrix cell shows them."""
        return Verdict(self.effect, self.reason)

    @property
    def label(self) -> str:
        """The table label of this decision (see :attr:`Verdict.label`)."""
        return self.verdict.label

    def __bool__(self) -> bool:
        return self.allowed

    def __str__(self) -> str:
        return f"{self.effect.upper()} {self.agent} -> {self.tool}: {self.message}"

    def report(self) -> str:
        """The decision and its full trace, as plain text."""
        head = (f"{self}\n  preset={self.preset} groups={groups_label(self.groups)} "
                f"state={self.state} depth={self.depth}")
        notes = "".join(f"\n  warning: {w}" for w in self.warnings)
        return head + notes + "".join(f"\n  {step}" for step in self.trace)

    def __repr__(self) -> str:
        return f"<Decision {self.effect} {self.agent} -> {self.tool} ({self.reason})>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from .render import decision_html

        return {"text/plain": self.report(), "text/html": decision_html(self)}
