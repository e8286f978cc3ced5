"""Gemini CLI's policy engine, ported from ``packages/core/src/policy/policy-engine.ts``.

Rules are sorted by priority (highest first, stable); the first rule that matches the
call decides. A shell call (``run_shell_command``) is then checked part by part: the
command is split with tree-sitter-bash (:mod:`toolkit.systems.base.shell`), each part
that is not the whole command is checked again on its own (without heuristics), a
``bash -c`` wrapper is stripped and its script checked, any DENY denies, else any ASK
asks; a redirection downgrades ALLOW to ASK_USER unless the rule sets
``allowRedirection`` (or the mode is autoEdit / yolo). No rule: yolo allows, else the
default decision (ASK_USER, DENY when non-interactive), shell commands through the same
split. The safe / dangerous command heuristics of ``sandbox/utils/commandSafety.ts``
(what ``NoopSandboxManager`` applies) upgrade ASK_USER to ALLOW or force ASK_USER.

Upstream names are kept (``check``, ``check_shell_command``, ``stable_stringify``,
``build_args_patterns``, ...) so each piece can be read beside its TypeScript.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..base import shell

__all__ = [
    "ALLOW",
    "ASK_USER",
    "DENY",
    "MODES",
    "CheckResult",
    "PolicyEngine",
    "PolicyRule",
    "build_args_patterns",
    "escape_regex",
    "has_redirection",
    "is_dangerous_command",
    "is_known_safe_command",
    "is_safe_regexp",
    "js_regex",
    "stable_stringify",
    "strip_shell_wrapper",
]

ALLOW, DENY, ASK_USER = "allow", "deny", "ask_user"
DECISIONS = (ALLOW, DENY, ASK_USER)
#: ApprovalMode values, least permissive first (MODES_BY_PERMISSIVENESS)
MODES = ("plan", "default", "autoEdit", "yolo")
SHELL_TOOL_NAMES = ("run_shell_command", "ShellTool")
MCP_TOOL_PREFIX = "mcp_"
AGENT_TOOL_NAME = "invoke_agent"
TOOL_LEGACY_ALIASES = {"search_file_content": "grep_search"}
ALWAYS_ALLOW_PRIORITY_FRACTION = 950


# -- utils.ts ----------------------------------------------------------------------------------

_ESCAPE = re.compile(r'[-\[\]{}()*+?.,\\^$|#\s"]')


def escape_regex(text: str) -> str:
    """``escapeRegex``: a backslash before every regex special character (and ``"``, ``#``,
    ``,``, whitespace), as utils.ts writes it."""
    return _ESCAPE.sub(lambda m: "\\" + m.group(0), text)


_NESTED_QUANTIFIER = re.compile(r"\([^)]*[*+?{].*\)[*+?{]")


def is_safe_regexp(pattern: str) -> bool:
    """``isSafeRegExp``: compiles, at most 2048 characters, no nested quantifier."""
    try:
        js_regex(pattern)
    except re.error:
        return False
    return len(pattern) <= 2048 and not _NESTED_QUANTIFIER.search(pattern)


def js_json(value: Any) -> str:
    """``JSON.stringify`` of a JSON value (integral floats print as integers, as in JS)."""
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    if isinstance(value, float) and not math.isfinite(value):
        return "null"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def build_args_patterns(args_pattern: str | None = None,
                        command_prefix: str | Sequence[str] | None = None,
                        command_regex: str | None = None) -> list[str | None]:
    """``buildArgsPatterns``: ``commandPrefix`` becomes ``"command":"<prefix>(?:[\\s"]|\\\\")``
    over the stable JSON, ``commandRegex`` becomes ``"command":"<regex>``."""
    if command_prefix:
        prefixes = [command_prefix] if isinstance(command_prefix, str) else list(command_prefix)
        out: list[str | None] = []
        for prefix in prefixes:
            encoded = js_json(prefix)
            segment = escape_regex('"command":' + encoded[:-1])
            out.append(segment + r'(?:[\s"]|\\")')
        return out
    if command_regex:
        return [f'"command":"{command_regex}']
    return [args_pattern]


def build_param_args_pattern(param: str, value: Any) -> str:
    """``buildParamArgsPattern``: one top-level ``"param":value`` pair, NUL-delimited."""
    return "\\\\0" + escape_regex(f'"{param}":{js_json(value)}') + "\\\\0"


_JS_NAMED_GROUP = re.compile(r"\(\?<(?![=!])")


@lru_cache(maxsize=2048)
def js_regex(pattern: str) -> re.Pattern[str]:
    """A JavaScript ``RegExp`` source as a Python pattern (``(?<name>`` becomes ``(?P<name>``;
    ``\\d`` / ``\\w`` are ASCII as in JS). ``re.error`` when it does not compile."""
    return re.compile(_JS_NAMED_GROUP.sub("(?P<", pattern), re.ASCII)


# -- stable-stringify.ts -----------------------------------------------------------------------

def stable_stringify(obj: Any) -> str:
    """``stableStringify``: JSON with sorted keys; each top-level pair wrapped in NUL
    characters so a pattern can anchor to a whole argument."""

    def go(value: Any, ancestors: list[int], top: bool) -> str:
        if value is None or callable(value):
            return "null"
        if not isinstance(value, (dict, list, tuple)):
            if isinstance(value, (str, bool, int, float)):
                return js_json(value)
            return js_json(str(value))
        if id(value) in ancestors:
            return '"[Circular]"'
        ancestors.append(id(value))
        try:
            if isinstance(value, (list, tuple)):
                return "[" + ",".join(go(v, ancestors, False) for v in value) + "]"
            pairs = []
            for key in sorted(value, key=_js_key):
                item = value[key]
                if callable(item):
                    continue
                pair = js_json(str(key)) + ":" + go(item, ancestors, False)
                pairs.append("\0" + pair + "\0" if top else pair)
            return "{" + ",".join(pairs) + "}"
        finally:
            ancestors.pop()

    return go(obj, [], True)


def _js_key(key: Any) -> list[int]:
    """``Array.prototype.sort`` order of keys (UTF-16 code units)."""
    return list(str(key).encode("utf-16-be"))


# -- rules --------------------------------------------------------------------------------------

@dataclass
class PolicyRule:
    """``PolicyRule`` (types.ts), with where toolkit found it."""

    tool_name: str
    decision: str
    priority: float = 0.0
    mcp_name: str | None = None
    subagent: str | None = None
    args_pattern: str | None = None
    tool_annotations: Mapping[str, Any] | None = None
    modes: tuple[str, ...] | None = None
    interactive: bool | None = None
    allow_redirection: bool | None = None
    source: str = ""
    deny_message: str | None = None
    name: str | None = None
    #: how the rule was written (toolkit's additions): file, line, tier name, text
    file: str | None = None
    line: int | None = None
    tier: str = "default"
    written: str = ""
    compiled: re.Pattern[str] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.args_pattern is not None and self.compiled is None:
            self.compiled = js_regex(self.args_pattern)

    @property
    def text(self) -> str:
        """The rule in one line: ``run_shell_command [commandPrefix="git"] -> allow``."""
        return self.written or f"{self.tool_name} -> {self.decision}"


@dataclass(frozen=True)
class CheckResult:
    """``CheckResult``: the decision and the rule behind it, plus how toolkit explains it:
    ``note`` (a heuristic, a redirection, a parse failure) and ``parts`` (sub-commands)."""

    decision: str
    rule: PolicyRule | None = None
    note: str = ""
    command: str | None = None
    parts: tuple[CheckResult, ...] = ()


def _is_wildcard(name: str) -> bool:
    return "*" in name


def _matches_wildcard(pattern: str, tool: str, server: str | None) -> bool:
    if pattern == "*":
        return True
    if pattern == f"{MCP_TOOL_PREFIX}*":
        return server is not None
    if pattern.startswith(MCP_TOOL_PREFIX) and pattern.endswith("_*"):
        expected = pattern[len(MCP_TOOL_PREFIX):-2]
        if server is None or server != expected:
            return False
        return tool.startswith(f"{MCP_TOOL_PREFIX}{expected}_")
    return tool == pattern


def format_mcp_tool_name(server: str, tool: str | None = None) -> str:
    """``formatMcpToolName``."""
    if server == "*" and tool in (None, "*"):
        return f"{MCP_TOOL_PREFIX}*"
    if server == "*":
        return f"{MCP_TOOL_PREFIX}*_{tool}"
    if tool in (None, "*"):
        return f"{MCP_TOOL_PREFIX}{server}_*"
    return f"{MCP_TOOL_PREFIX}{server}_{tool}"


_MCP_NAME = re.compile(r"^([^_]+)_(.+)$", re.S)


def parse_mcp_tool_name(name: str) -> tuple[str | None, str | None]:
    """``parseMcpToolName``: (server, tool) of ``mcp_server_tool``."""
    if not name.startswith(MCP_TOOL_PREFIX):
        return None, None
    match = _MCP_NAME.match(name[len(MCP_TOOL_PREFIX):])
    return (match.group(1), match.group(2)) if match else (None, None)


def tool_aliases(name: str) -> list[str]:
    """``getToolAliases``: the name, its canonical name and every legacy alias of it."""
    canonical = TOOL_LEGACY_ALIASES.get(name, name)
    out = dict.fromkeys([name, canonical])
    for legacy, current in TOOL_LEGACY_ALIASES.items():
        if current == canonical:
            out[legacy] = None
    return list(out)


def rule_matches(rule: PolicyRule, tool: str, stringified: str | None, has_args: bool,  # noqa: C901
                 server: str | None, mode: str, non_interactive: bool,
                 annotations: Mapping[str, Any] | None, subagent: str | None) -> bool:
    """``ruleMatches``."""
    if rule.modes and mode not in rule.modes:
        return False
    if rule.subagent is not None and rule.subagent != subagent:
        return False
    if rule.mcp_name is not None:
        if rule.mcp_name == "*":
            if server is None:
                return False
        elif server != rule.mcp_name:
            return False
    if rule.tool_name != "*":
        if _is_wildcard(rule.tool_name):
            if not tool or not _matches_wildcard(rule.tool_name, tool, server):
                return False
        elif tool != rule.tool_name:
            mcp_match = False
            if server and tool:
                if (rule.mcp_name and not rule.tool_name.startswith(MCP_TOOL_PREFIX)
                        and tool == format_mcp_tool_name(rule.mcp_name, rule.tool_name)):
                    mcp_match = True
                if (not mcp_match and rule.tool_name.startswith(MCP_TOOL_PREFIX)
                        and rule.tool_name == format_mcp_tool_name(server, tool)):
                    mcp_match = True
            if not mcp_match:
                return False
    if rule.tool_annotations:
        if not annotations:
            return False
        for key, value in rule.tool_annotations.items():
            if key not in annotations or not _js_strict_equal(annotations[key], value):
                return False
    if rule.compiled is not None and (not has_args or stringified is None
                                      or not rule.compiled.search(stringified)):
        return False
    if rule.interactive is not None:
        if rule.interactive and non_interactive:
            return False
        if not rule.interactive and not non_interactive:
            return False
    return True


def _js_strict_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return a is b
    return bool(a == b)


# -- shell-utils.ts ----------------------------------------------------------------------------

_WRAPPER = re.compile(
    r"^\s*(?:(?:(?:\S+/)?(?:sh|bash|zsh))\s+-c|cmd\.exe\s+/c|powershell(?:\.exe)?\s+"
    r"(?:-NoProfile\s+)?-Command|pwsh(?:\.exe)?\s+(?:-NoProfile\s+)?-Command)\s+", re.I)


def strip_shell_wrapper(command: str) -> str:
    """``stripShellWrapper``: the script of ``bash -c '...'`` (``sh``, ``zsh``, ``cmd.exe /c``,
    ``powershell -Command``), else the command trimmed."""
    match = _WRAPPER.match(command)
    if not match:
        return command.strip()
    inner = command[match.end():].strip()
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "\"'":
        if match.group(0).strip().endswith("-c") and inner[0] == '"':
            words = _shell_quote(inner)
            if words is not None and len(words) == 1 and not words[0][1]:
                return words[0][0]
        return inner[1:-1]
    return inner


_OPERATORS = ("||", "&&", ";;", "|&", "<(", ">>", ">&", "&", ";", "(", ")", "|", "<", ">")


def _shell_quote(text: str) -> list[tuple[str, bool]] | None:
    """Words of ``text`` as shell-quote's ``parse`` gives them (operators as their text,
    flagged True); None when a quote is left open."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    return [(t, t in _OPERATORS or (bool(t) and set(t) <= set("();<>|&"))) for t in tokens]


def shell_words(command: str) -> list[str]:
    """``shellParse(command).map(extractStringFromParseEntry)`` (approximately: ``$VAR`` is
    kept as written where shell-quote substitutes an empty string)."""
    words = _shell_quote(command)
    if words is None:
        raise ValueError("unterminated quote")
    return [w for w, _ in words]


@lru_cache(maxsize=1)
def _bash_parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


_REDIRECT_NODES = frozenset({"redirected_statement", "file_redirect", "heredoc_redirect",
                             "herestring_redirect"})


@lru_cache(maxsize=4096)
def has_redirection(command: str) -> bool:
    """``hasRedirection``: the bash tree holds a redirection (``>``, ``>>``, ``<``, ``<<``,
    ``<<<``); no ``<`` or ``>`` at all skips the parse."""
    if not re.search(r"[><]", command):
        return False
    tree = _bash_parser().parse(command.encode())
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in _REDIRECT_NODES:
            return True
        stack.extend(node.children)
    return False


@dataclass(frozen=True)
class Detail:
    """``ParsedCommandDetail``: one sub-command's text and where it starts."""

    name: str
    text: str
    start: int


_PROMPT_TRANSFORM = re.compile(r"\$\{[^}]*@[pP]\}")
#: contexts of base.shell whose commands Gemini does not list (it re-checks a ``bash -c``
#: script by stripping the wrapper instead)
_NESTED_CODE = ("-c", "eval", "<<here-document")


@lru_cache(maxsize=4096)
def parse_command_details(command: str) -> tuple[tuple[Detail, ...], bool]:
    """``parseCommandDetails`` (bash): the sub-commands, in source order, and whether the
    parse failed. Split with toolkit's tree-sitter-bash splitter."""
    if not command.strip():
        return (), True
    parsed = shell.parse(command)
    if parsed.problem is not None:
        return (), True
    details = []
    for part in parsed.commands:
        if not part.argv or part.context.endswith(_NESTED_CODE):
            continue
        text = part.source.strip()
        start = command.find(text) if text else -1
        details.append(Detail(part.argv[0], text, start))
    error = not details or bool(_PROMPT_TRANSFORM.search(command))
    return tuple(details), error


# -- sandbox/utils/commandSafety.ts (what NoopSandboxManager applies off Windows) -------------

_SAFE = frozenset({"__read", "__write", "cat", "cd", "cut", "echo", "expr", "false", "grep",
                   "head", "id", "ls", "nl", "paste", "pwd", "rev", "seq", "stat", "tail", "tr",
                   "true", "uname", "uniq", "wc", "which", "whoami", "numfmt", "tac"})
_FIND_UNSAFE = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint",
                          "-fprint0", "-fprintf"})
_GIT_VALUE_OPTIONS = ("--config-env", "--exec-path", "--git-dir", "--namespace",
                      "--super-prefix", "--work-tree")


def _git_subcommand(args: list[str], wanted: tuple[str, ...]) -> tuple[int, str | None]:
    skip = False
    for idx in range(1, len(args)):
        if skip:
            skip = False
            continue
        arg = args[idx]
        if (any(arg.startswith(o + "=") for o in _GIT_VALUE_OPTIONS)
                or ((arg.startswith("-C") or arg.startswith("-c")) and len(arg) > 2)):
            continue
        if arg in ("-C", "-c", *_GIT_VALUE_OPTIONS):
            skip = True
            continue
        if arg == "--" or arg.startswith("-"):
            continue
        return (idx, arg) if arg in wanted else (-1, None)
    return -1, None


def _git_config_override(args: list[str]) -> bool:
    return any(a == "-c" or a == "--config-env" or (a.startswith("-c") and len(a) > 2)
               or a.startswith("--config-env=") for a in args)


def _git_args_read_only(args: list[str]) -> bool:
    unsafe = {"--output", "--ext-diff", "--textconv", "--exec", "--paginate"}
    return not any(a in unsafe or a.startswith("--output=") or a.startswith("--exec=")
                   for a in args)


def _git_branch_read_only(args: list[str]) -> bool:
    if not args:
        return True
    seen = False
    for arg in args:
        if arg in ("--list", "-l", "--show-current", "-a", "--all", "-r", "--remotes", "-v",
                   "-vv", "--verbose") or arg.startswith("--format="):
            seen = True
        else:
            return False
    return seen


def _sed_n_arg(arg: str | None) -> bool:
    if not arg or not arg.endswith("p"):
        return False
    parts = arg[:-1].split(",")
    return 1 <= len(parts) <= 2 and all(p and re.fullmatch(r"\d+", p, re.A) for p in parts)


def _rg_unsafe(args: list[str]) -> bool:
    return any(a in ("--search-zip", "-z") or any(a == o or a.startswith(o + "=")
                                                  for o in ("--pre", "--hostname-bin"))
               for a in args)


def _basename(cmd: str) -> str:
    return cmd.rsplit("/", 1)[-1]


def _safe_to_call_with_exec(args: list[str]) -> bool:  # noqa: C901 (a port kept in upstream's shape)
    if not args:
        return False
    cmd = args[0]
    if cmd in _SAFE:
        return True
    if cmd == "base64":
        return not any(a in ("-o", "--output") or a.startswith("--output=")
                       or (a.startswith("-o") and a != "-o") for a in args[1:])
    if cmd == "find":
        return not any(a in _FIND_UNSAFE for a in args)
    if _basename(cmd) in ("rg", "rg.exe"):
        # trusted only at an absolute path resolving into a system directory
        return False
    if cmd == "git":
        if _git_config_override(args):
            return False
        idx, sub = _git_subcommand(args, ("status", "log", "diff", "show", "branch"))
        if sub is None:
            return False
        rest = args[idx + 1:]
        if sub == "branch":
            return _git_args_read_only(rest) and _git_branch_read_only(rest)
        return _git_args_read_only(rest)
    if cmd == "sed":
        return len(args) <= 4 and len(args) > 2 and args[1] == "-n" and _sed_n_arg(args[2])
    return False


def is_known_safe_command(args: list[str]) -> bool:
    """``isKnownSafeCommand`` (commandSafety.ts)."""
    if not args:
        return False
    normalized = ["bash" if a == "zsh" else a for a in args]
    if _safe_to_call_with_exec(normalized):
        return True
    if len(normalized) == 3 and normalized[0] == "bash" and normalized[1] in ("-lc", "-c"):
        script = normalized[2]
        if re.search(r"[()<>]", script):
            return False
        details, error = parse_command_details(script)
        commands = [] if error else [d.text for d in details]
        if not commands:
            return False
        for cmd in commands:
            if not cmd.strip():
                continue
            try:
                parsed = shell_words(cmd.strip())
            except ValueError:
                return False
            if parsed and not _safe_to_call_with_exec(parsed):
                return False
        return True
    return False


def is_dangerous_command(args: list[str]) -> bool:  # noqa: C901 (a port kept in upstream's shape)
    """``isDangerousCommand`` (commandSafety.ts)."""
    if not args:
        return False
    cmd = args[0]
    if cmd == "rm":
        return len(args) > 1 and args[1] in ("-f", "-rf", "-fr")
    if cmd == "sudo":
        return is_dangerous_command(args[1:])
    if cmd == "find":
        return any(a in _FIND_UNSAFE for a in args)
    if _basename(cmd) in ("rg", "rg.exe"):
        return _rg_unsafe(args)
    if cmd == "git":
        if _git_config_override(args):
            return True
        idx, sub = _git_subcommand(args, ("status", "log", "diff", "show", "branch"))
        if sub is None:
            return False
        rest = args[idx + 1:]
        if sub == "branch":
            return not (_git_args_read_only(rest) and _git_branch_read_only(rest))
        return not _git_args_read_only(rest)
    if cmd == "base64":
        return any(a in ("-o", "--output") or a.startswith("--output=")
                   or (a.startswith("-o") and a != "-o") for a in args[1:])
    return False


_GIT_PREDECESSORS = frozenset({"sudo", "env", "time", "&&", "||", ";", "|", "&", "(", "\\n"})


def contains_git_command(args: list[str]) -> bool:
    """``containsGitCommand`` (policy-engine.ts)."""
    for index, arg in enumerate(args):
        trimmed = arg.strip()
        if not trimmed or _basename(trimmed).lower() not in ("git", "git.exe"):
            continue
        prev = index - 1
        while prev >= 0 and re.match(r"^[a-zA-Z_][a-zA-Z0-9_]*=", args[prev]):
            prev -= 1
        if prev >= 0 and args[prev].lower() not in _GIT_PREDECESSORS:
            continue
        return True
    return False


# -- policy-engine.ts --------------------------------------------------------------------------

class PolicyEngine:
    """``PolicyEngine``: rules sorted by priority, ``check`` answers one call."""

    def __init__(self, rules: Sequence[PolicyRule] = (), *, default_decision: str | None = None,
                 non_interactive: bool = False, approval_mode: str = "default",
                 disable_always_allow: bool = False, trusted_folder: bool = True,
                 heuristics: bool = True) -> None:
        self.rules = sorted(rules, key=lambda r: -r.priority)
        for rule in self.rules:
            if not rule.tool_name:
                raise ValueError("Invalid policy rule: toolName is required. Use '*' for all "
                                 f"tools. Rule source: {rule.source or 'unknown'}")
            if rule.mcp_name == "":
                raise ValueError("Invalid policy rule: mcpName is required if specified "
                                 f"(cannot be empty). Rule source: {rule.source or 'unknown'}")
            if rule.subagent == "":
                raise ValueError("Invalid policy rule: subagent is required if specified "
                                 f"(cannot be empty). Rule source: {rule.source or 'unknown'}")
        self.non_interactive = non_interactive
        self.default_decision = default_decision or (DENY if non_interactive else ASK_USER)
        self.approval_mode = approval_mode
        self.disable_always_allow = disable_always_allow
        self.trusted_folder = trusted_folder
        #: toolkit's switch for ported tests that run without the sandbox heuristics
        self.heuristics = heuristics
        self._any_pattern = any(r.compiled is not None for r in self.rules)

    def _always_allow(self, rule: PolicyRule) -> bool:
        return round((rule.priority % 1) * 1000) == ALWAYS_ALLOW_PRIORITY_FRACTION

    def _downgrade_for_redirection(self, command: str, allow_redirection: bool | None) -> bool:
        if allow_redirection or not has_redirection(command):
            return False
        return self.approval_mode not in ("autoEdit", "yolo")

    def apply_shell_heuristics(self, command: str, decision: str) -> tuple[str, str]:
        """``applyShellHeuristics``: (decision, why it changed or "")."""
        if decision == DENY or not self.heuristics:
            return decision, ""
        try:
            args = shell_words(command)
        except ValueError:
            return decision, ""
        if contains_git_command(args) and not self.trusted_folder:
            return ASK_USER, "a git command in an untrusted folder asks"
        if is_dangerous_command(args):
            if self.approval_mode == "yolo":
                return decision, ""
            return ASK_USER, f"`{command}` is a dangerous command (commandSafety.ts), so it asks"
        if is_known_safe_command(args) and decision == ASK_USER:
            return ALLOW, f"`{command}` is a known safe command (commandSafety.ts)"
        return decision, ""

    def check_shell_command(self, tool: str, command: str | None, rule_decision: str,  # noqa: C901
                            server: str | None, dir_path: Any, allow_redirection: bool | None,
                            rule: PolicyRule | None, annotations: Mapping[str, Any] | None,
                            subagent: str | None, note: str = "") -> CheckResult:
        """``checkShellCommand``: the matched rule's decision, checked part by part."""
        if not command:
            return CheckResult(rule_decision, rule, note, command)
        details, error = parse_command_details(command)
        if not details or error:
            if rule_decision == DENY:
                return CheckResult(DENY, rule, note, command)
            why = "the command cannot be parsed"
            if self.approval_mode == "yolo":
                if rule is not None and rule.compiled is not None:
                    return CheckResult(DENY, rule, f"{why}; yolo mode denies a call an "
                                                   "argsPattern rule cannot validate", command)
                return CheckResult(ALLOW, rule, f"{why}; yolo mode allows it", command)
            return CheckResult(self.default_decision, rule,
                               f"{why}; the default decision applies", command)
        if rule_decision == DENY:
            return CheckResult(DENY, rule, note, command)
        aggregate = rule_decision
        responsible = rule if rule is not None and rule_decision == rule.decision else None
        parts: list[CheckResult] = []
        if self._downgrade_for_redirection(command, allow_redirection) and aggregate == ALLOW:
            aggregate, responsible = ASK_USER, None
            note = "the command redirects, which downgrades allow to ask_user"
        for detail in details:
            sub = detail.text.strip()
            atomic = sub == command or (detail.start == 0 and len(detail.text) == len(command))
            stripped = strip_shell_wrapper(sub)
            for text, is_wrapper in ((stripped, True), (sub, False)):
                if is_wrapper and stripped == sub:
                    continue
                if not is_wrapper and atomic:
                    continue
                args = {"command": text} if dir_path is None else {"command": text,
                                                                   "dir_path": dir_path}
                result = self.check(tool, args, server, annotations, subagent, True)
                parts.append(result)
                if result.decision == DENY:
                    return CheckResult(DENY, result.rule, result.note, command, tuple(parts))
                if result.decision == ASK_USER:
                    responsible = result.rule if aggregate == ALLOW else (
                        responsible or result.rule)
                    aggregate = ASK_USER
                if (not is_wrapper and result.decision == ALLOW
                        and self._downgrade_for_redirection(text, allow_redirection)
                        and aggregate == ALLOW):
                    aggregate, responsible = ASK_USER, None
                    note = f"`{text}` redirects, which downgrades allow to ask_user"
        final = rule if aggregate == rule_decision else responsible
        return CheckResult(aggregate, final, note, command, tuple(parts))

    def check(self, tool: str, args: Mapping[str, Any] | None, server: str | None = None,  # noqa: C901
              annotations: Mapping[str, Any] | None = None, subagent: str | None = None,
              skip_heuristics: bool = False) -> CheckResult:
        """``check``: the first matching rule by priority decides (shell: part by part)."""
        if server is None and annotations and isinstance(annotations.get("_serverName"), str):
            server = annotations["_serverName"]
        if server is None and tool:
            server = parse_mcp_tool_name(tool)[0]
        has_args = args is not None
        stringified = stable_stringify(args) if has_args and self._any_pattern else None
        is_shell = tool in SHELL_TOOL_NAMES
        command = dir_path = None
        if is_shell and isinstance(args, Mapping):
            raw = args.get("command")
            command = raw if isinstance(raw, str) else None
            dir_path = args.get("dir_path")
        names = tool_aliases(tool) if tool else []
        if tool == AGENT_TOOL_NAME and isinstance(args, Mapping) and isinstance(
                args.get("agent_name"), str):
            names.append(args["agent_name"])
        for rule in self.rules:
            if self.disable_always_allow and self._always_allow(rule):
                continue
            if not any(rule_matches(rule, n, stringified, has_args, server, self.approval_mode,
                                    self.non_interactive, annotations, subagent)
                       for n in names):
                continue
            decision, note = rule.decision, ""
            if not skip_heuristics and is_shell and command and rule.compiled is None:
                decision, note = self.apply_shell_heuristics(command, decision)
            if is_shell and tool:
                return self.check_shell_command(tool, command, decision, server, dir_path,
                                                rule.allow_redirection, rule, annotations,
                                                subagent, note)
            return CheckResult(decision, rule, note, command)
        if self.approval_mode == "yolo":
            return CheckResult(ALLOW, None, "no rule matches; yolo mode allows it", command)
        if is_shell:
            decision, note = self.default_decision, ""
            if not skip_heuristics and command:
                decision, note = self.apply_shell_heuristics(command, decision)
            return self.check_shell_command(tool, command, decision, server, dir_path, False,
                                            None, annotations, subagent, note)
        return CheckResult(self.default_decision, None, "", command)

    def excluded_tools(self, names: Sequence[str],
                       metadata: Mapping[str, Mapping[str, Any]] | None = None) -> set[str]:
        """``getExcludedTools``: tools a rule without arguments denies outright."""
        out = set()
        for name in names:
            annotations = (metadata or {}).get(name)
            server = annotations.get("_serverName") if annotations else None
            excluded = matched = False
            for rule in self.rules:
                if self.disable_always_allow and self._always_allow(rule):
                    continue
                bare = PolicyRule(**{**rule.__dict__, "args_pattern": None, "compiled": None})
                if not rule_matches(bare, name, None, True, server, self.approval_mode,
                                    self.non_interactive, annotations, None):
                    continue
                if rule.compiled is not None:
                    if rule.decision != DENY:
                        matched = True
                        break
                    continue
                excluded, matched = rule.decision == DENY, True
                break
            if not matched and self.default_decision == DENY:
                excluded = True
            if excluded:
                out.add(name)
        return out
