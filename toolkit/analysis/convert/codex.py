"""Write a policy as Codex ``.rules`` (``prefix_rule``) and ``.codex/config.toml``.

Codex matches a command's words against each rule's ``pattern`` (a prefix of the argv) and
the strictest matching decision wins: ``forbidden`` > ``prompt`` > ``allow``, which is
Claude Code's deny > ask > allow. A word-boundary prefix (``Bash(git push:*)``) is exactly a
``prefix_rule``; what a prefix of words cannot say errs toward asking:

- an exact command (``Bash(git status)``) or a partial-word / inner wildcard
  (``Bash(npm run test*)``, ``Bash(git * main)``): an *allow* is not written (the command then
  asks, or runs when Codex knows it safe); a *deny* or *ask* is written on the whole words
  before the wildcard, which stops more than the source (listed ``stricter``);
- ``Bash`` alone: Codex has no rule for every command (``approval_policy`` is the knob).

Every rule carries ``match`` / ``not_match`` examples taken from the source's own rules (its
own command, and the commands of the source's other rules it does or does not cover): Codex
checks them when it loads the file, so the file proves its own prefixes. ``approval_policy =
"untrusted"`` makes Codex ask for every command no rule allows that it does not know to be
read-only, as Claude Code's default mode does. Project rules load only in a trusted project.

Source: openai/codex ``codex-rs/execpolicy/README.md``, ``codex-rs/core/src/exec_policy.rs``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.decision import Effect
from .common import dead_wrapper_allow, glob_words, wrapper_loss
from .rules import SourceRule, seed
from .target import Loss, Written

__all__ = ["CONFIG", "FILE", "call", "write"]

RUNTIME = "codex"
FILE = ".codex/rules/converted.rules"
CONFIG = ".codex/config.toml"
_DECISION = {Effect.ALLOW: "allow", Effect.ASK: "prompt", Effect.DENY: "forbidden"}


def _words(text: str) -> list[str] | None:
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    return words or None


def _covers(prefix: list[str], command: str) -> bool:
    words = _words(command)
    return words is not None and words[:len(prefix)] == prefix


def _examples(prefix: list[str], own: str, rules: list[SourceRule]) -> tuple[list[str], list[str]]:
    """``match``: the rule's own command and other source rules' commands it covers;
    ``not_match``: source commands sharing its first word that it does not cover."""
    matches: list[str] = [own]
    misses: list[str] = []
    for other in rules:
        text = seed(other) if other.family == "shell" else None
        if text is None or text == own:
            continue
        words = _words(text)
        if words is None or words[0] != prefix[0]:
            continue
        (matches if _covers(prefix, text) else misses).append(text)
    return list(dict.fromkeys(matches))[:4], list(dict.fromkeys(misses))[:4]


def _justification(rule: SourceRule) -> str:
    """The source rule and its file:line; a rule written for a command Codex knows safe says
    so (``unasked``: the source refuses or asks for it)."""
    text = f"{rule.text} ({rule.where})" if rule.file else rule.text
    if rule.layer == "unasked":
        return f"{text}: Codex would run this known-safe command unasked"
    if rule.layer == "paths":
        return (f"{text}: Codex has no path rules, and this command could reach that path "
                "unasked: ask for every use of it")
    return text


def _prefix_rule(rule: SourceRule, prefix: list[str], rules: list[SourceRule],
                 own: str) -> str:
    matches, misses = _examples(prefix, own, rules)
    fields = [f"    pattern = {json.dumps(prefix)},",
              f"    decision = {json.dumps(_DECISION[rule.effect])},",
              f"    justification = {json.dumps(_justification(rule))},",
              f"    match = {json.dumps(matches)},"]
    if misses:
        fields.append(f"    not_match = {json.dumps(misses)},")
    return "prefix_rule(\n" + "\n".join(fields) + "\n)"


def _shell(rule: SourceRule, rules: list[SourceRule], losses: list[Loss]) -> list[str]:
    pattern = rule.shell
    if dead_wrapper_allow(rule, losses):
        return []
    if pattern.kind == "any":
        losses.append(Loss("dropped", "Codex has no rule for every command (a prefix_rule "
                                      "needs a first word): the approval policy decides",
                           rule))
        return []
    if pattern.kind == "prefix" and pattern.boundary:
        prefix = _words(pattern.text)
        if prefix is None:
            losses.append(Loss("dropped", "the command cannot be split into words", rule))
            return []
        return [_prefix_rule(rule, prefix, rules, " ".join(shlex.quote(w) for w in prefix))]
    if rule.effect is Effect.ALLOW:
        what = ("an exact command" if pattern.kind == "exact" else
                "a wildcard inside a word or between words")
        losses.append(Loss("dropped", f"a prefix_rule cannot say {what}: allowing its words "
                                      "would allow longer commands too, so it is not written "
                                      "and the command asks", rule))
        return []
    words = _words(pattern.text if pattern.kind == "exact" else glob_words(rule))
    if not words:
        losses.append(Loss("dropped", "no whole word before the wildcard: a prefix_rule "
                                      "cannot say it, so the command asks instead", rule))
        return []
    losses.append(Loss("stricter", f"written on the prefix {' '.join(words)!r}: it stops every "
                                   "command starting with those words", rule,
                       f"prefix_rule(pattern={json.dumps(words)})"))
    return [_prefix_rule(rule, words, rules, " ".join(shlex.quote(w) for w in words))]


#: Codex looks inside ``bash -c SCRIPT`` and judges the script; Claude Code does not (a
#: ``bash -c`` command is one it asks for): prompt, so no script runs unasked inside one
_SHELLS = "\n".join(
    f"prefix_rule(pattern={json.dumps([shell, flag])}, decision=\"prompt\", "
    f"justification=\"Claude Code asks for a {shell} {flag} script\", "
    f"match=[{json.dumps(f'{shell} {flag} ls')}])"
    for shell in ("bash", "sh", "zsh") for flag in ("-c", "-lc"))


def write(rules: list[SourceRule], root: Path, mode: str | None) -> Written:
    """The Codex rules and config for ``rules``."""
    losses: list[Loss] = [
        wrapper_loss("Codex", "judges the wrapper as the command"),
        Loss("semantics", "Codex splits only word-only command chains: a redirection, "
                          "$(...), $VAR or a subshell makes it judge the whole bash -lc "
                          "script, which no prefix_rule matches, so it asks",
             tags=("redirect", "substitution")),
        Loss("semantics", "Claude Code's read-only commands and Codex's known-safe commands "
                          "differ; with no rule matching, each runtime's list decides",
             tags=("read-only", "default")),
    ]
    blocks = ["# Converted by toolmatrix from Claude Code's rules (strictest wins: forbidden > "
              "prompt > allow).\n# Each rule's match / not_match examples are the source's own "
              "commands: Codex checks them on load."]
    lines: dict[tuple[str, int], SourceRule] = {}
    for rule in rules:
        if rule.family == "shell":
            for block in _shell(rule, rules, losses):
                start = sum(b.count("\n") + 2 for b in blocks) + 1
                lines.update({(FILE, start + i): rule for i in range(block.count("\n") + 1)})
                blocks.append(block)
        else:
            losses.append(Loss("dropped", f"Codex rules speak of commands only: {rule.tool} "
                                          "is governed by the sandbox and approval policy, not "
                                          "by a rule", rule))
    blocks.append(_SHELLS)
    if mode not in (None, "default"):
        losses.append(Loss("semantics", f"the source's defaultMode {mode} is not written",
                           tags=("default",)))
    config = ('# Converted by toolmatrix: ask for every command no rule allows unless Codex '
              'knows it read-only\napproval_policy = "untrusted"\n')
    setup = {"~/.codex/config.toml": '[projects."{project}"]\n'
                                     'trust_level = "trusted"\n'}
    return Written(RUNTIME, {FILE: "\n\n".join(blocks) + "\n", CONFIG: config}, losses, call,
                   setup=setup, lines=lines,
                   notes=["Codex loads .codex/ of a trusted project only (trust_level = "
                          "\"trusted\" in ~/.codex/config.toml); the check trusts it"])


def call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    if tool == "Bash" and isinstance(args.get("command"), str):
        return "shell", {"command": ["bash", "-lc", args["command"]]}
    return None
