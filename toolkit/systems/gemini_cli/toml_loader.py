"""Policy TOML files, read as ``packages/core/src/policy/toml-loader.ts`` reads them.

A file is parsed (Python's ``tomllib``; the line of every ``[[rule]]`` and of its keys is
recovered from the text), validated against Gemini's zod schema (a schema error skips the
whole file, a shell-syntax error is reported and the rule still loads, a bad regex drops
that rule), then transformed: ``commandPrefix`` / ``commandRegex`` become ``argsPattern``,
a ``toolName`` list and a ``commandPrefix`` list expand to one rule each, ``mcpName``
qualifies the tool name, and the priority becomes ``tier + priority/1000``. Every problem
is a :class:`PolicyFileError` in Gemini's words (``formatPolicyError``) with file:line.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import Problem
from .policy import (
    DECISIONS,
    MCP_TOOL_PREFIX,
    MODES,
    TOOL_LEGACY_ALIASES,
    PolicyRule,
    build_args_patterns,
    format_mcp_tool_name,
    is_safe_regexp,
    js_regex,
    parse_mcp_tool_name,
)
from .tools import ALL_BUILTIN_TOOL_NAMES

__all__ = ["TIER_NAMES", "PolicyFileError", "PolicyLoadResult", "load_policies",
           "parse_policy_text"]

#: tier number -> name (``getTierName``)
TIER_NAMES = {1: "default", 2: "extension", 3: "workspace", 4: "user", 5: "admin"}
MAX_TYPO_DISTANCE = 3
DISCOVERED_TOOL_PREFIX = "discovered_tool_"
_CHECKER_NAMES = ("allowed-path", "conseca")


@dataclass(frozen=True)
class PolicyFileError:
    """``PolicyFileError``, with the line toolkit recovered."""

    file_path: str
    file_name: str
    tier: str
    error_type: str
    message: str
    details: str | None = None
    suggestion: str | None = None
    severity: str = "error"
    rule_index: int | None = None
    line: int | None = None

    def formatted(self) -> str:
        """``formatPolicyError``: what Gemini CLI prints."""
        out = f"[{self.tier.upper()}] Policy file {self.severity} in {self.file_name}:\n"
        out += f"  {self.message}"
        if self.details:
            out += f"\n{self.details}"
        if self.suggestion:
            out += f"\n  Suggestion: {self.suggestion}"
        return out

    @property
    def problem(self) -> Problem:
        """The error as a located toolkit :class:`Problem` (one line)."""
        text = " ".join(x.strip() for x in self.formatted().splitlines() if x.strip())
        return Problem(self.file_path, self.line, text, self.severity)


@dataclass
class SafetyCheckerRule:
    """``SafetyCheckerRule``: loaded and listed; toolkit does not run checkers."""

    tool_name: str
    checker: dict[str, Any]
    priority: float
    source: str
    file: str
    line: int | None
    mcp_name: str | None = None


@dataclass
class PolicyLoadResult:
    """``PolicyLoadResult``."""

    rules: list[PolicyRule] = field(default_factory=list)
    checkers: list[SafetyCheckerRule] = field(default_factory=list)
    errors: list[PolicyFileError] = field(default_factory=list)


# -- lines ------------------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\[\s*([A-Za-z_\"'.-]+)\s*\]\]")
_TABLE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+|\"[^\"]*\")\s*=")


def _block_lines(text: str, table: str) -> list[tuple[int, dict[str, int]]]:
    """For every ``[[table]]``: the header's line and the line of each key below it."""
    out: list[tuple[int, dict[str, int]]] = []
    current: dict[str, int] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            current = None
            if header.group(1).strip("\"'") == table:
                current = {}
                out.append((number, current))
            continue
        sub = _TABLE.match(line)
        if sub:
            if current is not None and not sub.group(1).startswith(table + "."):
                current = None
            elif current is not None:  # [safety_checker.checker]: its keys join the block
                current.setdefault(sub.group(1).rsplit(".", 1)[-1], number)
            continue
        key = _KEY.match(line)
        if key and current is not None:
            current.setdefault(key.group(1).strip('"'), number)
    return out


# -- schema (zod) -------------------------------------------------------------------------------

def _js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "date" if value is not None else "undefined"


def _string_or_list(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, list)
                                      and all(isinstance(v, str) for v in value))


def _enum(value: Any, options: Iterable[str]) -> str | None:
    options = tuple(options)
    if isinstance(value, str) and value in options:
        return None
    expected = " | ".join(f"'{o}'" for o in options)
    shown = f"'{value}'" if isinstance(value, str) else _js_type(value)
    return f"Invalid enum value. Expected {expected}, received {shown}"


def _rule_issues(rule: Any, index: int, table: str = "rule") -> list[tuple[str, str]]:  # noqa: C901 (a port kept in upstream's shape)
    """The zod issues of one ``[[rule]]`` (``PolicyRuleSchema``): (field path, message)."""
    here = f"{table}.{index}"
    if not isinstance(rule, dict):
        return [(here, f"Expected object, received {_js_type(rule)}")]
    issues: list[tuple[str, str]] = []

    def typed(key: str, kind: type | tuple[type, ...], name: str) -> None:
        if key in rule and (not isinstance(rule[key], kind) or (
                kind is not bool and isinstance(rule[key], bool))):
            issues.append((f"{here}.{key}", f"Expected {name}, received {_js_type(rule[key])}"))

    # z.union([z.string(), z.array(z.string())]): zod 3 reports a missing or mistyped union
    # as one "Invalid input" (invalid_union), not "Required"
    if not _string_or_list(rule.get("toolName")):
        issues.append((f"{here}.toolName", "Invalid input"))
    for key in ("subagent", "mcpName", "argsPattern", "commandRegex", "denyMessage",
                "deny_message"):
        typed(key, str, "string")
    if "commandPrefix" in rule and not _string_or_list(rule["commandPrefix"]):
        issues.append((f"{here}.commandPrefix", "Invalid input"))
    if table == "rule":
        if "decision" not in rule:
            issues.append((f"{here}.decision", "Required"))
        else:
            bad = _enum(rule["decision"], DECISIONS)
            if bad:
                issues.append((f"{here}.decision", bad))
    priority: Any = rule.get("priority")
    # the rule schema words its priority checks; the checker schema's
    # z.number().int().default(0) has zod's own words
    if table == "rule" and "priority" not in rule:
        issues.append((f"{here}.priority", "priority is required"))
    elif "priority" in rule and (isinstance(priority, bool)
                                 or not isinstance(priority, (int, float))):
        issues.append((f"{here}.priority", "priority must be a number" if table == "rule" else
                       f"Expected number, received {_js_type(priority)}"))
    elif "priority" in rule:
        if not math.isfinite(priority) or float(priority) != int(priority):
            issues.append((f"{here}.priority", "priority must be an integer" if table == "rule"
                           else "Expected integer, received float"))
        if table == "rule" and priority < 0:
            issues.append((f"{here}.priority", "priority must be >= 0"))
        if table == "rule" and priority > 999:
            issues.append((f"{here}.priority", "priority must be <= 999 to prevent tier "
                                               "overflow. Priorities >= 1000 would jump to the "
                                               "next tier."))
    if "modes" in rule:
        if not isinstance(rule["modes"], list):
            issues.append((f"{here}.modes", f"Expected array, received "
                                            f"{_js_type(rule['modes'])}"))
        else:
            for i, mode in enumerate(rule["modes"]):
                bad = _enum(mode, ("default", "autoEdit", "yolo", "plan"))
                if bad:
                    issues.append((f"{here}.modes.{i}", bad))
    for key in ("interactive", "allowRedirection", "allow_redirection"):
        typed(key, bool, "boolean")
    typed("toolAnnotations", dict, "object")
    if table == "safety_checker":
        checker = rule.get("checker")
        if not isinstance(checker, dict):
            issues.append((f"{here}.checker", "Required" if checker is None else
                           f"Expected object, received {_js_type(checker)}"))
        elif checker.get("type") not in ("in-process", "external"):
            issues.append((f"{here}.checker.type", "Invalid discriminator value. Expected "
                                                   "'in-process' | 'external'"))
        elif checker["type"] == "in-process":
            bad = _enum(checker.get("name"), _CHECKER_NAMES)
            if bad:
                issues.append((f"{here}.checker.name", bad))
    return issues


def _validate_shell_syntax(rule: dict[str, Any], index: int) -> str | None:
    """``validateShellCommandSyntax``."""
    has_prefix, has_regex = "commandPrefix" in rule, "commandRegex" in rule
    if has_prefix or has_regex:
        if rule["toolName"] != "run_shell_command":
            found = _json(rule["toolName"])
            return (f"Rule #{index + 1}: commandPrefix and commandRegex can only be used with "
                    'toolName = "run_shell_command"\n'
                    f"  Found: toolName = {found}\n"
                    '  Fix: Set toolName = "run_shell_command" (not an array)')
        if "argsPattern" in rule:
            return (f"Rule #{index + 1}: cannot use both commandPrefix/commandRegex and "
                    "argsPattern\n  These fields are mutually exclusive\n"
                    "  Fix: Use either commandPrefix/commandRegex OR argsPattern, not both")
        if has_prefix and has_regex:
            return (f"Rule #{index + 1}: cannot use both commandPrefix and commandRegex\n"
                    "  These fields are mutually exclusive\n"
                    "  Fix: Use either commandPrefix OR commandRegex, not both")
    return None


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


_SLUG = re.compile(r"^[a-z0-9_.:-]+$", re.I)


def is_valid_tool_name(name: str, allow_wildcards: bool = False) -> bool:  # noqa: C901 (a port kept in upstream's shape)
    """``isValidToolName`` (tool-names.ts)."""
    if name in ALL_BUILTIN_TOOL_NAMES or name in TOOL_LEGACY_ALIASES:
        return True
    if name.startswith(DISCOVERED_TOOL_PREFIX):
        return True
    if allow_wildcards and name == "*":
        return True
    if name.startswith(MCP_TOOL_PREFIX):
        if name == f"{MCP_TOOL_PREFIX}*" and allow_wildcards:
            return True
        if name.startswith(f"{MCP_TOOL_PREFIX}_"):
            return False
        server, tool = parse_mcp_tool_name(name)
        if server and tool:
            if not _SLUG.match(server):
                return False
            if tool == "*":
                return allow_wildcards
            if re.fullmatch(r"_*", tool):
                return False
            return bool(_SLUG.match(tool))
    return False


def _tool_suggestion(name: str, names: list[str], top: int = 3) -> str:
    """``getToolSuggestion`` (utils/tool-utils.ts): the ``top`` closest names by Levenshtein
    distance (a stable sort, as JavaScript's), however far."""
    best = sorted(names, key=lambda n: _levenshtein(name, n))[:top]
    if not best:
        return ""
    if len(best) == 1:
        return f' Did you mean "{best[0]}"?'
    return " Did you mean one of: " + ", ".join(f'"{n}"' for n in best) + "?"


def validate_tool_name(name: str, index: int) -> str | None:
    """``validateToolName``: a warning for a likely typo of a built-in tool name."""
    if "__" in name:
        return (f'Rule #{index + 1}: The "__" syntax for MCP tools is strictly deprecated. '
                "Please use the 'mcpName = \"...\"' property or the 'mcp_server_tool' format "
                "instead.")
    if is_valid_tool_name(name, allow_wildcards=True):
        return None
    names = list(ALL_BUILTIN_TOOL_NAMES)
    if min(_levenshtein(name, n) for n in names) > MAX_TYPO_DISTANCE:
        return None
    return f'Rule #{index + 1}: Unrecognized tool name "{name}".{_tool_suggestion(name, names)}'


# -- loading -------------------------------------------------------------------------------------

_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


def parse_policy_text(text: str, file_path: str, tier: int, *, shown: str | None = None,  # noqa: C901
                      written_in: str | None = None) -> PolicyLoadResult:
    """One policy file's text -> its rules, checkers and errors (``loadPoliciesFromToml`` for a
    single file). ``shown`` is how rules name the file (default ``file_path``)."""
    tier_name = TIER_NAMES.get(tier, "default")
    name = Path(file_path).name
    where = shown or file_path
    result = PolicyLoadResult()

    def error(kind: str, message: str, details: str | None = None, suggestion: str | None = None,
              index: int | None = None, line: int | None = None,
              severity: str = "error") -> None:
        result.errors.append(PolicyFileError(where, name, tier_name, kind, message, details,
                                             suggestion, severity, index, line))

    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = _TOML_LINE.search(str(exc))
        error("toml_parse", "TOML parsing failed", str(exc),
              "Check for syntax errors like missing quotes, brackets, or commas",
              line=int(at.group(1)) if at else None)
        return result
    rule_lines = _block_lines(text, "rule")
    checker_lines = _block_lines(text, "safety_checker")

    def line_of(lines: list[tuple[int, dict[str, int]]], index: int,
                key: str | None = None) -> int | None:
        if index >= len(lines):
            return None
        header, keys = lines[index]
        return keys.get(key, header) if key else header

    issues: list[tuple[str, str]] = []
    for table in ("rule", "safety_checker"):
        value = parsed.get(table)
        if value is None:
            continue
        if not isinstance(value, list):
            issues.append((table, f"Expected array, received {_js_type(value)}"))
            continue
        for i, item in enumerate(value):
            issues += _rule_issues(item, i, table)
    if issues:
        first = issues[0][0].split(".")
        lines = rule_lines if first[0] == "rule" else checker_lines
        line = None
        if len(first) > 1 and first[1].isdigit():
            # the deepest key of the field's path that the block has (checker.name -> name)
            keys = [k for k in reversed(first[2:]) if not k.isdigit()]
            found = lines[int(first[1])][1] if int(first[1]) < len(lines) else {}
            line = line_of(lines, int(first[1]), next((k for k in keys if k in found), None))
        listing = "\n".join(f'  - Field "{path}": {message}' for path, message in issues)
        error("schema_validation", "Schema validation failed",
              f"Invalid policy rule (rule #1):\n{listing}",
              "Ensure all required fields (decision, priority) are present with correct types",
              line=line)
        return result

    rules: list[dict[str, Any]] = parsed.get("rule") or []
    for i, rule in enumerate(rules):
        bad = _validate_shell_syntax(rule, i)
        if bad:
            error("rule_validation", "Invalid shell command syntax", bad, index=i,
                  line=line_of(rule_lines, i, "commandPrefix" if "commandPrefix" in rule
                               else "commandRegex"))
    for i, rule in enumerate(rules):
        names = rule["toolName"] if isinstance(rule["toolName"], list) else [rule["toolName"]]
        if any(n == "" for n in names):
            error("rule_validation", "Invalid policy rule: toolName cannot be empty string",
                  f'Rule #{i + 1} contains an empty toolName string. Use "*" to match all tools.',
                  index=i, line=line_of(rule_lines, i, "toolName"))
            continue
        for tool in names:
            warning = validate_tool_name(tool, i)
            if warning:
                error("tool_name_warning", "Unrecognized tool name", warning, index=i,
                      line=line_of(rule_lines, i, "toolName"), severity="warning")

    source = f"{tier_name.capitalize()}: {name}"
    for i, rule in enumerate(rules):
        line = line_of(rule_lines, i)
        for pattern in build_args_patterns(rule.get("argsPattern"), rule.get("commandPrefix"),
                                           rule.get("commandRegex")):
            tools = rule["toolName"] if isinstance(rule["toolName"], list) else [rule["toolName"]]
            for tool in tools:
                effective = tool
                if rule.get("mcpName"):
                    effective = format_mcp_tool_name(rule["mcpName"], tool)
                compiled = None
                if pattern:
                    try:
                        compiled = js_regex(pattern)
                    except re.error as exc:
                        error("regex_compilation", "Invalid regex pattern",
                              f"Pattern: {pattern}\nError: {exc}",
                              "Check regex syntax for errors like unmatched brackets or invalid "
                              "escape sequences", index=i, line=line)
                        continue
                    if not is_safe_regexp(pattern):
                        error("regex_compilation", "Unsafe regex pattern (potential ReDoS)",
                              f"Pattern: {pattern}",
                              "Avoid nested quantifiers or extremely long patterns",
                              index=i, line=line)
                        continue
                modes = rule.get("modes")
                result.rules.append(PolicyRule(
                    tool_name=effective, decision=rule["decision"],
                    priority=tier + rule["priority"] / 1000, mcp_name=rule.get("mcpName"),
                    subagent=rule.get("subagent"), args_pattern=pattern or None,
                    tool_annotations=rule.get("toolAnnotations"),
                    modes=tuple(modes) if modes is not None else None,
                    interactive=rule.get("interactive"),
                    allow_redirection=rule.get("allowRedirection",
                                               rule.get("allow_redirection")),
                    source=source, deny_message=rule.get("denyMessage", rule.get("deny_message")),
                    name=rule.get("name"), file=where, line=line, tier=tier_name,
                    written=_written(rule, tool), compiled=compiled))
    for i, checker in enumerate(parsed.get("safety_checker") or []):
        names = checker["toolName"] if isinstance(checker["toolName"], list) else [
            checker["toolName"]]
        for tool in names:
            server = checker.get("mcpName")
            effective = (f"{MCP_TOOL_PREFIX}{server}_{tool}" if server and tool != "*" else
                         f"{MCP_TOOL_PREFIX}{server}_*" if server else tool)
            result.checkers.append(SafetyCheckerRule(
                effective, dict(checker["checker"]), tier + checker.get("priority", 0) / 1000,
                source, where, line_of(checker_lines, i), server))
    return result


def _written(rule: dict[str, Any], tool: str) -> str:
    """The rule's conditions as written (``commandPrefix="git status", modes=["plan"]``);
    empty for a bare tool rule."""
    keys = ("mcpName", "subagent", "commandPrefix", "commandRegex", "argsPattern",
            "toolAnnotations", "modes", "interactive")
    return ", ".join(f"{key}={_json(rule[key])}" for key in keys if key in rule)


def read_policy_files(path: Path) -> list[Path]:
    """``readPolicyFiles``: a directory's ``*.toml`` regular files (sorted), or one ``.toml``
    file. In a directory a symbolic link is not a file (``readdir`` with ``withFileTypes``:
    ``Dirent.isFile()`` is false for a link), so Gemini CLI never reads a linked policy."""
    if path.is_dir():
        return sorted(p for p in path.iterdir()
                      if not p.is_symlink() and p.is_file() and p.name.endswith(".toml"))
    if path.is_file() and path.name.endswith(".toml"):
        return [path]
    return []


def linked_policy_files(path: Path) -> list[Path]:
    """The ``*.toml`` symbolic links in a policy directory, which :func:`read_policy_files`
    (as Gemini CLI) skips: dotfile managers often link ``~/.gemini/policies/*.toml``."""
    if not path.is_dir():
        return []
    return sorted(p for p in path.iterdir() if p.is_symlink() and p.name.endswith(".toml"))


def load_policies(paths: Iterable[Path], tier_of: Callable[[Path], int],
                  shown: Callable[[Path], str] = str) -> PolicyLoadResult:
    """``loadPoliciesFromToml``: every policy file under ``paths``, each path with its tier."""
    result = PolicyLoadResult()
    for path in paths:
        tier = tier_of(path)
        try:
            files = read_policy_files(path)
        except OSError as exc:
            result.errors.append(PolicyFileError(shown(path), path.name, TIER_NAMES.get(
                tier, "default"), "file_read", "Failed to read policy path", str(exc)))
            continue
        for link in linked_policy_files(path):
            result.errors.append(PolicyFileError(
                shown(link), link.name, TIER_NAMES.get(tier, "default"), "file_read",
                "Symbolic link not loaded",
                f"{link.name} links to {os.readlink(link)}; Gemini CLI reads only regular .toml "
                "files in a policy folder (fs.readdir withFileTypes: a link is not a file), so "
                "its rules do not apply", "Copy the file into the folder instead of linking it",
                "warning"))
        for file in files:
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                result.errors.append(PolicyFileError(shown(file), file.name, TIER_NAMES.get(
                    tier, "default"), "file_read", "Failed to read policy file", str(exc)))
                continue
            one = parse_policy_text(text, str(file), tier, shown=shown(file))
            result.rules += one.rules
            result.checkers += one.checkers
            result.errors += one.errors
    return result


def validate_mcp_policy_tool_names(server: str, discovered: Sequence[str],
                                   rules: Iterable[PolicyRule]) -> list[str]:
    """``validateMcpPolicyToolNames``: a warning for each rule naming a tool of ``server``
    that the server does not have but one of its tools is within 3 edits of (a likely typo);
    wildcards, exact names and names far from every tool pass."""
    prefix = f"{MCP_TOOL_PREFIX}{server}_"
    warnings = []
    for rule in rules:
        if not rule.tool_name or not rule.tool_name.startswith(prefix):
            continue
        tool = rule.tool_name[len(prefix):]
        if tool == "*" or tool in discovered or not discovered:
            continue
        if min(_levenshtein(tool, n) for n in discovered) > MAX_TYPO_DISTANCE:
            continue
        source = f" (from {rule.source})" if rule.source else ""
        warnings.append(f'Unrecognized MCP tool "{tool}" for server "{server}"{source}.'
                        f"{_tool_suggestion(tool, list(discovered))}")
    return warnings


__all__ += [
    "DISCOVERED_TOOL_PREFIX",
    "MODES",
    "SafetyCheckerRule",
    "is_valid_tool_name",
    "linked_policy_files",
    "read_policy_files",
    "validate_mcp_policy_tool_names",
    "validate_tool_name",
]
