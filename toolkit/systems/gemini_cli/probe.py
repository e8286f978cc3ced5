"""The commands Gemini CLI's ``run_shell_command`` rules speak of, for the bypass probes.

A ``commandPrefix`` (in a policy file, or ``tools.allowed: run_shell_command(git status)`` in
settings) becomes the argsPattern ``"command":"<prefix>(?:[\\s"]|\\\\")`` (``buildArgsPatterns``,
policy/utils.ts): the prefix is read back from that pattern (and checked by building the
pattern again), so a list of prefixes gives one rule per prefix, as Gemini CLI expands it. A
``commandRegex`` becomes ``"command":"<regex>``, searched in the call's JSON: the commands it
speaks of start with a string of the regex (``^`` / ``$`` are dropped: after ``"command":"``
they never match, which the probe then shows as a rule that never decides its command). A
rule without a pattern decides every command; an ``argsPattern`` of another shape is over
the call's JSON, not a command. Built-in policies (``<gemini-cli>/policies``) and subagents'
rules are not probed.

>>> from .policy import build_args_patterns
>>> prefix_of(build_args_patterns(None, 'git commit -m "x"')[0])
'git commit -m "x"'
>>> prefix_of('"command":"rm'), regex_of('"command":"^sudo( |$)')
(None, 'sudo( |)')
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..base.probe import ProbeRule, ShellProbe, shell_command
from .engine import GeminiPermissions, to_rule
from .policy import ALLOW, ASK_USER, DENY, PolicyRule, build_args_patterns

__all__ = ["prefix_of", "probe", "regex_of"]

_HEAD = '"command":'
_TAIL = r'(?:[\s"]|\\")'
_SHELL = "run_shell_command"


def prefix_of(pattern: str) -> str | None:
    """The ``commandPrefix`` the argsPattern ``pattern`` was built from, or None."""
    if not pattern.endswith(_TAIL):
        return None
    body = re.sub(r"\\(.)", r"\1", pattern[:-len(_TAIL)], flags=re.S)  # escapeRegex undone
    if not body.startswith(_HEAD + '"'):
        return None
    try:
        prefix = json.loads(body[len(_HEAD):] + '"')
    except ValueError:
        return None
    if not isinstance(prefix, str) or build_args_patterns(None, prefix)[0] != pattern:
        return None
    return prefix


def regex_of(pattern: str) -> str | None:
    """The ``commandRegex`` of the argsPattern ``pattern`` (its anchors dropped), or None."""
    if not pattern.startswith(_HEAD + '"'):
        return None
    regex = pattern[len(_HEAD) + 1:].removeprefix("^")
    return re.sub(r"(?<!\\)\$", "", regex)


def _probe_rule(rule: PolicyRule) -> ProbeRule:
    shown = to_rule(rule)
    kind = shown.kind
    if rule.args_pattern is None:
        return ProbeRule(rule.text, kind, shown,
                         note="a rule of the whole shell tool: it names no command")
    prefix = prefix_of(rule.args_pattern)
    if prefix is not None:
        return ProbeRule(rule.text, kind, shown, seed=prefix.strip() or None, open_ended=True,
                         note="" if prefix.strip() else "an empty commandPrefix")
    regex = regex_of(rule.args_pattern)
    if regex is not None:
        return ProbeRule(rule.text, kind, shown, regex=regex)
    return ProbeRule(rule.text, kind, shown,
                     note="an argsPattern over the call's JSON: it names no command")


def probe(engine: Any) -> ShellProbe:
    """``System.probe``: ``run_shell_command`` and the rules of the user, workspace and admin
    tiers and of settings that name it, highest priority first."""
    if not isinstance(engine, GeminiPermissions):
        raise TypeError(f"not a Gemini CLI engine: {type(engine).__name__}")
    rules = tuple(_probe_rule(r) for r in engine.engine().rules
                  if r.tool_name == _SHELL and r.subagent is None
                  and not (r.file or "").startswith("<")
                  and r.decision in (ALLOW, DENY, ASK_USER))
    return ShellProbe(_SHELL, shell_command, rules)
