"""VS Code's (Copilot agent mode) permission engine: what the agent does with one tool call.

``run_in_terminal`` is decided as ``CommandLineAutoApproveAnalyzer.analyze`` decides (microsoft/
vscode ``.../chatAgentTools/browser/tools/commandLineAnalyzer/commandLineAutoApproveAnalyzer.ts``
at 28804a0): the command line (left-trimmed) is cut into sub-commands with tree-sitter
(:func:`.subcommands.extract_sub_commands`); each is checked by the auto-approver and the
whole line by the ``matchCommandLine`` rules. A sub-command or the line *denied* (a ``false``
entry) means the call is never auto-approved: VS Code asks (``ask``; VS Code has no rule that
blocks a command). Otherwise every sub-command approved, or the line approved, runs it
(``allow``); anything else asks. ``chat.tools.terminal.enableAutoApprove: false`` asks always.

Global auto-approve (``chat.tools.global.autoApprove``, user settings only, or
``mode="global-auto-approve"``) runs every call unasked, except the tools that
``chat.tools.eligibleForAutoApproval`` sets to false, which always ask. Without it, the
read-only and edit tools run unasked; ``fetch_webpage`` runs unasked when
``chat.tools.urls.autoApprove`` approves a request to every URL of the call (:mod:`.urls`); any
other tool (MCP tools included) asks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...core.decision import (
    CallFacts,
    CallVerdict,
    Decision,
    Effect,
    Reason,
    Step,
    decide_call,
)
from ...core.models import NO_RULE, AgentDefinition, Rule, ServerConfig
from ...errors import Problem
from ..base.engine import EngineDefaults
from ..base.paths import home_folder
from .autoapprove import (
    ApprovalResult,
    AutoApproveRule,
    AutoApproveRules,
    is_command_auto_approved,
    is_command_line_auto_approved,
)
from .settings import (
    AUTO_APPROVE,
    ELIGIBLE,
    URLS,
    VSCodeSettings,
    has_agent_settings,
    read_settings,
)
from .subcommands import extract_sub_commands
from .urls import matching_approval

__all__ = ["FETCH_TOOL", "MODES", "NO_CONFIRMATION", "TERMINAL_TOOL", "VSCodeEngine",
           "empty_engine", "open_engine"]

#: ``TerminalToolId.RunInTerminal`` (chatAgentTools/browser/tools/toolIds.ts)
TERMINAL_TOOL = "run_in_terminal"
#: the fetch tool, whose calls ``ChatUrlFetchingConfirmationContribution`` checks against
#: ``chat.tools.urls.autoApprove`` (registered with ``params => params.urls``)
FETCH_TOOL = "fetch_webpage"
#: built-in tools that read, search or edit inside the workspace: no confirmation
NO_CONFIRMATION = frozenset({
    "read_file", "list_dir", "file_search", "grep_search", "semantic_search",
    "get_errors", "get_changed_files", "create_file", "create_directory",
    "replace_string_in_file", "insert_edit_into_file", "get_terminal_output",
    "terminal_last_command", "terminal_selection", "await_terminal",
})
#: ``mode=``: the settings as written, or global auto-approve ("YOLO") switched on
MODES = ("default", "global-auto-approve")


class VSCodeEngine(EngineDefaults):
    """One project's VS Code settings as a
    :class:`~toolkit.systems.base.system.PermissionEngine`."""

    system = "vscode"

    def __init__(self, settings: VSCodeSettings) -> None:
        self.settings = settings
        self.approve_rules: AutoApproveRules = settings.rules()
        self._rules = {id(r): self._rule(r) for r in self.approve_rules.all()}

    def _rule(self, r: AutoApproveRule) -> Rule:
        kind = "allow" if r.approve else "ask"
        pattern = r.source_text
        if r.match_command_line:
            pattern = f"{pattern} (matchCommandLine)"
        if r.source.target == "default":
            return Rule(kind=kind, pattern=pattern, file="<VS Code default>", layer="default")
        return Rule(kind=kind, pattern=pattern, file=r.source.file,
                    line=self.settings.line_of(r.source.target, AUTO_APPROVE, r.source_text),
                    layer=r.source.target)

    @property
    def problems(self) -> tuple[Problem, ...]:
        return tuple(self.settings.problems)

    def call_arguments(self, tool: str, text: str) -> dict[str, Any]:
        """``'npm test'`` -> ``{"command": "npm test"}`` for run_in_terminal; JSON as written;
        ``{"url": ...}`` for fetch_webpage; ``{"filePath": ...}`` for the other tools."""
        stripped = text.strip()
        if stripped.startswith("{"):
            loaded = json.loads(stripped)
            if not isinstance(loaded, dict):
                raise ValueError("the arguments must be a JSON object")
            return loaded
        if tool == TERMINAL_TOOL:
            return {"command": text}
        if tool == "fetch_webpage":
            return {"urls": [text]}
        return {"filePath": text}

    # -- the decision -----------------------------------------------------------------------
    def _base(self, definition: AgentDefinition | None, tool: str, mode: str,
              cwd: str | None) -> Decision:
        return Decision(agent=definition.name if definition else "(main)", tool=tool,
                        canonical=tool, effect=Effect.ASK, reason=Reason.MODE, message="",
                        question="call", mode=mode, cwd=cwd or str(self.settings.root),
                        runtime=self.system,
                        warnings=tuple(p.message for p in self.settings.problems
                                       if p.severity == "warning"))

    def check_call(self, tool: str, args: Mapping[str, Any] | None,
                   definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                   hook: Any, known: Callable[[str], bool]) -> Decision:
        """What VS Code's agent does with this call (``mode``: ``default`` or
        ``global-auto-approve``)."""
        global_on, where = self.settings.global_auto_approve
        if mode == "global-auto-approve":
            global_on, where = True, None
        elif mode not in (None, "default"):
            raise ValueError(f"unknown VS Code mode {mode!r}; known: {', '.join(MODES)}")
        base = self._base(definition, tool, "global-auto-approve" if global_on else "default",
                          cwd)
        not_eligible = self.settings.not_eligible()
        if tool in not_eligible:
            f = not_eligible[tool]
            rule = Rule(kind="ask", pattern=tool, file=f.file, line=f.line(ELIGIBLE, tool),
                        layer=f.target)
            verdict = decide_call(CallFacts(ask=rule, what=tool), "default")
            return replace(base, effect=verdict.effect, reason=verdict.reason, rule=rule,
                           message=f"{ELIGIBLE} sets {tool} to false: it is never "
                                   "auto-approved, VS Code always asks")
        if global_on:
            rule = NO_RULE if where is None else Rule(
                kind="allow", pattern="chat.tools.global.autoApprove", file=where.file,
                line=where.line("chat.tools.global.autoApprove") or where.line(
                    "chat.tools.autoApprove"), layer=where.target)
            return replace(base, effect=Effect.ALLOW, reason=Reason.MODE, rule=rule,
                           message=f"global auto-approve runs {tool} without asking "
                                   "(\"YOLO mode\")")
        if tool == TERMINAL_TOOL:
            return self._terminal(base, args or {})
        if tool == FETCH_TOOL:
            return self._fetch(base, args or {})
        if tool in NO_CONFIRMATION:
            return replace(base, effect=Effect.ALLOW, reason=Reason.NO_PROMPT,
                           message=f"{tool} needs no confirmation")
        return replace(base, effect=Effect.ASK, reason=Reason.MODE,
                       message=f"{tool} asks for confirmation (no auto-approval applies)")

    def _url_rule(self, pattern: str, approved: bool) -> Rule:
        layer, file, line = self.settings.url_source(pattern)
        return Rule(kind="allow" if approved else "ask", pattern=pattern, file=file, line=line,
                    layer=layer)

    def _fetch(self, base: Decision, args: Mapping[str, Any]) -> Decision:
        """Every URL approved for requests runs the fetch unasked (``_checkApproval`` with
        ``checkRequest``); otherwise VS Code asks. Whether the responses are approved too (the
        post-confirmation) is in ``details``."""
        urls = args.get("urls")
        if isinstance(urls, str):
            urls = [urls]
        if not isinstance(urls, list) or not urls or not all(isinstance(u, str) for u in urls):
            return replace(base, effect=Effect.ASK, reason=Reason.MODE,
                           message="fetch_webpage without urls: no URL to approve, VS Code asks")
        approved = self.settings.approved_urls
        requests = [matching_approval(u, approved, True) for u in urls]
        responses = [matching_approval(u, approved, False)[0] for u in urls]
        details = {"urls": urls, "requestApproved": [r[0] for r in requests],
                   "responseApproved": responses}
        steps = tuple(Step("url", "pass" if ok else "fail" if pattern else "skip",
                           f"{url}: " + (f"{URLS} {pattern!r} "
                                         f"{'approves' if ok else 'does not approve'} "
                                         "the request" if pattern else "no pattern matches"),
                           self._url_rule(pattern, ok) if pattern else NO_RULE)
                      for url, (ok, pattern) in zip(urls, requests, strict=True))
        missing = [u for u, (ok, _) in zip(urls, requests, strict=True) if not ok]
        if missing:
            pattern = next((p for ok, p in requests if not ok and p), None)
            rule = self._url_rule(pattern, False) if pattern else None
            verdict = decide_call(CallFacts(ask=rule) if rule else CallFacts(), "default")
            return replace(base, effect=verdict.effect, reason=verdict.reason,
                           rule=rule or NO_RULE, trace=steps, details=details,
                           message=f"{URLS} does not approve requests to "
                                   + ", ".join(missing) + ": VS Code asks")
        rule = self._url_rule(str(requests[0][1]), True)
        verdict = decide_call(CallFacts(allow=rule), "default")
        note = "" if all(responses) else "; the response still needs review before the " \
                                         "model reads it"
        return replace(base, effect=verdict.effect, reason=verdict.reason, rule=rule,
                       trace=steps, details=details,
                       message=f"{URLS} approves requests to every URL of the call{note}")

    def _verdict(self, result: ApprovalResult) -> CallVerdict:
        """One approver result as a verdict through the one precedence (decide_call)."""
        rule = self._rules.get(id(result.rule)) if result.rule is not None else None
        if result.result == "denied" and rule is not None:
            facts = CallFacts(ask=rule)
        elif result.result == "approved" and rule is not None:
            facts = CallFacts(allow=rule)
        else:
            facts = CallFacts()
        verdict = decide_call(facts, "default")
        return verdict._replace(message=result.reason)

    def _terminal(self, base: Decision, args: Mapping[str, Any]) -> Decision:
        command = args.get("command")
        if not isinstance(command, str):
            return replace(base, effect=Effect.ASK, reason=Reason.UNPARSEABLE,
                           message="run_in_terminal needs a command (a string)")
        line = command.lstrip()
        subs = extract_sub_commands(line)
        results = [is_command_auto_approved(self.approve_rules, s) for s in subs]
        whole = is_command_line_auto_approved(self.approve_rules, line)
        parts = tuple(replace(base, tool=s, **self._fields(self._verdict(r)))
                      for s, r in zip(subs, results, strict=True))
        steps = tuple(Step("sub-command", "pass" if r.result == "approved" else "fail"
                           if r.result == "denied" else "skip", r.reason,
                           self._rules.get(id(r.rule), NO_RULE) if r.rule else NO_RULE)
                      for r in results)
        steps += (Step("command line", "pass" if whole.result == "approved" else "fail"
                       if whole.result == "denied" else "skip", whole.reason,
                       self._rules.get(id(whole.rule), NO_RULE) if whole.rule else NO_RULE),)
        details = {"subCommands": subs, "subCommandResults": [r.result for r in results],
                   "commandLineResult": whole.result}
        denied = next((r for r in results if r.result == "denied"), None)
        if denied is None and whole.result == "denied":
            denied = whole
        if denied is not None:
            verdict = self._verdict(denied)
            message = f"{denied.reason}: never auto-approved, VS Code asks"
            decided = replace(base, **{**self._fields(verdict), "message": message})
        elif all(r.result == "approved" for r in results):
            deciding = next((r for r in results if r.rule is not None), None)
            verdict = self._verdict(deciding) if deciding else CallVerdict(
                Effect.ALLOW, Reason.MODE, None, "no sub-command to check")
            message = ("every sub-command is auto-approved: " + "; ".join(
                r.reason for r in results)) if len(results) > 1 else verdict.message
            decided = replace(base, **{**self._fields(verdict), "message": message})
        elif whole.result == "approved":
            decided = replace(base, **self._fields(self._verdict(whole)))
        else:
            missing = [s for s, r in zip(subs, results, strict=True) if r.result != "approved"]
            decided = replace(base, effect=Effect.ASK, reason=Reason.MODE,
                              message="no auto-approve rule matches "
                                      + ", ".join(f"'{m}'" for m in missing) + ": VS Code asks")
        if not self.settings.enable_auto_approve and decided.effect is Effect.ALLOW:
            decided = replace(decided, effect=Effect.ASK, reason=Reason.MODE, rule=NO_RULE,
                              message="chat.tools.terminal.enableAutoApprove is false: every "
                                      "command asks")
        return replace(decided, parts=parts if len(parts) > 1 else (), trace=steps,
                       details=details)

    @staticmethod
    def _fields(verdict: CallVerdict) -> dict[str, Any]:
        return {"effect": verdict.effect, "reason": verdict.reason,
                "rule": verdict.rule or NO_RULE, "message": verdict.message}

    # -- name-level questions ---------------------------------------------------------------
    def name_rules(self, kind: str, known: Callable[[str], bool],
                   servers: Mapping[str, ServerConfig]) -> tuple[Rule, ...]:
        if kind != "ask":
            return ()
        return tuple(Rule(kind="ask", pattern=tool, file=f.file, line=f.line(ELIGIBLE, tool),
                          layer=f.target)
                     for tool, f in self.settings.not_eligible().items() if known(tool))

    def argument_rules(self, definition: AgentDefinition | None,
                       lookup: Callable[[str], str | None]) -> dict[str, tuple[Any, ...]]:
        """run_in_terminal: the auto-approve rules; fetch_webpage: the URL patterns (unless
        it always asks, not eligible, or never does, under global auto-approve)."""
        out: dict[str, tuple[Any, ...]] = {}
        terminal = lookup(TERMINAL_TOOL)
        rules = tuple(self._rules.values())
        if terminal is not None and rules:
            out[terminal] = rules
        fetch = lookup(FETCH_TOOL)
        if fetch is not None and FETCH_TOOL not in self.settings.not_eligible() \
                and not self.settings.global_auto_approve[0]:
            urls = tuple(self._url_rule(p, v is True or (isinstance(v, Mapping) and v.get(
                "approveRequest") is True)) for p, v in self.settings.approved_urls.items())
            if urls:
                out[fetch] = urls
        return out

    def frame(self, agents: Iterable[AgentDefinition]) -> Any:
        import pandas as pd

        rows = [{"text": r.source_text, "kind": "allow" if r.approve else "ask",
                 "matchCommandLine": r.match_command_line, "default": r.is_default_rule,
                 "layer": self._rules[id(r)].layer, "file": self._rules[id(r)].file,
                 "line": self._rules[id(r)].line, "status": "active"}
                for r in self.approve_rules.all()]
        return pd.DataFrame(rows, columns=["text", "kind", "matchCommandLine", "default",
                                           "layer", "file", "line", "status"])


def open_engine(path: str | os.PathLike[str], *, home: Any = None, managed: Any = None,
                cli: Sequence[str] | None = None, **_: Any) -> VSCodeEngine | None:
    """The VS Code settings of the project at ``path``, or None when its
    ``.vscode/settings.json`` sets none of the agent's keys (``chat.tools.*``)."""
    root = Path(path)
    workspace = root / ".vscode" / "settings.json"
    if root.is_file() or not workspace.is_file() or not has_agent_settings(workspace):
        return None
    return VSCodeEngine(read_settings(root, home=home_folder(home, Path.home())))


def empty_engine(root: str) -> VSCodeEngine:
    """VS Code with its defaults only (the default auto-approve list)."""
    return VSCodeEngine(VSCodeSettings(root=Path(root)))

