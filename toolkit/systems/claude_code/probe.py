"""The commands Claude Code's ``Bash(...)`` rules speak of, for the bypass probes.

``Bash(git push *)`` and ``Bash(git push:*)`` speak of ``git push`` (the pattern's literal text;
"The :* suffix is an equivalent way to write a trailing wildcard", permissions docs, so either
is a prefix rule: its command may be followed by more words); ``*`` inside the pattern
("Wildcards can appear at any position") is filled with a word. A bare ``Bash`` (or
``Bash(*)``) rule decides every command: it names none. Only the settings layers' rules are
probed; a subagent's front-matter ``tools`` entries are not (as ``proj.lint()``), nor a rule
Claude Code skips at startup.

A compound command is decided part by part ("A rule must match each subcommand
independently", permissions#compound-commands; every command of a list, pipeline, subshell
and substitution is a part) and the parts combine with a deny winning: a line holding a
command a deny rule refuses is refused (``compound_deny``).

>>> seed("git push:*"), seed("npm run * --silent")
(('git push', True), ('npm run x --silent', False))
"""

from __future__ import annotations

from typing import Any

from ..base.probe import ProbeRule, ShellProbe, shell_command
from .permissions.engine import ClaudePermissions

__all__ = ["probe", "seed"]


def seed(spec: str) -> tuple[str | None, bool]:
    """(the command a ``Bash(spec)`` rule speaks of, whether the rule is a prefix rule)."""
    open_ended = spec.endswith("*")
    text = spec[:-2] if spec.endswith(":*") else spec
    text = text.rstrip("* ").replace("*", "x").strip()
    return text or None, open_ended


def probe(engine: Any) -> ShellProbe:
    """``System.probe``: the Bash tool and the settings' ``Bash`` rules."""
    if not isinstance(engine, ClaudePermissions):
        raise TypeError(f"not a Claude Code engine: {type(engine).__name__}")
    rules = []
    for rule in engine.settings.rules:
        where = rule.rule.file or ""
        if rule.tool != "Bash" or rule.skipped is not None or where.startswith("<"):
            continue
        if rule.spec is None:
            rules.append(ProbeRule(rule.text, rule.kind, rule.rule,
                                   note="a rule of the whole Bash tool: it names no command"))
            continue
        command, open_ended = seed(rule.spec)
        rules.append(ProbeRule(rule.text, rule.kind, rule.rule, seed=command,
                               open_ended=open_ended,
                               note="" if command else "the pattern names no command"))
    return ShellProbe("Bash", shell_command, tuple(rules), compound_deny=True)
