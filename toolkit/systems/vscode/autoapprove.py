"""VS Code's terminal auto-approver: ``chat.tools.terminal.autoApprove`` entries as rules.

A port of ``CommandLineAutoApprover`` (microsoft/vscode
``src/vs/workbench/contrib/terminalContrib/chatAgentTools/browser/tools/commandLineAnalyzer/
autoApprove/commandLineAutoApprover.ts`` at 1cf1df3): each entry of the merged setting becomes
a rule, ``true`` on the allow list, ``false`` on the deny list (a denied command is *never
auto-approved*: VS Code asks, it does not block), ``{"approve": ..., "matchCommandLine": true}``
on the command-line lists, ``null`` and other values ignored. A key is a command prefix
(matched at the start, ending at a word boundary; a key holding ``/`` or ``\\`` matches either
separator and an optional ``./`` prefix) or a ``/regex/flags`` JavaScript regular expression.
A regex that matches the empty string (VS Code's ``regExpLeadsToEndlessLoop``) never matches;
``/.*/`` is the one exception. A JavaScript regex Python's ``re`` cannot compile (``\\p{Zs}``
with ``/u``, say) is *unreadable*: toolkit cannot tell what VS Code matches with it, so it errs
towards asking: a ``false`` entry's unreadable regex matches every command (the call asks), a
``true`` entry's matches none. The settings loader warns about each one, with its line.

Session rules (approvals given in a chat session) and the npm-script approver (a command that
runs a script defined in ``package.json``) are not modelled: neither is in a settings file.

>>> rules = parse_rules({"echo": True, "/^rm\\\\s+/": False})
>>> [is_command_auto_approved(rules, c).result for c in ("echo hi", "rm -rf x")]
['approved', 'denied']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "ApprovalResult",
    "AutoApproveRule",
    "AutoApproveRules",
    "RuleSource",
    "convert_entry_to_regex",
    "is_command_auto_approved",
    "is_command_line_auto_approved",
    "is_powershell",
    "parse_rules",
    "regex_error",
]

Result = Literal["approved", "denied", "noMatch"]

#: ``transientEnvVarRegex``: a command that starts with ``NAME=`` is always denied.
_TRANSIENT_ENV = re.compile(r"^[A-Z_][A-Z0-9_]*=", re.IGNORECASE)
#: ``value.match(/^\/(?<pattern>.+)\/(?<flags>[dgimsuvy]*)$/)``
_REGEX_ENTRY = re.compile(r"^/(?P<pattern>.+)/(?P<flags>[dgimsuvy]*)$", re.DOTALL)
#: ``escapeRegExpCharacters`` (base/common/strings.ts): the characters it escapes
_ESCAPED = re.compile(r"[\\{}*+?|^$.\[\]()]")
#: VS Code's regExpLeadsToEndlessLoop lets these sources match the empty string
_EMPTY_OK = frozenset({"^", "^$", "$", "^\\s*$"})


@dataclass(frozen=True)
class JsRegex:
    """A JavaScript ``RegExp`` as VS Code builds it, evaluated with Python's ``re``."""

    source: str
    flags: str = ""
    never: bool = False  # the neverMatchRegex ``/(?!.*)/``
    #: Python's ``re`` cannot compile it: what it matches is unknown (see the module's doc)
    unreadable: bool = False

    @property
    def compiled(self) -> re.Pattern[str] | None:
        """The Python pattern (None: never matches)."""
        return _compile(self.source, self.flags) if not self.never else None

    def test(self, text: str) -> bool:
        """``RegExp.prototype.test`` (sticky ``y`` anchors at index 0)."""
        pattern = self.compiled
        if pattern is None:
            return False
        if "y" in self.flags:
            return pattern.match(text) is not None
        return pattern.search(text) is not None

    def case_insensitive(self) -> JsRegex:
        """The same regex with the ``i`` flag (``regexCaseInsensitive``)."""
        if self.never or "i" in self.flags:
            return self
        return JsRegex(self.source, self.flags + "i", unreadable=self.unreadable)


_CACHE: dict[tuple[str, str], re.Pattern[str] | None] = {}


def _python_source(source: str) -> str:
    """JavaScript regex syntax Python spells otherwise: named groups ``(?<n>`` and ``\\k<n>``."""
    source = re.sub(r"\(\?<(?![=!])", "(?P<", source)
    return re.sub(r"\\k<([A-Za-z_][A-Za-z0-9_]*)>", r"(?P=\1)", source)


def _flags(flags: str) -> re.RegexFlag:
    value = re.ASCII
    if "i" in flags:
        value |= re.IGNORECASE
    if "m" in flags:
        value |= re.MULTILINE
    if "s" in flags:
        value |= re.DOTALL
    return value


def _compile(source: str, flags: str) -> re.Pattern[str] | None:
    key = (source, flags)
    if key not in _CACHE:
        try:
            _CACHE[key] = re.compile(_python_source(source), _flags(flags))
        except (re.error, OverflowError, RecursionError):
            _CACHE[key] = None  # unreadable: regex_error says why
    return _CACHE[key]


def regex_error(value: str) -> str | None:
    """Why toolkit cannot read the ``/regex/flags`` key ``value`` (None: it can, or the key
    is not a regex).

    >>> regex_error("/^git push\\\\p{Zs}/u").startswith("bad escape")
    True
    >>> regex_error("/^git/"), regex_error("git")
    (None, None)
    """
    match = _REGEX_ENTRY.match(value)
    if not match or match.group("pattern") == ".*":
        return None
    source, flags = match.group("pattern"), match.group("flags").replace("g", "")
    if _compile(source, flags) is not None:
        return None
    try:
        re.compile(_python_source(source), _flags(flags))
    except re.error as exc:
        return str(exc)
    except (OverflowError, RecursionError) as exc:
        return f"too large or too deeply nested ({type(exc).__name__})"
    return None


def _leads_to_endless_loop(regex: JsRegex) -> bool:
    """``regExpLeadsToEndlessLoop``: a regex matching the empty string (bar ``^``, ``$``...)."""
    if regex.source in _EMPTY_OK:
        return False
    pattern = regex.compiled
    return pattern is not None and pattern.match("") is not None


def convert_entry_to_regex(value: str) -> JsRegex:
    """``_doConvertAutoApproveEntryToRegex``: a key of the setting as the regex VS Code tests.

    >>> convert_entry_to_regex("npm run build").source
    '^npm run build\\\\b'
    >>> convert_entry_to_regex("/^git/i").flags
    'i'
    """
    match = _REGEX_ENTRY.match(value)
    pattern = match.group("pattern") if match else None
    if pattern:
        flags = (match.group("flags") if match else "").replace("g", "")
        if pattern == ".*":
            return JsRegex(pattern)
        regex = JsRegex(pattern, flags)
        if regex.compiled is None:
            return JsRegex(pattern, flags, unreadable=True)
        if _leads_to_endless_loop(regex):
            return JsRegex("(?!.*)", never=True)
        return regex
    if value == "":
        return JsRegex("(?!.*)", never=True)
    if "/" in value or "\\" in value:
        body = re.sub(r"[/\\]", "%%PATH_SEP%%", value)
        body = _ESCAPED.sub(lambda m: "\\" + m.group(0), body)
        body = re.sub(r"%%PATH_SEP%%*", lambda _: r"[/\\]", body)
        sanitized = rf"^(?:\.[/\\])?{body}"
    else:
        sanitized = _ESCAPED.sub(lambda m: "\\" + m.group(0), value)
    return JsRegex(rf"^{sanitized}\b")


@dataclass(frozen=True)
class RuleSource:
    """Where an entry was written: the settings layer, file and line (None: VS Code's default)."""

    target: str  # "default" | "user" | "workspace" | "workspaceFolder"
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class AutoApproveRule:
    """One entry of ``chat.tools.terminal.autoApprove`` (``IAutoApproveRule``)."""

    source_text: str
    regex: JsRegex
    approve: bool
    match_command_line: bool
    source: RuleSource = RuleSource("user")
    is_default_rule: bool = False

    @property
    def regex_case_insensitive(self) -> JsRegex:
        """The rule's regex with the ``i`` flag (PowerShell matches case-insensitively)."""
        return self.regex.case_insensitive()

    def test(self, text: str, *, case_insensitive: bool = False) -> bool:
        """Whether the rule matches ``text``; an unreadable regex matches every text on the
        deny side (the call asks) and none on the allow side."""
        if self.regex.unreadable:
            return not self.approve
        return (self.regex_case_insensitive if case_insensitive else self.regex).test(text)

    @property
    def note(self) -> str:
        """What the reason adds for an unreadable regex."""
        return (" (a JavaScript regex toolkit cannot read: taken to match every command, so "
                "VS Code is taken to ask)") if self.regex.unreadable else ""


@dataclass(frozen=True)
class AutoApproveRules:
    """The four lists ``_mapAutoApproveConfigToRules`` builds, in the setting's key order."""

    deny: tuple[AutoApproveRule, ...] = ()
    allow: tuple[AutoApproveRule, ...] = ()
    allow_command_line: tuple[AutoApproveRule, ...] = ()
    deny_command_line: tuple[AutoApproveRule, ...] = ()

    def all(self) -> tuple[AutoApproveRule, ...]:
        """Every rule: deny, allow, then the command-line lists."""
        return (*self.deny, *self.allow, *self.deny_command_line, *self.allow_command_line)


@dataclass(frozen=True)
class ApprovalResult:
    """``ICommandApprovalResultWithReason``: the result, VS Code's reason, the rule."""

    result: Result
    reason: str
    rule: AutoApproveRule | None = None


def _structural_equal(a: Any, b: Any) -> bool:
    """``structuralEquals``: equal values, booleans never equal to numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_structural_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_structural_equal(x, y) for x, y in zip(a, b,
                                                                              strict=True))
    return bool(type(a) is type(b) and a == b)


def parse_rules(config: Mapping[str, Any] | None, *,
                default: Mapping[str, Any] | None = None,
                layers: Iterable[tuple[RuleSource, Mapping[str, Any]]] = (),
                ignore_defaults: bool = False) -> AutoApproveRules:
    """``_mapAutoApproveConfigToRules``: the merged setting ``config`` as rule lists.

    ``default`` is VS Code's default value of the setting and ``layers`` the settings that set
    it, most specific first (workspace folder, workspace, user): they give each rule its
    ``source`` (the first layer holding the key with an equal value, else the default) and
    ``is_default_rule`` (the default holds the key with an equal value). With
    ``ignore_defaults`` (``chat.tools.terminal.ignoreDefaultAutoApproveRules``) a default rule
    that no layer repeats is skipped.
    """
    if not isinstance(config, Mapping):
        return AutoApproveRules()
    default = default or {}
    ordered = list(layers)
    deny: list[AutoApproveRule] = []
    allow: list[AutoApproveRule] = []
    allow_line: list[AutoApproveRule] = []
    deny_line: list[AutoApproveRule] = []
    for key, value in config.items():
        is_default = key in default and _structural_equal(default[key], value)
        source = next((src for src, data in ordered
                       if key in data and _structural_equal(data[key], value)),
                      RuleSource("default"))
        if ignore_defaults and is_default and source.target == "default":
            continue
        if isinstance(value, bool):
            rule = AutoApproveRule(str(key), convert_entry_to_regex(str(key)), value, False,
                                   source, is_default)
            (allow if value else deny).append(rule)
        elif isinstance(value, Mapping) and isinstance(value.get("approve"), bool):
            approve = bool(value["approve"])
            line = value.get("matchCommandLine") is True
            rule = AutoApproveRule(str(key), convert_entry_to_regex(str(key)), approve, line,
                                   source, is_default)
            if approve:
                (allow_line if line else allow).append(rule)
            else:
                (deny_line if line else deny).append(rule)
    return AutoApproveRules(tuple(deny), tuple(allow), tuple(allow_line), tuple(deny_line))


def is_powershell(shell: str, os: str = "linux") -> bool:
    """``isPowerShell`` (runInTerminalHelpers.ts): pwsh / powershell, with ``-preview``."""
    if os == "windows":
        name = re.sub(r"\.exe$", "", re.split(r"[/\\]", shell)[-1], flags=re.IGNORECASE)
        return re.fullmatch(r"(?:powershell|pwsh)(?:-preview)?", name, re.IGNORECASE) is not None
    return re.fullmatch(r"(?:powershell|pwsh)(?:-preview)?", shell.rsplit("/", 1)[-1]) is not None


def _command_matches(rule: AutoApproveRule, command: str, shell: str, os: str) -> bool:
    """``_commandMatchesRule``: PowerShell is case-insensitive and may open with ``(``."""
    pwsh = is_powershell(shell, os)
    if rule.test(command, case_insensitive=pwsh):
        return True
    return pwsh and command.startswith("(") and rule.test(command[1:], case_insensitive=True)


def is_command_auto_approved(rules: AutoApproveRules, command: str, shell: str = "bash",
                             os: str = "linux") -> ApprovalResult:
    """``isCommandAutoApproved`` for one sub-command: transient env, deny list, allow list."""
    if _TRANSIENT_ENV.search(command):
        return ApprovalResult("denied", f"Command '{command}' is denied because it contains "
                                        "transient environment variables")
    for rule in rules.deny:
        if _command_matches(rule, command, shell, os):
            return ApprovalResult("denied", f"Command '{command}' is denied by deny list rule: "
                                            f"{rule.source_text}{rule.note}", rule)
    for rule in rules.allow:
        if _command_matches(rule, command, shell, os):
            return ApprovalResult("approved", f"Command '{command}' is approved by allow list "
                                              f"rule: {rule.source_text}", rule)
    return ApprovalResult("noMatch", f"Command '{command}' has no matching auto approve entries")


def is_command_line_auto_approved(rules: AutoApproveRules, command_line: str) -> ApprovalResult:
    """``isCommandLineAutoApproved``: the ``matchCommandLine`` rules against the whole line."""
    for rule in rules.deny_command_line:
        if rule.test(command_line):
            return ApprovalResult("denied", f"Command line '{command_line}' is denied by deny "
                                            f"list rule: {rule.source_text}{rule.note}", rule)
    for rule in rules.allow_command_line:
        if rule.test(command_line):
            return ApprovalResult("approved", f"Command line '{command_line}' is approved by "
                                              f"allow list rule: {rule.source_text}", rule)
    return ApprovalResult("noMatch",
                          f"Command line '{command_line}' has no matching auto approve entries")
