"""Explain: why one agent may or may not call one tool, step by step.

In the spirit of the AWS IAM policy simulator: every step of SPEC section 4
is evaluated and recorded in ``Decision.trace``; the first step that fails
decides, and ``Decision.rule`` points at the rule (file and line) behind it.
"""

from __future__ import annotations

from .decision import Decision, Reason, Step, decide
from .models import DEFAULT_STATE, NO_RULE, Rule, Tool, groups_label
from .names import is_qualified, server_prefixes
from .resolve import Grant, group_ok, state_ok

__all__ = ["Decision", "Step", "explain"]


def explain(grant: Grant, name: str, groups: tuple[str, ...], state: str | None,
            warnings: tuple[str, ...] = ()) -> Decision:
    """Evaluate every step for one tool; :func:`~toolkit.core.decision.decide` decides."""
    state = state or DEFAULT_STATE
    canonical = grant.canonical(name)
    tool = grant.pool.get(canonical) if canonical is not None else None
    steps = {Reason.POOL: _pool(grant, name, canonical, tool)}
    if tool is not None and canonical is not None:
        steps |= {
            Reason.DENY: _deny(grant, canonical),
            Reason.ALLOW: _allow(grant, canonical),
            Reason.CEILING: _ceiling(grant, canonical),
            Reason.COORDINATION: _coordination(grant, canonical),
            Reason.GROUP: _group(tool, groups),
            Reason.STATE: _state(tool, state),
            Reason.APPROVAL: _approval(grant, canonical),
        }
    asks = canonical is not None and canonical in grant.ask
    verdict = decide((r for r, s in steps.items() if s.outcome == "fail"), asks=asks)
    # the step that decided: the failing one, or for an allowed tool the allow (or approval) step
    deciding = steps[verdict.reason]
    return Decision(agent=grant.agent.name, tool=name, canonical=canonical,
                    effect=verdict.effect, reason=verdict.reason, message=deciding.detail,
                    rule=deciding.rule, trace=tuple(steps.values()), preset=grant.preset.name,
                    groups=groups, state=state, depth=grant.depth, warnings=warnings)


def _pool(grant: Grant, name: str, canonical: str | None, tool: Tool | None) -> Step:
    if tool is None:
        index = grant.pool.index
        if name in index.ambiguous:
            return Step("pool", "fail", f"{name!r} is ambiguous: "
                                        f"{', '.join(index.ambiguous[name])}")
        if name in grant.unavailable:
            return Step("pool", "fail", f"{name!r} is marked unavailable: it is in no server "
                                        "or registry of the project")
        return Step("pool", "fail", _not_in_pool(grant, name))
    via = f" (as {canonical})" if canonical != name else ""
    return Step("pool", "pass", f"{tool.name} is in the pool, source {tool.source}{via}",
                Rule(kind="none", pattern=tool.name, file=tool.file, line=tool.line))


def _not_in_pool(grant: Grant, name: str) -> str:
    """Why a name is not in the pool: a server of the project is not connected, or no such tool."""
    pending = sorted(grant.pool.pending_servers)
    server = next((s for s in pending if name.startswith(server_prefixes(s))), None)
    if server is not None:
        return (f"server {server!r} not connected: {name!r} is one of its tools, which join "
                "the pool once it is connected (proj.connect())")
    if pending and not is_qualified(name):
        listed = ", ".join(repr(s) for s in pending)
        return (f"tool not found: {name!r} is not in the pool snapshot; server(s) {listed} "
                "not connected, so it may be one of their tools (proj.connect())")
    return f"tool not found: {name!r} is not in the pool snapshot"


def _deny(grant: Grant, tool: str) -> Step:
    rule = grant.denied.get(tool)
    if rule is None:
        return Step("deny", "pass", "no deny rule matches")
    note = grant.notes.get(("deny", tool))
    if note is not None:  # a rule the agent inherits from its parent's delegation block
        return Step("deny", "fail", note, rule)
    owner = "project" if rule.agent is None else f"agent {rule.agent!r}"
    return Step("deny", "fail", f"denied by {owner}: {rule.pattern!r}", rule)


def _allow(grant: Grant, tool: str) -> Step:
    rule = grant.allowed.get(tool)
    if rule is None:
        if grant.in_range is not None and tool not in grant.in_range:
            return Step("allow", "fail", f"{tool} is not in the agent's use list (implicit deny)")
        if grant.agent.allow is None or not grant.agent.allow:
            return Step("allow", "fail", grant.allow_note + " (implicit deny)")
        return Step("allow", "fail", "not in the allow list: no allow rule matches it "
                                     "(implicit deny)")
    if rule is NO_RULE:
        return Step("allow", "pass", grant.allow_note)
    kind = "\"*\"" if rule.pattern == "*" else "glob" if rule.is_glob else "exact name"
    alias = ""
    if not rule.is_glob and rule.pattern != tool:
        alias = f" (reaches {tool})"
    return Step("allow", "pass", f"allowed by {kind} {rule.pattern!r}{alias}", rule)


def _ceiling(grant: Grant, tool: str) -> Step:
    if grant.lineage is None:
        return Step("ceiling", "skip", "root agent: no parent ceiling")
    if tool in grant.outside_ceiling:
        rule = grant.outside_ceiling[tool] or NO_RULE
        note = grant.notes.get(("ceiling", tool))
        if note is not None:
            return Step("ceiling", "fail", note, rule)
        return Step("ceiling", "fail", f"parent {grant.lineage.id!r} does not hold {tool} "
                                       f"(groups {groups_label(grant.lineage.groups)}, "
                                       f"state {grant.lineage.state})", rule)
    return Step("ceiling", "pass", f"parent {grant.lineage.id!r} holds {tool}")


def _coordination(grant: Grant, tool: str) -> Step:
    if tool in grant.stripped:
        return Step("coordination", "fail", grant.stripped[tool], grant.exact_allowed.get(
            tool, NO_RULE))
    if grant.depth == 0:
        return Step("coordination", "skip", "root agent: coordination tools are not stripped")
    return Step("coordination", "pass", "not a stripped coordination tool")


def _group(tool: Tool, groups: tuple[str, ...]) -> Step:
    rule = Rule(kind="group", pattern=",".join(tool.groups), file=tool.file,
                line=tool.group_line or tool.line)
    if group_ok(tool, groups):
        how = "\"*\" requested" if "*" in groups else (
            f"shares {sorted(set(tool.groups) & set(groups))}")
        return Step("group", "pass", f"tool groups {list(tool.groups)} {how}", rule)
    return Step("group", "fail", f"tool groups {list(tool.groups)} do not meet requested "
                                 f"{list(groups)}", rule)


def _state(tool: Tool, state: str) -> Step:
    states = tool.available_in_states
    rule = Rule(kind="state", pattern=",".join(states or ()), file=tool.file,
                line=tool.states_line or tool.line)
    if states is None:
        return Step("state", "pass", "available in every state (no available_in_states)")
    if state_ok(tool, state):
        return Step("state", "pass", f"state {state!r} is in {list(states)}", rule)
    return Step("state", "fail", f"state {state!r} is not in available_in_states "
                                 f"{list(states)}", rule)


def _approval(grant: Grant, tool: str) -> Step:
    rule = grant.ask.get(tool)
    if rule is None:
        return Step("approval", "pass", "no approval needed")
    if rule.kind == "auto-approve":
        return Step("approval", "pass", f"needs approval: {tool} is not in autoApprove", rule)
    return Step("approval", "pass", f"needs approval: ask rule {rule.pattern!r}", rule)
