"""Helpers the target writers share: regular expressions over a call's JSON arguments, the
glob of a path rule, and the semantics losses every target meets."""

from __future__ import annotations

import json
import re

from ...core.decision import Effect
from .rules import ShellPattern, SourceRule
from .target import Loss

__all__ = ["ANY", "command_regex", "js_escape", "json_text", "path_regex", "quoted_wildcard_allow",
           "toml_string"]

#: any run of characters inside one value of Gemini CLI's stable JSON, escapes included: its
#: ``stableStringify`` puts a NUL after every value (policy/stable-stringify.ts) and JSON escapes
#: a NUL inside a string, so a run of non-NUL characters never leaves the value. (A group such
#: as ``(?:[^"\\]|\\.)*`` would be refused: Gemini CLI rejects a quantified group as a
#: possible ReDoS, ``isSafeRegExp`` in policy/utils.ts.)
ANY = r"[^\x00]*"
#: the end of a value: its closing quote, then the NUL
_END = r'"\x00'


def js_escape(text: str) -> str:
    """``escapeRegex`` of Gemini CLI (JavaScript): metacharacters escaped, nothing else."""
    return re.sub(r"[.*+?^${}()|[\]\\/-]", lambda m: "\\" + m.group(), text)


def json_text(text: str) -> str:
    """``text`` as it appears inside a JSON string (quotes and backslashes escaped)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def command_regex(pattern: ShellPattern, field: str = "command") -> str:
    """A regular expression over the stable JSON of a call's arguments that matches exactly
    the commands ``pattern`` matches. Gemini CLI's ``stableStringify`` sorts the keys and puts
    a NUL character after every value (policy/stable-stringify.ts), so a value ends at ``"\\0``."""
    head = f'"{field}":"'
    if pattern.kind == "any":
        return f'"{field}":'
    if pattern.kind == "exact":
        return head + js_escape(json_text(pattern.text)) + _END
    if pattern.kind == "prefix":
        body = head + js_escape(json_text(pattern.text))
        # the boundary Gemini CLI's own commandPrefix compiles to (policy/utils.ts)
        return body + r'(?:[\s"]|\\")' if pattern.boundary else body
    pieces = [js_escape(json_text(piece)) for piece in pattern.text.split("*")]
    return head + ANY.join(pieces) + _END


def path_regex(spec: str) -> str:
    """A regular expression matching a path argument (``file_path``, ``dir_path``, ``path``)
    that ends as the gitignore-style ``spec`` does, or lies below it (``./.env`` -> any
    ``.env``; ``src/**`` -> anything under any ``src``): broader than the rule (it ignores
    where the path is anchored), so a deny or ask written with it is stricter than the
    source's."""
    text = spec
    for prefix in ("//", "~/", "./", "/"):
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    text = text.rstrip("/")
    while text.endswith("/**") or text.endswith("/*"):
        text = text.rsplit("/", 1)[0]
    out = []
    for token in re.split(r"(\*\*/?|\*|\?)", text):
        if token in ("**", "**/"):
            out.append(ANY)
        elif token == "*":
            out.append(r'[^\x00/]*')
        elif token == "?":
            out.append(r'[^\x00/]')
        elif token:
            out.append(js_escape(json_text(token)))
    return '"(?:file_path|dir_path|path)":"' + ANY + "/" + "".join(out) + '(?:"\\x00|/)'


def toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def glob_words(rule: SourceRule) -> str:
    """The words before a pattern's first wildcard, whole words only (``npm run`` of
    ``npm run test*``; ``git`` of ``git * main``)."""
    pattern = rule.shell
    literal = pattern.literal
    partial = (pattern.kind == "prefix" and not pattern.boundary) or pattern.kind == "glob"
    if partial and not literal.endswith(" "):  # the last word goes on past the wildcard
        literal = literal.rsplit(" ", 1)[0] if " " in literal.strip() else ""
    return literal.strip()


def wrapper_loss(runtime: str, strips: str) -> Loss:
    """Claude Code unwraps ``timeout``, ``nice``, ``nohup``... and leading ``VAR=x`` before
    its deny and ask rules; a target that does not sees another command."""
    return Loss("semantics", f"Claude Code strips the wrappers timeout, time, nice, nohup, "
                             f"stdbuf, command, builtin, noglob, xargs (and VAR=value before "
                             f"deny and ask rules) before matching; {runtime} {strips}, so a "
                             "wrapped command decides as the unknown command it then is "
                             "(the target's default: ask)",
                tags=("wrapper", "assignment"))


#: the wrappers Claude Code strips before matching any rule (SPEC section 11)
STRIPPED = ("timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob",
            "xargs")


def dead_wrapper_allow(rule: SourceRule, losses: list[Loss]) -> bool:
    """An allow rule on a wrapper Claude Code strips (``Bash(command *)``, ``Bash(xargs ls:*)``)
    matches what is left once the wrapper is gone, not the wrapped command: a target that
    does not strip it would allow more, so the rule is not written (listed ``dropped``)."""
    words = rule.shell.literal.split()
    if rule.effect is not Effect.ALLOW or not words or words[0] not in STRIPPED:
        return False
    losses.append(Loss("dropped", f"Claude Code strips {words[0]!r} before matching, so this "
                                  "allow rule never sees it; a target that keeps the wrapper "
                                  "would allow more: not written", rule))
    return True


def quoted_wildcard_allow(rule: SourceRule, losses: list[Loss]) -> bool:
    """An allow rule with a wildcard and a quote (``Bash(git commit -m ' *)``): Claude Code
    matches a wildcard rule against the command as its parser spells it, quotes removed, so
    such a rule rarely matches what it seems to; a target matching the raw text would match
    more (``git commit -m ' && rm -rf x'``). Not written (listed ``dropped``)."""
    text = rule.shell.text
    if rule.effect is not Effect.ALLOW or rule.shell.kind in ("any", "exact") or not (
            "'" in text or '"' in text or "\\" in text):
        return False
    losses.append(Loss("dropped", "Claude Code matches this wildcard rule against the command "
                                  "with its quotes removed; a target matching the raw text "
                                  "would allow more: not written", rule))
    return True
