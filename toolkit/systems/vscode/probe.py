"""The commands VS Code's ``chat.tools.terminal.autoApprove`` entries speak of.

For the bypass probes. A key that is a command prefix (``"git push": false``) matches a
command starting with it at a word boundary (``^git push\\b``, ``convertAutoApproveEntryTo
Regex``): it speaks of ``git push`` followed by any words. A ``/regex/flags`` key is tested
with ``RegExp.test`` (a search): the commands it speaks of contain a string of the regex; its
anchors and word boundaries are dropped and the probe starts from one of its shortest
strings. ``true`` approves (allow); ``false`` means never auto-approved (VS Code asks: the
probe counts a command that then runs unasked as a bypass). VS Code's default entries are not
probed, nor a regex toolkit cannot read (the settings loader warns about each).

>>> regex_seed("/^git\\\\s+push\\\\b/i")
'git\\\\s+push'
"""

from __future__ import annotations

import re
from typing import Any

from ..base.probe import ProbeRule, ShellProbe, shell_command
from .autoapprove import AutoApproveRule
from .engine import TERMINAL_TOOL, VSCodeEngine

__all__ = ["probe", "regex_seed"]

_REGEX_KEY = re.compile(r"^/(?P<pattern>.+)/(?P<flags>[dgimsuvy]*)$", re.DOTALL)


def regex_seed(key: str) -> str | None:
    """The regex of a ``/regex/flags`` key without its anchors and ``\\b``\\ s (None: the key
    is a command prefix)."""
    found = _REGEX_KEY.match(key)
    if found is None:
        return None
    source = found.group("pattern").removeprefix("^")
    return re.sub(r"(?<!\\)\$$", "", re.sub(r"(?<!\\)\\b", "", source))


def _probe_rule(engine: VSCodeEngine, entry: AutoApproveRule) -> ProbeRule:
    rule = engine._rules[id(entry)]  # noqa: SLF001 - the Rule check_call names
    kind = "allow" if entry.approve else "ask"
    text = entry.source_text
    if entry.regex.unreadable or entry.regex.never:
        return ProbeRule(text, kind, rule, note="a regex toolkit cannot read or one that never "
                                                "matches (see the settings warnings)")
    regex = regex_seed(text)
    if regex is not None:
        return ProbeRule(text, kind, rule, regex=regex, open_ended=True)
    return ProbeRule(text, kind, rule, seed=text.strip() or None, open_ended=True,
                     note="" if text.strip() else "an empty key names no command")


def probe(engine: Any) -> ShellProbe:
    """``System.probe``: ``run_in_terminal`` and the user's and workspace's auto-approve
    entries (not VS Code's defaults)."""
    if not isinstance(engine, VSCodeEngine):
        raise TypeError(f"not a VS Code engine: {type(engine).__name__}")
    rules = tuple(_probe_rule(engine, r) for r in engine.approve_rules.all()
                  if r.source.target != "default" and not r.is_default_rule)
    return ShellProbe(TERMINAL_TOOL, shell_command, rules)
