"""The decision vocabulary: effects, the steps that decide them, and their precedence.

Where is allow / ask / deny decided? Here, and nowhere else: :func:`decide` for
"may this agent hold this tool?" (SPEC section 4), :func:`decide_call` and
:func:`combine_parts` for "does this call run unasked?" (the permission rules
of SPEC section 11). Resolution, explain and the matrix find out which steps of
SPEC section 4 a tool fails (each in its own way: one tool with details, a whole
pool, numpy arrays); :func:`decide` turns that into a :class:`Verdict` — the
effect and the step that decided it. The permission engine
(:mod:`toolkit.systems.base`) finds out which rules match one call and what
the call touches (:class:`CallFacts`); :func:`decide_call` turns that into a
:class:`CallVerdict`. Every table, widget, HTML view, CLI line and audit
record shows a ``Verdict`` or a :class:`Decision` (a verdict with its rule and
trace); none of them derives an effect on its own.

This module renders nothing; its HTML comes through :mod:`toolkit.core.display`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from .models import NO_RULE, Rule, groups_label

__all__ = [
    "LABELS",
    "STEPS",
    "STEP_NAMES",
    "VERDICTS",
    "CallFacts",
    "CallVerdict",
    "Decision",
    "Effect",
    "Hook",
    "NearMiss",
    "Reason",
    "Step",
    "Verdict",
    "combine_parts",
    "decide",
    "decide_call",
    "effect_of_label",
    "reason_words",
    "step_name",
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
    # -- the steps of a call's permission check (SPEC section 11, decide_call) --
    DENY_RULE = "deny-rule"  # a permissions.deny rule matched
    ASK_RULE = "ask-rule"  # a permissions.ask rule matched
    ALLOW_RULE = "allow-rule"  # a permissions.allow rule matched
    READ_ONLY = "read-only"  # a built-in read-only command (or read-only tool)
    WORKING_DIR = "working-dir"  # a read inside the working directories
    NO_PROMPT = "no-prompt"  # a tool that never asks (tools reference: "Permission required: No")
    MODE = "mode"  # no rule matched: the permission mode decided
    PROTECTED_PATH = "protected-path"  # a write to a protected path (.git, a runtime's own, ...)
    DANGEROUS_RM = "dangerous-rm"  # rm / rmdir of a critical path (/, ~, the working dir, ...)
    CLASSIFIER = "classifier"  # auto mode: a classifier decides, which cannot run offline
    UNPARSEABLE = "unparseable"  # the shell parser could not parse the command
    HOOK = "hook"  # a PreToolUse hook's answer (what-if: check_call(hook=...))
    AGENT_TOOLS = "agent-tools"  # a subagent's tools / disallowedTools front matter


#: The steps of SPEC section 4, in the order they are evaluated: the first that fails decides.
STEPS: tuple[Reason, ...] = (Reason.POOL, Reason.DENY, Reason.ALLOW, Reason.CEILING,
                             Reason.COORDINATION, Reason.GROUP, Reason.STATE, Reason.APPROVAL)


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
        if self.effect is Effect.CONDITIONAL:
            return "conditional"
        return self.reason.value


def decide(failed: Iterable[Reason] = (), *, asks: bool = False,
           conditional: bool = False) -> Verdict:
    """THE precedence: which effect a tool has, given the steps it fails.

    The first failing step in :data:`STEPS` order decides: a failed ``deny``
    step is an explicit deny, any other failed step an implicit deny. When no
    step fails the tool is allowed — as ``ask`` when an approval rule applies,
    and as ``conditional`` when argument rules (``Shell(git push *)``) decide
    each call (:func:`decide_call` then answers per call).

    >>> decide({Reason.GROUP, Reason.DENY})
    Verdict(effect=<Effect.DENY: 'explicit-deny'>, reason=<Reason.DENY: 'deny'>)
    >>> decide(asks=True).effect
    <Effect.ASK: 'ask'>
    >>> decide(conditional=True).label
    'conditional'
    """
    first = min(failed, key=STEPS.index, default=None)
    if first is None:
        reason = Reason.APPROVAL if asks else Reason.ALLOW
        if conditional:
            return Verdict(Effect.CONDITIONAL, reason)
        return Verdict(Effect.ASK if asks else Effect.ALLOW, reason)
    return Verdict(Effect.DENY if first is Reason.DENY else Effect.IMPLICIT_DENY, first)


#: Every verdict the name-level steps can give, allowed ones first (the matrix's int8 codes).
VERDICTS: tuple[Verdict, ...] = (decide(), decide(asks=True),
                                 *(decide({s}) for s in STEPS if s is not Reason.APPROVAL))
#: The label of each verdict, in :data:`VERDICTS` order.
LABELS: tuple[str, ...] = tuple(v.label for v in VERDICTS)
_EFFECT_OF_LABEL = {v.label: v.effect for v in VERDICTS} | {"conditional": Effect.CONDITIONAL}


def effect_of_label(label: str) -> Effect:
    """The effect behind a table label (``"implicit"`` -> implicit-deny, ``"approval"`` -> ask)."""
    return _EFFECT_OF_LABEL[label]


# -- "does this call run unasked?" (SPEC section 11) -------------------------------------------

Hook = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class CallFacts:
    """What the permission engine found out about one call (or one part of a compound command).

    The rules that match (the first deny, ask and allow rule, in that order of
    layers) and what the call touches; :func:`decide_call` decides from these
    alone, so every runtime's rule language can feed the same precedence.
    """

    deny: Rule | None = None
    ask: Rule | None = None
    allow: Rule | None = None
    #: runs unasked in every mode when no rule matches: READ_ONLY, WORKING_DIR or NO_PROMPT
    safe: Reason | None = None
    edit: bool = False  # the call writes files (acceptEdits approves it, plan blocks it)
    inside: bool = True  # every path it touches is inside the working directories
    protected: str | None = None  # the protected path it writes
    critical: str | None = None  # the critical path an rm / rmdir removes
    unparseable: str | None = None  # why the command could not be parsed
    hook: Hook | None = None  # what a PreToolUse hook answers (None: no hook)
    what: str = "this call"  # how messages name the call


class CallVerdict(NamedTuple):
    """The effect of one call, the step that decided, the deciding rule, and why."""

    effect: Effect
    reason: Reason
    rule: Rule | None
    message: str


def decide_call(facts: CallFacts, mode: str) -> CallVerdict:
    """THE permission precedence for one call: deny, then ask, then allow, then the mode.

    Follows Claude Code's documented order (code.claude.com/docs/en/permissions,
    /permission-modes): a deny rule always wins; an ask rule prompts in every mode
    (``dontAsk`` denies instead); an unparseable command, a critical ``rm`` and a
    protected-path write are never approved by an allow rule; ``bypassPermissions``
    runs the rest; an allow rule runs a call; built-in read-only commands and reads
    inside the working directories run in every mode; otherwise the mode decides
    (``acceptEdits`` runs edits inside the working directories, ``plan`` blocks
    edits, ``auto`` asks a classifier, ``dontAsk`` denies, ``default`` asks).

    >>> decide_call(CallFacts(), "default").effect
    <Effect.ASK: 'ask'>
    >>> decide_call(CallFacts(), "dontAsk").effect
    <Effect.IMPLICIT_DENY: 'implicit-deny'>
    """
    for step in (_restricting, _never_approved, _approving):
        verdict = step(facts, mode)
        if verdict is not None:
            return verdict
    return _mode_fallback(facts, mode)


def _asks(mode: str, reason: Reason, rule: Rule | None, why: str) -> CallVerdict:
    """An ask — which ``dontAsk`` mode turns into a deny."""
    if mode == "dontAsk":
        return CallVerdict(Effect.IMPLICIT_DENY, Reason.MODE, rule,
                           f"{why}; dontAsk mode denies whatever would ask")
    return CallVerdict(Effect.ASK, reason, rule, why)


def _restricting(facts: CallFacts, mode: str) -> CallVerdict | None:
    """Deny rules, a hook's deny, ask rules, an unparseable command, a hook's ask."""
    what = facts.what
    if facts.deny is not None:
        return CallVerdict(Effect.DENY, Reason.DENY_RULE, facts.deny,
                           f"deny rule {facts.deny.text} matches {what}")
    if facts.hook == "deny":
        return CallVerdict(Effect.DENY, Reason.HOOK, None, f"the PreToolUse hook denies {what}")
    if facts.ask is not None:
        return _asks(mode, Reason.ASK_RULE, facts.ask, f"ask rule {facts.ask.text} matches {what}")
    if facts.unparseable is not None:
        return _asks(mode, Reason.UNPARSEABLE, None, f"the command cannot be parsed "
                                                     f"({facts.unparseable}), so it is never "
                                                     "approved")
    if facts.hook == "ask":
        return _asks(mode, Reason.HOOK, None, f"the PreToolUse hook asks about {what}")
    return None


def _never_approved(facts: CallFacts, mode: str) -> CallVerdict | None:
    """Critical-path removals and protected-path writes: no allow rule approves them."""
    what = facts.what
    if facts.critical is not None:
        why = f"{what} removes the critical path {facts.critical}, which no allow rule approves"
        if mode == "auto":
            return CallVerdict(Effect.ASK, Reason.CLASSIFIER, facts.allow,
                               f"{why}; auto mode sends it to the classifier")
        return _asks(mode, Reason.DANGEROUS_RM, facts.allow, why)
    if facts.protected is not None:
        why = f"{what} writes the protected path {facts.protected}"
        if mode == "bypassPermissions":
            return CallVerdict(Effect.ALLOW, Reason.MODE, None,
                               f"{why}; bypassPermissions mode allows it")
        if mode == "auto":
            return CallVerdict(Effect.ASK, Reason.CLASSIFIER, None,
                               f"{why}; auto mode sends it to the classifier")
        return _asks(mode, Reason.PROTECTED_PATH, facts.allow,
                     f"{why}, which no allow rule approves")
    return None


def _approving(facts: CallFacts, mode: str) -> CallVerdict | None:
    """A hook's allow, bypassPermissions, an allow rule, a call that is safe in every mode."""
    what = facts.what
    if facts.hook == "allow":
        return CallVerdict(Effect.ALLOW, Reason.HOOK, None, f"the PreToolUse hook allows {what}")
    if mode == "bypassPermissions":
        return CallVerdict(Effect.ALLOW, Reason.MODE, None,
                           f"bypassPermissions mode runs {what} (no deny or ask rule matches)")
    if facts.allow is not None:
        return CallVerdict(Effect.ALLOW, Reason.ALLOW_RULE, facts.allow,
                           f"allow rule {facts.allow.text} matches {what}")
    if facts.safe is not None:
        return CallVerdict(Effect.ALLOW, facts.safe, None,
                           f"{what} runs unasked in every mode ({facts.safe.value})")
    return None


def _mode_fallback(facts: CallFacts, mode: str) -> CallVerdict:
    """No rule matched and nothing makes the call safe: what the mode does with it."""
    what = facts.what
    if facts.edit and mode == "plan":
        return CallVerdict(Effect.IMPLICIT_DENY, Reason.MODE, None,
                           f"no rule matches {what}; plan mode blocks edits")
    if facts.edit and facts.inside and mode in ("acceptEdits", "auto"):
        return CallVerdict(Effect.ALLOW, Reason.MODE, None,
                           f"no rule matches {what}; {mode} mode runs edits inside the "
                           "working directories")
    if mode == "auto":
        return CallVerdict(Effect.ASK, Reason.CLASSIFIER, None,
                           f"no rule matches {what}; in auto mode a classifier decides, which "
                           "cannot be simulated offline")
    if mode == "dontAsk":
        return CallVerdict(Effect.IMPLICIT_DENY, Reason.MODE, None,
                           f"no rule matches {what}; dontAsk mode denies whatever would ask")
    where = "" if facts.inside else " (outside the working directories)"
    return CallVerdict(Effect.ASK, Reason.MODE, None,
                       f"no rule matches {what}{where}; {mode} mode asks")


#: How strongly an effect blocks a call: a compound command takes its parts' strongest.
_BLOCKING = (Effect.DENY, Effect.IMPLICIT_DENY, Effect.ASK, Effect.CONDITIONAL, Effect.ALLOW)


def combine_parts(effects: Sequence[Effect]) -> int:
    """Which part decides a compound command: the index of the first part with the strongest
    effect. Any deny denies (an explicit one first), else any ask asks, else it is allowed.

    >>> combine_parts([Effect.ALLOW, Effect.ASK, Effect.DENY, Effect.ASK])
    2
    """
    if not effects:
        raise ValueError("a command has at least one part")
    return min(range(len(effects)), key=lambda i: (_BLOCKING.index(effects[i]), i))


#: What each step of a trace checks, in words: the one name every view gives a step
#: (``Step.name`` / ``Decision.reason``). A name not listed here shows as it is.
STEP_NAMES = MappingProxyType({
    "pool": "tool pool", "deny": "deny list", "allow": "allow list",
    "ceiling": "parent's tools", "coordination": "coordination tools", "group": "groups",
    "state": "workflow state", "approval": "approval", "ask": "ask list",
    "deny-rule": "deny list", "ask-rule": "ask list", "allow-rule": "allow list",
    "read-only": "read-only command", "working-dir": "working directories",
    "no-prompt": "tool that never asks", "mode": "permission mode",
    "protected-path": "protected path", "dangerous-rm": "critical path removal",
    "classifier": "auto-mode classifier", "unparseable": "shell parser",
    "hook": "PreToolUse hook", "agent-tools": "subagent's tools", "split": "compound command",
    "decision": "decision",
})

#: What the deciding step means for the tool, in words a person reads right (a tool that no
#: allow rule reaches reads "not in the allow list", never "allow").
_DECIDED = MappingProxyType({
    (Effect.ALLOW, Reason.ALLOW): "in the allow list",
    (Effect.ASK, Reason.APPROVAL): "in the allow list, needs approval",
    (Effect.DENY, Reason.DENY): "in the deny list",
    (Effect.IMPLICIT_DENY, Reason.POOL): "not in the tool pool",
    (Effect.IMPLICIT_DENY, Reason.ALLOW): "not in the allow list",
    (Effect.IMPLICIT_DENY, Reason.CEILING): "not among the parent's tools",
    (Effect.IMPLICIT_DENY, Reason.COORDINATION): "coordination tool removed",
    (Effect.IMPLICIT_DENY, Reason.GROUP): "not in the requested groups",
    (Effect.IMPLICIT_DENY, Reason.STATE): "not available in this state",
    (Effect.CONDITIONAL, Reason.ALLOW): "in the allow list for some arguments",
    (Effect.CONDITIONAL, Reason.APPROVAL): "in the allow list for some arguments",
})
#: A call's deciding step (SPEC section 11) in words, whatever the effect.
_CALL_DECIDED = MappingProxyType({
    Reason.DENY_RULE: "a deny rule matches", Reason.ASK_RULE: "an ask rule matches",
    Reason.ALLOW_RULE: "an allow rule matches", Reason.READ_ONLY: "a read-only command",
    Reason.WORKING_DIR: "a read inside the working directories",
    Reason.NO_PROMPT: "a tool that never asks", Reason.MODE: "the permission mode decides",
    Reason.PROTECTED_PATH: "writes a protected path",
    Reason.DANGEROUS_RM: "removes a critical path",
    Reason.CLASSIFIER: "auto mode's classifier decides",
    Reason.UNPARSEABLE: "the command cannot be parsed",
    Reason.HOOK: "the PreToolUse hook's answer", Reason.AGENT_TOOLS: "the subagent's tools",
})


def step_name(name: str) -> str:
    """A trace step's name in words (:data:`STEP_NAMES`): ``"allow"`` -> ``"allow list"``."""
    return STEP_NAMES.get(name, name)


def reason_words(effect: Effect | str, reason: Reason | str) -> str:
    """Why a tool or call has its effect, in words: the deciding step as a person reads it.

    The table label ``proj.reasons()`` gives for the same verdict (``Verdict.label``)
    is the short form of the same thing (``implicit`` for ``not in the allow list``).

    >>> reason_words(Effect.IMPLICIT_DENY, Reason.ALLOW)
    'not in the allow list'
    >>> reason_words(Effect.ALLOW, Reason.ALLOW)
    'in the allow list'
    """
    try:
        effect, reason = Effect(effect), Reason(reason)
    except ValueError:  # not a verdict (an audit record's free text): shown as it is
        return str(reason)
    return _DECIDED.get((effect, reason)) or _CALL_DECIDED.get(reason) or step_name(reason.value)



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
class NearMiss:
    """An allow rule that came close to a call it did not allow, and why it did not.

    ``kind``: ``no-match`` (the rule does not match: ``why`` names the differing token, the
    word boundary or the anchor), ``shadowed`` (it matches, but a deny or ask rule is met
    first), ``never-approves`` (it matches, but the call is one no allow rule approves),
    ``part`` (it matches some parts of a compound command, not all), ``skipped`` (the
    runtime skips the rule). ``part``: the 1-based part of a compound command, else None.
    """

    rule: Rule
    why: str
    kind: str = "no-match"
    part: int | None = None

    def __str__(self) -> str:
        where = f" ({self.rule.where})" if self.rule.file else ""
        return f"{self.rule.text}{where}: {self.why}"


@dataclass(frozen=True)
class Decision:
    """The answer to "may ``agent`` call ``tool`` here, and why?" (a Cedar-style response).

    ``effect`` and ``reason`` come from :func:`decide`; ``rule`` is the rule
    behind the deciding step (``rule.file`` / ``rule.line``), ``trace`` every
    step evaluated, ``warnings`` what was odd about the question itself (an
    unknown state or group, say).

    >>> import toolkit as tk
    >>> d = tk.load("toolkit/examples/trustgraph").explain(
    ...     "react-agent", "graph-update", groups=["write"], state="undefined")
    >>> d.allowed, d.effect, d.reason, d.rule.file, d.rule.line
    (False, <Effect.IMPLICIT_DENY: 'implicit-deny'>, <Reason.STATE: 'state'>, 'tools.yaml', 16)
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
    #: for a call: the permission mode it was checked in, and the working directory
    mode: str = ""
    cwd: str = ""
    #: for a call: the runtime whose permission engine decided it (``"claude-code"``)
    runtime: str = ""
    #: for a call: what the runtime's own tooling shows for it, as plain data an engine
    #: may fill (say the matched rules its policy checker prints); ``{}`` when none
    details: Mapping[str, Any] = field(default_factory=dict, hash=False)
    #: for a call that does not run unasked: works out its near misses when first asked
    #: (an engine that can, fills it; see :attr:`near_misses`)
    near: Callable[[], Sequence[NearMiss]] | None = field(default=None, compare=False,
                                                          repr=False)

    @cached_property
    def near_misses(self) -> tuple[NearMiss, ...]:
        """The allow rules that came closest to allowing this call, and why each did not
        (``()`` for an allowed call, or when the engine cannot say)."""
        return tuple(self.near()) if self.near is not None else ()

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
        if self.question == "call":
            runtime = f"runtime={self.runtime} " if self.runtime else ""
            head = f"{self}\n  {runtime}mode={self.mode} cwd={self.cwd}"
        else:
            head = (f"{self}\n  preset={self.preset} groups={groups_label(self.groups)} "
                    f"state={self.state} depth={self.depth}")
        notes = "".join(f"\n  warning: {w}" for w in self.warnings)
        parts = "".join(f"\n  part {i}: {p.effect.upper()} {p.tool} ({p.reason}"
                        + (f", {p.rule.text} at {p.rule.where}" if p.rule.file or p.rule.spec
                           or p.rule.pattern else "") + f"): {p.message}"
                        for i, p in enumerate(self.parts, 1))
        near = "".join(f"\n  near miss{'' if m.part is None else f' (part {m.part})'}: {m}"
                       for m in (self.near_misses if self.question == "call" else ()))
        return head + notes + parts + near + "".join(f"\n  {step}" for step in self.trace)

    def __repr__(self) -> str:
        return f"<Decision {self.effect} {self.agent} -> {self.tool} ({self.reason})>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from .display import html

        return {"text/plain": self.report(), "text/html": html(self)}
