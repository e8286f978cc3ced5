"""Write a policy as Claude Code's ``.claude/settings.json`` ``permissions``.

Claude Code's grammar is the neutral form's own (:mod:`.rules`), so every rule is written as
the neutral form spells it (a Claude Code source's rule as it was written), in ``allow`` /
``ask`` / ``deny``: deny > ask > allow whatever the order. From another runtime, Claude Code's
own behaviours are listed (:func:`foreign_losses`) and its wrapper stripping is answered by
ask rules (:func:`wrapper_rules`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.decision import Effect
from .rules import SourceRule
from .target import Loss, Written

__all__ = ["FILE", "WRAPPERS", "call", "foreign_losses", "wrapper_rules", "write"]

RUNTIME = "claude-code"
FILE = ".claude/settings.json"
_KEY = {Effect.ALLOW: "allow", Effect.ASK: "ask", Effect.DENY: "deny"}


def write(rules: list[SourceRule], root: Path, mode: str | None) -> Written:
    """The settings file for ``rules``."""
    permissions: dict[str, Any] = {"allow": [], "ask": [], "deny": []}
    origin: dict[str, list[SourceRule]] = {"allow": [], "ask": [], "deny": []}
    for rule in rules:
        key = _KEY[rule.effect]
        if rule.neutral not in permissions[key]:
            permissions[key].append(rule.neutral)
            origin[key].append(rule)
    if mode not in (None, "default"):
        permissions["defaultMode"] = mode
    text = json.dumps({"permissions": permissions}, indent=2, ensure_ascii=False) + "\n"
    lines: dict[tuple[str, int], SourceRule] = {}
    kind, index = "", 0
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped in ('"allow": [', '"ask": [', '"deny": ['):
            kind, index = stripped.split('"')[1], 0
        elif kind and stripped.startswith('"') and index < len(origin[kind]):
            lines[(FILE, number)] = origin[kind][index]
            index += 1
        elif stripped.startswith("]"):
            kind = ""
    losses: list[Loss] = []
    return Written(RUNTIME, {FILE: text}, losses, call, lines=lines)


#: the wrappers Claude Code strips before matching (SPEC section 11)
WRAPPERS = ("timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob",
            "xargs", "env")


def wrapper_rules(rules: list[SourceRule], source: str) -> list[SourceRule]:
    """Ask rules for the wrappers Claude Code strips before matching an allow
    (``Bash(timeout:*)``), so ``timeout 30 cargo`` asks as it does in ``source``, where it is
    another command than ``cargo``; a wrapper the source allows itself is left out. (Claude
    Code matches an ask rule before stripping: the ask stops the wrapped command.)"""
    allowed = {r.shell.literal.split()[0] for r in rules if r.family == "shell"
               and r.effect is Effect.ALLOW and r.shell.literal.split()}
    return [SourceRule(f"Bash({w}:*)", Effect.ASK, "Bash", "shell", f"{w}:*", None, None,
                       None, f"Bash({w}:*)") for w in WRAPPERS if w not in allowed]


def foreign_losses(source: str) -> list[Loss]:
    """What Claude Code does that a policy from ``source`` (another runtime) did not: it
    strips wrappers (answered by :func:`wrapper_rules`), runs its read-only commands (``ls``,
    ``cat``, ``git status``...) unasked when no rule matches, and checks a redirection's target
    as an edit."""
    return [Loss("semantics", f"Claude Code strips wrappers (timeout, nice, xargs, env, ...) "
                              f"before matching an allow; {source} sees another command: an ask "
                              "of each wrapper is written (Bash(timeout:*), ...), so a wrapped "
                              "command asks", tags=("wrapper", "assignment")),
            Loss("semantics", f"Claude Code runs its read-only commands (ls, cat, grep, git "
                              f"status, ...) unasked when no rule matches; {source} has its own "
                              "list (where it refuses or asks for one, a deny or ask rule is "
                              "written for it)", tags=("read-only",)),
            Loss("semantics", "Claude Code checks the target of a redirection (> file) as an "
                              "edit of that file", tags=("redirect",))]


def call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A neutral call is a Claude Code call."""
    return tool, dict(args)
