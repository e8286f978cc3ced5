"""Resolution: which tools an agent may call, step by step as SPEC section 4 lists them.

A :class:`Grant` is what an agent holds before the request is looked at
(steps 1-6 and the approval rules of step 9): it depends on the agent, the
preset, the pool snapshot and, for a child, its lineage. A :class:`Resolution`
applies a request's groups and state to a grant (steps 7-8). ``explain``
replays the same steps for one tool, reading the same grant, so the matrix,
``resolve`` and ``explain`` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import Problem
from .decision import Effect, Reason, Verdict, decide
from .models import DEFAULT_STATE, NO_RULE, AgentDefinition, Delegation, Rule, Tool, groups_label
from .names import has_syntax, is_qualified, name_rules, server_prefixes
from .pool import ToolPool
from .presets import Preset

__all__ = [
    "Grant",
    "Lineage",
    "Resolution",
    "compile_grant",
    "grant_failures",
    "group_ok",
    "request_failures",
    "resolve_request",
    "state_ok",
]



@dataclass(frozen=True)
class Lineage:
    """What a child inherits from the session that spawns it."""

    id: str
    depth: int  # the parent's depth
    ancestors: tuple[AgentDefinition, ...]  # root first, the parent last
    ceiling: frozenset[str]  # the parent's resolved set, after its group and state filters
    groups: tuple[str, ...]
    state: str
    max_depth: int | None


@dataclass(frozen=True)
class ProjectRules:
    """Project-wide rules from the manifest that every grant applies."""

    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    aliases: tuple[Rule, ...] = ()


@dataclass
class Grant:
    """An agent's tools before the request's groups and state are applied."""

    agent: AgentDefinition
    preset: Preset
    pool: ToolPool
    depth: int
    max_depth: int | None
    lineage: Lineage | None
    aliases: dict[str, str] = field(default_factory=dict)
    denied: dict[str, Rule] = field(default_factory=dict)
    self_denied: frozenset[str] = frozenset()  # tools the agent's own deny rules reach
    in_range: frozenset[str] | None = None  # work-agent ``use``; None = the whole pool
    allowed: dict[str, Rule] = field(default_factory=dict)
    allow_note: str = ""
    exact_allowed: dict[str, Rule] = field(default_factory=dict)
    outside_ceiling: dict[str, Rule | None] = field(default_factory=dict)
    stripped: dict[str, str] = field(default_factory=dict)
    ask: dict[str, Rule] = field(default_factory=dict)
    unavailable: list[str] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    spawn_errors: list[Problem] = field(default_factory=list)
    glob_hits: dict[Rule, bool] = field(default_factory=dict)  # reported globs: matched any?
    #: (step, tool) -> why a rule that is not the agent's own fails that step for the tool
    #: (a work-agent parent's delegation block)
    notes: dict[tuple[str, str], str] = field(default_factory=dict)
    added: Grant | None = None  # set by incremental.merge_grant: the steps over the added tools
    added_only: bool = False  # compiled over added tools only (see compile_grant)
    exact_missing: bool = False  # some exact name a rule writes is not (uniquely) in the pool

    @property
    def tools(self) -> frozenset[str]:
        """Tools that pass steps 1-6 (pool, deny, allow, ceiling, coordination)."""
        out = set(self.allowed) - set(self.denied) - set(self.stripped)
        out -= set(self.outside_ceiling)
        return frozenset(out)

    def canonical(self, name: str) -> str | None:
        """The canonical tool ``name`` reaches for this agent (aliases first), or None."""
        seen = 0
        while name in self.aliases and seen < 64:
            name = self.aliases[name]
            seen += 1
        found = self.pool.index.lookup(name)
        if found is None and has_syntax(self.agent.format):
            # a runtime's own spellings of the tools (its rule syntax, core.names)
            found = name_rules(str(self.agent.format), self.pool).lookup(name)
        return found


def group_ok(tool: Tool, groups: tuple[str, ...]) -> bool:
    """Step 7: the tool's groups meet the request's, or ``"*"`` was requested."""
    return "*" in groups or any(g in groups for g in tool.groups)


def state_ok(tool: Tool, state: str) -> bool:
    """Step 8: the state is one the tool is available in (or it lists ``"*"`` or nothing)."""
    states = tool.available_in_states
    return states is None or state in states or "*" in states


def _where(agent: AgentDefinition) -> tuple[str | None, int | None]:
    return agent.file, agent.line


def compile_grant(agent: AgentDefinition, pool: ToolPool, preset: Preset,
                  project: ProjectRules, lineage: Lineage | None = None,
                  max_depth: int | None = None, *, added_only: bool = False) -> Grant:
    """Steps 1-6 and 9 for ``agent``: what it holds in any request.

    ``added_only``: ``pool`` holds just the tools added to a pool in which
    every exact name of the agent was found, so exact rules cannot reach them
    and only globs are matched (what :func:`~toolkit.core.incremental.added_grant` needs).
    """
    depth = 0 if lineage is None else lineage.depth + 1
    limit = max_depth if lineage is None else lineage.max_depth
    grant = Grant(agent=agent, preset=preset, pool=pool, depth=depth, max_depth=limit,
                  lineage=lineage, added_only=added_only)
    if not added_only:  # aliases name tools exactly: globs alone never need them
        _collect_aliases(grant, project)
    _step_deny(grant, project)
    _step_range(grant)
    _step_allow(grant)
    if added_only:  # a root's delta: no ceiling, depth or coordination step applies
        _step_approval(grant, project)
        return grant
    _step_ceiling(grant)
    _step_spawn_list(grant)
    _step_depth_limit(grant)
    _step_coordination(grant)
    _step_approval(grant, project)
    _step_delegation(grant)
    grant.warnings.extend(glob_warnings(grant))
    return grant


def glob_warnings(grant: Grant) -> list[Problem]:
    """A warning for each reported glob that matches no tool (none while servers are pending)."""
    if grant.pool.pending_servers:
        return []
    return [Problem(rule.file, rule.line, f"{rule.kind} pattern {rule.pattern!r} matches no tool",
                    "warning") for rule, hit in grant.glob_hits.items() if not hit]


# -- step 2: names ------------------------------------------------------------------------------

def follow_aliases(rules: Iterable[Rule]) -> tuple[dict[str, str], list[Problem]]:
    """Each alias followed to its final target; a cycle is a problem at its first rule."""
    table = {str(r.pattern): r for r in rules}
    resolved: dict[str, str] = {}
    problems: list[Problem] = []
    for alias, rule in table.items():
        chain = [alias]
        target = str(rule.target)
        while target in table:
            if target in chain:
                cycle = " -> ".join([*chain, target])
                problems.append(Problem(rule.file, rule.line,
                                        f"alias cycle {cycle}; point an alias at a tool"))
                break
            chain.append(target)
            target = str(table[target].target)
        else:
            resolved[alias] = target
    return resolved, problems


def _collect_aliases(grant: Grant, project: ProjectRules) -> None:
    """Aliases of the project and the agent (the agent's win), followed to their targets."""
    grant.aliases, problems = follow_aliases([*project.aliases, *grant.agent.aliases])
    grant.errors.extend(problems)


def _name_status(grant: Grant, name: str) -> tuple[str | None, str]:
    """(canonical, status) with status found | ambiguous | pending | unknown."""
    target = name
    seen = 0
    while target in grant.aliases and seen < 64:
        target = grant.aliases[target]
        seen += 1
    index = grant.pool.index
    found = index.lookup(target)
    if found is not None:
        return found, "found"
    if target in index.ambiguous:
        return None, "ambiguous"
    pending = grant.pool.pending_servers
    if pending:
        for server in pending:
            if target.startswith(server_prefixes(server)):
                return None, "pending"
        if not is_qualified(target):
            return None, "pending"  # may be a bare name of a server not discovered yet
    return None, "unknown"


def _ambiguous(grant: Grant, rule: Rule, name: str) -> None:
    target = grant.aliases.get(name, name)
    candidates = ", ".join(grant.pool.index.ambiguous.get(target, []))
    grant.errors.append(Problem(rule.file, rule.line,
                                f"{rule.kind} rule names {name!r}, which is ambiguous: it is a "
                                f"tool of several servers ({candidates}); write one of those "
                                "names instead"))


def _match(grant: Grant, rule: Rule, *, report_unknown: bool) -> frozenset[str]:
    """Canonical tools a rule reaches (globs over every spelling; exact names via aliases)."""
    pattern = str(rule.pattern)
    if grant.added_only and not rule.is_glob:
        return frozenset()
    if rule.syntax is not None and pattern not in grant.aliases:
        return _match_syntax(grant, rule, report_unknown=report_unknown)
    if rule.is_glob:
        hits = grant.pool.index.glob(pattern)
        if report_unknown:
            grant.glob_hits[rule] = grant.glob_hits.get(rule, False) or bool(hits)
        return hits
    canonical, status = _name_status(grant, pattern)
    if status == "found" and canonical is not None:
        return frozenset((canonical,))
    grant.exact_missing = True
    if status == "ambiguous":
        _ambiguous(grant, rule, pattern)
    return frozenset()


def _match_syntax(grant: Grant, rule: Rule, *, report_unknown: bool) -> frozenset[str]:
    """A rule of a runtime's own list, matched as that runtime matches it (``core.names``)."""
    hits = name_rules(str(rule.syntax), grant.pool).match(rule)
    if rule.is_glob:
        if report_unknown:
            grant.glob_hits[rule] = grant.glob_hits.get(rule, False) or bool(hits)
    elif not hits:
        grant.exact_missing = True
    return hits


# -- step 3: explicit deny ----------------------------------------------------------------------

def _step_deny(grant: Grant, project: ProjectRules) -> None:
    """Project denies, every ancestor's denies and the agent's own; deny always wins."""
    ancestors = grant.lineage.ancestors if grant.lineage else ()
    rules = [*project.deny, *(r for a in ancestors for r in a.deny), *grant.agent.deny]
    own = len(rules) - len(grant.agent.deny)
    self_denied: set[str] = set()
    for i, rule in enumerate(rules):
        hits = _match(grant, rule, report_unknown=True)
        if i >= own:
            self_denied |= hits
        for tool in hits:
            grant.denied.setdefault(tool, rule)
    grant.self_denied = frozenset(self_denied)


# -- step 4: allow ------------------------------------------------------------------------------

def _step_range(grant: Grant) -> None:
    """work-agent's ``use`` list: the allow rules range over it only."""
    agent = grant.agent
    if agent.use is None and not agent.use_servers:
        return
    tools: set[str] = set()
    for rule in agent.use or ():
        hits = _match(grant, rule, report_unknown=False)
        if not hits and not rule.is_glob:
            _unknown(grant, rule)
        tools |= hits
    for server in agent.use_servers:
        tools |= {t.name for t in grant.pool.values() if t.server == server}
        if server in grant.pool and grant.pool[server].server is None:
            tools.add(server)  # a catalog builtin listed in mcpServers (work-agent loads both)
    grant.in_range = frozenset(tools)


def _unknown(grant: Grant, rule: Rule) -> None:
    """An exact name that no pool tool has, handled as the preset says."""
    if grant.added_only:
        return
    name = str(rule.pattern)
    _canonical, status = _name_status(grant, name)
    preset, agent = grant.preset, grant.agent
    if status == "pending":
        servers = ", ".join(sorted(grant.pool.pending_servers))
        grant.warnings.append(Problem(rule.file, rule.line,
                                      f"agent {agent.name!r} names tool {name!r}, which is not in "
                                      f"the pool yet; it is checked once server(s) {servers} are "
                                      "connected", "warning"))
        return
    if status != "unknown":
        return
    mode = preset.unknown_name
    if mode == "error-list":
        available = ", ".join(sorted(grant.pool)) or "(none)"
        grant.errors.append(Problem(rule.file, rule.line,
                                    f"Tool {name!r} not found in registry for agent "
                                    f"{agent.name!r}. Available tools: {available}"))
    elif mode == "error":
        grant.errors.append(Problem(rule.file, rule.line,
                                    f"agent {agent.name!r} names tool {name!r}, which is not in "
                                    "the tool pool; declare it in a registry or fix the name"))
    else:
        action = {"warn-skip": "skipped", "warn-unavailable": "marked unavailable",
                  "warn": "ignored"}[mode]
        grant.warnings.append(Problem(rule.file, rule.line,
                                      f"agent {agent.name!r} names tool {name!r}, which is not "
                                      f"in the tool pool; {action}", "warning"))
        if mode == "warn-unavailable":
            grant.unavailable.append(name)


def _step_allow(grant: Grant) -> None:
    """The agent's allow rules (exact, glob, ``"*"``), or the preset's default for none."""
    scope = grant.in_range if grant.in_range is not None else frozenset(grant.pool)
    if grant.agent.allow:
        _allow_by_rules(grant, scope)
    else:
        _allow_by_preset(grant, scope)


def _allow_by_preset(grant: Grant, scope: frozenset[str]) -> None:
    """An omitted or empty allow list: what the preset's table says (SPEC section 4)."""
    agent, preset = grant.agent, grant.preset
    written = "omitted" if agent.allow is None else "empty"
    if agent.allow is None:
        mode = preset.omitted_root if grant.depth == 0 else preset.omitted_child
    else:
        mode = preset.empty_list
    if mode == "error":
        grant.errors.append(Problem(agent.file, agent.allow_line or agent.line,
                                    f"agent {agent.name!r} has an empty tools list, which "
                                    f"the {preset.name} preset rejects; omit the field to "
                                    "give it every tool, or list its tools"))
        return
    if mode == "inherit":
        mode = "all"  # the parent ceiling (step 5) does the narrowing; all at a root
    if mode in ("all", "all-of-use"):
        what = "its use list" if grant.in_range is not None else "the pool"
        grant.allow_note = (f"allow list {written}: the {preset.name} preset gives every "
                            f"tool of {what}" + (" (inherited from the parent)"
                                                 if grant.depth else ""))
        grant.allowed = dict.fromkeys(scope, NO_RULE)
    else:
        grant.allow_note = f"allow list {written}: the {preset.name} preset gives no tools"


def _allow_by_rules(grant: Grant, scope: frozenset[str]) -> None:
    """The agent's own allow rules, exact names before globs before ``"*"``."""
    agent = grant.agent
    rules = [r for r in agent.allow or () if r.is_glob] if grant.added_only else agent.allow or ()
    for rule in sorted(rules, key=lambda r: (r.pattern == "*", r.is_glob)):
        hits = _match(grant, rule, report_unknown=True)
        if not rule.is_glob and not hits:
            _unknown(grant, rule)
        if hits - scope and not rule.is_glob:
            grant.warnings.append(Problem(rule.file, rule.line,
                                          f"agent {agent.name!r} allows {rule.pattern!r}, which "
                                          "is not in its use list; it stays blocked", "warning"))
        for tool in hits & scope:
            grant.allowed.setdefault(tool, rule)
            if not rule.is_glob:
                grant.exact_allowed.setdefault(tool, rule)
    grant.allow_note = "allowed by the agent's allow rules"


# -- step 5: parent ceiling ---------------------------------------------------------------------

def _step_ceiling(grant: Grant) -> None:
    """A child never holds a tool its parent does not hold now."""
    if grant.lineage is None:
        return
    ceiling = grant.lineage.ceiling
    for tool in set(grant.allowed) - ceiling:
        rule = grant.exact_allowed.get(tool)
        grant.outside_ceiling[tool] = rule
        if rule is None or tool in grant.self_denied:
            # Only a tool the child names, and does not deny itself, is an error; whether
            # an ancestor denies it too must not matter (the first deny recorded may be theirs).
            continue
        message = (f"child {grant.agent.name!r} names {rule.pattern!r}, which its parent "
                   f"{grant.lineage.id!r} does not hold")
        if grant.preset.child_extra == "error":
            grant.spawn_errors.append(Problem(rule.file, rule.line,
                                              message + "; remove it or give it to the parent"))
        else:
            grant.warnings.append(Problem(rule.file, rule.line, message + "; dropped",
                                          "warning"))


def _step_spawn_list(grant: Grant) -> None:
    """Claude Code's ``Agent(a, b)`` in ``tools``: an agent running as the main thread (a
    root session) spawns only the subagent types it lists. In a subagent "any type list
    inside the parentheses is ignored" (sub-agents docs), so deeper spawns are not checked."""
    lineage = grant.lineage
    if lineage is None or lineage.depth != 0 or not lineage.ancestors:
        return
    parent = lineage.ancestors[-1]
    if parent.spawnable is None or grant.agent.name in parent.spawnable:
        return
    rule = next((r for r in parent.allow or () if r.pattern in ("Agent", "Task") and r.spec),
                None)
    written = f" ({rule.text})" if rule is not None else ""
    grant.spawn_errors.append(Problem(
        rule.file if rule else parent.file, rule.line if rule else parent.line,
        f"{parent.name!r} may spawn only {', '.join(parent.spawnable)}{written}, not "
        f"{grant.agent.name!r}; add it to the list, or write Agent without parentheses to allow "
        "every subagent"))


# -- step 6: coordination tools -----------------------------------------------------------------

def _step_depth_limit(grant: Grant) -> None:
    """An agent may lower ``max_depth`` for its subtree, never raise it."""
    own = grant.agent.max_depth
    if own is None:
        return
    if grant.max_depth is None or own <= grant.max_depth:
        grant.max_depth = own
    else:
        grant.warnings.append(Problem(grant.agent.file, grant.agent.line,
                                      f"agent {grant.agent.name!r} sets max_depth {own}, above "
                                      f"the project's {grant.max_depth}; an agent may only "
                                      "lower it, so it stays "
                                      f"{grant.max_depth}", "warning"))


def _step_coordination(grant: Grant) -> None:
    """Below the root, coordination tools need an exact opt-in and depth < max_depth."""
    preset = grant.preset
    if grant.depth == 0 or not preset.strip_coordination:
        return
    for name in preset.coordination_tools:
        tool = grant.pool.index.lookup(name)
        if tool is None or tool not in grant.allowed or tool in grant.denied:
            continue
        rule = grant.exact_allowed.get(tool)
        if rule is None:
            grant.stripped[tool] = (f"{name} is a coordination tool: a sub-agent keeps it only "
                                    "by listing it by exact name")
        elif grant.max_depth is not None and grant.depth >= grant.max_depth:
            grant.stripped[tool] = (f"{name} removed at depth {grant.depth}: max_depth "
                                    f"{grant.max_depth} reached")
            grant.warnings.append(Problem(rule.file, rule.line,
                                          f"max depth reached: {grant.agent.name!r} at depth "
                                          f"{grant.depth} loses {name} (max_depth "
                                          f"{grant.max_depth})", "warning"))


# -- step 9: approval ---------------------------------------------------------------------------

def _step_approval(grant: Grant, project: ProjectRules) -> None:
    """Tools that need approval: ask rules, and work-agent's ``autoApprove`` inverse."""
    ancestors = grant.lineage.ancestors if grant.lineage else ()
    for rule in [*project.ask, *(r for a in ancestors for r in a.ask), *grant.agent.ask]:
        for tool in _match(grant, rule, report_unknown=True):
            grant.ask.setdefault(tool, rule)
    auto = grant.agent.auto_approve
    if auto is None:
        return
    approved: set[str] = set()
    for rule in auto:
        approved |= _match(grant, rule, report_unknown=False)
    marker = Rule(kind="auto-approve", pattern=None, agent=grant.agent.name,
                  file=auto[0].file if auto else grant.agent.file,
                  line=auto[0].line if auto else grant.agent.line)
    for tool in grant.allowed:
        if tool not in approved:
            grant.ask.setdefault(tool, marker)


# -- delegation: what a parent's ``delegation`` block does to its child --------------------------

def _step_delegation(grant: Grant) -> None:
    """Under a preset with delegation rules, the spawning parent shapes the child.

    The parent's ``delegation`` block (the defaults when it has none): a spawn from
    depth >= ``max_depth`` fails; a tool outside ``allowedTools`` (when given) fails
    the ceiling step; ``blockedTools`` and the preset's default child-blocked tools
    (``Preset.child_blocked``) fail the deny step, and with ``denyApprovals`` (default
    true) so do the child's approval-bound tools (denied instead of asked).
    """
    lineage = grant.lineage
    if lineage is None or not grant.preset.delegation or not lineage.ancestors:
        return
    parent = lineage.ancestors[-1]
    block = parent.delegation or Delegation()
    _delegation_depth(grant, parent, block)
    _delegation_allowed(grant, parent, block)
    _delegation_blocked(grant, parent, block)
    if block.deny_approvals:
        _delegation_approvals(grant, parent, block)


def _delegation_depth(grant: Grant, parent: AgentDefinition, block: Delegation) -> None:
    """No delegation from depth >= maxDepth (work-agent's ``createChildDelegationContext``)."""
    lineage = grant.lineage
    assert lineage is not None
    limit = lineage.max_depth
    if limit is not None and lineage.depth >= limit:
        grant.spawn_errors.append(Problem(
            block.file or parent.file, block.line or parent.line,
            f"Delegation depth limit reached ({limit}). Start a fresh top-level conversation "
            f"to delegate again. ({parent.name!r} at depth {lineage.depth} may not spawn "
            f"{grant.agent.name!r}: max_depth {limit})"))


def _delegation_allowed(grant: Grant, parent: AgentDefinition, block: Delegation) -> None:
    """A child keeps only the tools matching its parent's ``delegation.allowedTools``."""
    if not block.allowed:
        return
    kept: set[str] = set()
    for rule in block.allowed:
        kept |= _match(grant, rule, report_unknown=False)
    patterns = ", ".join(repr(r.pattern) for r in block.allowed)
    where = Rule(kind="allow", pattern=patterns, agent=parent.name, file=block.allowed[0].file,
                 line=block.allowed[0].line, layer="delegation",
                 syntax=block.allowed[0].syntax)
    for tool in set(grant.allowed) - kept - grant.outside_ceiling.keys():
        grant.outside_ceiling[tool] = where
        grant.notes[("ceiling", tool)] = (f"{tool} is not in {parent.name!r}'s "
                                          f"delegation.allowedTools ({patterns}): a delegated "
                                          "child keeps only those")


def _delegation_blocked(grant: Grant, parent: AgentDefinition, block: Delegation) -> None:
    """``delegation.blockedTools``, then the preset's default child-blocked tools (one list;
    a tool both block is reported with the line its parent wrote)."""
    preset = grant.preset
    defaults = [Rule(kind="deny", pattern=p, agent=parent.name, file=block.file,
                     line=block.line, layer="delegation", syntax=preset.rule_syntax)
                for p in preset.child_blocked]
    for rule, default in [*((r, False) for r in block.blocked), *((r, True) for r in defaults)]:
        for tool in _match(grant, rule, report_unknown=False) & grant.allowed.keys():
            if tool in grant.denied:
                continue
            grant.denied[tool] = rule
            grant.notes[("deny", tool)] = (
                f"{rule.pattern!r} is one of the {preset.name} preset's default child-blocked "
                "tools: "
                "no delegated child keeps it" if default else
                f"{parent.name!r}'s delegation.blockedTools {rule.pattern!r} blocks it for a "
                "delegated child")


def _delegation_approvals(grant: Grant, parent: AgentDefinition, block: Delegation) -> None:
    """``denyApprovals``: a delegated child's approval-bound tools are denied, not asked."""
    line = block.deny_approvals_line or block.line
    how = "set" if block.deny_approvals_line else "default"
    for tool in grant.ask.keys() & grant.allowed.keys():
        if tool in grant.denied or tool in grant.outside_ceiling:
            continue  # denied already, or not the child's anyway
        grant.denied[tool] = Rule(kind="deny", pattern=tool, agent=parent.name,
                                  file=block.file, line=line, layer="delegation")
        grant.notes[("deny", tool)] = (f"{tool} needs approval, and {parent.name!r}'s "
                             f"delegation.denyApprovals ({how} true) denies a delegated "
                             "child's approval-bound tools instead of asking")


# -- steps 7 and 8: the request -----------------------------------------------------------------

@dataclass(frozen=True)
class Resolution:
    """An agent's tool set for one request: ``allowed`` includes tools that need approval.

    ``verdicts`` holds every pool tool's effect and deciding step (what
    :func:`~toolkit.core.decision.decide` said); ``proj.explain`` gives the
    same verdict with its rule and trace.
    """

    agent: str
    preset: str
    groups: tuple[str, ...]
    state: str
    depth: int
    allowed: frozenset[str]
    ask: frozenset[str]
    filtered_by_group: tuple[str, ...]
    filtered_by_state: tuple[str, ...]
    verdicts: Mapping[str, Verdict]
    stripped: Mapping[str, str]
    unavailable: tuple[str, ...]
    warnings: tuple[Problem, ...]
    grant: Grant

    @property
    def reasons(self) -> Mapping[str, str]:
        """Each pool tool's deciding step (``Decision.reason``)."""
        return {tool: v.reason.value for tool, v in self.verdicts.items()}

    def reason(self, tool: str) -> str:
        """The step that decided ``tool`` (``allow`` or ``approval`` when allowed)."""
        return self.verdict(tool).reason.value

    def effect(self, tool: str) -> Effect:
        """The effect of calling ``tool`` (``implicit-deny`` for a name not in the pool)."""
        return self.verdict(tool).effect

    def verdict(self, tool: str) -> Verdict:
        """The effect and deciding step of ``tool`` (a name not in the pool fails ``pool``)."""
        return self.verdicts.get(tool) or decide({Reason.POOL})

    def __contains__(self, tool: object) -> bool:
        return tool in self.allowed

    def __iter__(self) -> Any:
        return iter(sorted(self.allowed))

    def __len__(self) -> int:
        return len(self.allowed)

    def __str__(self) -> str:
        head = (f"{self.agent} [{self.preset}] groups={groups_label(self.groups)} "
                f"state={self.state} depth={self.depth}: {len(self.allowed)} tool(s)")
        return head + "".join(f"\n  {t}" + (" (ask)" if t in self.ask else "")
                              for t in sorted(self.allowed))

    def __repr__(self) -> str:
        return f"<Resolution {self.agent} allowed={sorted(self.allowed)}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from .display import html

        return {"text/plain": str(self), "text/html": html(self)}


def grant_failures(grant: Grant, name: str) -> list[Reason]:
    """The agent-level steps (3-6) that pool tool ``name`` fails under ``grant``."""
    failed = []
    if name in grant.denied:
        failed.append(Reason.DENY)
    if name not in grant.allowed:
        failed.append(Reason.ALLOW)
    if name in grant.outside_ceiling:
        failed.append(Reason.CEILING)
    if name in grant.stripped:
        failed.append(Reason.COORDINATION)
    return failed


def request_failures(tool: Tool, groups: tuple[str, ...], state: str) -> list[Reason]:
    """The request steps (7-8) that ``tool`` fails for ``groups`` and ``state``."""
    failed = []
    if not group_ok(tool, groups):
        failed.append(Reason.GROUP)
    if not state_ok(tool, state):
        failed.append(Reason.STATE)
    return failed


def resolve_request(grant: Grant, groups: tuple[str, ...], state: str | None,
                    warnings: Iterable[Problem] = ()) -> Resolution:
    """Apply the request's groups (step 7) and state (step 8) to a grant."""
    state = state or DEFAULT_STATE
    pool = grant.pool
    verdicts: dict[str, Verdict] = {}
    for name in pool:
        failed = grant_failures(grant, name) + request_failures(pool[name], groups, state)
        verdicts[name] = decide(failed, asks=name in grant.ask)
    allowed = frozenset(t for t, v in verdicts.items() if v.effect.granted)
    return Resolution(
        agent=grant.agent.name, preset=grant.preset.name, groups=groups, state=state,
        depth=grant.depth, allowed=allowed,
        ask=frozenset(t for t in allowed if verdicts[t].effect is Effect.ASK),
        filtered_by_group=tuple(sorted(t for t, v in verdicts.items()
                                       if v.reason is Reason.GROUP)),
        filtered_by_state=tuple(sorted(t for t, v in verdicts.items()
                                       if v.reason is Reason.STATE)),
        verdicts=verdicts, stripped=dict(grant.stripped), unavailable=tuple(grant.unavailable),
        warnings=(*grant.warnings, *warnings), grant=grant,
    )
