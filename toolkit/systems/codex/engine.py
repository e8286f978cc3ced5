"""Codex's permission engine: what Codex does with one tool call, offline.

A port of ``create_exec_approval_requirement_for_command`` (``codex-rs/core/src/
exec_policy.rs``): the command is split as Codex splits it (:mod:`.bash`), every part
matched against the rules of every layer (:mod:`.execpolicy`, host executables
resolved), a part no rule matches judged by Codex's heuristics (:mod:`.safety`, the
approval policy and the sandbox), and the strictest decision wins: forbidden > prompt >
allow. ``prompt`` is ``ask``; a forbidding rule is ``explicit-deny``; ``prompt`` that
``approval_policy = "never"`` (or a granular policy) refuses, and a dangerous command
under ``never``, are ``implicit-deny``.

Tools: ``shell`` (``{"command": [argv...]}``, Codex's function tool), ``local_shell`` /
``container.exec`` (the same), ``shell_command`` (``{"command": "script"}``) and
``exec_command`` (``{"cmd": "script"}``), the last two run as ``bash -lc SCRIPT``. An MCP
tool ``mcp__server__tool`` is refused when its server is disabled or the tool is not among
``enabled_tools`` / is among ``disabled_tools``.
"""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from ...core.decision import (
    CallFacts,
    CallVerdict,
    Decision,
    Effect,
    Reason,
    Step,
    combine_parts,
    decide_call,
)
from ...core.models import NO_RULE, AgentDefinition, Rule, ServerConfig
from ...errors import DefinitionError, Problem
from ..base.engine import EngineDefaults
from ..base.memo import DecisionMemo
from .approval import (
    PROMPT_CONFLICT_REASON,
    REJECT_RULES_APPROVAL_REASON,
    REJECT_SANDBOX_APPROVAL_REASON,
    ExecPolicyCommands,
    Forbidden,
    NeedsApproval,
    Requirement,
    Skip,
    commands_for_exec_policy,
    exec_approval_requirement,
    requirement_json,
)
from .config import CodexSettings, project_folders, quote, read_settings
from .execpolicy import Evaluation, PrefixRule, RuleMatch, strictest
from .requirements import (
    Requirements,
    RequirementsError,
    compose,
    legacy_managed_config,
    parse_requirements,
    toml_error_line,
)
from .safety import command_might_be_dangerous, is_known_safe_command, known_safe_prefixes

__all__ = ["SHELL_TOOLS", "CodexEngine", "ExecPolicyCommands", "commands_for_exec_policy",
           "empty_engine", "open_engine"]

#: Codex's tools that run a command, and how their arguments give the argv.
SHELL_TOOLS = ("shell", "local_shell", "container.exec", "shell_command", "exec_command")
_KIND = {"forbidden": "deny", "prompt": "ask", "allow": "allow"}


_EFFECTS: dict[type, tuple[Effect, ...]] = {
    Skip: (Effect.ALLOW,), NeedsApproval: (Effect.ASK,),
    Forbidden: (Effect.IMPLICIT_DENY, Effect.DENY)}
_OUTCOME: dict[type, Literal["pass", "fail"]] = {Skip: "pass", NeedsApproval: "fail",
                                                 Forbidden: "fail"}


def _sandbox_permissions(args: Mapping[str, Any]) -> str:
    """``use_default``, ``require_escalated`` or ``with_additional_permissions`` (the
    shell tool's ``sandbox_permissions``; ``with_escalated_permissions: true`` of old)."""
    raw = args.get("sandbox_permissions")
    if raw in ("require_escalated", "with_additional_permissions"):
        return str(raw)
    return "require_escalated" if args.get("with_escalated_permissions") else "use_default"


def _requirement_text(requirement: Requirement) -> str:
    if isinstance(requirement, Forbidden):
        return f"Forbidden: {requirement.reason}"
    if isinstance(requirement, NeedsApproval):
        return "NeedsApproval" + (f": {requirement.reason}" if requirement.reason else "")
    return f"Skip (bypass_sandbox={str(requirement.bypass_sandbox).lower()})"


def _rule(rule: PrefixRule, layer: str | None) -> Rule:
    return Rule(kind=_KIND[rule.decision], pattern=rule.text,
                file=rule.file, line=rule.line, layer=layer)


def _evolve(decision: Decision, **changes: Any) -> Decision:
    """``dataclasses.replace(decision, **changes)`` without its per-field introspection (a
    call builds one decision per part on a hot path): ``Decision`` is a frozen dataclass
    without ``__post_init__`` or slots, so a copy of its fields is a whole decision."""
    new = object.__new__(Decision)
    new.__dict__.update(decision.__dict__)
    new.__dict__.update(changes)
    return new


def _layer(rule: PrefixRule, settings: CodexSettings | None = None) -> str:
    """The layer of a rule's file: system / user / project / managed (requirements)."""
    found = settings.rule_layers.get(rule.file or "") if settings is not None else None
    if found is not None:
        return found
    return "user" if (rule.file or "").startswith("~") else "project"


class CodexEngine(EngineDefaults):
    """One project's Codex settings as a :class:`~toolkit.systems.base.system.PermissionEngine`."""

    system = "codex"

    def __init__(self, settings: CodexSettings, options: Mapping[str, Any] | None = None
                 ) -> None:
        self.settings = settings
        #: how the settings were read (home, cli, system, requirements, managed_config), to
        #: read them again for another working folder (``check_call(cwd=...)``)
        self.options: dict[str, Any] = dict(options or {})
        self._rules = {id(r): _rule(r, _layer(r, settings)) for r in settings.policy.rules()}
        self._folders: dict[Path, CodexEngine] = {}
        #: decisions already made, by the question (the settings are fixed once read)
        self._memo = DecisionMemo()
        self._modes: dict[str, CodexEngine] = {}

    @property
    def problems(self) -> tuple[Problem, ...]:
        return tuple(self.settings.problems)

    # -- the call's argv ------------------------------------------------------------------
    def argv(self, tool: str, args: Mapping[str, Any] | None) -> list[str] | None:
        """The argv Codex would run for a call of a shell tool, else None."""
        args = args or {}
        if tool in ("shell", "local_shell", "container.exec"):
            command = args.get("command")
            if isinstance(command, list):
                return [str(c) for c in command]
            if isinstance(command, str):
                return ["bash", "-lc", command]
            return []
        if tool == "shell_command":
            return ["bash", "-lc", str(args.get("command", ""))]
        if tool == "exec_command":
            return ["bash", "-lc", str(args.get("cmd", args.get("command", "")))]
        return None

    @staticmethod
    def unasked_commands() -> tuple[tuple[str, ...], ...]:
        """The known-safe commands Codex runs unasked when no rule matches under
        ``approval_policy = "untrusted"`` (``safety.known_safe_prefixes``; ``UnaskedEngine``);
        under ``on-request`` / ``never`` every command its sandbox permits runs unasked too."""
        return known_safe_prefixes()

    def call_arguments(self, tool: str, text: str) -> dict[str, Any]:
        """``'git status'`` -> ``{"command": ["git", "status"]}`` for ``shell`` (a script with
        shell operators becomes ``["bash", "-lc", script]``); JSON is taken as written."""
        stripped = text.strip()
        if stripped.startswith("{"):
            loaded = json.loads(stripped)
            if not isinstance(loaded, dict):
                raise ValueError("the arguments must be a JSON object")
            return loaded
        if stripped.startswith("["):
            return {"command": json.loads(stripped)}
        if tool == "exec_command":
            return {"cmd": text}
        if tool == "shell_command":
            return {"command": text}
        try:
            lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            return {"command": ["bash", "-lc", text]}
        if any(t and all(c in "();<>|&" for c in t) for t in tokens) or "$" in text \
                or "`" in text:
            return {"command": ["bash", "-lc", text]}
        return {"command": shlex.split(text)}

    # -- the decision -----------------------------------------------------------------------
    def _unmatched(self, cmd: Sequence[str], *, complex_parsing: bool,
                   escalated: bool) -> tuple[str, str]:
        """(decision, why) for a command no rule matches
        (``render_decision_for_unmatched_command``)."""
        s = self.settings
        approval = s.approval_policy
        if is_known_safe_command(cmd) and not complex_parsing and approval == "untrusted":
            return "allow", "known-safe"
        if command_might_be_dangerous(cmd):
            return ("forbidden" if approval == "never" else "prompt"), "dangerous"
        if approval == "never":
            return "allow", "sandbox"
        if approval == "untrusted":
            return "prompt", "untrusted"
        if s.sandbox_mode == "danger-full-access":
            return "allow", "unrestricted"
        return ("prompt", "escalated") if escalated else ("allow", "sandbox")

    def _heuristic_message(self, cmd: Sequence[str], decision: str, why: str) -> str:
        s = self.settings
        what = f"no rule matches `{quote(cmd)}`"
        return {
            "known-safe": f"{what}; it is a known-safe command and approval_policy is "
                          "untrusted",
            "dangerous": f"{what}; Codex flags it as dangerous (a forced rm), so it "
                         + ("is forbidden: approval_policy is never" if decision == "forbidden"
                            else "asks"),
            "sandbox": f"{what}; it runs in the {s.sandbox_mode} sandbox without asking "
                       f"(approval_policy {s.approval_label})",
            "untrusted": f"{what}; approval_policy untrusted asks for every command that is "
                         "not known-safe",
            "unrestricted": f"{what}; sandbox_mode danger-full-access runs it unasked "
                            f"(approval_policy {s.approval_label})",
            "escalated": f"{what}; it asks to run outside the {s.sandbox_mode} sandbox",
        }[why]

    def _refusal(self, prompt_is_rule: bool) -> str | None:
        """``prompt_is_rejected_by_policy``."""
        s = self.settings
        if s.approval_policy == "never":
            return PROMPT_CONFLICT_REASON
        if s.approval_policy == "granular":
            if prompt_is_rule:
                return None if s.granular.get("rules", True) else REJECT_RULES_APPROVAL_REASON
            return (None if s.granular.get("sandbox_approval", True)
                    else REJECT_SANDBOX_APPROVAL_REASON)
        return None

    def evaluate(self, argv: Sequence[str], *, escalated: bool = False) -> Evaluation:
        """Every match for the argv's commands, heuristics for those no rule matches."""
        split = commands_for_exec_policy(argv)

        def fallback(cmd: Sequence[str]) -> Any:
            return self._unmatched(cmd, complex_parsing=split.used_complex_parsing,
                                   escalated=escalated)[0]

        return self.settings.policy.check_multiple(split.commands, fallback,
                                                   resolve_host_executables=True)

    def execpolicy_check(self, argv: Sequence[str]) -> dict[str, Any]:
        """What ``codex execpolicy check --rules ... ARGV`` prints for this project's rules:
        ``{"matchedRules": [...], "decision": ...}`` (no heuristics, the argv as given)."""
        matched = self.settings.policy.matches_for_command(argv)
        out: dict[str, Any] = {"matchedRules": [m.to_json() for m in matched]}
        if matched:
            out["decision"] = strictest(m.decision for m in matched)
        return out

    def _steps(self, matches: Iterable[RuleMatch]) -> tuple[Step, ...]:
        steps = []
        for m in matches:
            outcome: Literal["pass", "fail"] = "pass" if m.decision == "allow" else "fail"
            if m.rule is None:
                steps.append(Step("heuristics", outcome,
                                  f"no rule matches `{quote(m.command)}`: {m.decision}"))
                continue
            detail = f"matchedPrefix {json.dumps(list(m.matched_prefix))} -> {m.decision}"
            if m.resolved_program:
                detail += f" (resolvedProgram {m.resolved_program})"
            if m.justification:
                detail += f"; justification: {m.justification}"
            steps.append(Step("prefix_rule", outcome, detail, self._rules[id(m.rule)]))
        return tuple(steps)

    def _deciding(self, matches: Sequence[RuleMatch], decision: str) -> RuleMatch | None:
        """The most specific policy match of ``decision`` (``derive_*_reason``)."""
        found = [m for m in matches if m.rule is not None and m.decision == decision]
        return max(found, key=lambda m: len(m.matched_prefix), default=None)

    def _verdict(self, cmd: Sequence[str], matches: Sequence[RuleMatch],
                 complex_parsing: bool, escalated: bool) -> CallVerdict:
        """One command's verdict: rules through decide_call, else Codex's heuristics."""
        what = f"`{quote(cmd)}`"
        decision = strictest(m.decision for m in matches)
        if any(m.is_policy_match for m in matches):
            best = {d: self._deciding(matches, d) for d in ("forbidden", "prompt", "allow")}
            rule = {d: self._rules[id(m.rule)] if m is not None and m.rule is not None else None
                    for d, m in best.items()}
            verdict = decide_call(CallFacts(deny=rule["forbidden"], ask=rule["prompt"],
                                            allow=rule["allow"], what=what), "default")
            chosen = best[decision]
            assert chosen is not None
            message = self._reason(cmd, decision, chosen)
            if verdict.effect is Effect.ASK:
                refused = self._refusal(prompt_is_rule=True)
                if refused is not None:
                    return CallVerdict(Effect.IMPLICIT_DENY, Reason.MODE, verdict.rule,
                                       f"{message}; {refused}")
            return verdict._replace(message=message)
        heuristic, why = self._unmatched(cmd, complex_parsing=complex_parsing,
                                         escalated=escalated)
        message = self._heuristic_message(cmd, heuristic, why)
        if heuristic == "allow":
            if why == "known-safe":
                return decide_call(CallFacts(safe=Reason.READ_ONLY, what=what),
                                   "default")._replace(message=message)
            return CallVerdict(Effect.ALLOW, Reason.MODE, None, message)
        if heuristic == "forbidden":
            return CallVerdict(Effect.IMPLICIT_DENY, Reason.MODE, None, message)
        refused = self._refusal(prompt_is_rule=False)
        if refused is not None:
            return CallVerdict(Effect.IMPLICIT_DENY, Reason.MODE, None, f"{message}; {refused}")
        return CallVerdict(Effect.ASK, Reason.MODE, None, message)

    @staticmethod
    def _reason(cmd: Sequence[str], decision: str, match: RuleMatch) -> str:
        """Codex's words: ``derive_forbidden_reason`` / ``derive_prompt_reason``."""
        command = quote(cmd)
        rule_text = match.rule.text if match.rule is not None else ""
        if decision == "forbidden":
            if match.justification:
                return f"`{command}` rejected: {match.justification}"
            return (f"`{command}` rejected: policy forbids commands starting with "
                    f"`{quote(match.matched_prefix)}`")
        if decision == "prompt":
            if match.justification:
                return f"`{command}` requires approval: {match.justification}"
            return f"`{command}` requires approval by policy"
        why = f"; justification: {match.justification}" if match.justification else ""
        return (f"allow rule {rule_text} matches `{command}` (matched prefix "
                f"`{quote(match.matched_prefix)}`){why}")

    def check_call(self, tool: str, args: Mapping[str, Any] | None,
                   definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                   hook: Any, known: Callable[[str], bool]) -> Decision:
        """What Codex does with this call (``mode``: an approval policy, overriding the
        settings' ``approval_policy`` for this question)."""
        key = self._memo.key(tool, args or {}, mode, cwd,
                             definition.name if definition is not None else None)
        found = self._memo.get(key)
        if found is not None:
            return found
        folder = self._folder(cwd)
        if folder is not None:
            # another working folder: Codex reads the layers from there (its .codex folders
            # between the project root and it, their trust)
            return self._memo.put(key, folder.check_call(
                tool, args, definition, mode=mode, cwd=None, hook=hook, known=known))
        if mode is not None and mode != self.settings.approval_policy:
            other = self._modes.get(mode) or self._modes.setdefault(mode, CodexEngine(
                replace(self.settings, approval_policy=mode, granular={})))
            decision = other.check_call(tool, args, definition, mode=None, cwd=cwd, hook=hook,
                                        known=known)
        else:
            decision = self._check(tool, args, definition, cwd=cwd, known=known)
        return self._memo.put(key, decision)

    def _folder(self, cwd: str | None) -> CodexEngine | None:
        """The engine of a session started in ``cwd`` (relative to the project folder), or
        None when that is the project folder itself, or not a folder here (a transcript's
        cwd from another machine: shown, the project's own layers decide)."""
        if not cwd:
            return None
        place = (self.settings.root / cwd).resolve()
        if place == self.settings.root or not place.is_dir():
            return None
        found = self._folders.get(place)
        if found is None:
            found = self._folders[place] = CodexEngine(
                read_settings(place, **self.options), self.options)
        return found

    def _base(self, definition: AgentDefinition | None, tool: str, cwd: str | None) -> Decision:
        return Decision(agent=definition.name if definition else "(main)", tool=tool,
                        canonical=tool, effect=Effect.ASK, reason=Reason.MODE, message="",
                        question="call", mode=self.settings.approval_label,
                        cwd=cwd or str(self.settings.root), runtime=self.system,
                        warnings=tuple(p.message for p in self.settings.problems
                                       if p.severity == "warning"))

    def _check(self, tool: str, args: Mapping[str, Any] | None,
               definition: AgentDefinition | None, *, cwd: str | None,
               known: Callable[[str], bool]) -> Decision:
        base = self._base(definition, tool, cwd or (args or {}).get("workdir"))
        argv = self.argv(tool, args)
        if argv is None:
            return self._other_tool(base, tool)
        if not argv:
            return _evolve(base, effect=Effect.IMPLICIT_DENY, reason=Reason.UNPARSEABLE,
                           message=f"{tool} needs a command (an argv list)")
        sandbox_permissions = _sandbox_permissions(args or {})
        escalated = sandbox_permissions != "use_default"
        split = commands_for_exec_policy(argv)
        policy = self.settings.policy

        def fallback(cmd: Sequence[str]) -> Any:
            return self._unmatched(cmd, complex_parsing=split.used_complex_parsing,
                                   escalated=escalated)[0]

        parts: list[Decision] = []
        all_matches: list[RuleMatch] = []
        match_steps: list[Step] = []
        for cmd in split.commands:
            matches = policy.matches_for_command(cmd, fallback, resolve_host_executables=True)
            all_matches.extend(matches)
            verdict = self._verdict(cmd, matches, split.used_complex_parsing, escalated)
            part_steps = self._steps(matches)
            match_steps.extend(part_steps)
            parts.append(_evolve(base, tool=quote(cmd), effect=verdict.effect,
                                 reason=verdict.reason, message=verdict.message,
                                 rule=verdict.rule or NO_RULE, trace=part_steps))
        prefix_rule = (args or {}).get("prefix_rule")
        requirement = exec_approval_requirement(
            policy, argv, approval_policy=self.settings.approval_policy,
            permission_profile=self.settings.sandbox_mode,
            sandbox_permissions=sandbox_permissions,
            prefix_rule=[str(p) for p in prefix_rule] if isinstance(prefix_rule, list) else None,
            granular=self.settings.granular)
        steps = (*match_steps,
                 Step("approval_policy", "skip",
                      f"approval_policy={self.settings.approval_label} "
                      f"sandbox_mode={self.settings.sandbox_mode}"))
        if split.used_complex_parsing:
            steps += (Step("heredoc", "skip", f"judged as `{quote(split.commands[0])}` (a "
                                              "single command fed a here-document)"),)
        steps += (Step("requirement", _OUTCOME[type(requirement)], _requirement_text(
            requirement)),)
        effect, reason, rule, message = self._top(requirement, parts, all_matches, argv)
        details = self._details(argv, split.commands, all_matches, requirement)
        return _evolve(base, tool=tool, effect=effect, reason=reason, rule=rule,
                       message=message, parts=tuple(parts) if len(parts) > 1 else (),
                       trace=steps, details=details)

    def _top(self, requirement: Requirement, parts: Sequence[Decision],
             matches: Sequence[RuleMatch], argv: Sequence[str]
             ) -> tuple[Effect, Reason, Rule, str]:
        """The whole call's effect, step, rule and message: Codex's requirement decides
        (``create_exec_approval_requirement_for_command``), the parts explain it."""
        want = _EFFECTS[type(requirement)]
        chosen = parts[combine_parts([p.effect for p in parts])]
        if chosen.effect not in want:
            chosen = next((p for p in parts if p.effect in want), chosen)
        effect, reason, rule, message = chosen.effect, chosen.reason, chosen.rule, chosen.message
        if effect not in want:
            # a part Codex would not refuse alone (granular rules vs sandbox prompts)
            effect, reason = want[0], Reason.MODE
            decision = strictest(m.decision for m in matches)
            best = self._deciding(matches, decision)
            rule = self._rules[id(best.rule)] if best is not None and best.rule else NO_RULE
        if isinstance(requirement, Forbidden):
            if len(parts) > 1 or not message.startswith(requirement.reason):
                message = (requirement.reason if requirement.reason in message or
                           chosen.rule.pattern else f"{requirement.reason}; {message}")
            if effect is Effect.IMPLICIT_DENY and requirement.reason not in message:
                message = f"{message}; {requirement.reason}"
        elif isinstance(requirement, NeedsApproval):
            if requirement.reason is not None:
                message = requirement.reason
        elif requirement.bypass_sandbox and len(parts) > 1:
            message = (f"every part of `{quote(argv)}` is allowed by a rule: it runs "
                       "outside the sandbox")
        return effect, reason, rule, message

    def _details(self, argv: Sequence[str], commands: Sequence[Sequence[str]],
                 matches: Sequence[RuleMatch], requirement: Requirement) -> dict[str, Any]:
        """What ``codex execpolicy check`` prints for the call (``matchedRules`` with
        ``matchedPrefix`` and ``justification``, ``decision``) and Codex's requirement."""
        rules = [m.to_json() for m in matches if m.is_policy_match]
        check: dict[str, Any] = {"matchedRules": rules}
        if rules:
            check["decision"] = strictest(m.decision for m in matches if m.is_policy_match)
        out: dict[str, Any] = {"execpolicy_check": check,
                               "commands": [list(c) for c in commands],
                               "requirement": requirement_json(requirement)}
        return out

    def _other_tool(self, base: Decision, tool: str) -> Decision:
        """An MCP tool (enabled / disabled in config.toml) or another Codex tool."""
        if tool.startswith("mcp__") and tool.count("__") >= 2:
            server, _, name = tool[len("mcp__"):].partition("__")
            conf = self.settings.mcp_servers.get(server)
            if conf is not None:
                rule = Rule(kind="deny", pattern=f"mcp_servers.{server}", file=conf.file,
                            layer="user" if (conf.file or "").startswith("~") else "project")
                if conf.disabled_by is not None:
                    return _evolve(base, effect=Effect.IMPLICIT_DENY, reason=Reason.POOL,
                                   rule=Rule(kind="deny", pattern=f"mcp_servers.{server}",
                                             file=conf.disabled_by, layer="managed"),
                                   message=f"MCP server {server} is disabled by requirements: "
                                           f"the mcp_servers allowlist of {conf.disabled_by} "
                                           "does not hold it with this identity")
                if not conf.enabled:
                    return _evolve(base, effect=Effect.IMPLICIT_DENY, reason=Reason.POOL,
                                   rule=rule, message=f"MCP server {server} is disabled "
                                                      "(enabled = false)")
                if conf.enabled_tools is not None and name not in conf.enabled_tools:
                    return _evolve(base, effect=Effect.IMPLICIT_DENY, reason=Reason.POOL,
                                   rule=rule, message=f"{name} is not among {server}'s "
                                                      "enabled_tools")
                if name in conf.disabled_tools:
                    return _evolve(base, effect=Effect.IMPLICIT_DENY, reason=Reason.POOL,
                                   rule=rule, message=f"{name} is among {server}'s "
                                                      "disabled_tools")
            return _evolve(base, effect=Effect.ALLOW, reason=Reason.NO_PROMPT,
                           message=f"{tool}: Codex's exec policy does not govern MCP tool "
                                   "calls; the server's tool is exposed")
        if tool == "apply_patch":
            if self.settings.sandbox_mode == "read-only":
                refused = self._refusal(prompt_is_rule=False)
                if refused is not None:
                    return _evolve(base, effect=Effect.IMPLICIT_DENY, message=(
                        f"apply_patch writes files, which the read-only sandbox does not "
                        f"allow; {refused}"))
                return _evolve(base, effect=Effect.ASK, message=(
                    "apply_patch writes files, which the read-only sandbox does not allow: "
                    "Codex asks"))
            return _evolve(base, effect=Effect.ALLOW, message=(
                f"apply_patch inside the writable roots runs in the {self.settings.sandbox_mode}"
                " sandbox"))
        return _evolve(base, effect=Effect.ALLOW, reason=Reason.NO_PROMPT,
                       message=f"{tool} runs no command: Codex's exec policy does not gate it")

    # -- name-level questions ---------------------------------------------------------------
    def name_rules(self, kind: str, known: Callable[[str], bool],
                   servers: Mapping[str, ServerConfig]) -> tuple[Rule, ...]:
        return ()

    def argument_rules(self, definition: AgentDefinition | None,
                       lookup: Callable[[str], str | None]) -> dict[str, tuple[Any, ...]]:
        rules = tuple(self._rules.values())
        shell = lookup("shell")
        return {shell: rules} if shell is not None and rules else {}

    def frame(self, agents: Iterable[AgentDefinition]) -> Any:
        import pandas as pd

        rows = [{"text": r.text, "kind": _KIND[r.decision], "decision": r.decision,
                 "justification": r.justification, "layer": _layer(r, self.settings),
                 "file": r.file,
                 "line": r.line, "status": "active"} for r in self.settings.policy.rules()]
        rows += [{"text": f"network_rule(host={n.host!r}, protocol={n.protocol!r})",
                  "kind": _KIND[n.decision], "decision": n.decision,
                  "justification": n.justification, "layer": "user" if (n.file or "")
                  .startswith("~") else "project", "file": n.file, "line": n.line,
                  "status": "active"} for n in self.settings.policy.network_rules]
        return pd.DataFrame(rows, columns=["text", "kind", "decision", "justification", "layer",
                                           "file", "line", "status"])

    def rule_languages(self, tools: Iterable[str], servers: Iterable[str] = ()
                       ) -> list[dict[str, Any]]:
        """Each prefix rule as a regular language over argvs, for ``proj.lint()``
        (:mod:`.languages`)."""
        from .languages import rule_languages

        return rule_languages(((r, self._rules[id(r)]) for r in self.settings.policy.rules()),
                              tools, _KIND)

    def examples(self) -> list[dict[str, Any]]:
        """Each rule's ``match`` / ``not_match`` examples as calls of ``shell``: ``{"tool",
        "args", "rule", "matches"}`` (a ``match`` example is listed for the rules of its call
        that match it; ``toolmatrix test`` counts them as tests of their rule)."""
        out: list[dict[str, Any]] = []
        for r in self.settings.policy.rules():
            for tokens, matches in ((t, True) for t in r.matches):
                if r.matches_prefix(tokens) is not None:
                    out.append({"tool": "shell", "args": {"command": list(tokens)},
                                "rule": self._rules[id(r)], "matches": matches})
            out += [{"tool": "shell", "args": {"command": list(tokens)},
                     "rule": self._rules[id(r)], "matches": False} for tokens in r.not_matches]
        return out


def open_engine(path: str | os.PathLike[str], *, home: Any = None, managed: Any = None,
                cli: Sequence[str] | None = None) -> CodexEngine | None:
    """The Codex settings of a session started in the folder ``path``, or None when neither
    it nor a folder above it up to the project root (``.git``) holds ``.codex/``.

    ``managed``: Codex's managed configuration, read only when given: a ``requirements.toml``
    (any ``*.toml`` file but ``managed_config.toml``), a legacy ``managed_config.toml``, or a
    folder laid out as ``/etc/codex`` (``config.toml``: the system layer; ``rules/``;
    ``requirements.toml``; ``managed_config.toml``). Another runtime's managed file (a
    ``.json``) is not Codex's and is left alone."""
    root = Path(path)
    if root.is_file() or not ((root / ".codex").is_dir() or project_folders(root.resolve())):
        return None
    options, problems = managed_options(managed)
    engine = CodexEngine(read_settings(path, home=home, cli=cli, **options),
                         {"home": home, "cli": cli, **options})
    engine.settings.problems[:0] = problems
    return engine


def managed_options(managed: Any) -> tuple[dict[str, Any], list[Problem]]:
    """``read_settings`` options for ``managed`` (see :func:`open_engine`): ``system``,
    ``requirements``, ``managed_config``; and warnings about what could not be used."""
    if managed in (None, False):
        return {}, []
    place = Path(managed)
    if not place.exists():
        return {}, [Problem(str(place), None, "managed: no such file or folder; Codex's managed "
                                              "configuration is read from requirements.toml or "
                                              "a folder holding it (/etc/codex)", "warning")]
    layers: list[Requirements] = []
    options: dict[str, Any] = {}
    files: list[Path] = []
    if place.is_dir():
        options["system"] = place
        files = [f for f in (place / "requirements.toml", place / "managed_config.toml")
                 if f.is_file()]
    elif place.suffix == ".toml":
        files = [place]
    for file in files:
        layers.append(_requirements_file(file))
        if file.name == "managed_config.toml":
            options["managed_config"] = file
    requirements = compose(layers)
    if requirements is not None:
        options["requirements"] = requirements
    return options, []


def _requirements_file(file: Path) -> Requirements:
    """One managed file as requirements (``managed_config.toml``: the legacy mapping);
    ``DefinitionError`` at its line, in Codex's words, when Codex would refuse it."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError(Problem(str(file), None, f"Failed to read requirements file "
                                                       f"{file}: {exc}")) from None
    try:
        if file.name == "managed_config.toml":
            return legacy_managed_config(tomllib.loads(text), str(file))
        return parse_requirements(text, str(file))
    except tomllib.TOMLDecodeError as exc:
        raise DefinitionError(Problem(str(file), toml_error_line(exc),
                                      f"Failed to parse config requirements as TOML: {exc}")
                              ) from None
    except RequirementsError as exc:
        raise DefinitionError(Problem(str(file), exc.line, exc.message)) from None


def empty_engine(root: str) -> CodexEngine:
    """Codex with no rules and its defaults (on-request, read-only sandbox)."""
    return CodexEngine(CodexSettings(root=Path(root), codex_home=None, trusted=None))
