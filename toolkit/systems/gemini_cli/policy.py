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

import importlib
import json
import math
import os
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
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


#: ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, built once
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def js_json(value: Any) -> str:
    """``JSON.stringify`` of a JSON value (integral floats print as integers, as in JS)."""
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    if isinstance(value, float) and not math.isfinite(value):
        return "null"
    return _JSON(value)


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

class _Undefined:
    """JavaScript's ``undefined`` (a property that is present but unset)."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"


#: ``undefined``: omitted from an object, ``null`` in an array (as JSON.stringify does)
UNDEFINED: Any = _Undefined()


def _to_json_method(value: Any) -> Any:
    """An object's ``toJSON``: a callable ``"toJSON"`` key of a dict, or a ``toJSON``
    attribute."""
    if isinstance(value, dict):
        method = value.get("toJSON")
        return method if callable(method) else None
    method = getattr(value, "toJSON", None)
    return method if callable(method) else None


def stable_stringify(obj: Any) -> str:  # noqa: C901 (upstream's shape)
    """``stableStringify``: JSON with sorted keys; each top-level pair wrapped in NUL
    characters so a pattern can anchor to a whole argument. ``undefined`` and functions are
    left out of objects and are ``null`` in arrays; a ``toJSON`` method is honoured (one
    that raises is ignored); a cycle is ``"[Circular]"``."""
    if type(obj) is dict:
        # the usual call (``{"command": ...}``), text values under ASCII keys: no toJSON,
        # undefined or cycle to look for, and ASCII keys sort the same by UTF-16 code units
        # as by code points
        if len(obj) == 1:
            ((key, value),) = obj.items()
            if type(key) is str and type(value) is str and key.isascii():
                return f"{{\0{_JSON(key)}:{_JSON(value)}\0}}"
        elif all(type(k) is str and k.isascii() and type(v) is str for k, v in obj.items()):
            return "{" + ",".join(f"\0{_JSON(k)}:{_JSON(obj[k])}\0" for k in sorted(obj)) + "}"

    def skip(value: Any) -> bool:
        return value is UNDEFINED or callable(value)

    def go(value: Any, ancestors: list[int], top: bool) -> str:  # noqa: C901
        if value is None or skip(value):
            return "null"
        if not isinstance(value, (dict, list, tuple)) and _to_json_method(value) is None:
            if isinstance(value, (str, bool, int, float)):
                return js_json(value)
            return js_json(str(value))
        if id(value) in ancestors:
            return '"[Circular]"'
        ancestors.append(id(value))
        try:
            method = _to_json_method(value)
            if method is not None:
                try:
                    produced = method()
                except Exception:  # noqa: BLE001 (stable-stringify.ts ignores a throwing toJSON)
                    produced = value
                else:
                    if produced is None:
                        return "null"
                    return go(produced, ancestors, top)
                if not isinstance(produced, (dict, list, tuple)):
                    return js_json(str(produced))
            if isinstance(value, (list, tuple)):
                return "[" + ",".join("null" if skip(v) else go(v, ancestors, False)
                                      for v in value) + "]"
            pairs = []
            for key in sorted(value, key=_js_key):
                item = value[key]
                if skip(item):
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


@dataclass
class SafetyCheckerRule:
    """``SafetyCheckerRule`` (types.ts): a checker run on calls the rules do not deny."""

    tool_name: str
    checker: Mapping[str, Any]
    priority: float = 0.0
    mcp_name: str | None = None
    args_pattern: str | None = None
    tool_annotations: Mapping[str, Any] | None = None
    modes: tuple[str, ...] | None = None
    source: str = ""
    compiled: re.Pattern[str] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.args_pattern is not None and self.compiled is None:
            self.compiled = js_regex(self.args_pattern)


@dataclass
class HookCheckerRule:
    """``HookCheckerRule`` (types.ts): kept in priority order, not run by ``check``."""

    checker: Mapping[str, Any]
    priority: float = 0.0
    source: str = ""


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


def rule_matches(rule: PolicyRule | SafetyCheckerRule, tool: str,  # noqa: C901
                 stringified: str | None, has_args: bool,
                 server: str | None, mode: str, non_interactive: bool,
                 annotations: Mapping[str, Any] | None, subagent: str | None) -> bool:
    """``ruleMatches``."""
    if rule.modes and mode not in rule.modes:
        return False
    rule_subagent = getattr(rule, "subagent", None)
    if rule_subagent is not None and rule_subagent != subagent:
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
    interactive = getattr(rule, "interactive", None)
    if interactive is not None:
        if interactive and non_interactive:
            return False
        if not interactive and not non_interactive:
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


_WRAPPER_FLAG = re.compile(r"[-/]c", re.I)


def strip_shell_wrapper(command: str) -> str:
    """``stripShellWrapper``: the script of ``bash -c '...'`` (``sh``, ``zsh``, ``cmd.exe /c``,
    ``powershell -Command``), else the command trimmed."""
    if not _WRAPPER_FLAG.search(command):
        return command.strip()  # every wrapper form has -c, /c or -Command (any case)
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


def _parse_command_details(command: str) -> tuple[tuple[Detail, ...], bool, tuple[Detail, ...]]:
    """``parseCommandDetails`` (bash) worked out: the sub-commands, whether the parse failed,
    and the sub-commands whose own text parses to exactly themselves (see
    :func:`_parses_to_itself`)."""
    if not command.strip():
        return (), True, ()
    parsed = shell.parse(command)
    if parsed.problem is not None:
        return (), True, ()
    details = []
    itself = []
    for part in parsed.commands:
        if not part.argv or part.context.endswith(_NESTED_CODE):
            continue
        text = part.source.strip()
        start = command.find(text) if text else -1
        details.append(Detail(part.argv[0], text, start))
        if _parses_to_itself(part, text):
            itself.append(Detail(part.argv[0], text, 0))
    error = not details or bool(_PROMPT_TRANSFORM.search(command))
    return tuple(details), error, tuple(itself)


#: what makes a command's text parse to more than the one command it is (a substitution, a
#: here-document, a line break), or to a script parsed again (``bash -c``, ``eval``)
_NOT_ITSELF = ("$(", "`", "<(", ">(", "<<", "\n", "\r")


def _parses_to_itself(part: shell.SimpleCommand, text: str) -> bool:
    """Whether ``text``, a simple command found at the top of a parsed command (not in a
    substitution or a ``bash -c`` script), parses on its own to just itself: one command of
    the same name, whose source is ``text`` (then its ``parseCommandDetails`` is known without
    parsing it again; ``tests/systems/gemini_cli/test_speed_equivalence.py`` checks this
    against a parse of each such text)."""
    return (bool(text) and part.context in ("", "subshell") and bool(part.argv)
            and part.argv[0] not in _CODE_RUNNERS and text == part.source
            and not any(marker in text for marker in _NOT_ITSELF))


_CODE_RUNNERS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "eval"})


class _CommandDetails:
    """``parseCommandDetails`` (bash), memoised by command string: the sub-commands, in source
    order, and whether the parse failed, split with toolkit's tree-sitter-bash splitter.

    ``policy-engine.ts`` checks a compound command whole, then each sub-command again as a
    command of its own, which parses each sub-command's text again. A simple command's text
    parses to just itself, so parsing the whole command also answers for each such part
    (``Detail(name, text, 0)``, no failure) and the part is not parsed a second time."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._memo: dict[str, tuple[tuple[Detail, ...], bool]] = {}

    def __call__(self, command: str) -> tuple[tuple[Detail, ...], bool]:
        found = self._memo.get(command)
        if found is not None:
            return found
        details, error, itself = _parse_command_details(command)
        if len(self._memo) + len(itself) >= self.size:
            self._memo.clear()
        found = self._memo[command] = (details, error)
        for detail in itself:
            if detail.text not in self._memo:
                self._memo[detail.text] = (detail,), bool(_PROMPT_TRANSFORM.search(detail.text))
        return found

    def cache_clear(self) -> None:
        """Forget every parse (as ``functools.lru_cache``'s ``cache_clear``)."""
        self._memo.clear()


#: ``parseCommandDetails`` (bash): ``(details, failed)`` of a command string
parse_command_details = _CommandDetails()


def normalize_command(name: str) -> str:
    """``normalizeCommand``: the last path part, lower case, without ``.exe``."""
    parts = [p for p in re.split(r"[\\/]", name) if p]
    return re.sub(r"\.exe$", "", (parts[-1] if parts else "").lower())


def split_commands(command: str) -> list[str]:
    """``splitCommands``: the sub-commands' text (none when the parse fails)."""
    details, error = parse_command_details(command)
    if error:
        return []
    return [d.text for d in details if d.name not in _REDIRECTION_DETAILS and d.text]


def get_command_roots(command: str) -> list[str]:
    """``getCommandRoots``: each sub-command's name (none when the parse fails)."""
    if not command:
        return []
    details, error = parse_command_details(command)
    if error:
        return []
    return [d.name for d in details if d.name not in _REDIRECTION_DETAILS and d.name]


_REDIRECTION_DETAILS = frozenset({"redirection (<)", "redirection (>)", "heredoc (<<)",
                                  "herestring (<<<)", "command substitution",
                                  "backtick substitution", "process substitution", "subshell"})


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

class NoopSandboxManager:
    """``NoopSandboxManager`` off Windows: commandSafety.ts's heuristics; the workspace
    (``getWorkspace``) is the given folder, else the working directory."""

    def __init__(self, workspace: str | None = None) -> None:
        self.workspace = workspace

    def is_known_safe_command(self, args: list[str]) -> bool:
        return is_known_safe_command(args)

    def is_dangerous_command(self, args: list[str]) -> bool:
        return is_dangerous_command(args)

    def get_workspace(self) -> str:
        return self.workspace if self.workspace is not None else os.getcwd()


class LocalSandboxManager(NoopSandboxManager):
    """``LocalSandboxManager``: no command is known safe or dangerous."""

    def is_known_safe_command(self, args: list[str]) -> bool:
        return False

    def is_dangerous_command(self, args: list[str]) -> bool:
        return False


class ShellUtils:
    """What policy-engine.ts imports from ``utils/shell-utils.ts`` (a test replaces these as
    Gemini's tests mock that module)."""

    parse_command_details = staticmethod(parse_command_details)
    has_redirection = staticmethod(has_redirection)
    strip_shell_wrapper = staticmethod(strip_shell_wrapper)


#: ``REDIRECTION_NAMES``: detail names checkShellCommand skips
REDIRECTION_NAMES = frozenset({"redirection (<)", "redirection (>)", "heredoc (<<)",
                               "herestring (<<<)", "command substitution",
                               "backtick substitution", "process substitution", "subshell"})
PARAM_ADDITIONAL_PERMISSIONS = "additional_permissions"


def is_subpath(parent: str, child: str) -> bool:
    """``isSubpath`` (utils/paths.ts, POSIX)."""
    rel = posixpath.relpath(posixpath.abspath(child), posixpath.abspath(parent))
    return not rel.startswith("../") and rel != ".." and not posixpath.isabs(rel)


#: what ``commandPrefix`` / ``commandRegex`` patterns start with (``buildArgsPatterns``)
_COMMAND_KEY = '"command":"'
#: a command's first word in the stable JSON: up to whitespace, a quote or a backslash
_FIRST_WORD = re.compile(r'[^\s"\\]*', re.ASCII)


def command_word(pattern: re.Pattern[str]) -> str | None:
    """The first word of every command an ``argsPattern`` can match, when its regex starts
    (as Python's own regex parser reads it, without case folding) with the literal text
    ``"command":"`` and more: that text up to whitespace, a quote or a backslash. A match
    needs ``"command":"`` followed by a word that begins with it, so a rule can only match
    a call whose stable JSON holds such a word (``git`` for ``commandPrefix = "git status"``).
    None when the pattern does not start so (an ``argsPattern`` of another field, ``^``,
    an alternation, a case-insensitive pattern)."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        _parser = importlib.import_module("re._parser")  # what re.compile parses with

        items = list(_parser.parse(pattern.pattern, pattern.flags))
        literal = _parser.LITERAL
    except (ImportError, AttributeError, re.error):
        return None  # no index for this rule: it is tried for every call, as before
    head = []
    for op, value in items:
        if op is not literal:
            break
        head.append(chr(value))
    text = "".join(head)
    if not text.startswith(_COMMAND_KEY):
        return None
    match = _FIRST_WORD.match(text, len(_COMMAND_KEY))
    return match.group(0) if match is not None and match.group(0) else None


class _Scan:
    """The rules one call may match, in priority order, for one kind of call: its tool names,
    MCP server, subagent, and the engine's mode and interactivity.

    ``check`` tries the rules in priority order; this leaves out, before the loop, rules
    that cannot match: those ``ruleMatches`` turns down whatever the arguments and the
    annotations (their tool name, server, subagent, modes or ``interactive`` do not fit; asked
    of ``ruleMatches`` itself with the rule's ``argsPattern`` and ``toolAnnotations`` left
    out), and a rule whose ``argsPattern`` starts with a command's first word
    (:func:`command_word`) the call's arguments do not hold. Every rule left is tried as
    before, so the first matching rule is the same."""

    def __init__(self, rules: Sequence[PolicyRule], bare: Sequence[PolicyRule],
                 names: Sequence[str], server: str | None, subagent: str | None, mode: str,
                 non_interactive: bool) -> None:
        self.rules = rules
        self.always: list[int] = []
        self.by_word: dict[str, list[int]] = {}
        for index, rule in enumerate(rules):
            if not any(rule_matches(bare[index], n, None, True, server, mode, non_interactive,
                                    None, subagent) for n in names):
                continue
            word = command_word(rule.compiled) if rule.compiled is not None else None
            if word is None:
                self.always.append(index)
            else:
                self.by_word.setdefault(word, []).append(index)
        self.lengths = sorted({len(w) for w in self.by_word})
        self.always_rules = [rules[i] for i in self.always]
        self._merged: dict[tuple[str, ...], list[PolicyRule]] = {}

    def candidates(self, stringified: str | None) -> list[PolicyRule]:
        """The rules to try for a call whose stable JSON is ``stringified``, in order."""
        if not self.by_word or stringified is None:
            return self.always_rules
        words: dict[str, None] = {}
        start = stringified.find(_COMMAND_KEY)
        while start >= 0:
            match = _FIRST_WORD.match(stringified, start + len(_COMMAND_KEY))
            word = match.group(0) if match is not None else ""
            for length in self.lengths:
                if length > len(word):
                    break
                if word[:length] in self.by_word:
                    words[word[:length]] = None
            start = stringified.find(_COMMAND_KEY, start + 1)
        if not words:
            return self.always_rules
        key = tuple(words)
        found = self._merged.get(key)
        if found is None:
            if len(self._merged) >= 1024:
                self._merged.clear()
            chosen = set(self.always).union(*(self.by_word[w] for w in key))
            found = self._merged[key] = [self.rules[i] for i in sorted(chosen)]
        return found


def _by_priority(items: list[Any]) -> list[Any]:
    return sorted(items, key=lambda r: -(r.priority or 0))


class PolicyEngine:
    """``PolicyEngine``: rules sorted by priority, ``check`` answers one call.

    ``sandbox_manager`` gives the command heuristics (default :class:`NoopSandboxManager`),
    ``is_trusted_folder`` the folder's trust (a callable; ``trusted_folder`` a constant),
    ``checker_runner(call, checker)`` runs safety checkers (a dict with ``decision``; an
    exception denies), ``shell_utils`` and ``aliases`` stand in for the modules Gemini's
    tests mock."""

    def __init__(self, rules: Sequence[PolicyRule] = (), *, default_decision: str | None = None,
                 non_interactive: bool = False, approval_mode: str = "default",
                 disable_always_allow: bool = False, trusted_folder: bool = True,
                 heuristics: bool = True, is_trusted_folder: Callable[[], bool] | None = None,
                 sandbox_manager: Any = None,
                 checkers: Sequence[SafetyCheckerRule] = (),
                 hook_checkers: Sequence[HookCheckerRule] = (),
                 checker_runner: Callable[[dict[str, Any], Mapping[str, Any]],
                                          Mapping[str, Any]] | None = None,
                 shell_utils: Any = None,
                 aliases: Callable[[str], list[str]] | None = None) -> None:
        self.rules = _by_priority(list(rules))
        self.checkers = _by_priority(list(checkers))
        self.hook_checkers = _by_priority(list(hook_checkers))
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
        for checker in self.checkers:
            if not checker.tool_name:
                raise ValueError("Invalid safety checker rule: toolName is required. Use '*' "
                                 "for all tools. Checker source: "
                                 f"{checker.source or 'unknown'}")
            if checker.mcp_name == "":
                raise ValueError("Invalid safety checker rule: mcpName is required if "
                                 "specified (cannot be empty). Checker source: "
                                 f"{checker.source or 'unknown'}")
        self.non_interactive = non_interactive
        self.default_decision = default_decision or (DENY if non_interactive else ASK_USER)
        self.approval_mode = approval_mode
        self.disable_always_allow = disable_always_allow
        self.trusted_folder = trusted_folder
        self.is_trusted_folder_fn = is_trusted_folder
        self.sandbox_manager = sandbox_manager if sandbox_manager is not None \
            else NoopSandboxManager()
        self.checker_runner = checker_runner
        self.shell_utils = shell_utils if shell_utils is not None else ShellUtils
        self.aliases = aliases or tool_aliases
        #: toolkit's switch for ported tests that run without the sandbox heuristics
        self.heuristics = heuristics
        #: toolkit's switch: False tries every rule for every call (the reference
        #: ``tests/systems/gemini_cli/test_speed_equivalence.py`` compares the index with)
        self.index_rules = True
        self._reindex()

    def _reindex(self) -> None:
        self._any_pattern = any(r.compiled is not None for r in (*self.rules, *self.checkers))
        self._scans: dict[tuple[Any, ...], _Scan] = {}
        self._scanned: tuple[list[PolicyRule], int] = (self.rules, len(self.rules))
        self._bare: list[PolicyRule] = []

    def _candidates(self, names: Sequence[str], server: str | None, subagent: str | None,
                    stringified: str | None) -> list[PolicyRule]:
        """The rules ``check`` tries for a call, in priority order (:class:`_Scan`)."""
        if not self.index_rules:
            return self.rules
        if (self._scanned[0] is not self.rules or self._scanned[1] != len(self.rules)
                or len(self._scans) >= 256):  # rules set or changed in place: index again
            self._scans, self._scanned, self._bare = {}, (self.rules, len(self.rules)), []
        key = (tuple(names), server, subagent, self.approval_mode, self.non_interactive)
        scan = self._scans.get(key)
        if scan is None:
            if not self._bare:
                self._bare = [PolicyRule(**{**r.__dict__, "args_pattern": None,
                                            "compiled": None, "tool_annotations": None})
                              for r in self.rules]
            scan = self._scans[key] = _Scan(self.rules, self._bare, key[0], server, subagent,
                                            self.approval_mode, self.non_interactive)
        return scan.candidates(stringified)

    # -- rules and checkers ---------------------------------------------------------------------

    def is_trusted_folder(self) -> bool:
        """``isTrustedFolder``."""
        if self.is_trusted_folder_fn is not None:
            return self.is_trusted_folder_fn()
        return self.trusted_folder

    def set_approval_mode(self, mode: str) -> None:
        """``setApprovalMode``."""
        self.approval_mode = mode

    def get_approval_mode(self) -> str:
        """``getApprovalMode``."""
        return self.approval_mode

    def add_rule(self, rule: PolicyRule) -> None:
        """``addRule``: insert and re-sort by priority (stable)."""
        self.rules = _by_priority([*self.rules, rule])
        self._reindex()

    def add_checker(self, checker: SafetyCheckerRule) -> None:
        """``addChecker``."""
        self.checkers = _by_priority([*self.checkers, checker])
        self._reindex()

    def add_hook_checker(self, checker: HookCheckerRule) -> None:
        """``addHookChecker``."""
        self.hook_checkers = _by_priority([*self.hook_checkers, checker])

    def remove_rules_by_tier(self, tier: int) -> None:
        """``removeRulesByTier``: rules whose priority floors to ``tier``."""
        self.rules = [r for r in self.rules if math.floor(r.priority or 0) != tier]
        self._reindex()

    def remove_rules_by_source(self, source: str) -> None:
        """``removeRulesBySource``."""
        self.rules = [r for r in self.rules if r.source != source]
        self._reindex()

    def remove_checkers_by_tier(self, tier: int) -> None:
        """``removeCheckersByTier``."""
        self.checkers = [c for c in self.checkers if math.floor(c.priority or 0) != tier]
        self._reindex()

    def remove_checkers_by_source(self, source: str) -> None:
        """``removeCheckersBySource``."""
        self.checkers = [c for c in self.checkers if c.source != source]
        self._reindex()

    def remove_rules_for_tool(self, tool: str, source: str | None = None) -> None:
        """``removeRulesForTool``: the tool's rules (only ``source``'s when given)."""
        self.rules = [r for r in self.rules
                      if r.tool_name != tool or (source is not None and r.source != source)]
        self._reindex()

    def get_rules(self) -> tuple[PolicyRule, ...]:
        """``getRules``: the rules in Gemini's order (highest priority first)."""
        return tuple(self.rules)

    def get_checkers(self) -> tuple[SafetyCheckerRule, ...]:
        """``getCheckers``."""
        return tuple(self.checkers)

    def get_hook_checkers(self) -> tuple[HookCheckerRule, ...]:
        """``getHookCheckers``."""
        return tuple(self.hook_checkers)

    def has_rule_for_tool(self, tool: str, ignore_dynamic: bool = False) -> bool:
        """``hasRuleForTool``."""
        return any(r.tool_name == tool and (not ignore_dynamic
                                            or r.source != "AgentRegistry (Dynamic)")
                   for r in self.rules)

    # -- check ----------------------------------------------------------------------------------

    def _always_allow(self, rule: PolicyRule) -> bool:
        return round((rule.priority % 1) * 1000) == ALWAYS_ALLOW_PRIORITY_FRACTION

    def _downgrade_for_redirection(self, command: str, allow_redirection: bool | None) -> bool:
        if allow_redirection or not self.shell_utils.has_redirection(command):
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
        if contains_git_command(args) and not self.is_trusted_folder():
            return ASK_USER, "a git command in an untrusted folder asks"
        if self.sandbox_manager.is_dangerous_command(args):
            if self.approval_mode == "yolo":
                return decision, ""
            return ASK_USER, f"`{command}` is a dangerous command (commandSafety.ts), so it asks"
        if self.sandbox_manager.is_known_safe_command(args) and decision == ASK_USER:
            return ALLOW, f"`{command}` is a known safe command (commandSafety.ts)"
        return decision, ""

    def check_shell_command(self, tool: str, command: str | None, rule_decision: str,  # noqa: C901
                            server: str | None, dir_path: Any, allow_redirection: bool | None,
                            rule: PolicyRule | None, annotations: Mapping[str, Any] | None,
                            subagent: str | None, note: str = "") -> CheckResult:
        """``checkShellCommand``: the matched rule's decision, checked part by part."""
        if not command:
            return CheckResult(rule_decision, rule, note, command)
        details, error = self.shell_utils.parse_command_details(command)
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
            if detail.name in REDIRECTION_NAMES:
                continue
            sub = detail.text.strip()
            atomic = sub == command or (detail.start == 0 and len(detail.text) == len(command))
            stripped = self.shell_utils.strip_shell_wrapper(sub)
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
        """``check``: the first matching rule by priority decides (shell: part by part); then
        ``additional_permissions`` outside the workspace and the safety checkers."""
        if not server and annotations and isinstance(annotations.get("_serverName"), str):
            server = annotations["_serverName"]
        if not server and tool:
            server = parse_mcp_tool_name(tool)[0] or server
        has_args = bool(args is not None)
        stringified = stable_stringify(args) if has_args and self._any_pattern else None
        is_shell = tool in SHELL_TOOL_NAMES
        command = dir_path = None
        if is_shell and isinstance(args, Mapping):
            raw = args.get("command")
            command = raw if isinstance(raw, str) else None
            dir_path = args.get("dir_path")
        names = self.aliases(tool) if tool else []
        if tool == AGENT_TOOL_NAME and isinstance(args, Mapping) and isinstance(
                args.get("agent_name"), str):
            names = [*names, args["agent_name"]]
        result: CheckResult | None = None
        for rule in self._candidates(names, server, subagent, stringified):
            if self.disable_always_allow and self._always_allow(rule):
                continue
            compiled = rule.compiled
            if compiled is not None and (stringified is None or not compiled.search(stringified)):
                continue  # its argsPattern does not match: ruleMatches says no (cheap first)
            if not any(rule_matches(rule, n, stringified, has_args, server, self.approval_mode,
                                    self.non_interactive, annotations, subagent)
                       for n in names):
                continue
            decision, note = rule.decision, ""
            if not skip_heuristics and is_shell and command and rule.compiled is None:
                decision, note = self.apply_shell_heuristics(command, decision)
            if is_shell and tool:
                result = self.check_shell_command(tool, command, decision, server, dir_path,
                                                  rule.allow_redirection, rule, annotations,
                                                  subagent, note)
            else:
                result = CheckResult(decision, rule, note, command)
            break
        if result is None:
            if self.approval_mode == "yolo":
                return CheckResult(ALLOW, None, "no rule matches; yolo mode allows it", command)
            if is_shell:
                decision, note = self.default_decision, ""
                if not skip_heuristics and command:
                    decision, note = self.apply_shell_heuristics(command, decision)
                result = self.check_shell_command(tool, command, decision, server, dir_path,
                                                  False, None, annotations, subagent, note)
            else:
                result = CheckResult(self.default_decision, None, "", command)
        if result.decision == ALLOW and isinstance(args, Mapping):
            result = self._check_additional_permissions(args, result)
        if result.decision != DENY and self.checker_runner is not None and self.checkers:
            result = self._run_checkers(tool, args, stringified, has_args, server, annotations,
                                        subagent, result)
        return result

    def _check_additional_permissions(self, args: Mapping[str, Any],
                                      result: CheckResult) -> CheckResult:
        extra = args.get(PARAM_ADDITIONAL_PERMISSIONS)
        fs = extra.get("fileSystem") if isinstance(extra, Mapping) else None
        if not fs or not isinstance(fs, Mapping):
            return result
        read, write = fs.get("read"), fs.get("write")
        paths = [*(read if isinstance(read, list) else []),
                 *(write if isinstance(write, list) else [])]
        workspace = self.sandbox_manager.get_workspace()
        for path in paths:
            if isinstance(path, str) and not is_subpath(workspace, path) and workspace != path:
                return CheckResult(ASK_USER, result.rule,
                                   f"additional_permissions names {path}, outside the "
                                   f"workspace {workspace}, so it asks", result.command,
                                   result.parts)
        return result

    def _run_checkers(self, tool: str, args: Mapping[str, Any] | None, stringified: str | None,
                      has_args: bool, server: str | None, annotations: Mapping[str, Any] | None,
                      subagent: str | None, result: CheckResult) -> CheckResult:
        assert self.checker_runner is not None
        call: dict[str, Any] = {"name": tool} if args is None else {"name": tool, "args": args}
        decision, note = result.decision, result.note
        for checker in self.checkers:
            if not rule_matches(checker, tool, stringified, has_args, server, self.approval_mode,
                                self.non_interactive, annotations, subagent):
                continue
            name = checker.checker.get("name", "?")
            try:
                outcome = self.checker_runner(call, checker.checker)
            except Exception as error:  # noqa: BLE001 (a failing checker denies, as upstream)
                return CheckResult(DENY, result.rule, f"safety checker {name} failed: {error}",
                                   result.command, result.parts)
            verdict = outcome.get("decision") if isinstance(outcome, Mapping) else None
            reason = outcome.get("reason", "") if isinstance(outcome, Mapping) else ""
            if verdict == DENY:
                return CheckResult(DENY, result.rule, f"safety checker {name} denies: {reason}",
                                   result.command, result.parts)
            if verdict == ASK_USER:
                decision, note = ASK_USER, f"safety checker {name} asks: {reason}"
        if decision == result.decision:
            return result
        return CheckResult(decision, result.rule, note, result.command, result.parts)

    def excluded_tools(self,  # noqa: C901 (upstream's shape)
                       metadata: Mapping[str, Mapping[str, Any]] | None = None,
                       all_tool_names: Iterable[str] | None = None) -> set[str]:
        """``getExcludedTools``: tools a rule without arguments denies outright (none when
        ``all_tool_names`` is not given, as upstream)."""
        out: set[str] = set()
        if all_tool_names is None:
            return out
        for name in all_tool_names:
            annotations = (metadata or {}).get(name)
            server = annotations.get("_serverName") if annotations else None
            if not isinstance(server, str):
                server = None
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
