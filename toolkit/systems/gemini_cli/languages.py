"""Gemini CLI's policy rules as regular languages, for ``proj.lint()``.

Gemini CLI decides a call by the first rule, highest priority first, whose tool, mode and
``argsPattern`` match (``PolicyEngine.check``); no rule: the default decision (ask in an
interactive session). ``argsPattern`` (what ``commandPrefix`` and ``commandRegex`` become) is
a JavaScript regular expression *searched* in the stable JSON of the arguments. For a call
whose only argument is the tool's main one (``command`` of ``run_shell_command``,
``file_path`` of ``read_file``...) that JSON is ``{\\0"command":"<JSON-escaped value>"\\0}``,
so each rule is a regular language over it: the pattern with anything before and after, over
the JSON texts of one string (the universe). Anchors read as they do there: the text is
spelt between two marks (U+0002 before, U+0003 after), ``^`` is the first and ``$`` the
last, and no ``.`` or negated class crosses them. A witness is turned back into the value
by reading the JSON string.

Rules are analysed for one approval mode (the session's: ``default``, interactive): a rule
of other modes only, of non-interactive sessions only or of a subagent is listed as not
analysed. Not modelled: the shell heuristics and the part-by-part check of a compound
command that follow a match, other arguments beside the main one, and patterns ``re``'s
parser reads but a regular language cannot hold (``\\b``, look-arounds, back-references),
listed as not analysed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from .policy import parse_mcp_tool_name, rule_matches, tool_aliases

__all__ = ["rule_languages"]

BEGIN, END = "\x02", "\x03"
_STRING = r'(?:[^"\\\x00-\x1f]|\\["\\bfnrt]|\\u00(?:0[0-7be-f]|1[0-9a-f]))*'
_KIND = {"allow": "allow", "ask_user": "ask", "deny": "deny"}


class _UnreadError(ValueError):
    """A construct a regular language over the JSON text cannot hold."""


def _char(code: int) -> str:
    char = chr(code)
    if char.isalnum() or char == "_":
        return char
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_CATEGORY = {"CATEGORY_DIGIT": "0-9", "CATEGORY_WORD": "a-zA-Z0-9_",
             "CATEGORY_SPACE": " \\t\\n\\r\\x0c\\x0b"}


def _class(items: Any) -> str:
    negate, parts = False, []
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            parts.append(_char(arg))
        elif name == "RANGE":
            parts.append(f"{_char(arg[0])}-{_char(arg[1])}")
        elif name == "CATEGORY" and str(arg) in _CATEGORY:
            parts.append(_CATEGORY[str(arg)])
        else:
            raise _UnreadError(f"{name} {arg}")
    if negate:
        return "[^" + "".join(parts) + "\\x02\\x03]"
    return "[" + "".join(parts) + "]"


def _rewrite(items: Any) -> str:  # noqa: C901 (one branch per construct)
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(_char(arg))
        elif name == "NOT_LITERAL":
            out.append(f"[^{_char(arg)}\\x02\\x03]")
        elif name == "ANY":
            out.append("[^\\n\\x02\\x03]")
        elif name == "IN":
            out.append(_class(arg))
        elif name == "CATEGORY" and str(arg) in _CATEGORY:
            out.append(f"[{_CATEGORY[str(arg)]}]")
        elif name == "BRANCH":
            out.append("(?:" + "|".join(_rewrite(a) for a in arg[1]) + ")")
        elif name == "SUBPATTERN":
            if arg[1] & re.IGNORECASE:
                raise _UnreadError("(?i)")
            out.append("(?:" + _rewrite(arg[-1]) + ")")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            top = "" if str(high) == "MAXREPEAT" else str(high)
            out.append("(?:" + _rewrite(sub) + ")" + (f"{{{low},{top}}}" if top != str(low)
                                                      else f"{{{low}}}"))
        elif name == "AT" and str(arg) in ("AT_BEGINNING", "AT_BEGINNING_STRING"):
            out.append("\\x02")
        elif name == "AT" and str(arg) in ("AT_END", "AT_END_STRING"):
            out.append("\\x03")
        else:
            raise _UnreadError(f"{name} {arg}")
    return "".join(out)


def search_regex(pattern: re.Pattern[str]) -> str:
    """The marked JSON texts in which ``pattern`` is found, as one full-match regex
    (``_UnreadError`` when a construct cannot be held)."""
    from re import _parser  # type: ignore[attr-defined]

    if pattern.flags & re.IGNORECASE:
        raise _UnreadError("the i flag")
    return r"[\s\S]*" + _rewrite(_parser.parse(pattern.pattern, pattern.flags)) + r"[\s\S]*"


def _opening(field: str) -> str:
    return '{\0"' + field + '":"'


def _universe(field: str) -> str:
    return ("\\x02" + re.escape(_opening(field)).replace("\0", "\\x00") + _STRING
            + re.escape('"\0}').replace("\0", "\\x00") + "\\x03")


def _decoder(field: str) -> Callable[[str], dict[str, Any]]:
    opening = _opening(field)

    def call(value: str) -> dict[str, Any]:
        text = value.removeprefix(BEGIN).removesuffix(END)
        return {field: json.loads('"' + text[len(opening):-3] + '"')}

    return call


def rule_languages(rules: Iterable[Any], tools: Iterable[str], to_rule: Callable[[Any], Any],
                   fields: Mapping[str, str], mode: str = "default",
                   non_interactive: bool = False) -> list[dict[str, Any]]:
    """One entry per rule of a PolicyEngine's ``rules`` (already highest priority first), in
    the shape ``ClaudePermissions.rule_languages`` gives, plus ``rank`` (its place: the
    first to match decides) and ``listed`` (False for Gemini CLI's built-in policies)."""
    pool = list(tools)
    out = []
    for order, rule in enumerate(rules):
        entry: dict[str, Any] = {"rule": to_rule(rule), "kind": _KIND[rule.decision],
                                 "order": order, "rank": (order,), "channels": [],
                                 "dead": None, "note": None,
                                 "listed": not str(rule.file or "<").startswith("<")}
        out.append(entry)
        if rule.modes and mode not in rule.modes:
            entry["note"] = (f"it applies in {', '.join(rule.modes)} mode only; lint reads "
                             f"the {mode} mode")
            continue
        if rule.interactive is not None and rule.interactive == non_interactive:
            entry["note"] = "it applies to the other kind of session (interactive or not)"
            continue
        if rule.subagent is not None:
            entry["note"] = f"it applies to subagent {rule.subagent} only"
            continue
        bare = replace(rule, args_pattern=None, compiled=None)
        targets = [t for t in pool if any(
            rule_matches(bare, name, None, True, parse_mcp_tool_name(t)[0], mode,
                         non_interactive, None, None) for name in tool_aliases(t))]
        if not targets:
            entry["dead"] = f"no tool of the pool is {rule.tool_name}"
            continue
        for tool in targets:
            channel: dict[str, Any] = {"tool": tool, "field": None, "regex": None,
                                       "universe": None, "suffixes": ("",), "default": "ask"}
            if rule.compiled is not None:
                field = fields.get(tool)
                try:
                    regex = search_regex(rule.compiled) if field else None
                except (_UnreadError, re.error) as error:
                    regex, entry["note"] = None, f"its argsPattern is not read here ({error})"
                if regex is None or field is None:
                    channel["opaque"] = True
                    entry["note"] = entry["note"] or f"{tool} has no main argument here"
                else:
                    channel.update(field=field, regex=regex, universe=_universe(field),
                                   call=_decoder(field))
            entry["channels"].append(channel)
    return out
