"""Write a policy as OpenCode's ``opencode.json`` ``permission`` map.

OpenCode evaluates the flattened map in order and the *last* matching pattern wins (each
command of a compound shell command on its own; any deny denies). Claude Code's precedence
becomes an order: ``"*": "ask"`` first (the default mode asks), then the allow patterns, then
``"*>*": "ask"`` (a redirection: Claude Code checks its target as an edit), then the ask
patterns, then the deny patterns last, so a deny overrides whatever matched before.

OpenCode's wildcard is Claude Code's ``Bash(...)`` grammar almost word for word (``*`` any
run of characters, a trailing `` *`` also matches the bare command), so shell rules are
written as they are: ``Bash(git push:*)`` is ``"git push *"``. A ``?`` is a wildcard in
OpenCode and literal in Claude Code (an allow holding one is not written). Tools: ``*`` asks,
the read-only tools (``read``, ``glob``, ``grep``, ``list``, ``todowrite``, ``task``...) are
allowed as Claude Code runs its own unasked; a path rule is written at any depth (stricter).

Source: opencode.ai/docs/permissions; sst/opencode ``packages/opencode/src/permission``,
``src/util/wildcard.ts``, ``src/tool/bash.ts``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.decision import Effect
from .common import dead_wrapper_allow, quoted_wildcard_allow, wrapper_loss
from .rules import ShellPattern, SourceRule
from .target import Loss, Written

__all__ = ["FILE", "call", "write"]

RUNTIME = "opencode"
FILE = "opencode.json"
_ACTION = {Effect.ALLOW: "allow", Effect.ASK: "ask", Effect.DENY: "deny"}
_ORDER = (Effect.ALLOW, Effect.ASK, Effect.DENY)
#: tools Claude Code runs unasked (reads inside the project, its own bookkeeping)
_QUIET = ("read", "glob", "grep", "list", "todowrite", "todoread", "question", "task",
          "skill", "lsp")
_FAMILY = {"read": "read", "edit": "edit", "webfetch": "webfetch", "websearch": "websearch"}
_OTHER = {"Agent": "task", "Task": "task", "TodoWrite": "todowrite", "Skill": "skill"}
_CALLS: Mapping[str, tuple[str, Mapping[str, str]]] = {
    "Bash": ("bash", {}),
    "Read": ("read", {"file_path": "filePath"}), "Edit": ("edit", {"file_path": "filePath"}),
    "MultiEdit": ("edit", {"file_path": "filePath"}),
    "Write": ("write", {"file_path": "filePath"}),
    "Glob": ("glob", {}), "Grep": ("grep", {}), "LS": ("list", {}),
    "WebFetch": ("webfetch", {}), "WebSearch": ("websearch", {}),
    "Agent": ("task", {}), "Task": ("task", {}),
}


def shell_pattern(pattern: ShellPattern) -> str:
    """The OpenCode wildcard matching the commands ``pattern`` matches."""
    if pattern.kind == "any":
        return "*"
    if pattern.kind == "prefix":
        return f"{pattern.text} *" if pattern.boundary else f"{pattern.text}*"
    return pattern.text


def _path_patterns(spec: str) -> list[str]:
    text = spec
    for prefix in ("//", "~/", "./", "/"):
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    text = text.replace("**", "*")
    return list(dict.fromkeys([text, f"*/{text}"]))


def _mcp_key(rule: SourceRule) -> str:
    server, tool = rule.mcp
    return f"{server}_{tool or '*'}"


#: (permission key, pattern) -> the source rule written there (filled by ``write``)
_Origin = dict[tuple[str, str], SourceRule]


def _put(table: dict[str, str], pattern: str, action: str) -> None:
    table.pop(pattern, None)  # a later rule of the same pattern must come last
    table[pattern] = action


def _place(rule: SourceRule, shell: dict[Effect, dict[str, str]],
           tools: dict[str, dict[Effect, dict[str, str]]], losses: list[Loss],
           origin: _Origin) -> None:
    """Put ``rule``'s patterns under its permission key (or list why it cannot be)."""
    action = _ACTION[rule.effect]
    if rule.family == "shell":
        if dead_wrapper_allow(rule, losses) or quoted_wildcard_allow(rule, losses):
            return
        if "?" in rule.shell.text and rule.effect is Effect.ALLOW:
            losses.append(Loss("dropped", "'?' is a wildcard in OpenCode, a letter in Claude "
                                          "Code: the allow would cover more", rule))
        else:
            _put(shell[rule.effect], shell_pattern(rule.shell), action)
            origin[("bash", shell_pattern(rule.shell))] = rule
        return
    key, patterns = _key_patterns(rule, losses)
    if key is None:
        return
    table = tools.setdefault(key, {e: {} for e in _ORDER})[rule.effect]
    for pattern in patterns:
        _put(table, pattern, action)
        origin[(key, pattern)] = rule


def _key_patterns(rule: SourceRule, losses: list[Loss]) -> tuple[str | None, list[str]]:
    if rule.family == "mcp":
        return _mcp_key(rule), ["*"]
    if rule.tool in _OTHER:
        return _OTHER[rule.tool], ["*"]
    if rule.family not in _FAMILY:
        losses.append(Loss("dropped", f"OpenCode has no tool for {rule.tool}", rule))
        return None, []
    key = _FAMILY[rule.family]
    if rule.spec is None and rule.effect is Effect.ALLOW and key == "edit" and \
            rule.tool != "Write":
        losses.append(Loss("dropped", f"OpenCode's edit permission covers write as well: an "
                                      f"allow of {rule.tool} alone is not written (edits ask)",
                           rule))
        return None, []
    if rule.spec is None:
        return key, ["*"]
    if rule.effect is Effect.ALLOW:
        losses.append(Loss("dropped", f"an allow of one {rule.family} target is not written "
                                      "(its anchoring differs); the default decides", rule))
        return None, []
    if rule.family == "webfetch":
        host = rule.spec.removeprefix("domain:")
        patterns = [f"*://{host}", f"*://{host}/*", f"*://{host}:*"]
        losses.append(Loss("stricter", "written as URL patterns of the host (any scheme)", rule,
                           ", ".join(patterns)))
        return key, patterns
    patterns = _path_patterns(rule.spec)
    losses.append(Loss("stricter", "the path is matched at any depth", rule, ", ".join(patterns)))
    return key, patterns


def write(rules: list[SourceRule], root: Path, mode: str | None) -> Written:
    """The ``opencode.json`` for ``rules``."""
    losses: list[Loss] = [
        wrapper_loss("OpenCode", "matches each command as written"),
        Loss("semantics", "a command that redirects output (>) asks: Claude Code checks the "
                          "redirect target as an edit of that file instead", tags=("redirect",)),
        Loss("semantics", "Claude Code runs its read-only commands (ls, cat, grep, git status, "
                          "...) unasked when no rule matches; the converted map asks for every "
                          "command no rule allows", tags=("read-only",)),
        Loss("semantics", "OpenCode asks external_directory for a path argument outside the "
                          "project (cd, rm, cp, mv, mkdir, touch, chmod, chown, cat) before "
                          "the command's own rule", tags=("path",)),
        Loss("permissive", "OpenCode asks no bash permission for cd (tool/bash.ts leaves it out "
                           "of the patterns it asks for; only a folder outside the project asks "
                           "external_directory): a line of cd alone (cd src) runs unasked "
                           "whatever is written, where the source may refuse or ask",
             tags=("cd-only",)),
        Loss("permissive", "OpenCode asks for commands only: a line of variable assignments "
                           "alone (FOO=1 BAR=2) runs unasked whatever is written, where Claude "
                           "Code asks", tags=("assignment-only",)),
        Loss("permissive", "a line the shell cannot parse (an unclosed quote) is never approved "
                           "by Claude Code; OpenCode matches its text against the patterns, "
                           "so an allow pattern can run it (the shell then refuses it)",
             tags=("unparseable",)),
    ]
    shell: dict[Effect, dict[str, str]] = {e: {} for e in _ORDER}
    tools: dict[str, dict[Effect, dict[str, str]]] = {}
    origin: _Origin = {}
    for rule in rules:
        _place(rule, shell, tools, losses, origin)
    bash = {"*": "ask"}
    for effect in _ORDER:
        if effect is Effect.ASK:
            _put(bash, "*>*", "ask")
        for pattern, action in shell[effect].items():
            _put(bash, pattern, action)
    permission: dict[str, Any] = {"*": "ask", **dict.fromkeys(_QUIET, "allow"), "bash": bash}
    for key, by_effect in tools.items():
        table: dict[str, str] = {"*": "ask" if key not in _QUIET else "allow"}
        for effect in _ORDER:
            for pattern, action in by_effect[effect].items():
                _put(table, pattern, action)
        permission[key] = table["*"] if list(table) == ["*"] else table
    if mode not in (None, "default"):
        losses.append(Loss("semantics", f"the source's defaultMode {mode} is not written",
                           tags=("default",)))
    text = json.dumps({"$schema": "https://opencode.ai/config.json", "permission": permission},
                      indent=2, ensure_ascii=False) + "\n"
    return Written(RUNTIME, {FILE: text}, losses, call, lines=_lines(text, origin))


def _lines(text: str, origin: Mapping[tuple[str, str], SourceRule]
           ) -> dict[tuple[str, int], SourceRule]:
    """(file, line) -> the source rule written on that line of ``text``."""
    out: dict[tuple[str, int], SourceRule] = {}
    key = ""
    for number, line in enumerate(text.splitlines(), start=1):
        depth = len(line) - len(line.lstrip())
        stripped = line.strip().rstrip(",")
        if not stripped.startswith('"') or ":" not in stripped:
            continue
        try:
            name, _ = json.JSONDecoder().raw_decode(stripped)
        except ValueError:
            continue
        if depth == 4:
            key = name
            found = origin.get((key, "*")) if not stripped.endswith("{") else None
        else:
            found = origin.get((key, name))
        if found is not None:
            out[(FILE, number)] = found
    return out


def call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    if tool.startswith("mcp__"):
        server, _, name = tool[5:].partition("__")
        return f"{server}_{name}", dict(args)
    found = _CALLS.get(tool)
    if found is None:
        return None
    name, renames = found
    return name, {renames.get(k, k): v for k, v in args.items()}
