"""Why was I asked when I allowed it? The allow rules that came closest to a call (issue 24
item 5).

Users of Claude Code and Gemini CLI ask this again and again: ``Bash(rm -r:*)`` does not
match ``rm -rf`` (claude-code #28811: a prefix rule needs a word boundary), ``Bash(aws:*)``
does not match ``AWS_PROFILE=p aws s3 ls`` (#49350: allow rules see the assignments),
``Bash(git:*)`` does not allow ``git add f && git commit`` (#30519: every part of a compound
command must be allowed), a broad deny swallows a narrow allow (#79759), an exact rule saved
from one approval does not match the next command (#86151), and a ``gradlew`` prefix never
matches ``./gradlew build`` (gemini-cli #17953: a prefix is anchored at the start).

For a call that does not run unasked, :func:`near_misses` lists, per part of the command,
the allow rules that (a) match but lose to a deny or ask rule met first (``shadowed``), (b)
match a call no allow rule approves (``never-approves``: a critical ``rm``, a protected path,
an unparseable command), (c) match some parts of a compound command but not all (``part``),
(d) Claude Code skips (``skipped``), or (e) come closest without matching (``no-match``),
each with the reason: the pattern is walked over the text as a finite automaton, and where
the walk falls off (or ends short) is the differing token, the word boundary or the anchor.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from ....core.decision import Decision, Effect, NearMiss, Reason
from ...base.paths import absolute
from ...base.shell import parse
from .bash import forms
from .evaluate import CallContext
from .rules import EDIT_TOOLS, READ_TOOLS, SHELL_TOOLS, PermissionRule, _anchored, _command_regex
from .rules import canonical_tool as _canonical

__all__ = ["near_misses"]

#: Near misses shown per part (the closest first).
LIMIT = 3
_SHADOWING = {Reason.DENY_RULE: "deny", Reason.ASK_RULE: "ask"}
_NEVER = {Reason.DANGEROUS_RM: "it removes a critical path, which no allow rule approves",
          Reason.PROTECTED_PATH: "it writes a protected path, which no allow rule approves",
          Reason.UNPARSEABLE: "the command cannot be parsed, so no allow rule approves it"}


def near_misses(rules: Iterable[PermissionRule], ctx: CallContext, tool: str,
                args: Mapping[str, Any], decision: Decision) -> tuple[NearMiss, ...]:
    """The allow rules that came closest to allowing ``decision``'s call, and why not."""
    if decision.effect is Effect.ALLOW:
        return ()
    name = _canonical(tool)
    allows = [r for r in rules if r.kind == "allow"]
    out = [NearMiss(r.rule, f"Claude Code skips this rule: {r.skipped}", "skipped")
           for r in allows if r.skipped is not None and _names_tool(r, name)]
    active = [r for r in allows if r.skipped is None]
    if name in SHELL_TOOLS:
        out += _shell(active, decision, args)
    elif name in READ_TOOLS or name in EDIT_TOOLS:
        out += _paths(active, ctx, name, args, decision)
    elif name == "WebFetch":
        out += _domains(active, args, decision)
    else:
        out += _names(active, name, decision)
    return tuple(out)


def _names_tool(rule: PermissionRule, tool: str) -> bool:
    head = (rule.rule.pattern or "").split("(", 1)[0]
    return _canonical(head) == tool or (tool in SHELL_TOOLS and head == "Bash")


def _shadowed(rule: PermissionRule, decision: Decision, what: str, part: int | None
              ) -> NearMiss | None:
    """A matching allow rule that still did not decide: a deny / ask rule won, or the call
    is one no allow rule approves."""
    kind = _SHADOWING.get(decision.reason)
    if kind is not None and decision.rule.pattern:
        where = f" ({decision.rule.where})" if decision.rule.file else ""
        return NearMiss(rule.rule, f"matches {what}, but the {kind} rule {decision.rule.text}"
                                   f"{where} is met first (deny, then ask, then allow, "
                                   "whatever the order or how specific)", "shadowed", part)
    never = _NEVER.get(decision.reason)
    if never is not None:
        return NearMiss(rule.rule, f"matches {what}, but {never}", "never-approves", part)
    return None


# -- shell commands --------------------------------------------------------------------------

def _shell(rules: Sequence[PermissionRule], decision: Decision, args: Mapping[str, Any]
           ) -> list[NearMiss]:
    command = args.get("command")
    mine = [r for r in rules if r.form == "command" and r.tool == "Bash"]
    if not isinstance(command, str) or not mine:
        return []
    parsed = parse(command)
    if parsed.problem is not None:
        matching = [r for r in mine if r.command_matches(" ".join(command.split()))]
        return [m for r in matching if (m := _shadowed(r, decision, f"`{command}`", None))]
    parts = list(decision.parts) or [decision]
    commands = list(parsed.commands)
    numbered = len(commands) > 1
    out: list[NearMiss] = []
    allowed_by: dict[str, list[int]] = {}
    for i, (part, simple) in enumerate(zip(parts, commands, strict=False), 1):
        form = forms(simple)
        if part.effect is Effect.ALLOW:
            if part.rule.pattern:
                allowed_by.setdefault(part.rule.text, []).append(i)
            continue
        label = i if numbered else None
        text = form.allow
        matching = [r for r in mine if r.command_matches(text)]
        found = [m for r in matching if (m := _shadowed(r, part, f"`{text}`", label))]
        if not found:
            found = _closest(mine, text, form.restrict, label)
        if numbered and not matching:
            whole = _part_miss(mine, allowed_by, i, text, len(commands))
            found = [whole, *found] if whole is not None else found
        out += found
    return out


def _part_miss(rules: Sequence[PermissionRule], allowed_by: Mapping[str, list[int]], part: int,
               text: str, count: int) -> NearMiss | None:
    """The allow rule that did allow another part: every part must be allowed on its own."""
    for rule in rules:
        if rule.text in allowed_by:
            done = ", ".join(str(p) for p in allowed_by[rule.text])
            return NearMiss(rule.rule, f"allows part {done} of {count}, but a compound command "
                                       f"runs unasked only when every part is allowed: part "
                                       f"{part} `{text}` matches no allow rule", "part", part)
    return None


def _closest(rules: Sequence[PermissionRule], text: str, variants: Sequence[str],
             part: int | None) -> list[NearMiss]:
    """The command rules nearest to ``text``, each with the reason it does not match."""
    scored = []
    for rule in rules:
        stripped = next((v for v in variants if v != text and rule.command_matches(v)), None)
        if stripped is not None:
            scored.append((3, len(text), rule, _stripped(text, stripped)))
            continue
        walked, state, fsm = _walk(_pattern(rule), text)
        head = text.split(" ", 1)[0]
        why = _mismatch(rule, text, walked, state, fsm)
        if walked >= len(head) and walked > 0:
            scored.append((2, walked, rule, why))
        elif (anchor := _anchor(rule, text)) is not None:
            scored.append((1, len(anchor), rule, anchor))
        elif _similar(_literal(rule).split(" ", 1)[0], head):
            first = _literal(rule).split(" ", 1)[0]
            scored.append((0, walked, rule, f"the rule names `{first}`, the command runs "
                                            f"`{head}` (a different word)"))
    scored.sort(key=lambda s: (-s[0], -s[1]))
    return [NearMiss(rule.rule, why, "no-match", part) for _, _, rule, why in scored[:LIMIT]]


def _stripped(text: str, variant: str) -> str:
    return (f"it matches `{variant}`, but allow rules are matched against `{text}`: leading "
            "VAR=value assignments are stripped for deny and ask rules only, so write the "
            "assignment into the rule or drop it from the command")


@lru_cache(maxsize=4096)
def _pattern(rule: PermissionRule) -> str:
    return "(?s)" + _command_regex(str(rule.spec), rule.tool == "PowerShell").pattern


def _literal(rule: PermissionRule) -> str:
    spec = str(rule.spec)
    spec = spec[:-2] if spec.endswith(":*") else spec
    return spec.split("*", 1)[0].rstrip()


@lru_cache(maxsize=4096)
def _fsm(regex: str) -> Any:
    from interegular import parse_pattern

    return parse_pattern(regex).to_fsm()


def _walk(regex: str, text: str) -> tuple[int, Any, Any]:
    """How far ``text`` follows the pattern's automaton: (characters read, state there, fsm);
    the state is None when the walk fell off."""
    fsm = _fsm(regex)
    state = fsm.initial
    for i, char in enumerate(text):
        key = fsm.alphabet[char] if char in fsm.alphabet else fsm.alphabet[_anything()]
        target = fsm.map.get(state, {}).get(key)
        if target is None:
            return i, state, fsm
        state = target
    return len(text), state, fsm


def _anything() -> Any:
    from interegular.fsm import anything_else

    return anything_else


def _expected(fsm: Any, state: Any, limit: int = 24) -> str:
    """What the pattern reads next from ``state``: the literal run while there is one path."""
    out: list[str] = []
    anything = _anything()
    while len(out) < limit and state not in fsm.finals:
        moves = fsm.map.get(state, {})
        if len(moves) != 1:
            break
        key, target = next(iter(moves.items()))
        chars = [c for c in fsm.alphabet.by_transition.get(key, ()) if c is not anything]
        if len(chars) != 1:
            break
        out.append(chars[0])
        state = target
    return "".join(out)


def _completion(fsm: Any, state: Any, limit: int = 40) -> str:
    """A shortest readable string leading from ``state`` to a final state ('' if none)."""
    from collections import deque

    anything = _anything()
    spelled = {key: min((c for c in chars if c is not anything), key=_readable, default=None)
               for key, chars in fsm.alphabet.by_transition.items()}
    seen = {state: ""}
    queue = deque([state])
    while queue:
        at = queue.popleft()
        if at in fsm.finals:
            return seen[at]
        if len(seen[at]) >= limit:
            continue
        for key, target in sorted(fsm.map.get(at, {}).items(),
                                  key=lambda kv: _readable(spelled.get(kv[0]) or "~")):
            char = spelled.get(key)
            if char is not None and target not in seen:
                seen[target] = seen[at] + char
                queue.append(target)
    return ""


def _readable(c: str) -> int:
    order = " abcdefghijklmnopqrstuvwxyz0123456789-_./"
    return order.find(c) if c in order else 100 + ord(c)


def _mismatch(rule: PermissionRule, text: str, walked: int, state: Any, fsm: Any) -> str:
    """Why ``rule`` does not match ``text``, from where the automaton walk stopped."""
    spec = str(rule.spec)
    prefix_rule = (spec.endswith(" *") or spec.endswith(":*")) and "*" not in spec[:-2]
    literal = _literal(rule)
    if walked == len(text):  # read it all, and the pattern wants more
        more = _completion(fsm, state)
        if more:
            return (f"`{text}` stops short: the rule needs `{more}` to follow (it would match "
                    f"`{text}{more}`)")
        return f"`{text}` stops short: the rule needs more after it"
    rest = text[walked:].split(" ", 1)[0]
    matched = text[:walked]
    if prefix_rule and text.startswith(literal) and walked == len(literal):
        word = text[text.rfind(" ", 0, walked) + 1:].split(" ", 1)[0]
        return (f"the prefix needs a word boundary after `{literal}` (a space or the end): "
                f"`{text}` continues with `{rest}` (the word is `{word}`)")
    if "*" not in spec:
        if text.startswith(spec):
            return (f"an exact rule (no *) matches only `{spec}`; `{text}` has more after it "
                    f"(`Bash({spec} *)` would match)")
        return (f"an exact rule (no *): `{text}` differs from `{spec}` at `{rest}` "
                f"(after `{matched}`)")
    expected = _expected(fsm, state)
    wants = f" where the rule expects `{expected}`" if expected else ""
    return f"matches `{matched}`, then `{rest}` differs{wants}" if matched else (
        f"the command starts with `{rest}`{wants}")


def _anchor(rule: PermissionRule, text: str) -> str | None:
    """A rule whose literal start appears later in the command: patterns are anchored at the
    start of the command (``gradlew *`` does not match ``./gradlew build``)."""
    literal = _literal(rule)
    if not literal or literal == text:
        return None
    at = text.find(literal)
    if at <= 0:
        return None
    return (f"the pattern is anchored at the start of the command: `{literal}` comes after "
            f"`{text[:at]}` in `{text}` (write the rule as the command starts, e.g. "
            f"Bash({text[:at]}{literal} *))")


def _similar(a: str, b: str) -> bool:
    return bool(a) and bool(b) and a != b and difflib.SequenceMatcher(None, a, b).ratio() >= 0.8


# -- paths ------------------------------------------------------------------------------------

def _paths(rules: Sequence[PermissionRule], ctx: CallContext, tool: str,
           args: Mapping[str, Any], decision: Decision) -> list[NearMiss]:
    value = args.get("file_path", args.get("notebook_path", args.get("path")))
    path = absolute(value if isinstance(value, str) and value else ctx.cwd, ctx.cwd, ctx.home)
    edit = tool in EDIT_TOOLS
    out: list[NearMiss] = []
    scored = []
    for rule in rules:
        if rule.form != "path":
            continue
        if rule.path_matches(path, ctx.cwd):
            if edit and rule.tool == "Read":
                out.append(NearMiss(rule.rule, f"matches {path}, but a Read rule allows reading "
                                               "only; an edit needs an Edit rule", "no-match"))
            elif (m := _shadowed(rule, decision, path, None)) is not None:
                out.append(m)
            continue
        if edit and rule.tool == "Read":
            continue
        anchored = _anchored(str(rule.spec), rule.kind, rule.anchors, ctx.cwd) \
            if rule.anchors is not None else None
        if anchored is None:
            continue
        root = anchored.root.rstrip("/") or "/"
        common = len(_common_prefix(path, root + "/" + anchored.pattern.lstrip("/")))
        scored.append((common, rule, _path_why(rule, path, root, anchored.pattern)))
    scored.sort(key=lambda s: -s[0])
    out += [NearMiss(rule.rule, why, "no-match") for common, rule, why in scored[:LIMIT]
            if common > 1]
    return out


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _path_why(rule: PermissionRule, path: str, root: str, pattern: str) -> str:
    inside = path == root or path.startswith(root.rstrip("/") + "/")
    if not inside:
        return (f"the pattern is anchored at {root} ({_anchor_kind(str(rule.spec))}); {path} "
                "is not under it")
    relative = path[len(root.rstrip("/")) + 1:]
    body = pattern.lstrip("/")
    if "*" in body and "**" not in body and relative.count("/") > body.count("/"):
        return (f"`*` matches within one folder: `{body}` does not reach `{relative}` "
                f"(`**` crosses folders)")
    return f"`{relative}` (under {root}) does not match `{body}`"


def _anchor_kind(spec: str) -> str:
    if spec.startswith("//"):
        return "//: an absolute path"
    if spec.startswith("~/"):
        return "~/: the home folder"
    if spec.startswith("/"):
        return "/: the settings file's project root"
    return "a relative pattern starts at the working directory"


# -- domains and names --------------------------------------------------------------------------

def _domains(rules: Sequence[PermissionRule], args: Mapping[str, Any], decision: Decision
             ) -> list[NearMiss]:
    url = args.get("url")
    host = urlsplit(url).hostname if isinstance(url, str) else None
    if host is None:
        return []
    out: list[NearMiss] = []
    for rule in rules:
        if rule.form != "domain":
            continue
        want = str(rule.spec)[len("domain:"):].strip().lower()
        if rule.domain_matches(host):
            if (m := _shadowed(rule, decision, host, None)) is not None:
                out.append(m)
        elif want.startswith("*.") and host == want[2:]:
            out.append(NearMiss(rule.rule, f"`{want}` matches subdomains of {want[2:]} only, "
                                           f"not {host} itself: add domain:{host}"))
        elif host.endswith("." + want):
            out.append(NearMiss(rule.rule, f"domain:{want} matches {want} exactly, not its "
                                           f"subdomain {host}: write domain:*.{want}"))
        elif _similar(want, host):
            out.append(NearMiss(rule.rule, f"names {want}, the call fetches {host}"))
    return out[:LIMIT]


def _names(rules: Sequence[PermissionRule], tool: str, decision: Decision) -> list[NearMiss]:
    out: list[NearMiss] = []
    for rule in rules:
        if rule.form in ("tool", "name-glob", "mcp-server") and rule.names(tool):
            if (m := _shadowed(rule, decision, tool, None)) is not None:
                out.append(m)
        elif rule.form in ("tool", "name-glob") and _similar(rule.tool, tool):
            out.append(NearMiss(rule.rule, f"names {rule.tool}, not {tool}"))
        elif rule.form == "mcp-server" and tool.startswith("mcp__") and _similar(
                rule.tool, "__".join(tool.split("__")[:2])):
            out.append(NearMiss(rule.rule, f"names the server {rule.tool}, the call goes to "
                                           f"{'__'.join(tool.split('__')[:2])}"))
    return out[:LIMIT]
