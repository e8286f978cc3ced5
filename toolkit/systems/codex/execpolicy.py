"""Codex's execpolicy: ``.rules`` files read with a real Starlark interpreter, and matching.

A port of ``codex-rs/execpolicy`` (``parser.rs``, ``rule.rs``, ``policy.rs``,
``error.rs``, ``execpolicycheck.rs``). The files are Starlark, evaluated by
starlark-rust (through ``starlark-pyo3``, the interpreter Codex itself embeds) with
three built-ins: ``prefix_rule``, ``host_executable`` and ``network_rule``; no Python
runs from a rules file. Errors read as Codex prints them (``invalid decision: maybe``,
``expected example to not match rule ...``), located ``file:line``.

>>> policy = parse_policy("a.rules", 'prefix_rule(pattern=["git", ["push", "fetch"]], '
...                                   'decision="prompt")')
>>> policy.check(["git", "push", "origin"]).to_json()["decision"]
'prompt'
"""

from __future__ import annotations

import io
import re
import shlex
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from pathlib import PurePath, PurePosixPath
from typing import Any, Literal

__all__ = [
    "DECISIONS",
    "Evaluation",
    "ExecPolicyError",
    "NetworkRule",
    "Policy",
    "PolicyParser",
    "PrefixRule",
    "RuleMatch",
    "executable_lookup_key",
    "executable_path_lookup_key",
    "has_windows_verbatim_or_device_prefix",
    "parse_policy",
    "strictest",
]

Decision = Literal["allow", "prompt", "forbidden"]
#: Codex's ``Decision`` in its ``Ord`` order: the strictest of several matches wins.
DECISIONS: tuple[Decision, ...] = ("allow", "prompt", "forbidden")


def strictest(decisions: Iterable[Decision]) -> Decision:
    """The strictest decision: forbidden > prompt > allow (``Evaluation::from_matches``)."""
    return max(decisions, key=DECISIONS.index)


def _parse_decision(raw: object) -> Decision:
    for decision in DECISIONS:
        if raw == decision:
            return decision
    raise ExecPolicyError(f"invalid decision: {raw}")


class ExecPolicyError(ValueError):
    """An execpolicy error in Codex's own words, with where it happened when known."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column

    def located(self, path: str, line: int | None, column: int | None = None) -> ExecPolicyError:
        """The same error at ``path:line`` (kept when it already has a place)."""
        if self.line is not None:
            return self
        return ExecPolicyError(self.message, path=path, line=line, column=column)

    def display(self) -> str:
        """As Codex shows a rules file it cannot load (``format_exec_policy_error_with_source``):
        ``path:line: message (problem is on or around line N)``."""
        if self.path is not None and self.line is not None:
            return (f"{self.path}:{self.line}: {self.message} "
                    f"(problem is on or around line {self.line})")
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(frozen=True)
class PrefixRule:
    """``prefix_rule(pattern=[first, tok | [alt, ...], ...], decision=...)``, one per head
    alternative (``only_first_token_alias_expands_to_multiple_rules``)."""

    first: str
    rest: tuple[tuple[str, ...], ...]  # each token: its alternatives (one for a plain string)
    decision: Decision = "allow"
    justification: str | None = None
    file: str | None = None
    line: int | None = None
    #: the call's ``match`` / ``not_match`` examples (argvs), kept for ``toolmatrix test``
    matches: tuple[tuple[str, ...], ...] = field(default=(), compare=False, repr=False)
    not_matches: tuple[tuple[str, ...], ...] = field(default=(), compare=False, repr=False)

    @property
    def program(self) -> str:
        return self.first

    def matches_prefix(self, cmd: Sequence[str]) -> list[str] | None:
        """The matched prefix (``PrefixPattern::matches_prefix``), or None."""
        length = len(self.rest) + 1
        if len(cmd) < length or cmd[0] != self.first:
            return None
        for alternatives, token in zip(self.rest, cmd[1:length], strict=True):
            if token not in alternatives:
                return None
        return list(cmd[:length])

    def pattern_text(self) -> str:
        """The pattern as written in Starlark: ``["git", ["push", "fetch"]]``."""
        def token(alts: tuple[str, ...]) -> str:
            return _q(alts[0]) if len(alts) == 1 else "[" + ", ".join(map(_q, alts)) + "]"
        return "[" + ", ".join([_q(self.first), *map(token, self.rest)]) + "]"

    @cached_property
    def text(self) -> str:
        """``prefix_rule(pattern=[...], decision="...")`` as the rule reads."""
        return f"prefix_rule(pattern={self.pattern_text()}, decision={_q(self.decision)})"


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class RuleMatch:
    """One match: ``prefixRuleMatch`` (a rule) or ``heuristicsRuleMatch`` (no rule matched)."""

    decision: Decision
    matched_prefix: tuple[str, ...] = ()
    rule: PrefixRule | None = None
    justification: str | None = None
    resolved_program: str | None = None
    command: tuple[str, ...] = ()  # the heuristics' command

    @property
    def is_policy_match(self) -> bool:
        return self.rule is not None

    def to_json(self) -> dict[str, Any]:
        """As ``codex execpolicy check`` prints it (serde ``camelCase``)."""
        if self.rule is None:
            return {"heuristicsRuleMatch": {"command": list(self.command),
                                            "decision": self.decision}}
        body: dict[str, Any] = {"matchedPrefix": list(self.matched_prefix),
                                "decision": self.decision}
        if self.resolved_program is not None:
            body["resolvedProgram"] = self.resolved_program
        if self.justification is not None:
            body["justification"] = self.justification
        return {"prefixRuleMatch": body}


@dataclass(frozen=True)
class Evaluation:
    """The strictest decision and every match (``policy.rs`` ``Evaluation``)."""

    decision: Decision | None
    matched_rules: tuple[RuleMatch, ...]

    @property
    def is_match(self) -> bool:
        return any(m.is_policy_match for m in self.matched_rules)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"matchedRules": [m.to_json() for m in self.matched_rules]}
        if self.decision is not None:
            out["decision"] = self.decision
        return out


@dataclass(frozen=True)
class NetworkRule:
    host: str
    protocol: str
    decision: Decision
    justification: str | None = None
    file: str | None = None
    line: int | None = None


Fallback = Callable[[Sequence[str]], Decision]


@dataclass
class Policy:
    """Rules by program (their first token), network rules and host executables."""

    rules_by_program: dict[str, list[PrefixRule]] = field(default_factory=dict)
    network_rules: list[NetworkRule] = field(default_factory=list)
    host_executables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: program -> (its rules of one token, its longer rules by their second token's
    #: alternatives), each rule with its place among the program's rules; built on first use
    _index: dict[str, tuple[list[tuple[int, PrefixRule]],
                            dict[str, list[tuple[int, PrefixRule]]]]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    #: (argv, resolve host executables) -> its rule matches, for the latest few thousand argvs
    #: (one call asks about each of its commands several times: its verdict, Codex's
    #: requirement, the sandbox bypass); emptied whenever a rule is added
    _matched: dict[tuple[tuple[str, ...], bool], tuple[RuleMatch, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def rules(self) -> list[PrefixRule]:
        return [r for rules in self.rules_by_program.values() for r in rules]

    def _candidates(self, program: str, second: str | None) -> list[PrefixRule]:
        """The rules of ``program`` that could match a command whose second token is
        ``second`` (None: it has none), in the order they were added: the one-token rules and
        those whose second token allows ``second``, so a long rule list is not scanned whole."""
        entry = self._index.get(program)
        if entry is None:
            short: list[tuple[int, PrefixRule]] = []
            by_second: dict[str, list[tuple[int, PrefixRule]]] = {}
            for place, rule in enumerate(self.rules_by_program.get(program, ())):
                if not rule.rest:
                    short.append((place, rule))
                    continue
                for alt in dict.fromkeys(rule.rest[0]):
                    by_second.setdefault(alt, []).append((place, rule))
            entry = self._index[program] = (short, by_second)
        short, by_second = entry
        longer = by_second.get(second, ()) if second is not None else ()
        if not longer:
            return [rule for _, rule in short]
        if not short:
            return [rule for _, rule in longer]
        return [rule for _, rule in sorted((*short, *longer), key=lambda pair: pair[0])]

    def copy(self) -> Policy:
        return Policy({k: list(v) for k, v in self.rules_by_program.items()},
                      list(self.network_rules), dict(self.host_executables))

    def add_rule(self, rule: PrefixRule) -> None:
        self.rules_by_program.setdefault(rule.program, []).append(rule)
        self._index.pop(rule.program, None)
        self._matched.clear()

    def add_prefix_rule(self, prefix: Sequence[str], decision: Decision) -> None:
        if not prefix:
            raise ExecPolicyError("invalid pattern element: prefix cannot be empty")
        self.add_rule(PrefixRule(prefix[0], tuple((t,) for t in prefix[1:]), decision))

    def merge_overlay(self, overlay: Policy) -> Policy:
        merged = Policy({k: list(v) for k, v in self.rules_by_program.items()},
                        [*self.network_rules, *overlay.network_rules],
                        {**self.host_executables, **overlay.host_executables})
        for rule in overlay.rules():
            merged.add_rule(rule)
        return merged

    def compiled_network_domains(self) -> tuple[list[str], list[str]]:
        """(allowed, denied) hosts; a later rule for a host replaces an earlier one."""
        allowed: list[str] = []
        denied: list[str] = []
        for rule in self.network_rules:
            if rule.decision == "allow":
                denied = [h for h in denied if h != rule.host]
                allowed = [h for h in allowed if h != rule.host] + [rule.host]
            elif rule.decision == "forbidden":
                allowed = [h for h in allowed if h != rule.host]
                denied = [h for h in denied if h != rule.host] + [rule.host]
        return allowed, denied

    # -- matching -------------------------------------------------------------------------
    def _exact(self, cmd: Sequence[str]) -> list[RuleMatch]:
        if not cmd:
            return []
        return [RuleMatch(r.decision, tuple(p), r, r.justification)
                for r in self._candidates(cmd[0], cmd[1] if len(cmd) > 1 else None)
                if (p := r.matches_prefix(cmd)) is not None]

    def _host_executable(self, cmd: Sequence[str]) -> list[RuleMatch]:
        """An absolute program path matched by its basename's rules, when ``host_executable``
        lists that path (or names no paths for it at all)."""
        if not cmd or not cmd[0].startswith("/"):
            return []
        basename = PurePosixPath(cmd[0]).name
        rules = self.rules_by_program.get(basename)
        if not basename or not rules:
            return []
        paths = self.host_executables.get(basename)
        if paths is not None and cmd[0] not in paths:
            return []
        command = [basename, *cmd[1:]]
        return [RuleMatch(r.decision, tuple(p), r, r.justification, resolved_program=cmd[0])
                for r in self._candidates(basename, cmd[1] if len(cmd) > 1 else None)
                if (p := r.matches_prefix(command)) is not None]

    def matches_for_command(self, cmd: Sequence[str], fallback: Fallback | None = None, *,
                            resolve_host_executables: bool = False) -> list[RuleMatch]:
        """Every rule matching ``cmd``; with no match and a ``fallback``, its heuristics match."""
        key = (tuple(cmd), resolve_host_executables)
        found = self._matched.get(key)
        if found is None:
            matched = self._exact(cmd)
            if not matched and resolve_host_executables:
                matched = self._host_executable(cmd)
            if len(self._matched) >= 4096:
                self._matched.clear()
            found = self._matched[key] = tuple(matched)
        if not found and fallback is not None:
            return [RuleMatch(fallback(cmd), command=tuple(cmd))]
        return list(found)

    def check(self, cmd: Sequence[str], fallback: Fallback | None = None, *,
              resolve_host_executables: bool = False) -> Evaluation:
        return self.check_multiple([cmd], fallback,
                                   resolve_host_executables=resolve_host_executables)

    def check_multiple(self, commands: Iterable[Sequence[str]], fallback: Fallback | None = None,
                       *, resolve_host_executables: bool = False) -> Evaluation:
        matched = [m for cmd in commands for m in self.matches_for_command(
            cmd, fallback, resolve_host_executables=resolve_host_executables)]
        decision = strictest(m.decision for m in matched) if matched else None
        return Evaluation(decision, tuple(matched))


# -- executable names (executable_name.rs) -------------------------------------------------

_WINDOWS_EXECUTABLE_SUFFIXES = (".exe", ".cmd", ".bat", ".com")


def _literal_lookup_key_windows(raw: str) -> str:
    lowered = raw.lower()
    for suffix in _WINDOWS_EXECUTABLE_SUFFIXES:
        if lowered.endswith(suffix):
            return lowered[: -len(suffix)]
    return lowered


def executable_lookup_key(raw: str, *, windows: bool = False) -> str:
    """The key a program name is looked up by: itself on Unix; on Windows lower-cased,
    trailing dots and spaces trimmed, without ``.exe`` / ``.cmd`` / ``.bat`` / ``.com``."""
    if not windows:
        return raw
    return _literal_lookup_key_windows(raw.rstrip(" ."))


def has_windows_verbatim_or_device_prefix(path: str) -> bool:
    """A Windows verbatim (two backslashes, ``?``) or device (two backslashes, ``.``) path,
    whose file name Windows takes literally (trailing dots and spaces kept)."""
    return path.startswith(("\\\\?\\", "\\\\.\\"))


def executable_path_lookup_key(path: str, *, windows: bool = False) -> str | None:
    """The lookup key of a program path's file name (``executable_path_lookup_key``)."""
    from pathlib import PureWindowsPath

    name = (PureWindowsPath(path) if windows else PurePosixPath(path)).name
    if not name:
        return None
    if not windows:
        return executable_lookup_key(name)
    if has_windows_verbatim_or_device_prefix(path):
        return _literal_lookup_key_windows(name)
    return executable_lookup_key(name, windows=True)


# -- parsing --------------------------------------------------------------------------------

class _RuleError(Exception):
    """Raised from a built-in inside Starlark: starlark-rust reports it at the call."""


@dataclass
class _Pending:
    rules: list[PrefixRule]
    matches: list[list[str]]
    not_matches: list[list[str]]
    call: int  # the index of the prefix_rule call, to locate it


_ERROR_AT = re.compile(r"-->\s*(?P<path>.+?):(?P<line>\d+):(?P<col>\d+)")
_ERROR_LINE = re.compile(r"^error: (?:(?:_RuleError|[A-Za-z]*Error): )?(?P<msg>.*)$", re.M)


def _starlark_error(exc: Exception, path: str) -> ExecPolicyError:
    """A starlark-rust error as Codex shows it: its ``error:`` line, at its ``-->`` place."""
    text = str(exc)
    where = _ERROR_AT.search(text)
    said = _ERROR_LINE.search(text)
    message = said.group("msg").strip() if said else text.strip().splitlines()[0]
    if where is None:
        return ExecPolicyError(message, path=path)
    return ExecPolicyError(message, path=path, line=int(where.group("line")),
                           column=int(where.group("col")))


def _call_lines(source: str, name: str) -> list[int]:
    """Lines where ``name(`` is written (Starlark tokenises as Python does)."""
    lines: list[int] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return lines
    for tok, nxt in pairwise(tokens):
        if tok.type == tokenize.NAME and tok.string == name and nxt.string == "(":
            lines.append(tok.start[0])
    return lines


def _strings(value: object, what: str) -> list[str]:
    if not isinstance(value, list):
        raise _RuleError(f"{what} must be a list (got {type(value).__name__})")
    return value


def _pattern(pattern: object) -> list[tuple[str, ...]]:
    if not isinstance(pattern, list):
        raise _RuleError(f"invalid pattern element: pattern must be a list "
                         f"(got {_starlark_type(pattern)})")
    tokens: list[tuple[str, ...]] = []
    for value in pattern:
        if isinstance(value, str):
            tokens.append((value,))
        elif isinstance(value, list):
            for alt in value:
                if not isinstance(alt, str):
                    raise _RuleError(f"invalid pattern element: pattern alternative must be a "
                                     f"string (got {_starlark_type(alt)})")
            if not value:
                raise _RuleError("invalid pattern element: pattern alternatives cannot be empty")
            tokens.append(tuple(value))
        else:
            raise _RuleError(f"invalid pattern element: pattern element must be a string or "
                             f"list of strings (got {_starlark_type(value)})")
    if not tokens:
        raise _RuleError("invalid pattern element: pattern cannot be empty")
    return tokens


def _no_extra(function: str, extra: dict[str, object]) -> None:
    """starlark-rust's words for an unknown named argument."""
    if extra:
        names = ", ".join(f"`{k}`" for k in extra)
        raise _RuleError(f"Found {names} extra named parameter(s) for call to {function}")


def _starlark_type(value: object) -> str:
    return {bool: "bool", int: "int", float: "float", str: "string", list: "list",
            dict: "dict", tuple: "tuple", type(None): "NoneType"}.get(type(value), "value")


def _example(value: object) -> list[str]:
    if isinstance(value, str):
        try:
            tokens = shlex.split(value)
        except ValueError:
            raise _RuleError("invalid example: example string has invalid shell syntax") from None
        if not tokens:
            raise _RuleError("invalid example: example cannot be an empty string")
        return tokens
    if isinstance(value, list):
        for token in value:
            if not isinstance(token, str):
                raise _RuleError(f"invalid example: example tokens must be strings "
                                 f"(got {_starlark_type(token)})")
        if not value:
            raise _RuleError("invalid example: example cannot be an empty list")
        return list(value)
    raise _RuleError(f"invalid example: example must be a string or list of strings "
                     f"(got {_starlark_type(value)})")


def _justification(raw: object) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise _RuleError(f"justification must be a string (got {_starlark_type(raw)})")
    if not raw.strip():
        raise _RuleError("invalid rule: justification cannot be empty")
    return raw


_PROTOCOLS = {"http": "http", "https": "https", "https_connect": "https",
              "http-connect": "https", "socks5_tcp": "socks5_tcp", "socks5_udp": "socks5_udp"}


def _without_port(host: str, raw: str) -> str:
    """A host without its ``:port`` (and an IPv6 literal without its brackets)."""
    if host.startswith("["):
        inside, sep, rest = host[1:].partition("]")
        if not sep:
            raise _RuleError("invalid rule: network_rule host has an invalid bracketed IPv6 "
                             "literal")
        port = rest[1:] if rest.startswith(":") else None
        if rest and not (port and port.isdigit()):
            raise _RuleError(f"invalid rule: network_rule host contains an unsupported "
                             f"suffix: {raw}")
        return inside
    if host.count(":") == 1:
        candidate, _, port = host.rpartition(":")
        if candidate and port.isdigit():
            return candidate
    return host


def _network_host(raw: str) -> str:
    """``normalize_network_rule_host``: a bare host or IP literal, lower-cased, no wildcard."""
    host = raw.strip()
    if not host:
        raise _RuleError("invalid rule: network_rule host cannot be empty")
    if any(c in host for c in ("://", "/", "?", "#")):
        raise _RuleError("invalid rule: network_rule host must be a hostname or IP literal "
                         "(without scheme or path)")
    normalized = _without_port(host, raw).rstrip(".").strip().lower()
    if not normalized:
        raise _RuleError("invalid rule: network_rule host cannot be empty")
    if "*" in normalized:
        raise _RuleError("invalid rule: network_rule host must be a specific host; "
                         "wildcards are not allowed")
    if any(c.isspace() for c in normalized):
        raise _RuleError("invalid rule: network_rule host cannot contain whitespace")
    return normalized


def _render_example(tokens: Sequence[str]) -> str:
    return shlex.join(tokens)


def _debug_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rule_debug(rule: PrefixRule) -> str:
    """A rule as Rust's ``{rule:?}`` prints it in Codex's example errors."""
    rest = ", ".join(f"Single({_debug_str(t[0])})" if len(t) == 1
                     else "Alts([" + ", ".join(map(_debug_str, t)) + "])" for t in rule.rest)
    why = "None" if rule.justification is None else f"Some({_debug_str(rule.justification)})"
    return (f"PrefixRule {{ pattern: PrefixPattern {{ first: {_debug_str(rule.first)}, "
            f"rest: [{rest}] }}, decision: {rule.decision.capitalize()}, justification: {why} }}")


class _Builder:
    """The three built-ins a rules file calls, collecting into a staged policy; each call's
    line is found by the order calls are written in (the Nth ``prefix_rule(`` call made is
    the Nth written, unless loops or functions repeat one: then the last written)."""

    def __init__(self, base: Policy, source: str, shown: str) -> None:
        self.staged = Policy({k: list(v) for k, v in base.rules_by_program.items()},
                             list(base.network_rules), dict(base.host_executables))
        self.shown = shown
        self.lines = {name: _call_lines(source, name)
                      for name in ("prefix_rule", "network_rule", "host_executable")}
        self.counts = dict.fromkeys(self.lines, 0)
        self.pending: list[_Pending] = []

    def _line(self, name: str) -> int | None:
        index = self.counts[name]
        self.counts[name] += 1
        found = self.lines[name]
        return found[index] if index < len(found) else (found[-1] if found else None)

    def prefix_rule(self, pattern: object = None, decision: object = None, match: object = None,
                    not_match: object = None, justification: object = None,
                    **extra: object) -> None:
        _no_extra("prefix_rule", extra)
        line = self._line("prefix_rule")
        if pattern is None:
            raise _RuleError("Missing parameter `pattern` for call to `prefix_rule`")
        parsed_decision = _decision_in_call("allow" if decision is None else decision)
        why = _justification(justification)
        tokens = _pattern(pattern)
        matches = [_example(v) for v in _strings(match, "match")] if match is not None else []
        not_matches = ([_example(v) for v in _strings(not_match, "not_match")]
                       if not_match is not None else [])
        examples = {"matches": tuple(map(tuple, matches)),
                    "not_matches": tuple(map(tuple, not_matches))}
        rules = [PrefixRule(head, tuple(tokens[1:]), parsed_decision, why, self.shown, line,
                            **examples)
                 for head in tokens[0]]
        self.pending.append(_Pending(rules, matches, not_matches,
                                     self.counts["prefix_rule"] - 1))
        for rule in rules:
            self.staged.add_rule(rule)

    def network_rule(self, host: object = None, protocol: object = None,
                     decision: object = None, justification: object = None,
                     **extra: object) -> None:
        _no_extra("network_rule", extra)
        line = self._line("network_rule")
        for name, value in (("host", host), ("protocol", protocol), ("decision", decision)):
            if not isinstance(value, str):
                raise _RuleError(f"Missing parameter `{name}` for call to `network_rule`"
                                 if value is None else f"network_rule {name} must be a string")
        assert isinstance(protocol, str) and isinstance(host, str)
        if protocol not in _PROTOCOLS:
            raise _RuleError(f"invalid rule: network_rule protocol must be one of http, "
                             f"https, socks5_tcp, socks5_udp (got {protocol})")
        parsed_decision = _decision_in_call("forbidden" if decision == "deny" else decision)
        self.staged.network_rules.append(NetworkRule(
            _network_host(host), _PROTOCOLS[protocol], parsed_decision,
            _justification(justification), self.shown, line))

    def host_executable(self, name: object = None, paths: object = None,
                        **extra: object) -> None:
        _no_extra("host_executable", extra)
        self._line("host_executable")
        if not isinstance(name, str):
            raise _RuleError("Missing parameter `name` for call to `host_executable`")
        if not name:
            raise _RuleError("invalid rule: host_executable name cannot be empty")
        if "/" in name or name in (".", ".."):
            raise _RuleError(f"invalid rule: host_executable name must be a bare executable "
                             f"name (got {name})")
        parsed: list[str] = []
        for raw in _strings(paths if paths is not None else [], "paths"):
            checked = _host_path(raw, name)
            if checked not in parsed:
                parsed.append(checked)
        self.staged.host_executables[name] = tuple(parsed)


def _decision_in_call(raw: object) -> Decision:
    try:
        return _parse_decision(raw)
    except ExecPolicyError as exc:
        raise _RuleError(exc.message) from None


def _host_path(raw: object, name: str) -> str:
    if not isinstance(raw, str):
        raise _RuleError(f"invalid rule: host_executable paths must be strings "
                         f"(got {_starlark_type(raw)})")
    if not (raw.startswith("/") or raw.startswith("~/")):
        raise _RuleError(f"invalid rule: host_executable paths must be absolute or use "
                         f"`~/...` home-relative syntax (got {raw}): path is not absolute")
    if PurePath(raw).name != name:
        raise _RuleError(f"invalid rule: host_executable path `{raw}` must have basename "
                         f"`{name}`")
    return raw


class PolicyParser:
    """Parses rules files into one policy, as Codex's ``PolicyParser``: each file evaluated
    by starlark-rust with the three built-ins, its ``match`` / ``not_match`` examples checked
    once the file is read."""

    def __init__(self) -> None:
        self.policy = Policy()

    def parse(self, identifier: str, source: str, *, display: str | None = None) -> None:
        """Read one file (``identifier`` names it in errors; ``display`` in rules' ``file``)."""
        import starlark as sl

        builder = _Builder(self.policy, source, display if display is not None else identifier)
        dialect = sl.Dialect.extended()
        dialect.enable_f_strings = True
        try:
            ast = sl.parse(identifier, source, dialect)
            module = sl.Module()
            module.add_callable("prefix_rule", builder.prefix_rule)
            module.add_callable("network_rule", builder.network_rule)
            module.add_callable("host_executable", builder.host_executable)
            sl.eval(module, ast, sl.Globals.standard())
        except sl.StarlarkError as exc:
            raise _starlark_error(exc, identifier) from None
        for item in builder.pending:
            self._validate(item, builder.staged, identifier)
        self.policy = builder.staged

    def _validate(self, item: _Pending, staged: Policy, identifier: str) -> None:
        """``validate_pending_examples_from``: ``not_match`` first, then ``match``, each against
        the rules of that one call (host executables resolved)."""
        policy = Policy(host_executables=staged.host_executables)
        for rule in item.rules:
            policy.add_rule(rule)
        line = item.rules[0].line if item.rules else None
        for example in item.not_matches:
            found = policy.matches_for_command(example, resolve_host_executables=True)
            if found:
                assert found[0].rule is not None
                raise ExecPolicyError(
                    f"expected example to not match rule `{_rule_debug(found[0].rule)}`: "
                    f"{_render_example(example)}", path=identifier, line=line)
        unmatched = [_render_example(e) for e in item.matches
                     if not policy.matches_for_command(e, resolve_host_executables=True)]
        if unmatched:
            rules = ", ".join(_debug_str(_rule_debug(r)) for r in item.rules)
            listed = ", ".join(map(_debug_str, unmatched))
            raise ExecPolicyError(
                f"expected every example to match at least one rule. rules: [{rules}]; "
                f"unmatched examples: [{listed}]", path=identifier, line=line)

    def build(self) -> Policy:
        return self.policy


def parse_policy(identifier: str, source: str) -> Policy:
    """One file's policy (``ExecPolicyError`` when Codex would refuse it)."""
    parser = PolicyParser()
    parser.parse(identifier, source)
    return parser.build()
