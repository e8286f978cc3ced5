"""OpenCode's permission rules as regular languages, for ``proj.lint()``.

OpenCode asks one question per command of a bash call (``bash`` and the command's text) and
decides it by the *last* rule of the agent's ruleset whose permission and pattern match
(``evaluate``; no rule: ``ask``). A pattern is OpenCode's wildcard (:mod:`.wildcard`: ``*``
any text, ``?`` one character, a trailing `` *`` optional), so each ``bash`` rule is a
regular language over the command's text; a rule of another permission whose pattern is
``*`` matches every call of its tools. Each entry carries ``rank`` (a later rule decides
first) and each channel the ``default`` kind of an unmatched call, which ``proj.lint()``
reads as "the first ranked matching rule decides".

Not modelled: the splitting of a bash call into commands (a witness is one command), the
``external_directory`` question of path arguments, rules of other permissions with a
pattern (``read: {"*.env": "deny"}``: listed as not analysed, and no rule of that tool is
called redundant while one lies below it), and agents other than the default one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import wildcard
from .agents import permission_of
from .tools import opencode_name

__all__ = ["rule_languages"]

#: What OpenCode matches a bash pattern against: the command's text, backslashes made ``/``
#: first (so a value holding a backslash is never asked about as written).
_COMMAND_UNIVERSE = r"(?s)[^\\]*"


def rule_languages(ruleset: Iterable[Any], tools: Iterable[str],
                   to_rule: Callable[[Any], Any]) -> list[dict[str, Any]]:
    """An agent's ruleset (built-in defaults first; ``to_rule`` makes each a toolkit
    ``Rule``), one entry per rule in the shape ``ClaudePermissions.rule_languages`` gives,
    plus ``rank`` and ``listed`` (False for OpenCode's built-in defaults, which take part
    but are not the project's rules)."""
    pool = {t: permission_of(opencode_name(t)) for t in tools}
    out = []
    for order, rule in enumerate(ruleset):
        entry: dict[str, Any] = {"rule": to_rule(rule), "kind": rule.action, "order": order,
                                 "rank": (-order,), "channels": [], "dead": None,
                                 "note": None, "listed": not str(rule.file or "<").startswith(
                                     "<")}
        targets = sorted(t for t, p in pool.items() if wildcard.match(p, rule.permission))
        for tool in targets:
            channel: dict[str, Any] = {"tool": tool, "field": None, "regex": None,
                                       "universe": None, "suffixes": ("",), "default": "ask"}
            if pool[tool] == "bash":  # "*" too: a witness is then a command
                channel.update(field="command", universe=_COMMAND_UNIVERSE,
                               catch_all=rule.pattern == "*",
                               regex="(?s)" + wildcard._compile(rule.pattern).pattern)  # noqa: SLF001
            elif rule.pattern != "*":
                channel["opaque"] = True
                entry["note"] = f"{pool[tool]} patterns are not analysed"
            entry["channels"].append(channel)
        if not targets:
            entry["dead"] = (f"no tool of the pool is gated by the {rule.permission} "
                             "permission")
        out.append(entry)
    return out
