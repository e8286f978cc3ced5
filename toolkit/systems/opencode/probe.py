"""The commands OpenCode's ``bash`` permission rules speak of, for the bypass probes.

``"permission": {"bash": {"git push *": "deny"}}`` is the rule ``bash: "git push *" -> deny``:
the ``bash`` tool asks the ``bash`` permission once per command node of the line (tool/bash.ts),
and the last rule whose pattern matches the node's text decides (``Wildcard.match``: ``*``
is any text, ``?`` one character, a pattern ending in ``" *"`` also matches without its
tail). So the rule speaks of ``git push`` (its text with the wildcards filled), followed by
more words when the pattern ends in ``*``. ``"bash": "ask"`` (pattern ``*``) decides every
command: it names none. OpenCode's built-in rules (agent.ts) are not probed; a rule of the
configuration, in every agent's ruleset, is probed once, as the default agent; a rule only
an agent's own ``permission`` holds is probed as that agent. Every ``command`` node of the
line (inside pipelines, lists, substitutions and subshells too) is one pattern, and a
pattern whose rule is ``deny`` fails the call at once (``Permission.ask``): a line holding a
denied command is denied (``compound_deny``).

>>> seed("git push *"), seed("npm run ?uild"), seed("*")
(('git push', True), ('npm run xuild', False), (None, True))
"""

from __future__ import annotations

from typing import Any

from ..base.probe import ProbeRule, ShellProbe, shell_command
from . import wildcard
from .agents import BUILTIN_SOURCE, PermissionRule
from .engine import OpenCodePermissions, to_rule

__all__ = ["probe", "seed"]


def seed(pattern: str) -> tuple[str | None, bool]:
    """(the command the pattern speaks of, whether it may be followed by more words)."""
    open_ended = pattern.endswith("*")
    text = pattern.removesuffix(" *").rstrip("*").replace("*", "x").replace("?", "x").strip()
    return text or None, open_ended


def _probe_rule(rule: PermissionRule, agent: str | None) -> ProbeRule:
    shown, kind = to_rule(rule), to_rule(rule).kind
    command, open_ended = seed(rule.pattern)
    if command is None:
        return ProbeRule(rule.text, kind, shown, agent=agent,
                         note=f"pattern {rule.pattern!r} decides every command: it names none")
    return ProbeRule(rule.text, kind, shown, seed=command, open_ended=open_ended, agent=agent)


def probe(engine: Any) -> ShellProbe:
    """``System.probe``: the ``bash`` tool and each configured rule of the ``bash``
    permission, as the agent whose ruleset holds it (the default agent first)."""
    if not isinstance(engine, OpenCodePermissions):
        raise TypeError(f"not an OpenCode engine: {type(engine).__name__}")
    default = engine.agent(None)
    agents = [(None, default), *((key, a) for key, a in engine.agents.items()
                                 if a is not default)]
    seen: set[tuple[Any, ...]] = set()
    rules = []
    for key, agent in agents:
        for rule in engine.ruleset(agent):
            identity = (rule.permission, rule.pattern, rule.action, rule.file, rule.line)
            if identity in seen or rule.file in (None, BUILTIN_SOURCE) or \
                    (rule.file or "").startswith("<") or \
                    not wildcard.match("bash", rule.permission):
                continue
            seen.add(identity)
            rules.append(_probe_rule(rule, key))
    return ShellProbe("bash", shell_command, tuple(rules), compound_deny=True)
