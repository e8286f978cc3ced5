"""``check_call``: what Claude Code would do with one tool call, and exactly why.

This module finds out, for one call, which rules match and what the call touches
(:class:`~toolkit.core.decision.CallFacts`); the one permission precedence,
:func:`~toolkit.core.decision.decide_call`, decides; a compound Bash command is
decided part by part and combined by :func:`~toolkit.core.decision.combine_parts`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import urlsplit

from ....core.decision import (
    CallFacts,
    CallVerdict,
    Decision,
    Effect,
    Hook,
    Reason,
    Step,
    combine_parts,
    decide_call,
)
from ....core.models import NO_RULE, Rule
from ...base.paths import absolute, inside, real_variants
from ...base.shell import Redirect, SimpleCommand, parse
from .agents import AgentPermissions, effective_mode
from .bash import (
    ACCEPT_EDITS_COMMANDS,
    SAFE_ENV_VARS,
    critical_target,
    forms,
    protected_path,
    read_only,
    touched_paths,
)
from .rules import (
    BUILTIN_TOOLS,
    EDIT_TOOLS,
    MODES_ALIASES,
    READ_TOOLS,
    SHELL_TOOLS,
    PermissionRule,
    canonical_tool,
    command_alternation,
    command_first_word,
)
from .settings import MODES, Settings
from .settings import Hook as SettingsHook

__all__ = ["CallContext", "RuleSet", "check_call", "context_for"]

Match = Callable[[PermissionRule], bool]
_NAME_FORMS = frozenset({"tool", "name-glob", "mcp-server", "param"})


class RuleSet:
    """Active rules indexed by kind and form, each remembering its place (first match wins)."""

    def __init__(self, rules: Iterable[PermissionRule]) -> None:
        self._by: dict[tuple[str, str], list[tuple[int, PermissionRule]]] = defaultdict(list)
        self._positions: dict[int, PermissionRule] = {}
        self._where: dict[int, int] = {}
        for position, rule in enumerate(rules):
            if rule.skipped is None:
                family = "name" if rule.form in _NAME_FORMS else rule.form
                self._by[(rule.kind, family)].append((position, rule))
                self._positions[position] = rule
                self._where[id(rule.rule)] = position
        # (kind, tool, exact only) -> every such command rule as one regex (built on first use)
        self._alternations: dict[tuple[str, str, bool], re.Pattern[str] | None] = {}
        # the same rules as one regex per first word of the commands they can match
        self._by_word: dict[tuple[str, str, bool],
                            dict[str | None, re.Pattern[str] | None] | None] = {}
        self._static: dict[tuple[str, str], tuple[int, PermissionRule] | None] = {}
        # (kind, cwd) -> path rules by a segment their pattern spells out, and the others
        self._segments: dict[tuple[str, str], tuple[dict[str, list[tuple[int, PermissionRule]]],
                                                    list[tuple[int, PermissionRule]]]] = {}

    def command(self, kind: str, tool: str, texts: Iterable[str], *, exact_only: bool = False
                ) -> tuple[int, PermissionRule] | None:
        """The first command rule of ``kind`` for ``tool`` (``Bash(...)``) that matches one of
        ``texts`` — one regex per rule set instead of a loop over rules."""
        key = (kind, tool, exact_only)
        if key not in self._alternations:
            chosen = [(p, r) for p, r in self._by.get((kind, "command"), ())
                      if r.tool == tool and (not exact_only or r.exact_command)]
            self._alternations[key] = command_alternation(chosen)
            self._by_word[key] = _by_first_word(chosen)
        whole = self._alternations[key]
        if whole is None:
            return None
        by_word = self._by_word[key]
        found = []
        for text in texts:  # by_word: only the rules a command of this first word can match
            regex = whole if by_word is None else by_word.get(text.split(" ", 1)[0],
                                                              by_word[None])
            if regex is not None and (m := regex.fullmatch(text)):
                found.append(int(str(m.lastgroup)[1:]))
        if not found:
            return None
        return min(found), self._positions[min(found)]

    def first_path(self, kind: str, match: Match, paths: Sequence[str], cwd: str
                   ) -> Rule | None:
        """``first(kind, {"path": match})`` for a ``match`` that asks a rule's
        ``path_matches(p, cwd)`` of some of ``paths`` only: a rule whose pattern spells out a
        whole path segment (:meth:`PermissionRule.path_segment`) is tried only when one of
        ``paths`` holds that segment (it matches no other path)."""
        key = (kind, cwd)
        if key not in self._segments:
            by_segment: dict[str, list[tuple[int, PermissionRule]]] = {}
            other: list[tuple[int, PermissionRule]] = []
            for position, rule in self._by.get((kind, "path"), ()):
                segment = rule.path_segment(cwd)
                if segment is None:
                    other.append((position, rule))
                else:
                    by_segment.setdefault(segment, []).append((position, rule))
            self._segments[key] = by_segment, other
        by_segment, other = self._segments[key]
        tried = dict(other)
        for path in paths:
            for segment in path.split("/"):
                tried.update(by_segment.get(segment, ()))
        for position in sorted(tried):
            if match(tried[position]):
                return tried[position].rule
        return None

    def position(self, rule: Rule) -> int:
        """Where ``rule`` stands in layer order (for two matches found separately)."""
        return self._where.get(id(rule), len(self._positions))

    def _named(self, kind: str, names: _Names) -> tuple[int, PermissionRule] | None:
        """The first name-level rule of ``kind`` for a tool: the rules that do not look at
        arguments are indexed per tool once, parameter rules are tried per call."""
        key = (kind, names.tool)
        if key not in self._static:
            self._static[key] = next(
                ((p, r) for p, r in self._by.get((kind, "name"), ())
                 if r.form != "param" and r.names(names.tool)), None)
        found = self._static[key]
        for position, rule in self._by.get((kind, "name"), ()):
            if found is not None and position > found[0]:
                break
            if rule.form == "param" and names(rule):
                return position, rule
        return found

    def first(self, kind: str, matches: Mapping[str, Match],
              found: tuple[int, PermissionRule] | None = None) -> Rule | None:
        """The first rule of ``kind`` (in layer order) that its family's matcher accepts
        (``found``: a match already made in another family, such as :meth:`command`'s)."""
        best = found
        for family, match in matches.items():
            if isinstance(match, _Names):
                named = self._named(kind, match)
                if named is not None and (best is None or named[0] < best[0]):
                    best = named
                continue
            for position, rule in self._by.get((kind, family), ()):
                if best is not None and position > best[0]:
                    break
                if match(rule):
                    best = (position, rule)
                    break
        return None if best is None else best[1].rule


def _by_first_word(rules: Sequence[tuple[int, PermissionRule]]
                   ) -> dict[str | None, re.Pattern[str] | None] | None:
    """Command rules as one regex per first word (the text before the first space) of the
    commands they can match, each with the rules that name no first word, in order; ``None``:
    the rules naming none alone. None when a rule ignores case (PowerShell)."""
    if any(r.tool == "PowerShell" for _, r in rules):
        return None
    by_word: dict[str, list[tuple[int, PermissionRule]]] = {}
    anywhere: list[tuple[int, PermissionRule]] = []
    for position, rule in rules:
        word = command_first_word(str(rule.spec))
        if word is None:
            anywhere.append((position, rule))
        else:
            by_word.setdefault(word, []).append((position, rule))
    out: dict[str | None, re.Pattern[str] | None] = {
        word: command_alternation(sorted([*named, *anywhere], key=lambda pr: pr[0]))
        for word, named in by_word.items()}
    out[None] = command_alternation(anywhere)
    return out


@dataclass(frozen=True)
class CallContext:
    """Everything a check needs besides the call: rules, mode, working directories, hook."""

    rules: RuleSet
    mode: str
    cwd: str
    dirs: tuple[str, ...]  # the working directories: cwd, then the additional ones
    home: str | None
    hook: Hook | None
    agent: str
    notes: tuple[str, ...] = ()
    mode_step: Step | None = None
    hooks: tuple[SettingsHook, ...] = ()  # the PreToolUse hooks configured in settings


def context_for(settings: Settings | None, rules: RuleSet, *, agent: AgentPermissions | None,
                mode: str | None, cwd: str, hook: Hook | None) -> CallContext:
    """The context of a call: the effective mode (layers' defaultMode, the subagent's
    permissionMode) and the working directories (cwd + additionalDirectories)."""
    notes: list[str] = []
    if hook not in (None, "allow", "deny", "ask"):
        raise ValueError(f"hook must be 'allow', 'deny' or 'ask', not {hook!r}")
    chosen, why, rule = _session_mode(settings, mode)
    effective, agent_why = effective_mode(chosen, agent)
    if agent is not None and agent.permission_mode is not None:
        why = agent_why
    if settings is not None and effective in settings.disabled_modes:
        notes.append(f"{effective} mode is disabled by settings "
                     "(permissions.disable...Mode); checked in default mode")
        effective, why = "default", f"{why}; {effective} is disabled"
    home = settings.home if settings is not None else None
    dirs = [absolute(cwd, "/", home)]
    for value, _layer, _file, _line in settings.additional_dirs if settings else ():
        dirs.append(absolute(value, dirs[0], home))
    step = Step("mode", "pass", f"{effective} ({why})", rule)
    return CallContext(rules, effective, dirs[0], tuple(dict.fromkeys(dirs)), home, hook,
                       agent.name if agent else "main", tuple(notes), step,
                       settings.hooks if settings is not None else ())


def _session_mode(settings: Settings | None, mode: str | None) -> tuple[str, str, Rule]:
    if mode is not None:
        mode = MODES_ALIASES.get(mode, mode)
        if mode not in MODES:
            raise ValueError(f"unknown permission mode {mode!r}; modes: {', '.join(MODES)}")
        return mode, "given", NO_RULE
    if settings is not None and settings.default_mode is not None:
        value, rule = settings.default_mode
        return value, f"defaultMode, {rule.layer} settings", rule
    return "default", "no defaultMode set", NO_RULE


def check_call(ctx: CallContext, tool: str, args: Mapping[str, Any],
               agent: AgentPermissions | None = None,
               known: Callable[[str], bool] | None = None) -> Decision:
    """What Claude Code does with ``tool`` called with ``args`` in ``ctx`` (a ``Decision``)."""
    if not isinstance(args, Mapping):
        raise TypeError(f"args must be a mapping of the tool's input fields, not "
                        f"{type(args).__name__}")
    name = canonical_tool(tool)
    warnings = list(ctx.notes)
    if known is not None and not known(name) and name not in BUILTIN_TOOLS:
        warnings.append(f"{tool!r} is neither a Claude Code built-in tool nor in the project's "
                        "pool; its rules are evaluated anyway (a what-if)")
    trace = [ctx.mode_step] if ctx.mode_step is not None else []
    trace += _hook_steps(ctx, name)
    if agent is not None:
        blocked = _front_matter(agent, name, args, trace)
        if blocked is not None:
            return _decision(ctx, tool, name, blocked, trace, warnings)
    if name in SHELL_TOOLS:
        return _bash(ctx, tool, name, args, trace, warnings)
    verdict, steps = _single(ctx, name, args)
    return _decision(ctx, tool, name, verdict, trace + steps, warnings)


def _hook_steps(ctx: CallContext, tool: str) -> list[Step]:
    """Configured PreToolUse hooks for ``tool`` (never run here) and the what-if answer."""
    steps = [Step("hook", "skip", f"PreToolUse hook {h.command!r} (matcher {h.matcher!r}) runs "
                                  "before this call and may change the outcome; it is not run "
                                  "here: pass hook='allow'|'deny'|'ask' to see its effect",
                  Rule(kind="none", pattern="PreToolUse", layer=h.layer, file=h.file,
                       line=h.line))
             for h in ctx.hooks if h.applies_to(tool)]
    if ctx.hook is not None:
        steps.append(Step("hook", "pass", f"what-if: the PreToolUse hook answers {ctx.hook!r}"))
    return steps


def _front_matter(agent: AgentPermissions, tool: str, args: Mapping[str, Any],
                  trace: list[Step]) -> CallVerdict | None:
    """sub-agents: "disallowedTools is applied first, then tools is resolved against the
    remaining pool"; a tool outside the subagent's set is not callable at all."""
    removed = agent.removes(tool)
    if removed is not None:
        trace.append(Step("agent-tools", "fail", f"{agent.name}'s disallowedTools removes {tool}",
                          removed.rule))
        return CallVerdict(Effect.DENY, Reason.AGENT_TOOLS, removed.rule,
                           f"{agent.name}'s disallowedTools entry {removed.text} removes {tool}")
    granted = agent.grants(tool)
    if granted is None:
        trace.append(Step("agent-tools", "fail", f"{tool} is not in {agent.name}'s tools"))
        return CallVerdict(Effect.IMPLICIT_DENY, Reason.AGENT_TOOLS, None,
                           f"{tool} is not in {agent.name}'s tools, so the subagent cannot "
                           "call it")
    if isinstance(granted, PermissionRule):
        how, rule = f"tools entry {granted.text}", granted.rule
    else:
        how, rule = "every tool: tools is omitted or '*'", NO_RULE
    trace.append(Step("agent-tools", "pass", f"{agent.name} holds {tool} ({how})", rule))
    if tool == "Agent" and agent.spawn_rule is not None:
        trace.append(Step("agent-tools", "skip", f"{agent.spawn_rule.text} restricts spawning "
                                                 f"only when {agent.name} runs as the main "
                                                 "thread (claude --agent); as a subagent the "
                                                 "list is ignored", agent.spawn_rule))
    return None


# -- one call of a non-shell tool -------------------------------------------------------------

@dataclass(frozen=True)
class _Names:
    """A name-level rule for ``tool``: by name, glob or MCP server, or one of its parameters
    (:meth:`RuleSet.first` answers it from an index instead of calling it per rule)."""

    tool: str
    args: Mapping[str, Any]

    def __call__(self, rule: PermissionRule) -> bool:
        if rule.form == "param":
            return rule.tool == self.tool and rule.param_matches(self.args)
        return rule.names(self.tool)


def _names(tool: str, args: Mapping[str, Any]) -> Match:
    return _Names(tool, args)


def _single(ctx: CallContext, tool: str, args: Mapping[str, Any]
            ) -> tuple[CallVerdict, list[Step]]:
    """A call of any tool but Bash: its rules by name and by its own specifier."""
    if tool in READ_TOOLS:
        facts = _read_facts(ctx, tool, args)
    elif tool in EDIT_TOOLS:
        facts = _edit_facts(ctx, tool, args)
    else:
        facts = _other_facts(ctx, tool, args)
    facts = replace(facts, hook=ctx.hook)
    verdict = decide_call(facts, ctx.mode)
    return verdict, _steps(facts, verdict)


def _path_of(ctx: CallContext, tool: str, args: Mapping[str, Any]) -> str:
    value = args.get("file_path", args.get("notebook_path", args.get("path")))
    if not isinstance(value, str) or not value:
        value = ctx.cwd  # Grep / Glob / LS default to the working directory
    return absolute(value, ctx.cwd, ctx.home)


def _read_facts(ctx: CallContext, tool: str, args: Mapping[str, Any]) -> CallFacts:
    """permissions#read-and-edit: Read rules cover Read, Grep, Glob, LS, LSP; an Edit allow
    rule also grants reading; allow needs the link and its target, deny either."""
    path = _path_of(ctx, tool, args)
    variants = real_variants(path)
    names = _names(tool, args)
    # a search root (Grep, Glob, LS): a rule denying what is under it restricts the search
    searched = (*variants, *(v.rstrip("/") + "/-" for v in variants)) if tool != "Read" and (
        "file_path" not in args) else variants

    def restricts(rule: PermissionRule) -> bool:
        return rule.tool == "Read" and any(rule.path_matches(v, ctx.cwd) for v in searched)

    def allows(rule: PermissionRule) -> bool:
        return all(rule.path_matches(v, ctx.cwd) for v in variants)

    rules = ctx.rules
    inside_dirs = all(inside(v, ctx.dirs) for v in variants)
    return CallFacts(deny=rules.first("deny", {"name": names, "path": restricts}),
                     ask=rules.first("ask", {"name": names, "path": restricts}),
                     allow=rules.first("allow", {"name": names, "path": allows}),
                     safe=Reason.WORKING_DIR if inside_dirs else None, inside=inside_dirs,
                     what=f"{tool} {path}")


def _edit_facts(ctx: CallContext, tool: str, args: Mapping[str, Any]) -> CallFacts:
    """Edit rules cover Edit, MultiEdit, Write, NotebookEdit; "A Read deny rule also blocks the
    Edit and Write tools on the same path ... NotebookEdit isn't covered"."""
    path = _path_of(ctx, tool, args)
    facts = _write_facts(ctx, path, tool, args, read_deny=tool != "NotebookEdit",
                         what=f"{tool} {path}")
    return facts


def _write_facts(ctx: CallContext, path: str, tool: str | None, args: Mapping[str, Any],
                 *, read_deny: bool, what: str, needs_allow: bool = True) -> CallFacts:
    """A write of ``path``: Edit rules, a Read deny, protected paths, the working directories."""
    variants = real_variants(path)
    names = _names(tool, args) if tool is not None else (lambda rule: False)

    def restricts(rule: PermissionRule) -> bool:
        families = ("Edit", "Read") if read_deny else ("Edit",)
        return rule.tool in families and any(rule.path_matches(v, ctx.cwd) for v in variants)

    def asks(rule: PermissionRule) -> bool:
        return rule.tool == "Edit" and any(rule.path_matches(v, ctx.cwd) for v in variants)

    def allows(rule: PermissionRule) -> bool:
        return rule.tool == "Edit" and all(rule.path_matches(v, ctx.cwd) for v in variants)

    rules = ctx.rules
    protected = next((p for v in variants if (p := protected_path(v)) is not None), None)
    return CallFacts(deny=rules.first("deny", {"name": names, "path": restricts}),
                     ask=rules.first("ask", {"name": names, "path": asks}),
                     allow=rules.first("allow", {"name": names, "path": allows})
                     if needs_allow else None,
                     edit=True, inside=all(inside(v, ctx.dirs) for v in variants),
                     protected=protected, what=what)


def _other_facts(ctx: CallContext, tool: str, args: Mapping[str, Any]) -> CallFacts:
    """WebFetch domains, Agent types, Skill names, and every other tool by name."""
    names = _names(tool, args)
    extra: dict[str, Match] = {}
    what = tool
    problem = None
    if tool == "WebFetch":
        url = args.get("url")
        host = urlsplit(url).hostname if isinstance(url, str) else None
        if host is None:
            problem = f"no host in url {url!r}"
        else:
            extra["domain"] = lambda rule: rule.domain_matches(host)
            what = f"WebFetch {host}"
    elif tool == "Agent":
        subagent = str(args.get("subagent_type", "general-purpose"))
        extra["agent"] = lambda rule: rule.tool == "Agent" and rule.agent_matches(subagent)
        what = f"Agent {subagent}"
    elif tool == "Skill":
        call = " ".join(str(args[k]) for k in ("skill", "args") if args.get(k))
        extra["command"] = lambda rule: rule.tool == "Skill" and rule.command_matches(call)
        what = f"Skill {call}"
    rules = ctx.rules
    asks_never = BUILTIN_TOOLS.get(tool) is False
    return CallFacts(deny=rules.first("deny", {"name": names, **extra}),
                     ask=rules.first("ask", {"name": names, **extra}),
                     allow=rules.first("allow", {"name": names, **extra}),
                     safe=Reason.NO_PROMPT if asks_never else None, unparseable=problem,
                     what=what)


# -- Bash ----------------------------------------------------------------------------------------

def _bash(ctx: CallContext, tool: str, name: str, args: Mapping[str, Any], trace: list[Step],
          warnings: list[str]) -> Decision:
    """permissions#compound-commands: "A rule must match each subcommand independently"."""
    command = args.get("command")
    names = _names(name, args)
    call = CallFacts(deny=ctx.rules.first("deny", {"name": names}),
                     ask=ctx.rules.first("ask", {"name": names}), hook=ctx.hook,
                     what=f"{name} call")
    if call.deny is not None or call.ask is not None or ctx.hook in ("deny", "ask"):
        verdict = decide_call(call, ctx.mode)
        return _decision(ctx, tool, name, verdict, trace + _steps(call, verdict), warnings)
    if not isinstance(command, str) or not command.strip():
        verdict = decide_call(CallFacts(unparseable="no command given", what="the call"),
                              ctx.mode)
        return _decision(ctx, tool, name, verdict, trace, warnings)
    parsed = parse(command)
    if parsed.problem is not None:
        return _unparseable(ctx, tool, name, command, parsed.problem, trace, warnings)
    cds = _cd_elsewhere(ctx, parsed.commands)
    parts = [_part(ctx, name, c, cds) if c.redirects else _pure_part(ctx, name, c, cds)
             for c in parsed.commands]
    chosen = combine_parts([p.effect for p in parts])
    deciding = parts[chosen]
    label = f"part {chosen + 1} of {len(parts)} `{deciding.tool}`: " if len(parts) > 1 else ""
    verdict = CallVerdict(deciding.effect, deciding.reason,
                          deciding.rule if deciding.rule is not NO_RULE else None,
                          label + deciding.message)
    if len(parts) == 1:
        return _decision(ctx, tool, name, verdict, trace + list(deciding.trace), warnings,
                         tuple(parts))
    listing = " | ".join(f"`{p.tool}`" for p in parts)
    steps = [*trace, Step("split", "pass", f"{len(parts)} commands: {listing}")]
    return _decision(ctx, tool, name, verdict, steps, warnings, tuple(parts))


def _unparseable(ctx: CallContext, tool: str, name: str, command: str, problem: str,
                 trace: list[Step], warnings: list[str]) -> Decision:
    """A command the parser cannot parse asks ("when Claude Code can't fully parse a command,
    it asks for approval"); a deny or ask rule matching its whole text still applies."""
    def whole(rule: PermissionRule) -> bool:
        return rule.tool == "Bash" and rule.command_matches(" ".join(command.split()))

    facts = CallFacts(deny=ctx.rules.first("deny", {"command": whole}),
                      ask=ctx.rules.first("ask", {"command": whole}), unparseable=problem,
                      what=f"`{command[:60]}`")
    verdict = decide_call(facts, ctx.mode)
    return _decision(ctx, tool, name, verdict, trace + _steps(facts, verdict), warnings)


def _cd_elsewhere(ctx: CallContext, commands: Sequence[SimpleCommand]) -> bool:
    """Whether some part changes into another directory (then git parts and output
    redirections are not taken as read-only: permissions#read-only-commands)."""
    for c in commands:
        if "cd" not in c.argv:
            continue  # forms(c).argv is a tail of c.argv: it cannot start with cd
        argv = forms(c).argv
        if argv[:1] == ("cd",):
            target = argv[1] if len(argv) > 1 else (ctx.home or "~")
            if absolute(target, ctx.cwd, ctx.home) != ctx.cwd:
                return True
    return False


@lru_cache(maxsize=8192)
def _pure_part(ctx: CallContext, tool: str, command: SimpleCommand, cd_elsewhere: bool
               ) -> Decision:
    """:func:`_part` of a command without redirections: a function of the rules, the context
    and the command alone (no file is looked at), so each is worked out once."""
    return _part(ctx, tool, command, cd_elsewhere)


def _part(ctx: CallContext, tool: str, command: SimpleCommand, cd_elsewhere: bool) -> Decision:
    """One subcommand: the command's own facts, then each output redirection as a write."""
    shown = command.text or command.source
    checks: list[tuple[CallFacts, CallVerdict]] = []
    if command.argv or command.assignments:  # not just the redirections of a group
        facts = _command_facts(ctx, command, forms(command), cd_elsewhere, f"`{shown}`")
        checks.append((facts, decide_call(facts, ctx.mode)))
    for redirect in command.redirects:
        if redirect.target == "/dev/null":
            continue  # "A /dev/null target isn't checked."
        rfacts = _redirect_facts(ctx, redirect, cd_elsewhere)
        checks.append((rfacts, decide_call(rfacts, ctx.mode)))
    if not checks:  # only a /dev/null redirection: nothing runs, nothing is written
        checks.append((CallFacts(safe=Reason.READ_ONLY, what=f"`{shown}`"),
                       CallVerdict(Effect.ALLOW, Reason.READ_ONLY, None,
                                   f"`{shown}` writes only to /dev/null")))
    chosen = combine_parts([v.effect for _, v in checks])
    verdict = checks[chosen][1]
    steps = [s for f, v in checks for s in _steps(f, v)]
    return Decision(agent=ctx.agent, tool=shown, canonical=tool, effect=verdict.effect,
                    reason=verdict.reason, message=verdict.message,
                    rule=verdict.rule or NO_RULE, trace=tuple(steps), question="call",
                    mode=ctx.mode, cwd=ctx.cwd)


def _command_facts(ctx: CallContext, command: SimpleCommand, form: Any,
                   cd_elsewhere: bool, what: str) -> CallFacts:
    rules = ctx.rules
    argv = form.argv
    offset = len(command.argv) - len(argv)
    restrict = (*form.restrict, command.source)
    allowed = rules.command("allow", "Bash", (form.allow,), exact_only=form.exact_only)
    exact = rules.command("allow", "Bash", (command.source,), exact_only=True)
    if exact is not None and (allowed is None or exact[0] < allowed[0]):
        allowed = exact
    safe = Reason.READ_ONLY if _is_read_only(ctx, command, argv, offset, cd_elsewhere) else None
    facts = CallFacts(
        deny=rules.first("deny", {}, rules.command("deny", "Bash", restrict)),
        ask=rules.first("ask", {}, rules.command("ask", "Bash", restrict)),
        allow=rules.first("allow", _BASH_BY_NAME, allowed),
        safe=safe, edit=bool(argv) and argv[0] in ACCEPT_EDITS_COMMANDS,
        inside=not any(command.dynamic[offset + 1:]),
        critical=critical_target(argv, ctx.cwd, ctx.home, ctx.dirs[1:]), hook=ctx.hook,
        what=what)
    reads, writes = touched_paths(argv)
    return _file_command_facts(ctx, facts, reads, writes) if reads or writes else facts


_BASH_BY_NAME = {"name": _names("Bash", {})}


def _file_command_facts(ctx: CallContext, facts: CallFacts, reads: Sequence[str],
                        writes: Sequence[str]) -> CallFacts:
    """A recognised file command (cat, sed, rm, cp, tee ...): Read and Edit deny / ask rules
    meet its paths, and a write may touch a protected path."""
    read_paths = [absolute(p, ctx.cwd, ctx.home) for p in reads]
    write_paths = [absolute(p, ctx.cwd, ctx.home) for p in writes]
    touched = read_paths + write_paths

    def restricts(rule: PermissionRule) -> bool:
        return (rule.tool == "Read" and any(rule.path_matches(p, ctx.cwd) for p in touched)) or (
            rule.tool == "Edit" and any(rule.path_matches(p, ctx.cwd) for p in write_paths))

    def asks(rule: PermissionRule) -> bool:
        return (rule.tool == "Read" and any(rule.path_matches(p, ctx.cwd) for p in read_paths)
                ) or (rule.tool == "Edit" and any(rule.path_matches(p, ctx.cwd)
                                                  for p in write_paths))

    rules = ctx.rules
    deny = rules.first_path("deny", restricts, touched, ctx.cwd)
    ask = rules.first_path("ask", asks, touched, ctx.cwd)
    return replace(
        facts, deny=_earlier(rules, facts.deny, deny), ask=_earlier(rules, facts.ask, ask),
        inside=facts.inside and all(inside(p, ctx.dirs) for p in touched),
        protected=next((p for w in write_paths if (p := protected_path(w)) is not None), None))


def _earlier(rules: RuleSet, a: Rule | None, b: Rule | None) -> Rule | None:
    """Of two matching rules, the one met first in layer order."""
    if a is None or b is None:
        return a or b
    return a if rules.position(a) <= rules.position(b) else b


def _is_read_only(ctx: CallContext, command: SimpleCommand, argv: tuple[str, ...], offset: int,
                  cd_elsewhere: bool) -> bool:
    if command.assignments and any(k not in SAFE_ENV_VARS for k, _ in command.assignments):
        return False
    if not read_only(argv, command.globbed[offset:], command.dynamic[offset:]):
        return False
    if argv[0] == "git" and cd_elsewhere:
        return False  # "cd with git: prompts when the cd changes into a different directory"
    if argv[0] == "cd":
        if len(argv) > 1 and command.dynamic[offset + 1]:
            return False
        target = absolute(argv[1] if len(argv) > 1 else (ctx.home or "/"), ctx.cwd, ctx.home)
        return inside(target, ctx.dirs)
    return True


def _redirect_facts(ctx: CallContext, redirect: Redirect, cd_elsewhere: bool) -> CallFacts:
    """permissions#redirections: the target is "a file write"; "A target that starts with ~
    or contains a glob character needs approval"."""
    what = f"redirect {redirect.op} {redirect.target}"
    if redirect.dynamic or redirect.target.startswith("~") or cd_elsewhere:
        path = absolute(redirect.target.lstrip("~/") or ".", ctx.cwd, None)
        facts = _write_facts(ctx, path, None, {}, read_deny=True, what=what)
        return replace(facts, allow=None, inside=False, hook=ctx.hook)
    path = absolute(redirect.target, ctx.cwd, ctx.home)
    facts = _write_facts(ctx, path, None, {}, read_deny=True, what=what)
    return replace(facts, hook=ctx.hook)


# -- the decision -------------------------------------------------------------------------------

def _steps(facts: CallFacts, verdict: CallVerdict) -> list[Step]:
    """The checks behind a verdict, as trace steps (what matched, what did not)."""
    what = facts.what
    steps = [
        Step("deny", "fail", f"{facts.deny.text} matches {what}", facts.deny)
        if facts.deny is not None else Step("deny", "pass", f"no deny rule matches {what}"),
        Step("ask", "fail", f"{facts.ask.text} matches {what}", facts.ask)
        if facts.ask is not None else Step("ask", "pass", f"no ask rule matches {what}"),
        Step("allow", "pass", f"{facts.allow.text} matches {what}", facts.allow)
        if facts.allow is not None else Step("allow", "skip", f"no allow rule matches {what}"),
    ]
    for label, value in (("unparseable", facts.unparseable), ("critical", facts.critical),
                         ("protected", facts.protected)):
        if value is not None:
            steps.append(Step(label, "fail", f"{what}: {value}"))
    if facts.safe is not None:
        steps.append(Step(facts.safe.value, "pass", f"{what} runs unasked in every mode"))
    outcome: Literal["pass", "fail"] = "pass" if verdict.effect is Effect.ALLOW else "fail"
    steps.append(Step("decision", outcome, f"{verdict.effect.value} ({verdict.reason.value}): "
                                           f"{verdict.message}", verdict.rule or NO_RULE))
    return steps


def _decision(ctx: CallContext, tool: str, name: str, verdict: CallVerdict, trace: list[Step],
              warnings: list[str], parts: tuple[Decision, ...] = ()) -> Decision:
    return Decision(agent=ctx.agent, tool=tool, canonical=name, effect=verdict.effect,
                    reason=verdict.reason, message=verdict.message,
                    rule=verdict.rule or NO_RULE, trace=tuple(trace), preset="claude-code",
                    warnings=tuple(dict.fromkeys(warnings)), question="call", mode=ctx.mode,
                    cwd=ctx.cwd, parts=parts)
