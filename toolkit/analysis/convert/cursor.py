"""Write a policy as Cursor CLI's ``.cursor/cli.json`` ``permissions`` (allow / deny tokens).

Cursor's CLI has two lists and no ask (cursor.com/docs/cli/reference/permissions): "Deny rules
take precedence over allow rules"; a call no rule decides asks for a terminal command, a web
fetch and an MCP tool, and runs unasked for a read, a search, a subagent and an edit inside
the workspace (cursor.com/docs/agent/security; toolkit's Cursor engine,
``toolkit/systems/cursor``). So, never more permissive than the source:

- ``Shell(...)`` allow tokens are never written. Cursor matches a command's words, not where it
  redirects output (toolkit's reading of its docs), so ``Shell(git)`` would run
  ``git log > notes.txt`` unasked, where Claude Code checks ``notes.txt`` as an edit and asks;
  every shell allow is listed ``dropped`` and the command asks. Deny rules are written: a
  word-boundary prefix ``Bash(git push:*)`` is ``Shell(git:push)`` plus ``Shell(git:push *)``
  (the documented ``command:args`` form), an exact command ``Shell(git:status)``, a wildcard
  in the arguments ``Shell(git:* main)``; what the grammar cannot say is written broader
  (``stricter``). A shell ask rule needs nothing: no allow is written, Cursor's default asks.
- An ask rule where the target would run the call unasked (a read, an edit, or a fetch / MCP
  tool an allow token reaches) is written as a deny (``stricter``): Cursor cannot ask.
- Edits: unless the source lets both Edit and Write run unasked (an unconditional allow of
  each, or ``defaultMode`` ``acceptEdits`` / ``bypassPermissions``), ``Write(**)`` is denied,
  Cursor's only way not to edit the workspace unasked where Claude Code asks (``stricter``).
- Path rules are written at the path and at any depth below the workspace (``stricter``);
  ``WebFetch(domain:x)`` is ``WebFetch(x)``; ``mcp__server__tool`` is ``Mcp(server:tool)``.

Two behaviours no token can tighten short of denying every read are listed as losses: Cursor
reads files outside the workspace unasked, and its Grep is governed by no token (a Read deny
does not stop a search).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.decision import Effect
from .common import wrapper_loss
from .rules import ShellPattern, SourceRule
from .target import Loss, Written

__all__ = ["FILE", "call", "shell_tokens", "write"]

RUNTIME = "cursor"
FILE = ".cursor/cli.json"
#: Claude Code tool -> (Cursor tool, argument renames)
_CALLS: Mapping[str, tuple[str, Mapping[str, str]]] = {
    "Bash": ("Shell", {}),
    "Read": ("Read", {}), "LS": ("Read", {}),
    "Edit": ("Write", {}), "MultiEdit": ("Write", {}), "Write": ("Write", {}),
    "NotebookEdit": ("Write", {"notebook_path": "file_path"}),
    "Grep": ("Grep", {}), "Glob": ("Grep", {}),
    "WebFetch": ("WebFetch", {}),
    "Agent": ("Task", {}), "Task": ("Task", {}),
}
_TOKEN = {"read": "Read", "edit": "Write"}
#: specs of an Edit / Write allow that cover the whole workspace
_EVERYWHERE = (None, "*", "**", "./**", "/**")


def _words(text: str) -> tuple[str, str]:
    """(first word, the rest) of a command text."""
    head, _, rest = text.strip().partition(" ")
    return head, rest.strip()


def shell_tokens(pattern: ShellPattern) -> tuple[list[str], bool]:
    """The ``Shell(...)`` values matching at least the commands ``pattern`` matches, and whether
    they match exactly those (False: broader, a deny written this way is stricter)."""
    if pattern.kind == "any":
        return ["*"], True
    text = pattern.text if pattern.kind == "glob" else pattern.text.strip()
    head, rest = _words(text)
    exact = "?" not in text  # '?' is a letter in Claude Code, a wildcard in Cursor
    if not head or "*" in head or ":" in head:
        # the first word holds a wildcard (which in Claude Code also crosses spaces) or a ':'
        # (Cursor's base:args separator): every command whose first word starts alike
        literal = head.split("*", 1)[0].split(":", 1)[0]
        return [f"{literal}*" if literal else "*"], False
    if pattern.kind == "prefix" and pattern.boundary:
        return ([head] if not rest else [f"{head}:{rest}", f"{head}:{rest} *"]), exact
    if pattern.kind == "prefix":
        return [f"{head}:{rest}*" if rest else f"{head}*"], exact
    return [f"{head}:{rest}"], exact  # exact, or a glob with wildcards in the arguments


def _paths(spec: str) -> tuple[list[str], bool]:
    """Cursor path globs for a Claude Code path spec (relative ones also at any depth)."""
    text = spec.strip()
    if text.startswith("//"):
        return [text[1:]], True
    if text.startswith("~/"):
        return [text], True
    for prefix in ("./", "/"):
        text = text.removeprefix(prefix)
    if text.startswith("**/"):
        return [text], True
    return list(dict.fromkeys([text, f"**/{text}"])), False


class _Out:
    """The allow and deny tokens, each with the source rule it was written for."""

    def __init__(self) -> None:
        self.tokens: dict[str, list[tuple[str, SourceRule | None]]] = {"allow": [], "deny": []}

    def add(self, kind: str, token: str, rule: SourceRule | None) -> None:
        if all(t != token for t, _ in self.tokens[kind]):
            self.tokens[kind].append((token, rule))

    def text(self) -> tuple[str, dict[tuple[str, int], SourceRule]]:
        """The file, and (file, line) -> the source rule written on that line."""
        data = {"permissions": {k: [t for t, _ in v] for k, v in self.tokens.items() if v}}
        lines = json.dumps(data, indent=2, ensure_ascii=False).splitlines()
        where: dict[tuple[str, int], SourceRule] = {}
        kind, index = "", 0
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            if stripped.startswith(('"allow"', '"deny"')):
                kind, index = stripped.split('"')[1], 0
            elif kind and index < len(self.tokens[kind]):
                rule = self.tokens[kind][index][1]
                if rule is not None:
                    where[(FILE, number)] = rule
                index += 1
        return "\n".join(lines) + "\n", where


def _edits_free(rules: list[SourceRule], mode: str | None) -> bool:
    if mode in ("acceptEdits", "bypassPermissions"):
        return True
    free = {r.tool for r in rules if r.family == "edit" and r.effect is Effect.ALLOW
            and r.spec in _EVERYWHERE}
    return {"Edit", "Write"} <= free


def _shell(rule: SourceRule, out: _Out, losses: list[Loss]) -> None:
    if rule.effect is Effect.ALLOW:
        losses.append(Loss("dropped", "Cursor matches a command's words, not where it "
                                      "redirects output: an allow token would run the "
                                      "command with '> file' unasked, where Claude Code asks "
                                      "to edit the file; not written, the command asks", rule))
        return
    if rule.effect is Effect.ASK:
        return  # no Shell allow is written: Cursor's default asks, as the rule says
    tokens, exact = shell_tokens(rule.shell)
    for token in tokens:
        out.add("deny", f"Shell({token})", rule)
    if not exact:
        losses.append(Loss("stricter", "Cursor's Shell(base:args) cannot say this pattern "
                                       "exactly: a broader deny is written", rule,
                           ", ".join(f"Shell({t})" for t in tokens)))


def _file(rule: SourceRule, out: _Out, losses: list[Loss], edits_free: bool) -> None:
    token = _TOKEN[rule.family]
    if rule.effect is Effect.ALLOW:
        if rule.family == "edit" and not edits_free:
            losses.append(Loss("dropped", "Cursor cannot ask before an edit, and the source "
                                          "asks for some: Write(**) is denied, so this allow "
                                          "is not written", rule))
        return  # Cursor reads (and, here, edits the workspace) unasked already
    if rule.spec is None:
        values, exact = (["**", "/**", "~/**"], False)
    else:
        values, exact = _paths(rule.spec)
    for value in values:
        out.add("deny", f"{token}({value})", rule)
    if rule.effect is Effect.ASK:
        losses.append(Loss("stricter", f"Cursor has no ask and runs a {rule.family} unasked: "
                                       "written as a deny", rule,
                           ", ".join(f"{token}({v})" for v in values)))
    elif not exact:
        losses.append(Loss("stricter", "the path is denied at any depth below the workspace "
                                       "(Cursor anchors a relative path at the workspace)",
                           rule, ", ".join(f"{token}({v})" for v in values)))


def _web(rule: SourceRule, out: _Out, losses: list[Loss], allowed: bool) -> None:
    host = (rule.spec or "domain:*").removeprefix("domain:").strip()
    inner = "*" in host.removeprefix("*.") and host != "*"
    if rule.effect is Effect.ALLOW:
        if inner:
            losses.append(Loss("dropped", "Cursor's '*' in a domain crosses dots, Claude Code's "
                                          "stays in one label: the allow would cover more; "
                                          "not written (fetches ask)", rule))
        else:
            out.add("allow", f"WebFetch({host})", rule)
        return
    if rule.effect is Effect.ASK and not allowed:
        return  # no WebFetch allow token: Cursor's default asks
    out.add("deny", f"WebFetch({host})", rule)
    if rule.effect is Effect.ASK:
        losses.append(Loss("stricter", "Cursor has no ask: written as a deny, since an allow "
                                       "token would otherwise run the fetch", rule,
                           f"WebFetch({host})"))


def _mcp(rule: SourceRule, out: _Out, losses: list[Loss], allowed: set[str]) -> None:
    server, tool = rule.mcp
    token = f"Mcp({server}:{tool or '*'})"
    if rule.effect is Effect.ALLOW:
        out.add("allow", token, rule)
    elif rule.effect is Effect.DENY:
        out.add("deny", token, rule)
    elif server in allowed:
        out.add("deny", token, rule)
        losses.append(Loss("stricter", "Cursor has no ask: written as a deny, since an allow "
                                       "token of the server would otherwise run the tool", rule,
                           token))


def write(rules: list[SourceRule], root: Path, mode: str | None) -> Written:
    """The ``.cursor/cli.json`` for ``rules``."""
    losses: list[Loss] = [
        wrapper_loss("Cursor", "matches each command's words as written"),
        Loss("semantics", "Claude Code runs its read-only commands (ls, cat, grep, git status, "
                          "...) unasked; Cursor asks for every terminal command no allow token "
                          "matches, and none is written", tags=("read-only",)),
        Loss("permissive", "Cursor reads files outside the workspace unasked (read tools need "
                           "no approval) where Claude Code asks; only denying every read would "
                           "stop it", tags=("path",)),
        Loss("permissive", "Cursor's Grep is governed by no token, so a Read deny does not "
                           "stop a search as it does in Claude Code"),
    ]
    out = _Out()
    edits_free = _edits_free(rules, mode)
    if not edits_free:
        out.add("deny", "Write(**)", None)
        losses.append(Loss("semantics", "Cursor edits workspace files unasked and cannot ask: "
                                        "Write(**) is denied, since the source asks before an "
                                        "edit (allow Edit and Write to let Cursor edit)",
                           tags=("default",)))
    web_allowed = any(r.family == "webfetch" and r.effect is Effect.ALLOW for r in rules)
    mcp_allowed = {r.mcp[0] for r in rules if r.family == "mcp" and r.effect is Effect.ALLOW}
    for rule in rules:
        if rule.family == "shell":
            _shell(rule, out, losses)
        elif rule.family in _TOKEN:
            _file(rule, out, losses, edits_free)
        elif rule.family == "webfetch":
            _web(rule, out, losses, web_allowed)
        elif rule.family == "mcp":
            _mcp(rule, out, losses, mcp_allowed)
        elif rule.effect is not Effect.ALLOW or rule.tool not in _CALLS:
            losses.append(Loss("dropped", f"Cursor has no permission token for {rule.tool}",
                               rule))
    if mode not in (None, "default"):
        losses.append(Loss("semantics", f"the source's defaultMode {mode} is not written "
                                        "(Cursor's approvalMode is set in ~/.cursor/"
                                        "cli-config.json only)", tags=("default",)))
    text, lines = out.text()
    return Written(RUNTIME, {FILE: text}, losses, call, lines=lines,
                   notes=["Cursor has no ask: deny where the source asks and Cursor would not"])


def call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    if tool.startswith("mcp__"):
        return tool, dict(args)
    found = _CALLS.get(tool)
    if found is None:
        return None
    name, renames = found
    return name, {renames.get(k, k): v for k, v in args.items()}
