"""Codex's prefix rules as regular languages, for ``proj.lint()`` (static rule analysis).

A ``prefix_rule`` matches an argv whose first tokens are its pattern's (each token one of
its alternatives): ``execpolicy``'s ``PrefixPattern::matches_prefix``. An argv is spelt as
one string, each token followed by :data:`SEP` (a character no token of a command line
holds), so the rule ``["git", ["push", "commit"]]`` is the regular language
``git SEP (push|commit) SEP (any token SEP)*``. Codex decides by the strictest matching
rule (forbidden > prompt > allow, whatever their order: ``Evaluation::from_matches``), as
Claude Code does with deny > ask > allow, so lint reads these channels as it reads Claude
Code's.

Not modelled: ``host_executables`` (an absolute program path resolved to its basename
rule), the ``bash -lc`` script splitting (a witness is an argv given directly), network
rules, and what Codex does with a command no rule matches (its sandbox and approval
policy).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["SEP", "rule_languages"]

#: Ends every token of an argv spelt as one string.
SEP = "\x1f"
#: Codex's shell tool taking an argv (``{"command": [...]}``).
SHELL = "shell"
_TOKEN = rf"[^{SEP}]*{SEP}"
_UNIVERSE = rf"(?:{_TOKEN})+"


def argv_call(value: str) -> dict[str, Any]:
    """The ``shell`` call of an argv spelt as one string."""
    return {"command": value.split(SEP)[:-1]}


def _regex(first: str, rest: Iterable[Iterable[str]]) -> str:
    out = [re.escape(first) + SEP]
    for alternatives in rest:
        out.append("(?:" + "|".join(re.escape(a) for a in dict.fromkeys(alternatives)) + ")"
                   + SEP)
    return "".join(out) + f"(?:{_TOKEN})*"


def rule_languages(rules: Iterable[tuple[Any, Any]], tools: Iterable[str],
                   kinds: Mapping[str, str]) -> list[dict[str, Any]]:
    """One entry per prefix rule (``rules``: each ``PrefixRule`` with its toolkit ``Rule``),
    in the shape ``ClaudePermissions.rule_languages`` gives: ``rule``, ``kind``, ``order``,
    ``channels`` (one, on ``shell``, reading ``command`` as an argv), ``dead``, ``note``."""
    pool = set(tools)
    out = []
    for order, (prefix_rule, rule) in enumerate(rules):
        entry: dict[str, Any] = {"rule": rule, "kind": kinds[prefix_rule.decision],
                                 "order": order, "channels": [], "dead": None, "note": None}
        if SHELL in pool:
            entry["channels"] = [{"tool": SHELL, "field": "command",
                                  "regex": _regex(prefix_rule.first, prefix_rule.rest),
                                  "universe": _UNIVERSE, "suffixes": ("",),
                                  "call": argv_call}]
        else:
            entry["dead"] = f"no tool of the pool is Codex's {SHELL} tool"
        out.append(entry)
    return out
