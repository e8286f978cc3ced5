"""Write a policy as Gemini CLI policy TOML (``~/.gemini/policies/*.toml``, the user tier).

Gemini CLI decides by priority: the highest matching rule wins, the whole command first, then
every sub-command again (any deny denies, else any ask asks). Claude Code's precedence (deny,
then ask, then allow, whatever the order) becomes three priority bands inside the user tier:
deny 300, ask 200, allow 100; a catch-all ``ask_user`` at priority 1 stands for Claude Code's
default mode (a command no rule allows asks) and keeps Gemini's built-in "known safe command"
upgrade from allowing what the source asks for.

Shell rules: a deny prefix is a ``commandPrefix`` (Gemini's own word-boundary prefix); every
other shell rule is an ``argsPattern`` over the call's stable JSON (:func:`.common.command_regex`),
exact where the source is exact (``Bash(git status)`` is that command only), and free of
Gemini's shell heuristics, which act on ``commandPrefix`` rules only. The workspace tier
(``.gemini/policies``) is disabled in Gemini CLI (``disableWorkspacePolicies``), so the file
belongs in ``~/.gemini/policies`` (or pass its folder with ``gemini --policy``).

Source: google-gemini/gemini-cli ``docs/reference/policy-engine.md``,
``packages/core/src/policy/{config,utils,policy-engine}.ts``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.decision import Effect
from .common import (
    ANY,
    command_regex,
    dead_wrapper_allow,
    js_escape,
    json_text,
    path_regex,
    quoted_wildcard_allow,
    toml_string,
    wrapper_loss,
)
from .rules import SourceRule
from .target import Loss, Written

__all__ = ["FILE", "call", "write"]

RUNTIME = "gemini-cli"
FILE = "~/.gemini/policies/converted.toml"
_DECISION = {Effect.ALLOW: "allow", Effect.ASK: "ask_user", Effect.DENY: "deny"}
_PRIORITY = {Effect.DENY: 300, Effect.ASK: 200, Effect.ALLOW: 100}
#: a source tool family -> Gemini CLI's tools and the argument holding the path or URL
_TOOLS: Mapping[str, tuple[tuple[str, ...], str | None]] = {
    "read": (("read_file", "read_many_files", "glob", "grep_search", "list_directory"),
             "file_path"),
    "edit": (("write_file", "replace"), "file_path"),
    "webfetch": (("web_fetch",), "prompt"),
    "websearch": (("google_web_search",), None),
}
_OTHER = {"Agent": "invoke_agent", "Task": "invoke_agent", "TodoWrite": "write_todos"}
#: Claude Code tool -> (Gemini CLI tool, argument renames)
_CALLS: Mapping[str, tuple[str, Mapping[str, str]]] = {
    "Bash": ("run_shell_command", {}),
    "Read": ("read_file", {}), "Edit": ("replace", {}), "MultiEdit": ("replace", {}),
    "Write": ("write_file", {}), "NotebookEdit": ("replace", {"notebook_path": "file_path"}),
    "Glob": ("glob", {}), "Grep": ("grep_search", {"path": "dir_path"}),
    "LS": ("list_directory", {"path": "dir_path"}),
    "WebFetch": ("web_fetch", {"url": "prompt"}), "WebSearch": ("google_web_search", {}),
    "Agent": ("invoke_agent", {"subagent_type": "agent_name"}),
    "Task": ("invoke_agent", {"subagent_type": "agent_name"}),
}


def _rule(rule: SourceRule | None, tool: str | tuple[str, ...], effect: Effect, *,
          priority: int | None = None, prefix: str | None = None, args: str | None = None,
          note: str = "") -> str:
    names = tool if isinstance(tool, str) else list(tool)
    # a comment is one line: a rule's text may hold a newline (a heredoc in a Bash rule)
    comment = f"{rule.text}  ({rule.where}, {rule.effect.value}){note}" if rule else note
    comment = comment.replace("\r", "\\r").replace("\n", "\\n")
    lines = [f"# {comment}", "[[rule]]", f"toolName = {json.dumps(names)}"]
    if prefix is not None:
        lines.append(f"commandPrefix = {toml_string(prefix)}")
    if args is not None:
        lines.append(f"argsPattern = {toml_string(args)}")
    lines += [f"decision = {toml_string(_DECISION[effect])}",
              f"priority = {priority if priority is not None else _PRIORITY[effect]}"]
    return "\n".join(lines)


def _shell(rule: SourceRule, losses: list[Loss]) -> list[str]:
    if dead_wrapper_allow(rule, losses) or quoted_wildcard_allow(rule, losses):
        return []
    pattern = rule.shell
    if rule.effect is Effect.DENY and pattern.kind == "prefix" and pattern.boundary:
        return [_rule(rule, "run_shell_command", rule.effect, prefix=pattern.text)]
    return [_rule(rule, "run_shell_command", rule.effect, args=command_regex(pattern))]


def _family(rule: SourceRule, losses: list[Loss]) -> list[str]:
    tools, field = _TOOLS[rule.family]
    if rule.spec is None and rule.effect is Effect.ALLOW:
        # an allow grants its own tool only (Claude Code: ``Edit`` does not allow Write)
        own = _CALLS.get(rule.tool, (None, {}))[0]
        if own is None:
            losses.append(Loss("dropped", f"Gemini CLI has no tool for {rule.tool}", rule))
            return []
        return [_rule(rule, own, rule.effect)]
    if rule.spec is None:
        return [_rule(rule, tools, rule.effect)]
    if rule.effect is Effect.ALLOW:
        losses.append(Loss("dropped", f"an allow rule on one {rule.family} target is not "
                                      "written: Gemini CLI's argsPattern cannot anchor a path "
                                      "as Claude Code does, so the target's default decides "
                                      "(reads run, edits and fetches ask)", rule))
        return []
    spec = rule.spec
    if rule.family == "webfetch":
        host = spec.removeprefix("domain:").removeprefix("*.")
        regex = f'"{field}":"{ANY}' + js_escape(json_text(host))
        losses.append(Loss("stricter", "a domain is matched anywhere in web_fetch's prompt "
                                       "(Gemini CLI fetches the URLs the prompt names)", rule,
                           f"argsPattern {regex}"))
        return [_rule(rule, tools, rule.effect, args=regex)]
    regex = path_regex(spec)
    losses.append(Loss("stricter", "the path is matched at any depth (Gemini CLI's argsPattern "
                                   "sees the absolute path, not Claude Code's anchors)", rule,
                       f"argsPattern {regex}"))
    return [_rule(rule, tools, rule.effect, args=regex)]


def _mcp(rule: SourceRule, losses: list[Loss]) -> list[str]:
    server, tool = rule.mcp
    if tool is not None and "*" in tool:
        if rule.effect is Effect.ALLOW:
            losses.append(Loss("dropped", "Gemini CLI's toolName wildcards are mcp_<server>_* "
                                          "only: an allow of some of a server's tools is not "
                                          "written (they ask)", rule))
            return []
        losses.append(Loss("stricter", "Gemini CLI's toolName wildcards are mcp_<server>_* "
                                       "only: written for every tool of the server", rule,
                           f"mcp_{server}_*"))
        tool = None
    if "_" in server or "*" in server:
        losses.append(Loss("dropped", f"Gemini CLI names MCP tools mcp_<server>_<tool>: a server "
                                      f"name with '_' or '*' ({server}) cannot be told apart",
                           rule))
        return []
    return [_rule(rule, f"mcp_{server}_{tool or '*'}", rule.effect)]


def write(rules: list[SourceRule], root: Path, mode: str | None) -> Written:
    """The Gemini CLI policy for ``rules``."""
    losses: list[Loss] = [wrapper_loss("Gemini CLI", "unwraps only bash -c / sh -c"),
                          Loss("semantics", "Gemini CLI asks for a command that redirects "
                                            "output even when a rule allows it (no "
                                            "allowRedirection is written: Claude Code checks "
                                            "the target as an edit instead)",
                               tags=("redirect",)),
                          Loss("semantics", "Claude Code runs its read-only commands (ls, cat, "
                                            "grep, git status, ...) unasked when no rule "
                                            "matches; the converted policy asks for every "
                                            "command no rule allows",
                               tags=("read-only",)),
                          Loss("semantics", "Gemini CLI checks a compound command (a && b, "
                                            "a | b) against its rules as a whole first: unless "
                                            "the first command's rule matches the whole text "
                                            "(an exact rule never does), it asks, even when "
                                            "every part is allowed",
                               tags=("compound",))]
    blocks = [f"# Converted by toolmatrix from {RUNTIME}'s source rules: deny 300 > ask 200 > "
              "allow 100 (Claude Code's order), all in the user tier.\n# Install in "
              "~/.gemini/policies/ (Gemini CLI does not load .gemini/policies in a workspace)."]
    lines: dict[tuple[str, int], SourceRule] = {}
    for rule in rules:
        start = sum(b.count("\n") + 2 for b in blocks) + 1
        if rule.family == "shell":
            added = _shell(rule, losses)
        elif rule.family in _TOOLS:
            added = _family(rule, losses)
        elif rule.family == "mcp":
            added = _mcp(rule, losses)
        elif rule.tool in _OTHER:
            added = [_rule(rule, _OTHER[rule.tool], rule.effect)]
        else:
            losses.append(Loss("dropped", f"Gemini CLI has no tool for {rule.tool}", rule))
            added = []
        size = sum(b.count("\n") + 2 for b in added)
        lines.update({(FILE, start + i): rule for i in range(size)})
        blocks += added
    blocks.append(_rule(None, ("web_fetch", "google_web_search"), Effect.ASK, priority=1,
                        note="Claude Code asks before fetching or searching the web"))
    blocks.append(_rule(None, "run_shell_command", Effect.ASK, priority=1, args='"command":',
                        note="No rule matches: ask, as Claude Code's default mode does "
                             "(an argsPattern rule, so Gemini's known-safe upgrade is off)"))
    if mode not in (None, "default"):
        losses.append(Loss("semantics", f"the source's defaultMode {mode} is not written "
                                        "(compared in each runtime's default mode)",
                           tags=("default",)))
    setup = {"~/.gemini/trustedFolders.json": json.dumps({"{project}": "TRUST_FOLDER"}),
             ".gemini/settings.json": "{}\n"}
    return Written(RUNTIME, {FILE: "\n\n".join(blocks) + "\n"}, losses, call, setup=setup,
                   lines=lines,
                   notes=["Gemini CLI loads no workspace policies: install the file in "
                          "~/.gemini/policies/ (the check trusts the folder, as a user who "
                          "works in it has)"])


def call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    if tool.startswith("mcp__"):
        server, _, name = tool[5:].partition("__")
        return f"mcp_{server}_{name}", dict(args)
    found = _CALLS.get(tool)
    if found is None:
        return None
    name, renames = found
    return name, {renames.get(k, k): v for k, v in args.items()}
