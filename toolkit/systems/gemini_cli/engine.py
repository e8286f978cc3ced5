"""One project's Gemini CLI policies, as ``Policy`` asks about them (the PermissionEngine).

``check_call`` runs Gemini's own algorithm (:class:`.policy.PolicyEngine`) and says what
it found in toolkit's vocabulary: ``ask_user`` is ``ask``, ``deny`` is ``explicit-deny``,
no rule and a refusing default (non-interactive) is ``implicit-deny``; the deciding rule
with its tier in ``layer``, file:line, and its priority in the message; one part per
sub-command of a compound shell command.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.decision import (
    CallFacts,
    Decision,
    Effect,
    Reason,
    combine_parts,
    decide_call,
)
from ...core.models import NO_RULE, AgentDefinition, Rule
from ...errors import Problem
from ..base.engine import EngineDefaults
from ..base.memo import DecisionMemo
from ..base.paths import home_folder
from .config import GeminiConfig, load_config
from .near import near_misses
from .policy import (
    ALLOW,
    ASK_USER,
    DENY,
    CheckResult,
    PolicyEngine,
    PolicyRule,
    parse_mcp_tool_name,
)
from .tools import ALL_BUILTIN_TOOL_NAMES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MODES", "MODE_ALIASES", "GeminiPermissions", "empty_engine", "open_engine"]

MODES = ("default", "autoEdit", "plan", "yolo")
#: extra ``mode=`` words: ``non-interactive`` / ``headless`` (``gemini -p``: ask_user -> deny)
MODE_ALIASES = {"auto_edit": "autoEdit", "non-interactive": "default", "headless": "default"}
_KIND = {ALLOW: "allow", DENY: "deny", ASK_USER: "ask"}
_MAIN_FIELD = {"run_shell_command": "command", "read_file": "file_path",
               "write_file": "file_path", "replace": "file_path", "list_directory": "dir_path",
               "glob": "pattern", "grep_search": "pattern", "search_file_content": "pattern",
               "web_fetch": "prompt", "google_web_search": "query",
               "invoke_agent": "agent_name", "activate_skill": "name"}


def parse_mode(mode: str | None) -> tuple[str, bool]:
    """``"yolo"`` -> (yolo, interactive); ``"non-interactive"`` / ``"plan headless"`` ->
    (mode, non-interactive)."""
    words = (mode or "default").replace(",", " ").replace("+", " ").split()
    interactive = not any(w in ("non-interactive", "headless") for w in words)
    names = [MODE_ALIASES.get(w, w) for w in words if w not in ("non-interactive", "headless")]
    name = names[0] if names else "default"
    if name not in MODES:
        raise ValueError(f"unknown Gemini CLI approval mode {mode!r}; known: "
                         f"{', '.join(MODES)} (add 'non-interactive' for gemini -p)")
    return name, interactive


def to_rule(rule: PolicyRule) -> Rule:
    """A Gemini rule as a toolkit :class:`Rule`: its tier in ``layer``."""
    return Rule(kind=_KIND[rule.decision], pattern=rule.tool_name,
                spec=rule.written or None, file=rule.file, line=rule.line, layer=rule.tier)


def _priority(rule: PolicyRule) -> str:
    return f"priority {rule.priority:.3f} ({rule.tier} tier, {rule.source})"


class GeminiPermissions(EngineDefaults):
    """The policies and settings of one Gemini CLI project and the questions asked of them."""

    system = "gemini-cli"

    def __init__(self, config: GeminiConfig) -> None:
        self.config = config
        self._engines: dict[tuple[str, bool], PolicyEngine] = {}
        #: decisions already made, by the question (the rules are fixed once read)
        self._memo = DecisionMemo()
        #: id(PolicyRule) -> (the rule, its toolkit Rule)
        self._rules: dict[int, tuple[PolicyRule, Rule]] = {}

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Policy file errors (Gemini's words, file:line) and settings warnings."""
        return (*self.config.problems, *(e.problem for e in self.config.errors))

    def engine(self, mode: str = "default", interactive: bool = True) -> PolicyEngine:
        """Gemini's PolicyEngine for one approval mode (built once)."""
        key = (mode, interactive)
        found = self._engines.get(key)
        if found is None:
            found = self._engines[key] = PolicyEngine(
                self.config.rules, non_interactive=not interactive, approval_mode=mode,
                disable_always_allow=self.config.disable_always_allow,
                trusted_folder=self.config.trusted)
        return found

    # -- per call -------------------------------------------------------------------------------

    def check_call(self, tool: str, args: Mapping[str, Any] | None,
                   definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                   hook: Any, known: Callable[[str], bool]) -> Decision:
        """What Gemini CLI does with this call (see ``Policy.check_call``)."""
        known_tool = known(tool) or tool in ALL_BUILTIN_TOOL_NAMES
        key = self._memo.key(tool, args or {}, mode, cwd,
                             definition.name if definition is not None else None, known_tool)
        found = self._memo.get(key)
        if found is not None:
            return found
        return self._memo.put(key, self._check_call(tool, args, definition, mode=mode, cwd=cwd,
                                                    known_tool=known_tool))

    def _check_call(self, tool: str, args: Mapping[str, Any] | None,
                    definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                    known_tool: bool) -> Decision:
        name, interactive = parse_mode(mode)
        agent = definition.name if definition is not None else "(main)"
        shown_mode = name if interactive else f"{name} non-interactive"
        base = {"agent": agent, "tool": tool, "canonical": tool, "question": "call",
                "mode": shown_mode, "cwd": cwd or str(self.config.root)}
        call = dict(args) if isinstance(args, Mapping) else {}
        removed = self._mcp_filtered(tool)
        if removed is not None:
            return Decision(effect=Effect.IMPLICIT_DENY, reason=Reason.POOL, message=removed[0],
                            rule=removed[1], **base)  # type: ignore[arg-type]
        engine = self.engine(name, interactive)
        result = engine.check(tool, call, None, None,
                              definition.name if definition is not None else None)
        decision = self._decision(result, tool, interactive, base)
        if decision.effect is not Effect.ALLOW:
            # worked out only when a view asks (decision.near_misses): replays pay nothing
            rules, asked = engine.rules, decision
            decision = replace(decision, near=lambda: near_misses(rules, self._rule, asked,
                                                                  tool, call))
        if known_tool:
            return decision
        return replace(decision, warnings=(
            f"{tool} is not a tool of this project (the rules are evaluated anyway)",))

    def _decision(self, result: CheckResult, tool: str, interactive: bool,
                  base: dict[str, Any]) -> Decision:
        what = f"`{result.command}`" if result.command else tool
        verdict = self._verdict(result, what, interactive)
        parts = tuple(self._decision(p, tool, interactive, {**base, "tool": p.command or tool})
                      for p in result.parts)
        message = verdict[3]
        if parts and result.rule is None and verdict[0] is not Effect.ALLOW:
            index = combine_parts([p.effect for p in parts])
            if parts[index].effect is not Effect.ALLOW:
                message += f"; part {index + 1} (`{parts[index].tool}`) decides"
        return Decision(effect=verdict[0], reason=verdict[1], message=message,
                        rule=verdict[2], parts=parts, **base)

    def _verdict(self, result: CheckResult, what: str, interactive: bool
                 ) -> tuple[Effect, Reason, Rule, str]:
        rule = result.rule
        note = f"; {result.note}" if result.note else ""
        if rule is not None and rule.decision == result.decision:
            kind = {DENY: "deny", ASK_USER: "ask", ALLOW: "allow"}[result.decision]
            toolkit_rule = self._rule(rule)
            facts = (CallFacts(deny=toolkit_rule, what=what) if kind == "deny" else
                     CallFacts(ask=toolkit_rule, what=what) if kind == "ask" else
                     CallFacts(allow=toolkit_rule, what=what))
            verdict = decide_call(facts, "default")
            message = f"{verdict.message}, {_priority(rule)}{note}"
            if result.decision == DENY and rule.deny_message:
                message += f": {rule.deny_message}"
            if result.decision == ASK_USER and not interactive:
                return (Effect.IMPLICIT_DENY, Reason.MODE, toolkit_rule,
                        f"{message}; non-interactive mode denies whatever would ask")
            return verdict.effect, verdict.reason, toolkit_rule, message
        shown = self._rule(rule) if rule is not None else NO_RULE
        via = f" (matched {rule.text}, {_priority(rule)})" if rule is not None else ""
        if result.decision == ALLOW:
            reason = Reason.READ_ONLY if "known safe" in result.note else Reason.MODE
            return Effect.ALLOW, reason, shown, f"{what} runs{via}{note}"
        if result.decision == ASK_USER:
            if not interactive:
                return (Effect.IMPLICIT_DENY, Reason.MODE, shown,
                        f"{what} would ask{via}{note}; non-interactive mode denies it")
            reason = Reason.UNPARSEABLE if "cannot be parsed" in result.note else Reason.MODE
            head = "no rule matches" if rule is None else "asks"
            return Effect.ASK, reason, shown, f"{head} {what}{via}{note}; the default asks" \
                if rule is None and not result.note else f"{what} asks{via}{note}"
        reason = Reason.UNPARSEABLE if "cannot be parsed" in result.note else Reason.MODE
        if rule is None and not result.note:
            return (Effect.IMPLICIT_DENY, reason, shown,
                    f"no rule matches {what}; the non-interactive default denies it")
        return Effect.IMPLICIT_DENY, reason, shown, f"{what} is denied{via}{note}"

    def _rule(self, rule: PolicyRule) -> Rule:
        """:func:`to_rule` of ``rule``, made once per rule (a rule is fixed once read, and a
        toolkit ``Rule`` is immutable)."""
        found = self._rules.get(id(rule))
        if found is None or found[0] is not rule:
            found = self._rules[id(rule)] = (rule, to_rule(rule))
        return found[1]

    def _mcp_filtered(self, tool: str) -> tuple[str, Rule] | None:
        """An MCP tool ``mcpServers.<s>.includeTools`` / ``excludeTools`` leaves out."""
        server, name = parse_mcp_tool_name(tool)
        if server is None or name is None or server not in self.config.mcp_filters:
            return None
        include, exclude, file, line = self.config.mcp_filters[server]
        rule = Rule(kind="deny", pattern=tool, file=file, line=line, layer="settings")
        if name in exclude:
            return f"mcpServers.{server}.excludeTools removes {name}: the tool is not registered", \
                rule
        if include is not None and name not in include:
            return (f"mcpServers.{server}.includeTools does not list {name}: the tool is not "
                    "registered"), rule
        return None

    @staticmethod
    def call_arguments(tool: str, text: str) -> dict[str, Any]:
        """JSON arguments, or the tool's main field (``command`` of run_shell_command)."""
        stripped = text.strip()
        if stripped.startswith("{"):
            try:
                value = json.loads(stripped)
            except ValueError:
                value = None
            if isinstance(value, dict):
                return value
        return {_MAIN_FIELD.get(tool, "command" if tool == "ShellTool" else "input"): text}

    # -- name level -------------------------------------------------------------------------------

    def name_rules(self, kind: str, known: Callable[[str], bool],
                   servers: Iterable[str]) -> tuple[Rule, ...]:
        """Tools whose decision in the default mode needs no arguments: the rule deciding a bare
        call of each named tool, when it is of ``kind`` (``getExcludedTools`` for deny)."""
        engine = self.engine()
        names = dict.fromkeys([*ALL_BUILTIN_TOOL_NAMES,
                               *(r.tool_name for r in engine.rules if "*" not in r.tool_name)])
        out = []
        for name in names:
            if not known(name):
                continue
            result = engine.check(name, None, skip_heuristics=True)
            rule = result.rule
            if rule is None or rule.compiled is not None or _KIND[result.decision] != kind:
                continue
            if rule.decision != result.decision:
                continue
            if rule.decision == DENY and name not in engine.excluded_tools(
                    all_tool_names=[name]):
                # getExcludedTools keeps a tool a higher-priority non-deny argsPattern rule
                # names (tools.allowed narrowing run_shell_command): its calls are decided
                # by their arguments, not denied by name
                continue
            out.append(to_rule(rule).model_copy(update={"pattern": name, "spec": None}))
        return tuple(out)

    def argument_rules(self, definition: AgentDefinition | None,
                       lookup: Callable[[str], str | None]) -> dict[str, tuple[Rule, ...]]:
        """Pool tool -> the rules deciding its calls by argument (``argsPattern`` rules)."""
        out: dict[str, list[Rule]] = {}
        for rule in self.engine().rules:
            if rule.compiled is None or "*" in rule.tool_name:
                continue
            canonical = lookup(rule.tool_name)
            if canonical is not None:
                out.setdefault(canonical, []).append(to_rule(rule))
        return {tool: tuple(rules) for tool, rules in out.items()}

    # -- tables ---------------------------------------------------------------------------------

    def rule_languages(self, tools: Iterable[str], servers: Iterable[str] = ()
                       ) -> list[dict[str, Any]]:
        """Every rule, highest priority first, as regular languages over the arguments'
        JSON, for ``proj.lint()`` in the default interactive mode (:mod:`.languages`); the
        pool is ``tools`` and Gemini CLI's built-in tools (always there)."""
        from .languages import rule_languages

        pool = sorted({*tools, *ALL_BUILTIN_TOOL_NAMES})
        return rule_languages(self.engine().rules, pool, self._rule, _MAIN_FIELD)

    def frame(self, agents: Iterable[AgentDefinition]) -> pd.DataFrame:
        """Every rule in Gemini's order (highest priority first, as ``/policies list``), then
        the workspace files Gemini CLI does not load."""
        import pandas as pd

        rows = [{"text": r.text, "kind": _KIND[r.decision], "tool": r.tool_name,
                 "spec": r.written or None, "layer": r.tier, "file": r.file, "line": r.line,
                 "agent": r.subagent, "status": "active", "warnings": "",
                 "priority": r.priority, "source": r.source,
                 "modes": ",".join(r.modes or ()), "interactive": r.interactive}
                for r in self.engine().rules]
        rows += [{"text": p.name, "kind": None, "tool": None, "spec": None,
                  "layer": "workspace", "file": _rel(p, self.config.root), "line": None,
                  "agent": None, "status": "disabled", "priority": None,
                  "source": "Workspace (disabled)", "modes": "", "interactive": None,
                  "warnings": "Gemini CLI does not load workspace policies "
                              "(disableWorkspacePolicies)"}
                 for p in self.config.workspace_files]
        columns = ["text", "kind", "tool", "spec", "layer", "file", "line", "agent", "status",
                   "warnings", "priority", "source", "modes", "interactive"]
        return pd.DataFrame(rows, columns=columns).astype({"line": "Int64"})

    def policies_list(self) -> str:
        """``/policies list`` (cli/ui/commands/policiesCommand.ts): the active rules in the
        engine's order (highest priority first), grouped by mode as Gemini CLI prints them."""
        rules = self.engine().get_rules()
        if not rules:
            return "No active policies."
        by_mode: dict[str, list[PolicyRule]] = {m: [] for m in ("default", "autoEdit", "yolo",
                                                                "plan")}
        for rule in rules:
            for mode in (rule.modes or by_mode):
                if mode in by_mode:
                    by_mode[mode].append(rule)
        normal = {id(r) for r in by_mode["default"]}
        sections = [("Normal Mode Policies", by_mode["default"])] + [
            (f"{title} Mode Policies (combined with normal mode policies)",
             [r for r in by_mode[mode] if id(r) not in normal])
            for title, mode in (("Auto Edit", "autoEdit"), ("Yolo", "yolo"), ("Plan", "plan"))]
        content = "**Active Policies**\n\n"
        for title, section in sections:
            body = "\n".join(_policy_line(r, i) for i, r in enumerate(section)) \
                if section else "_No policies._"
            content += f"### {title}\n{body}\n\n"
        return content


def _js_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _policy_line(rule: PolicyRule, index: int) -> str:
    """``formatRule`` of policiesCommand.ts."""
    text = f"{index + 1}. **{rule.decision.upper()}** " + (
        f"tool: `{rule.tool_name}`" if rule.tool_name else "all tools")
    if rule.args_pattern:
        text += f" (args match: `{rule.args_pattern}`)"
    text += f" [Priority: {_js_number(rule.priority)}]"
    if rule.source:
        text += f" [Source: {rule.source}]"
    return text


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def open_engine(path: str | os.PathLike[str], *, home: Any = None, managed: Any = None,
                cli: Any = None, trusted: bool | None = None,
                **_: Any) -> GeminiPermissions | None:
    """The policies of the Gemini CLI project at ``path`` (a folder holding ``.gemini/``), or
    None when it is not one. ``home`` stands for ``~`` (False: no user tier), ``managed`` is
    the admin folder (policies and system settings; default ``/etc/gemini-cli``, False:
    none); ``cli`` (Claude Code's flags) is not read."""
    root = Path(path)
    if root.is_file() or not (root / ".gemini").is_dir():
        return None
    return GeminiPermissions(load_config(root, home=home_folder(home, Path.home()),
                                         managed=home_folder(managed, Path("/etc/gemini-cli")),
                                         trusted=trusted))


def empty_engine(root: str) -> GeminiPermissions:
    """Gemini CLI with its built-in policies only (a what-if about any project)."""
    return GeminiPermissions(load_config(Path(root), home=None, managed=None))
