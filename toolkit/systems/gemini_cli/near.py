"""Why a Gemini CLI call asked or was denied although an allow rule looks like it covers it:
the allow rules that came closest, and why each does not decide (issue 24 item 5,
gemini-cli #17953: a saved ``commandPrefix`` that never matches ``./gradlew ...``).

Whether a rule matches is Gemini's own answer (the rule's compiled ``argsPattern`` over
the arguments as ``stableStringify`` writes them, as ``ruleMatches`` asks); the words say
why it does not: the word boundary after the prefix, a leading path (``./gradlew`` is not
``gradlew``), leading ``VAR=value`` assignments, the first differing word. A rule that does
match is explained too: a higher-priority deny or ask rule decides first, or the command
redirects and the rule does not set ``allowRedirection``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...core.decision import Decision, Effect, NearMiss
from ...core.models import Rule
from .policy import ALLOW, PolicyRule, has_redirection, stable_stringify

__all__ = ["near_misses"]

#: at most this many near misses per command part, closest first
PER_PART = 3
_PREFIX = re.compile(r'commandPrefix=(\[[^\]]*\]|"(?:[^"\\]|\\.)*")')
_ASSIGNMENTS = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+")


def prefixes(rule: PolicyRule) -> list[str]:
    """The ``commandPrefix`` value(s) the rule was written with (its ``written`` text)."""
    found = _PREFIX.search(rule.written)
    if found is None:
        return []
    value = json.loads(found.group(1))
    return [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]


def own_prefixes(rule: PolicyRule, tool: str) -> list[str]:
    """The prefix(es) this rule matches of those written: a ``commandPrefix`` list is one
    rule per prefix, each written with the whole list."""
    return [p for p in prefixes(rule) if _matches(rule, tool, {"command": p})]


def _matches(rule: PolicyRule, tool: str, args: Mapping[str, Any]) -> bool:
    """Whether Gemini's ``ruleMatches`` would match ``args`` by the rule's arguments."""
    return rule.compiled is not None and rule.compiled.search(stable_stringify(dict(args))) \
        is not None


def _why_not(prefix: str, command: str) -> tuple[int, str] | None:
    """(closeness, why) ``command`` does not meet ``prefix``; None when nothing is close."""
    if command.startswith(prefix) and len(command) > len(prefix) \
            and not command[len(prefix)].isspace():
        rest = command[len(prefix):]
        return (len(prefix) + 2, f"the prefix needs a word boundary after `{prefix}`: "
                                 f"`{command}` goes on with `{rest[:12]}`")
    assigned = _ASSIGNMENTS.match(command)
    if assigned and (command[assigned.end():] + " ").startswith(prefix + " "):
        return (len(prefix) + 1, f"Gemini matches the command as written: the leading "
                                 f"`{assigned.group(0).strip()}` comes before `{prefix}`")
    words, wanted = command.split(), prefix.split()
    if not words or not wanted:
        return None
    if words[0] != wanted[0] and os.path.basename(words[0]) == wanted[0]:
        return (len(prefix), f"the prefix is matched from the start of the command: "
                             f"`{words[0]}` is not `{wanted[0]}` (add a rule for "
                             f"`{' '.join([words[0], *wanted[1:]])}`)")
    same = 0
    while same < min(len(words), len(wanted)) and words[same] == wanted[same]:
        same += 1
    if same == 0:
        return None
    if same == len(words):
        return (same, f"`{command}` ends before the prefix does: the rule wants "
                      f"`{' '.join(wanted[same:])}` next")
    return (same, f"differs at word {same + 1}: `{words[same]}` where the rule has "
                  f"`{wanted[same]}`")


def near_misses(rules: Sequence[PolicyRule], to_rule: Callable[[PolicyRule], Rule],
                decision: Decision, tool: str, args: Mapping[str, Any]) -> tuple[NearMiss, ...]:
    """The allow rules of ``tool`` that came closest to the call ``decision`` answers."""
    if decision.effect is Effect.ALLOW:
        return ()
    allows = [r for r in rules if r.decision == ALLOW and r.tool_name == tool
              and r.compiled is not None]
    if not allows:
        return ()
    command = args.get("command") if isinstance(args, Mapping) else None
    if not isinstance(command, str):
        return tuple(NearMiss(to_rule(r), "its argsPattern does not match the arguments as "
                              f"Gemini writes them: {stable_stringify(dict(args))[:120]!r}")
                     for r in allows[:PER_PART] if not _matches(r, tool, args))
    parts: list[tuple[int | None, Decision]] = [
        (i, p) for i, p in enumerate(decision.parts, 1) if p.effect is not Effect.ALLOW]
    if not parts:  # one command, or every part allowed and the whole not (a redirection)
        parts = [(None, decision)]
    out: list[NearMiss] = []
    for index, part in parts:
        text = part.tool if index is not None else command
        found = _closest(allows, to_rule, tool, index, part, text)
        if index is not None and not found:  # a part no allow rule comes near
            found = _unallowed_part(decision, index, text)
        found.sort(key=lambda pair: -pair[0])
        out += [miss for _, miss in found[:PER_PART]]
    return tuple(out)


def _closest(allows: Sequence[PolicyRule], to_rule: Callable[[PolicyRule], Rule], tool: str,
             index: int | None, part: Decision, text: str) -> list[tuple[int, NearMiss]]:
    """(closeness, near miss) of each allow rule for one command (part)."""
    found: list[tuple[int, NearMiss]] = []
    for rule in allows:
        if _matches(rule, tool, {"command": text}):
            shadowed = part.rule.kind in ("deny", "ask") and bool(part.rule.file)
            found.append((10_000, NearMiss(to_rule(rule), _matching_why(rule, part, text),
                                           "shadowed" if shadowed else "never-approves",
                                           index)))
            continue
        for prefix in own_prefixes(rule, tool):
            why = _why_not(prefix, text)
            if why is not None:
                found.append((why[0], NearMiss(to_rule(rule), why[1], "no-match", index)))
    return found


def _unallowed_part(decision: Decision, index: int, text: str) -> list[tuple[int, NearMiss]]:
    """A compound command's part no allow rule comes near, named beside an allowed part."""
    allowed = [(i, p) for i, p in enumerate(decision.parts, 1)
               if p.effect is Effect.ALLOW and p.rule.file]
    return [(0, NearMiss(other.rule, f"it allows part {i} (`{other.tool}`) but no allow rule "
                                     f"matches part {index} (`{text}`): every part of a "
                                     "compound command must be allowed", "part", index))
            for i, other in allowed[:1]]


def _matching_why(rule: PolicyRule, part: Decision, command: str) -> str:
    """Why an allow rule that matches the command did not decide it."""
    if part.rule.kind in ("deny", "ask") and part.rule.file:
        return (f"it matches, but {part.rule.text} ({part.rule.where}) has a higher priority "
                "and decides first")
    if has_redirection(command) and not rule.allow_redirection:
        return ("it matches, but the command redirects, which downgrades allow to ask_user: "
                "set allowRedirection = true on the rule to allow it")
    return f"it matches, but {part.message}"
