"""The commands Codex's ``prefix_rule``\\ s speak of, for the bypass probes.

``prefix_rule(pattern=["git", ["push", "commit"]], ...)`` matches an argv whose first tokens
are ``git`` then ``push`` or ``commit`` (``PrefixPattern::matches_prefix``, codex-rs/
execpolicy/src/rule.rs): it speaks of ``git push`` (each token's first alternative; a first
token of several alternatives is already one rule per alternative), followed by any more
words. The shell tool ``shell`` takes an argv; a command line is sent as Codex's model sends
one, ``["bash", "-lc", LINE]``, which Codex parses back into commands
(``parse_shell_lc_plain_commands``) before it matches the rules.

>>> from .execpolicy import PrefixRule
>>> seed(PrefixRule("git", (("push", "commit"), ("--force",))))
'git push --force'
"""

from __future__ import annotations

import shlex
from typing import Any

from ..base.probe import ProbeRule, ShellProbe, bash_lc
from .engine import CodexEngine
from .execpolicy import PrefixRule

__all__ = ["probe", "seed"]


def seed(rule: PrefixRule) -> str:
    """The command line ``rule`` speaks of: its tokens, each token's first alternative."""
    return shlex.join([rule.first, *(alternatives[0] for alternatives in rule.rest)])


def probe(engine: Any) -> ShellProbe:
    """``System.probe``: ``shell`` (argv through ``bash -lc``) and every ``prefix_rule`` of
    the project's, the user's and the managed ``.rules`` files."""
    if not isinstance(engine, CodexEngine):
        raise TypeError(f"not a Codex engine: {type(engine).__name__}")
    rules = []
    for rule in engine.settings.policy.rules():
        if (rule.file or "").startswith("<"):
            continue
        shown = engine._rules[id(rule)]  # noqa: SLF001 - the Rule check_call names
        rules.append(ProbeRule(rule.text, shown.kind, shown, seed=seed(rule), open_ended=True))
    return ShellProbe("shell", bash_lc, tuple(rules))
