"""Cursor's permission engine: what its agent does with one tool call.

The CLI (modes ``default``, ``auto-review``, ``force``) decides by ``permissions.allow`` /
``deny`` (cursor.com/docs/cli/reference/permissions): "Deny rules take precedence over allow
rules"; a call no rule decides runs unasked when Cursor never asks for it and asks otherwise:

- ``Read``, ``Grep``, ``Task``: "Read tools do not require approval (ie reading files,
  searching across code)" (cursor.com/docs/agent/security); ``Read`` rules decide reads;
- ``Write`` and ``Delete``: "Modifying files within the current workspace does not require
  explicit approval", except files that configure Cursor itself (``.cursor/``,
  ``.vscode/settings.json``); outside the workspace it asks; ``Write`` rules decide them;
- ``Shell``: "Any terminal command suggested by Agents requires approval by default"; each
  simple command the line runs (parsed with tree-sitter-bash, ``&&``, pipes and substitutions
  split) must be allowed, any denied one denies the line (the docs do not say how Cursor treats
  a compound command: toolkit requires every part, the reading that never lets a second
  command through unasked);
- ``WebFetch``: "Without an allowlist entry, each fetch prompts for approval";
- MCP tools (``@server/tool``): "each tool call ... for every external MCP integration must be
  explicitly approved"; ``Mcp(server:tool)`` rules decide them.

``force`` is ``--force`` / ``--yolo`` / ``approvalMode: unrestricted`` ("Force allow commands
unless explicitly denied"); ``auto-review`` sends what would ask to Cursor's classifier, which
cannot run offline (shown as ask). ``ide`` is the editor's agent in its Allowlist run mode
(cursor.com/docs/reference/permissions): a terminal command or MCP tool on
``terminalAllowlist`` / ``mcpAllowlist`` runs unasked, the rest asks; the IDE has no deny list.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ...core.decision import (
    CallFacts,
    CallVerdict,
    Decision,
    Effect,
    Reason,
    combine_parts,
    decide_call,
)
from ...core.models import NO_RULE, AgentDefinition, Rule, ServerConfig
from ...errors import Problem
from ..base import shell
from ..base.engine import EngineDefaults
from ..base.paths import absolute, home_folder, is_under
from .config import CursorConfig, Entry, is_project, read_config
from .names import SYNTAX
from .tokens import (
    domain_matches,
    ide_mcp_matches,
    ide_terminal_matches,
    mcp_matches,
    path_matches,
    shell_matches,
)
from .tools import BUILTINS, MAIN_FIELD, mcp_parts

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MODES", "MODE_ALIASES", "CursorEngine", "empty_engine", "open_engine"]

MODES = ("default", "auto-review", "force", "ide")
MODE_ALIASES = {"allowlist": "default", "unrestricted": "force", "yolo": "force",
                "ide-allowlist": "ide"}
_APPROVAL = {"allowlist": "default", "auto-review": "auto-review", "unrestricted": "force"}
#: files that configure Cursor itself: "We require explicit approval before changing files that
#: modify the configuration of our IDE/CLI, such as the workspace settings file of the editor"
_CONFIG_FILES = (".cursor", ".vscode/settings.json")
_DEFAULT = "<Cursor default>"


def _where(entry: Entry) -> str:
    return f"{entry.file}:{entry.line}" if entry.line is not None else entry.file


class CursorEngine(EngineDefaults):
    """One project's Cursor permission files as a
    :class:`~toolkit.systems.base.system.PermissionEngine`."""

    system = "cursor"

    def __init__(self, config: CursorConfig) -> None:
        self.config = config
        self.root = str(config.root.absolute()).replace(os.sep, "/")
        self.home = str(config.home).replace(os.sep, "/") if config.home is not None else None
        self._rules = {id(e): self._to_rule(e) for e in self.entries()}

    # -- the rules ----------------------------------------------------------------------------
    def entries(self) -> list[Entry]:
        """Every rule: the CLI's, then the IDE's allowlists."""
        return [*self.config.cli, *(self.config.terminal or ()), *(self.config.mcp or ())]

    @staticmethod
    def _to_rule(entry: Entry) -> Rule:
        if entry.token is not None:
            return Rule(kind=entry.kind, pattern=entry.token.kind, spec=entry.token.value,
                        file=entry.file, line=entry.line, layer=entry.layer)
        return Rule(kind="allow", pattern=entry.text, file=entry.file, line=entry.line,
                    layer=entry.layer)

    def rule(self, entry: Entry) -> Rule:
        """``entry`` as a toolkit :class:`~toolkit.core.models.Rule` (text, file:line, layer)."""
        return self._rules[id(entry)]

    @property
    def problems(self) -> tuple[Problem, ...]:
        return tuple(self.config.problems)

    @property
    def default_mode(self) -> str:
        """The CLI's ``approvalMode`` (``~/.cursor/cli-config.json``), else ``default``; a
        project with only the IDE's ``permissions.json`` is asked about as the IDE."""
        if self.config.approval_mode is not None:
            return _APPROVAL[self.config.approval_mode]
        return "ide" if self.config.has_ide and not self.config.has_cli else "default"

    def _mode(self, mode: str | None) -> str:
        if mode is None:
            return self.default_mode
        mode = MODE_ALIASES.get(mode, mode)
        if mode not in MODES:
            raise ValueError(f"unknown Cursor mode {mode!r}; known: {', '.join(MODES)} "
                             f"(aliases: {', '.join(MODE_ALIASES)})")
        return mode

    def _first(self, kind: str, token: str, test: Callable[[str], bool]) -> Rule | None:
        for entry in self.config.rules(kind, token):
            assert entry.token is not None
            if test(entry.token.value):
                return self.rule(entry)
        return None

    def _facts(self, token: str, test: Callable[[str], bool], what: str,
               safe: Reason | None = None, inside: bool = True) -> CallFacts:
        return CallFacts(deny=self._first("deny", token, test),
                         allow=self._first("allow", token, test), safe=safe, inside=inside,
                         what=what)

    # -- one call -----------------------------------------------------------------------------
    def check_call(self, tool: str, args: Mapping[str, Any] | None,
                   definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                   hook: Any, known: Callable[[str], bool]) -> Decision:
        """What Cursor does with this call (``mode``: see :data:`MODES`)."""
        mode = self._mode(mode)
        where = (cwd or self.root).replace(os.sep, "/")
        warnings = tuple(p.message for p in self.config.problems if p.severity == "warning")
        if not known(tool) and tool not in BUILTINS and mcp_parts(tool) is None:
            warnings += (f"{tool} is not a tool of this project nor one Cursor's docs name",)
        base = Decision(agent=definition.name if definition else "(main)", tool=tool,
                        canonical=tool, effect=Effect.ASK, reason=Reason.MODE, message="",
                        question="call", mode=mode, cwd=where, runtime=self.system,
                        warnings=warnings)
        arguments = dict(args or {})
        if mode == "ide":
            return self._ide(base, tool, arguments, where)
        decided = self._cli(base, tool, arguments, where)
        if decided.effect is Effect.ASK and mode == "force":
            return replace(decided, effect=Effect.ALLOW, reason=Reason.MODE,
                           message=f"{decided.message}; --force runs it (only a deny rule "
                                   "stops a call)")
        if decided.effect is Effect.ASK and mode == "auto-review":
            return replace(decided, reason=Reason.CLASSIFIER,
                           message=f"{decided.message}; in auto-review Cursor's classifier "
                                   "decides, which cannot run offline")
        return decided

    def _cli(self, base: Decision, tool: str, args: dict[str, Any], cwd: str) -> Decision:
        parts = mcp_parts(tool)
        if parts is not None:
            server, name = parts
            facts = self._facts("Mcp", lambda v: mcp_matches(v, server, name),
                                f"MCP tool {name} of server {server}")
            return self._decided(base, decide_call(facts, "default"))
        if tool == "Shell":
            return self._shell(base, args, self._cli_part)
        if tool in ("Read", "Write", "Delete"):
            return self._path(base, tool, args, cwd, rules=True)
        if tool == "WebFetch":
            return self._web(base, args)
        if tool in ("Grep", "Task"):
            return self._decided(base, decide_call(
                CallFacts(safe=Reason.NO_PROMPT, what=tool), "default"))
        return replace(base, message=f"{tool} is not a tool Cursor's permission docs describe; "
                                     "toolkit shows it as asking")

    @staticmethod
    def _decided(base: Decision, verdict: CallVerdict, **extra: Any) -> Decision:
        return replace(base, effect=verdict.effect, reason=verdict.reason,
                       rule=verdict.rule or NO_RULE, message=verdict.message, **extra)

    def _cli_part(self, base: Decision, argv: tuple[str, ...], text: str) -> Decision:
        facts = self._facts("Shell", lambda v: shell_matches(v, argv), f"`{text}`")
        return self._decided(replace(base, tool=text), decide_call(facts, "default"))

    def _ide_part(self, base: Decision, argv: tuple[str, ...], text: str) -> Decision:
        entry = next((e for e in self.config.terminal or () if ide_terminal_matches(e.text, argv)),
                     None)
        facts = CallFacts(allow=self.rule(entry) if entry else None, what=f"`{text}`")
        verdict = decide_call(facts, "default")
        if entry is not None:
            verdict = verdict._replace(message=f"terminalAllowlist entry {entry.text!r} "
                                               f"({_where(entry)}) matches `{text}`")
        return self._decided(replace(base, tool=text), verdict)

    def _shell(self, base: Decision, args: dict[str, Any],
               part: Callable[[Decision, tuple[str, ...], str], Decision]) -> Decision:
        command = args.get("command")
        if not isinstance(command, str):
            return replace(base, reason=Reason.UNPARSEABLE,
                           message="Shell needs a command (a string)")
        parsed = shell.parse(command)
        if parsed.problem is not None:
            return self._decided(base, decide_call(CallFacts(unparseable=parsed.problem),
                                                   "default"))
        commands = [c for c in parsed.commands if c.argv]
        if not commands:
            return replace(base, message="the line runs no command toolkit can check; Cursor "
                                         "asks for every terminal command")
        decided = [part(base, c.argv, c.text) for c in commands]
        deciding = decided[combine_parts([d.effect for d in decided])]
        message = deciding.message
        if len(decided) > 1:
            message = (f"every command of the line is allowed: {message}"
                       if deciding.effect is Effect.ALLOW else
                       f"{message} ({len(decided)} commands, `{deciding.tool}` decides)")
        return replace(base, effect=deciding.effect, reason=deciding.reason,
                       rule=deciding.rule, message=message,
                       parts=tuple(decided) if len(decided) > 1 else (),
                       details={"commands": [c.text for c in commands]})

    def _target(self, args: Mapping[str, Any], cwd: str) -> str | None:
        for key in ("path", "file_path", "filePath", "target_file"):
            value = args.get(key)
            if isinstance(value, str) and value:
                return absolute(value, cwd, self.home)
        return None

    def _path(self, base: Decision, tool: str, args: dict[str, Any], cwd: str, *,
              rules: bool) -> Decision:
        target = self._target(args, cwd)
        if target is None:
            return replace(base, reason=Reason.UNPARSEABLE,
                           message=f"{tool} needs a path (path or file_path)")
        inside = is_under(target, self.root)
        if tool == "Read":
            safe: Reason | None = Reason.READ_ONLY
        else:
            relative = target[len(self.root):].lstrip("/") if inside else ""
            config = any(relative == c or relative.startswith(c + "/") for c in _CONFIG_FILES)
            safe = Reason.WORKING_DIR if inside and not config else None
        token = "Read" if tool == "Read" else "Write"
        what = f"{tool.lower()} of {target}"
        if not rules:
            return self._decided(base, decide_call(CallFacts(safe=safe, inside=inside,
                                                             what=what), "default"))
        facts = self._facts(token, lambda v: path_matches(v, target, self.root, self.home),
                            what, safe=safe, inside=inside)
        return self._decided(base, decide_call(facts, "default"))

    def _web(self, base: Decision, args: dict[str, Any]) -> Decision:
        url = args.get("url")
        host = urlsplit(url).hostname if isinstance(url, str) else None
        if not host:
            return replace(base, reason=Reason.UNPARSEABLE,
                           message="WebFetch needs a url with a host (https://host/...)")
        facts = self._facts("WebFetch", lambda v: domain_matches(v, host), f"a fetch from {host}")
        return self._decided(base, decide_call(facts, "default"))

    def _ide(self, base: Decision, tool: str, args: dict[str, Any], cwd: str) -> Decision:
        parts = mcp_parts(tool)
        unread = "the IDE's settings decide, which toolkit cannot read; shown as asking"
        if parts is not None and self.config.mcp is None:
            return replace(base, message=f"no permissions.json defines mcpAllowlist: {unread}")
        if tool == "Shell" and self.config.terminal is None:
            return replace(base, message="no permissions.json defines terminalAllowlist: "
                                         f"{unread}")
        if parts is not None:
            server, name = parts
            entry = next((e for e in self.config.mcp or ()
                          if ide_mcp_matches(e.text, server, name)), None)
            if entry is None:
                return replace(base, message=f"no mcpAllowlist entry matches {server}:{name}; "
                                             "the IDE asks")
            return replace(base, effect=Effect.ALLOW, reason=Reason.ALLOW_RULE,
                           rule=self.rule(entry),
                           message=f"mcpAllowlist entry {entry.text!r} ({_where(entry)}) "
                                   f"matches {server}:{name}")
        if tool == "Shell":
            return self._shell(base, args, self._ide_part)
        if tool in ("Read", "Write", "Delete"):
            return self._path(base, tool, args, cwd, rules=False)
        if tool in ("Grep", "Task"):
            return self._decided(base, decide_call(
                CallFacts(safe=Reason.NO_PROMPT, what=tool), "default"))
        return replace(base, message=f"{tool} has no allowlist in permissions.json; the IDE "
                                     "asks")

    def call_arguments(self, tool: str, text: str) -> dict[str, Any]:
        """JSON arguments as written, or the tool's main field (``command`` of Shell, ``path``
        of Read / Write / Delete, ``url`` of WebFetch)."""
        stripped = text.strip()
        if stripped.startswith("{"):
            try:
                value = json.loads(stripped)
            except ValueError as exc:
                raise ValueError(f"arguments of {tool} are not a JSON object: {exc}") from None
            if not isinstance(value, dict):
                raise ValueError("the arguments must be a JSON object")
            return value
        return {MAIN_FIELD.get(tool, "input"): text}

    # -- name-level questions -----------------------------------------------------------------
    def _rules_of(self, token: str) -> list[Entry]:
        return [e for e in self.config.cli if e.token is not None and e.token.kind == token]

    def _default_ask(self, tool: str) -> Rule:
        return Rule(kind="ask", pattern=tool, file=_DEFAULT, layer="default")

    def name_rules(self, kind: str, known: Callable[[str], bool],
                   servers: Mapping[str, ServerConfig] | Iterable[str]) -> tuple[Rule, ...]:
        """Rules that decide a whole tool whatever its arguments: ``Mcp`` rules (an MCP call
        has no arguments they look at), a deny of ``Shell(*)`` / ``WebFetch(*)``, and the asks
        of Cursor's defaults (a tool whose calls no rule decides and Cursor asks for)."""
        mode = self.default_mode
        if mode == "ide":
            return self._ide_name_rules(known) if kind == "ask" else ()
        if kind == "deny":
            return self._deny_name_rules(known)
        if kind != "ask" or mode == "force":
            return ()
        out = [self._default_ask(tool) for tool in ("Shell", "WebFetch")
               if not self._rules_of(tool) and known(tool)]
        decided = [e.token.value for e in self._rules_of("Mcp") if e.token is not None]
        out.append(Rule(kind="ask", pattern="Mcp", spec="*:*", syntax=SYNTAX, layer="default",
                        file=_DEFAULT, target=json.dumps(decided)))
        return tuple(out)

    def _deny_name_rules(self, known: Callable[[str], bool]) -> tuple[Rule, ...]:
        out = [self.rule(e).model_copy(update={"syntax": SYNTAX})
               for e in self.config.rules("deny", "Mcp")]
        for tool in ("Shell", "WebFetch"):
            whole = next((e for e in self.config.rules("deny", tool)
                          if e.token is not None and e.token.value in ("*", "**")), None)
            if whole is not None and known(tool):
                out.append(self.rule(whole).model_copy(update={"pattern": tool, "spec": None}))
        return tuple(out)

    def _ide_name_rules(self, known: Callable[[str], bool]) -> tuple[Rule, ...]:
        out = [self._default_ask(tool) for tool in ("Shell", "WebFetch")
               if known(tool) and (tool == "WebFetch" or not self.config.terminal)]
        out.append(Rule(kind="ask", pattern="Mcp", spec="*:*", syntax=SYNTAX,
                        layer="ide-default", file=_DEFAULT,
                        target=json.dumps([e.text for e in self.config.mcp or ()])))
        return tuple(out)

    def argument_rules(self, definition: AgentDefinition | None,
                       lookup: Callable[[str], str | None]) -> dict[str, tuple[Any, ...]]:
        """Tools whose calls rules decide by their arguments: Shell (its commands), Read,
        Write and Delete (their path), WebFetch (its domain)."""
        if self.default_mode == "ide":
            family = {"Shell": list(self.config.terminal or ())}
        else:
            family = {"Shell": self._rules_of("Shell"), "Read": self._rules_of("Read"),
                      "Write": self._rules_of("Write"), "Delete": self._rules_of("Write"),
                      "WebFetch": self._rules_of("WebFetch")}
        out: dict[str, tuple[Any, ...]] = {}
        for tool, entries in family.items():
            canonical = lookup(tool)
            if canonical is not None and entries:
                out[canonical] = tuple(self.rule(e) for e in entries)
        return out

    def frame(self, agents: Iterable[AgentDefinition]) -> pd.DataFrame:
        """Every rule: the CLI's tokens, then the IDE's allowlist entries."""
        import pandas as pd

        rows = []
        for entry in self.entries():
            rule = self.rule(entry)
            rows.append({"text": entry.text, "kind": entry.kind,
                         "tool": entry.token.kind if entry.token else (
                             "Shell" if entry in (self.config.terminal or ()) else "Mcp"),
                         "spec": entry.token.value if entry.token else entry.text,
                         "layer": rule.layer, "file": rule.file, "line": rule.line,
                         "status": "active"})
        return pd.DataFrame(rows, columns=["text", "kind", "tool", "spec", "layer", "file",
                                           "line", "status"]).astype({"line": "Int64"})


def open_engine(path: str | os.PathLike[str], *, home: Any = None, managed: Any = None,
                cli: Sequence[str] | None = None, **_: Any) -> CursorEngine | None:
    """The Cursor permission files of the project at ``path`` (``.cursor/cli.json`` or
    ``.cursor/permissions.json``; ``home`` stands for ``~``, False: no user files), or None
    when the project has neither."""
    root = Path(path)
    if root.is_file() or not is_project(root):
        return None
    return CursorEngine(read_config(root, home=home_folder(home, Path.home())))


def empty_engine(root: str) -> CursorEngine:
    """Cursor with no permission file (every default)."""
    return CursorEngine(CursorConfig(root=Path(root)))
