"""Codex's managed requirements: ``requirements.toml`` (and the legacy ``managed_config.toml``).

A port of what of ``codex-rs/config/src/config_requirements.rs`` and
``requirements_exec_policy.rs`` decides a call. An administrator's requirements constrain
what the user's configuration may choose; they never grant:

- ``allowed_approval_policies`` / ``allowed_sandbox_modes``: a configured (or default)
  value outside the list falls back to the first allowed approval policy, or to
  ``read-only``, with Codex's startup warning (``apply_requirement_constrained_value``);
  ``allowed_sandbox_modes`` must include ``read-only``;
- ``mcp_servers``: an allowlist by name and identity (``command`` of a stdio server,
  ``url`` of an HTTP one); a configured server not on it is disabled;
- ``[rules] prefix_rules``: prefix rules in TOML (``pattern = [{ token = ... } |
  { any_of = [...] }]``) merged over every layer's ``.rules``, the strictest decision
  winning; ``decision = "allow"`` is refused ("Codex merges these rules with other config
  and uses the most restrictive result").

Codex reads them from ``/etc/codex/requirements.toml`` (and cloud / MDM sources toolkit
cannot see); toolkit reads them only when given (``tk.load(..., managed=...)``: that file,
or a folder holding it). ``managed_config.toml`` is read as Codex reads it for backwards
compatibility: its ``approval_policy`` / ``sandbox_mode`` become requirements.

>>> r = parse_requirements('allowed_approval_policies = ["on-request"]', "requirements.toml")
>>> r.constrain_approval_policy("never")[0]
'on-request'
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .execpolicy import DECISIONS, Policy, PrefixRule

__all__ = [
    "APPROVAL_DEBUG",
    "McpIdentity",
    "Requirements",
    "RequirementsError",
    "compose",
    "legacy_managed_config",
    "parse_requirements",
    "parse_rules",
    "toml_error_line",
]

#: approval policy -> its Rust ``Debug`` name, as Codex's messages print it
APPROVAL_DEBUG = {"untrusted": "UnlessTrusted", "on-failure": "OnFailure",
                  "on-request": "OnRequest", "never": "Never", "granular": "Granular"}
#: sandbox mode -> its ``SandboxModeRequirement`` ``Debug`` name
SANDBOX_DEBUG = {"read-only": "ReadOnly", "workspace-write": "WorkspaceWrite",
                 "danger-full-access": "DangerFullAccess", "external-sandbox": "ExternalSandbox"}
_APPROVALS = ("untrusted", "on-failure", "on-request", "never")
_REVIEWERS = ("user", "auto_review", "guardian_subagent")


class RequirementsError(ValueError):
    """A requirements file Codex refuses to start with, in its words, with the line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class McpIdentity:
    """``McpServerIdentity``: the stdio ``command`` or the HTTP ``url`` a server must have."""

    command: str | None = None
    url: str | None = None

    def matches(self, command: str | None, url: str | None) -> bool:
        """``mcp_server_matches_requirement``."""
        if self.command is not None:
            return command == self.command
        return url is not None and url == self.url


@dataclass(frozen=True)
class Requirements:
    """The requirements that decide calls, and the file (as shown) they were set by."""

    source: str
    allowed_approval_policies: tuple[str, ...] | None = None
    allowed_sandbox_modes: tuple[str, ...] | None = None
    mcp_servers: Mapping[str, McpIdentity] | None = None
    rules: Policy | None = None
    #: field -> the file that set it, when requirements of several files are composed
    sources: Mapping[str, str] | None = None

    def source_of(self, field: str) -> str:
        """The file that set ``field`` (``allowed_approval_policies``, ...)."""
        return (self.sources or {}).get(field, self.source)

    def _invalid(self, field: str, setting: str, candidate: str, allowed: str) -> str:
        """``ConstraintError::InvalidValue`` as Codex displays it."""
        return (f"invalid value for `{field}`: `{candidate}` is not in the allowed set "
                f"{allowed} (set by {self.source_of(setting)})")

    def approval_policy_error(self, candidate: str) -> str | None:
        """``approval_policy.can_set(candidate)``: None, or Codex's error."""
        allowed = self.allowed_approval_policies
        if allowed is None or candidate in allowed:
            return None
        listed = "[" + ", ".join(APPROVAL_DEBUG[a] for a in allowed) + "]"
        return self._invalid("approval_policy", "allowed_approval_policies",
                             APPROVAL_DEBUG.get(candidate, candidate), listed)

    def sandbox_mode_error(self, candidate: str) -> str | None:
        """``permission_profile.can_set`` for a profile of that sandbox mode."""
        allowed = self.allowed_sandbox_modes
        if allowed is None or candidate in allowed:
            return None
        listed = "[" + ", ".join(SANDBOX_DEBUG[m] for m in allowed) + "]"
        return self._invalid("sandbox_mode", "allowed_sandbox_modes",
                             SANDBOX_DEBUG.get(candidate, candidate), listed)

    def constrain_approval_policy(self, configured: str) -> tuple[str, str | None]:
        """(the approval policy Codex runs with, its startup warning or None)."""
        error = self.approval_policy_error(configured)
        if error is None:
            return configured, None
        assert self.allowed_approval_policies is not None
        fallback = self.allowed_approval_policies[0]
        return fallback, _fallback_warning("approval_policy", APPROVAL_DEBUG[fallback], error)

    def constrain_sandbox_mode(self, configured: str) -> tuple[str, str | None]:
        """(the sandbox mode Codex runs with, its startup warning or None): a disallowed
        mode falls back to ``read-only``, which every allowed list holds."""
        error = self.sandbox_mode_error(configured)
        if error is None:
            return configured, None
        return "read-only", _fallback_warning("permission_profile", "ReadOnly", error)

    def mcp_server_allowed(self, name: str, command: str | None, url: str | None) -> bool:
        """``filter_mcp_servers_by_requirements``: on the allowlist with that identity."""
        if self.mcp_servers is None:
            return True
        identity = self.mcp_servers.get(name)
        return identity is not None and identity.matches(command, url)


def toml_error_line(exc: tomllib.TOMLDecodeError) -> int | None:
    """The line of a TOML syntax error (``lineno``, or "(at line N, ..." in its message on
    Pythons before 3.14)."""
    line = getattr(exc, "lineno", None)
    if isinstance(line, int):
        return line
    found = re.search(r"\(at line (\d+)", str(exc))
    return int(found.group(1)) if found else None


def _fallback_warning(field: str, fallback: str, error: str) -> str:
    """``apply_requirement_constrained_value``'s startup warning."""
    return (f"Configured value for `{field}` is disallowed by requirements; falling back to "
            f"required value {fallback}. Details: {error}")


def _line_of(text: str, pattern: str, nth: int = 0, after: int = 0) -> int | None:
    """The line of the ``nth`` match of ``pattern`` at or after line ``after`` (1-based)."""
    lines = text.splitlines()
    found = -1
    compiled = re.compile(pattern)
    for number, line in enumerate(lines[max(after - 1, 0):], start=max(after, 1)):
        if compiled.search(line):
            found += 1
            if found == nth:
                return number
    return None


def _key_line(text: str, key: str) -> int | None:
    """The line where a top-level ``key`` (or its table ``[key]`` / ``[key.x]``) is set."""
    escaped = re.escape(key)
    return _line_of(text, rf"^\s*(?:{escaped}\s*=|\[\[?\s*{escaped}\s*[.\]])")


def _strings(value: Any, field: str, choices: Sequence[str], text: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RequirementsError(f"invalid type for `{field}`: expected a list of strings",
                                _key_line(text, field))
    for item in value:
        if item not in choices:
            listed = ", ".join(f"`{c}`" for c in choices)
            raise RequirementsError(f"unknown variant `{item}`, expected one of {listed} (in "
                                    f"`{field}`)", _key_line(text, field))
    return tuple(value)


def parse_requirements(text: str, source: str) -> Requirements:
    """One ``requirements.toml``; ``RequirementsError`` (Codex's words, with the line) for
    a file Codex refuses (``ConfigRequirements::try_from``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RequirementsError(f"failed to parse requirements.toml: {exc}",
                                toml_error_line(exc)) from None
    return _requirements(data, source, text)


def _requirements(data: Mapping[str, Any], source: str, text: str) -> Requirements:
    approvals = modes = None
    if "allowed_approval_policies" in data:
        approvals = _strings(data["allowed_approval_policies"], "allowed_approval_policies",
                             _APPROVALS, text)
        if not approvals:
            raise RequirementsError("field `allowed_approval_policies` cannot be empty",
                                    _key_line(text, "allowed_approval_policies"))
    if "allowed_sandbox_modes" in data:
        modes = _strings(data["allowed_sandbox_modes"], "allowed_sandbox_modes",
                         tuple(SANDBOX_DEBUG), text)
        if "read-only" not in modes:
            listed = "[" + ", ".join(SANDBOX_DEBUG[m] for m in modes) + "]"
            raise RequirementsError(
                f"invalid value for `allowed_sandbox_modes`: `{listed}` is not in the allowed "
                f"set must include 'read-only' to allow any PermissionProfile (set by "
                f"{source})", _key_line(text, "allowed_sandbox_modes"))
    servers = _mcp_servers(data["mcp_servers"], text) if "mcp_servers" in data else None
    rules = None
    if "rules" in data:
        table = data["rules"]
        if not isinstance(table, Mapping) or not isinstance(table.get("prefix_rules"), list):
            raise RequirementsError("missing field `prefix_rules` (in `rules`)",
                                    _key_line(text, "rules"))
        try:
            rules = parse_rules(table["prefix_rules"], source, text)
        except RequirementsError as exc:
            raise RequirementsError(f"invalid rules in requirements (set by {source}): "
                                    f"{exc.message}", exc.line) from None
    return Requirements(source, approvals, modes, servers, rules)


def _mcp_servers(value: Any, text: str) -> dict[str, McpIdentity]:
    """``[mcp_servers.NAME.identity]`` with ``command`` or ``url``."""
    if not isinstance(value, Mapping):
        raise RequirementsError("invalid type for `mcp_servers`: expected a table",
                                _key_line(text, "mcp_servers"))
    out: dict[str, McpIdentity] = {}
    for name, entry in value.items():
        identity = entry.get("identity") if isinstance(entry, Mapping) else None
        command = identity.get("command") if isinstance(identity, Mapping) else None
        url = identity.get("url") if isinstance(identity, Mapping) else None
        if isinstance(command, str):
            out[name] = McpIdentity(command=command)
        elif isinstance(url, str):
            out[name] = McpIdentity(url=url)
        else:
            raise RequirementsError(
                f"invalid `mcp_servers.{name}`: expected `identity` with `command` or `url`",
                _line_of(text, rf"mcp_servers\.\"?{re.escape(name)}\b"))
    return out


def _rule_line(text: str, index: int) -> int | None:
    """The line of the ``index``-th prefix rule (its ``pattern``) in ``[rules]``."""
    start = _line_of(text, r"^\s*\[\s*rules\s*\]|^\s*\[\[\s*rules\.prefix_rules\s*\]\]|"
                           r"^\s*rules\s*=") or 1
    return _line_of(text, r"\bpattern\s*=", index, start)


def parse_rules(prefix_rules: Sequence[Any], source: str, text: str = "") -> Policy:
    """``RequirementsExecPolicyToml::to_policy``: the ``prefix_rules`` array as a policy
    (one rule per head alternative); ``RequirementsError`` in Codex's words."""
    if not prefix_rules:
        raise RequirementsError("rules prefix_rules cannot be empty", _key_line(text, "rules"))
    policy = Policy()
    for index, rule in enumerate(prefix_rules):
        line = _rule_line(text, index)
        if not isinstance(rule, Mapping):
            raise RequirementsError(f"rules prefix_rule at index {index} must be a table", line)
        why = rule.get("justification")
        if why is not None and (not isinstance(why, str) or not why.strip()):
            raise RequirementsError(f"rules prefix_rule at index {index} has an empty "
                                    "justification", line)
        pattern = rule.get("pattern")
        if not isinstance(pattern, list):
            raise RequirementsError(f"missing field `pattern` (rules prefix_rule at index "
                                    f"{index})", line)
        if not pattern:
            raise RequirementsError(f"rules prefix_rule at index {index} has an empty pattern",
                                    line)
        tokens = [_token(token, index, i, line) for i, token in enumerate(pattern)]
        decision = _decision(rule, index, line)
        for head in tokens[0]:
            policy.add_rule(PrefixRule(head, tuple(tokens[1:]), decision, why, source, line))
    return policy


def _decision(rule: Mapping[str, Any], index: int, line: int | None) -> Any:
    """A requirements rule's decision: prompt or forbidden (and its reviewer, if any, only
    with prompt)."""
    decision = rule.get("decision")
    if decision == "allow":
        raise RequirementsError(
            f"rules prefix_rule at index {index} has decision 'allow', which is not "
            "permitted in requirements.toml: Codex merges these rules with other config "
            "and uses the most restrictive result (use 'prompt' or 'forbidden')", line)
    if decision is None:
        raise RequirementsError(f"rules prefix_rule at index {index} is missing a decision",
                                line)
    if decision not in DECISIONS:
        raise RequirementsError(f"unknown variant `{decision}`, expected one of `allow`, "
                                f"`prompt`, `forbidden` (rules prefix_rule at index {index})",
                                line)
    reviewer = rule.get("reviewer")
    if reviewer is not None:
        if reviewer not in _REVIEWERS:
            raise RequirementsError(f"unknown variant `{reviewer}`, expected one of `user`, "
                                    f"`auto_review` (rules prefix_rule at index {index})", line)
        if decision != "prompt":
            raise RequirementsError(f"rules prefix_rule at index {index} has a reviewer, but "
                                    "reviewer is only valid with decision 'prompt'", line)
    return decision


def _token(token: Any, rule: int, index: int, line: int | None) -> tuple[str, ...]:
    """``parse_pattern_token``: ``{ token = "x" }`` or ``{ any_of = ["x", "y"] }``."""
    def invalid(reason: str) -> RequirementsError:
        return RequirementsError(f"rules prefix_rule at index {rule} has an invalid pattern "
                                 f"token at index {index}: {reason}", line)

    single = token.get("token") if isinstance(token, Mapping) else None
    alternatives = token.get("any_of") if isinstance(token, Mapping) else None
    if single is not None and alternatives is not None:
        raise invalid("set either token or any_of, not both")
    if isinstance(single, str):
        if not single.strip():
            raise invalid("token cannot be empty")
        return (single,)
    if isinstance(alternatives, list) and all(isinstance(a, str) for a in alternatives):
        if not alternatives:
            raise invalid("any_of cannot be empty")
        if any(not a.strip() for a in alternatives):
            raise invalid("any_of cannot include empty tokens")
        return tuple(alternatives)
    raise invalid("set either token or any_of")


def legacy_managed_config(data: Mapping[str, Any], source: str) -> Requirements:
    """``managed_config.toml`` read as requirements (``legacy_requirements_to_toml_value``):
    its ``approval_policy`` is the one allowed; its ``sandbox_mode`` is allowed beside
    ``read-only``."""
    approval = data.get("approval_policy")
    sandbox = data.get("sandbox_mode")
    approvals = (approval,) if isinstance(approval, str) and approval in _APPROVALS else None
    modes = None
    if isinstance(sandbox, str) and sandbox in SANDBOX_DEBUG:
        modes = ("read-only",) if sandbox == "read-only" else ("read-only", sandbox)
    return Requirements(source, approvals, modes)


def compose(layers: Sequence[Requirements]) -> Requirements | None:
    """Requirements layers in ascending precedence, composed: a field set by a higher layer
    wins (``compose_requirements``), and keeps the file that set it."""
    if not layers:
        return None
    fields = ("allowed_approval_policies", "allowed_sandbox_modes", "mcp_servers", "rules")
    values: dict[str, Any] = dict.fromkeys(fields)
    sources: dict[str, str] = {}
    for layer in layers:
        for name in fields:
            if getattr(layer, name) is not None:
                values[name] = getattr(layer, name)
                sources[name] = layer.source_of(name)
    return Requirements(layers[-1].source, sources=sources, **values)
