"""Claude Code's permission-rule language: ``Tool`` or ``Tool(specifier)``, parsed and matched.

Every statement cites code.claude.com/docs/en/permissions ("Permission rule
syntax", "Tool-specific permission rules"). A rule string becomes a
:class:`PermissionRule`: the toolkit :class:`~toolkit.core.models.Rule` (its
text, kind, layer, file and line) plus how it matches — a tool name or name
glob, a command pattern (Bash, PowerShell, Monitor, Skill), a path pattern
(Read, Edit), a domain (WebFetch), a subagent type (Agent) or one input
parameter (``Tool(param:value)``, deny and ask only). A rule Claude Code would
skip keeps a ``skipped`` message instead of a matcher.

>>> r = parse_rule("Bash(npm run *)", "allow")
>>> r.form, r.tool, r.command_matches("npm run build"), r.command_matches("npm runner")
('command', 'Bash', True, False)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal

from ....core.models import Rule
from ...base.paths import AnchoredPattern, absolute
from ..tools import TOOLS

__all__ = [
    "BUILTIN_TOOLS",
    "EDIT_TOOLS",
    "LEGACY_ALIASES",
    "MODES_ALIASES",
    "READ_TOOLS",
    "SHELL_TOOLS",
    "Anchors",
    "PermissionRule",
    "call_arguments",
    "canonical_tool",
    "command_alternation",
    "parse_rule",
    "split_rule",
]

Kind = Literal["allow", "ask", "deny"]
Form = Literal["tool", "name-glob", "mcp-server", "command", "path", "domain", "agent", "param",
               "skipped"]

#: Names Claude Code still accepts for renamed tools (permissionRuleParser LEGACY_TOOL_NAME_ALIASES;
#: sub-agents docs: "In version 2.1.63, the Task tool was renamed to Agent").
LEGACY_ALIASES = {"Task": "Agent", "KillShell": "TaskStop", "AgentOutputTool": "TaskOutput",
                  "BashOutputTool": "TaskOutput"}
#: permission-modes#available-modes: "The CLI accepts manual as an alias".
MODES_ALIASES = {"manual": "default"}
#: tools-reference "Configure tools with permission rules": which tools each rule form covers.
SHELL_TOOLS = ("Bash", "Monitor")
READ_TOOLS = ("Read", "Grep", "Glob", "LS", "LSP")
EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
#: permissions#read-and-edit: "If you write a path rule for Write, NotebookEdit, Glob, or the
#: legacy MultiEdit tool instead, Claude Code accepts the rule but never consults it".
_UNCONSULTED_PATH_TOOLS = ("Write", "NotebookEdit", "Glob", "MultiEdit")
#: Claude Code's built-in tools and whether each asks before running (tools-reference table,
#: "Permission required"), from the system's one table (``claude_code.tools.TOOLS``), plus
#: two legacy tools rules may still name (LS, MultiEdit). Read, Grep, Glob and LSP ask only
#: outside the working directories.
BUILTIN_TOOLS: Mapping[str, bool] = {
    **{name: tool.permission_required for name, tool in TOOLS.items()},
    "LS": False, "MultiEdit": True,
}
#: permissions#match-by-input-parameter: "You can't match a tool's primary content field this
#: way: command for Bash and PowerShell, file_path for Read, Edit, and Write, path for Grep and
#: Glob, notebook_path for NotebookEdit, and url for WebFetch."
PRIMARY_FIELDS: Mapping[str, str] = {
    "Bash": "command", "PowerShell": "command", "Monitor": "command", "Read": "file_path",
    "Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path", "Grep": "path",
    "Glob": "path", "NotebookEdit": "notebook_path", "WebFetch": "url",
}
#: Top-level input fields of the tools whose specifier is not ``field:value`` on its own, so
#: ``Bash(run_in_background:true)`` is a parameter rule while ``Bash(git:*)`` is a command.
_INPUT_FIELDS: Mapping[str, frozenset[str]] = {
    "Bash": frozenset({"command", "timeout", "description", "run_in_background",
                       "dangerouslyDisableSandbox"}),
    "PowerShell": frozenset({"command", "timeout", "description", "run_in_background"}),
    "Monitor": frozenset({"command", "description", "timeout"}),
    "Agent": frozenset({"description", "prompt", "subagent_type", "model", "isolation",
                        "run_in_background", "name", "team_name", "mode", "cwd"}),
    "Skill": frozenset({"skill", "args"}),
    "WebFetch": frozenset({"url", "prompt"}),
}
_SPEC_FORMS: Mapping[str, Form] = {
    "Bash": "command", "PowerShell": "command", "Monitor": "command", "Skill": "command",
    "Read": "path", "Edit": "path", "WebFetch": "domain", "Agent": "agent",
}
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_*][A-Za-z0-9_*\-.:]*$")
_PARAM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$", re.DOTALL)


@dataclass(frozen=True)
class Anchors:
    """Where a rule's relative paths start (permissions#read-and-edit, "A /path pattern anchors
    at a directory associated with the settings source that defines it")."""

    source: str  # the folder "/path" is relative to (project root, ~/.claude, ...)
    home: str | None  # "~/path"


@dataclass(frozen=True)
class PermissionRule:
    """One Claude Code permission rule: the toolkit ``Rule`` and how it matches a call."""

    rule: Rule
    tool: str  # the canonical tool name (legacy aliases resolved), or a name glob
    form: Form
    anchors: Anchors | None = None
    skipped: str | None = None  # why Claude Code would not use it (a startup warning)
    warning: str | None = None  # used, but worth a warning (an unknown tool name, say)
    _compiled: Any = field(default=None, compare=False, repr=False)
    #: the rule exactly as the file writes it, when that differs from ``rule.text``
    #: (``Bash(echo \\(x\\))``: escaped parentheses)
    written: str | None = field(default=None, compare=False)

    @property
    def kind(self) -> str:
        """``allow``, ``ask`` or ``deny``."""
        return self.rule.kind

    @property
    def text(self) -> str:
        """The rule as written."""
        return self.written or self.rule.text

    @property
    def spec(self) -> str | None:
        """The specifier inside the parentheses (None for a bare tool name; ``Bash(*)`` and
        ``Bash()`` are bare: "Bash(*) is equivalent to Bash")."""
        return None if self.form in ("tool", "name-glob", "mcp-server") else self.rule.spec

    # -- which tools a rule concerns ----------------------------------------------------------

    def names(self, tool: str) -> bool:
        """Whether the rule names ``tool`` itself (bare names, globs, MCP servers, parameters)."""
        if self.skipped is not None:
            return False
        if self.form == "name-glob":
            return _glob(self.tool).fullmatch(tool) is not None
        if self.form == "mcp-server":
            return tool.startswith(self.tool + "__")
        if self.form in ("tool", "param"):
            return tool == self.tool
        return False

    # -- matchers ------------------------------------------------------------------------------

    def command_matches(self, command: str) -> bool:
        """A command pattern (``npm run *``) against one command's text."""
        return self.form == "command" and _command_regex(
            str(self.spec), self.tool == "PowerShell").fullmatch(command) is not None

    @property
    def exact_command(self) -> bool:
        """A command pattern without a wildcard (the only kind that approves ``watch ...``)."""
        return self.form == "command" and "*" not in str(self.spec)

    def path_matches(self, path: str, cwd: str) -> bool:
        """A path pattern against an absolute POSIX path, relative patterns from ``cwd``."""
        if self.form != "path" or self.anchors is None:
            return False
        anchored = _anchored(str(self.spec), self.kind, self.anchors, cwd)
        if not all(word in path for word in _literal_words(anchored.pattern)):
            return False  # a word the pattern spells out is not in the path
        return anchored.matches(path)

    def path_segment(self, cwd: str) -> str | None:
        """A path segment every path the rule matches (relative patterns from ``cwd``) holds:
        the longest segment its gitignore pattern spells out in full (``secret0`` of
        ``Read(./secret0/**)``: pathspec requires it between slashes, or at an end), or None."""
        if self.form != "path" or self.anchors is None:
            return None
        return _full_segment(_anchored(str(self.spec), self.kind, self.anchors, cwd).pattern)

    def domain_matches(self, host: str) -> bool:
        """A ``domain:`` pattern against a hostname (case-insensitive, trailing dot ignored)."""
        return self.form == "domain" and _domain_regex(
            str(self.spec)).fullmatch(host.lower().rstrip(".")) is not None

    def agent_matches(self, subagent: str) -> bool:
        """An ``Agent(type)`` rule against the subagent type being launched."""
        if self.form != "agent":
            return False
        return any(_glob(t.strip()).fullmatch(subagent) for t in str(self.spec).split(","))

    def param_matches(self, args: Mapping[str, Any]) -> bool:
        """A ``Tool(param:value)`` rule: the call sets ``param`` to a matching scalar value."""
        if self.form != "param":
            return False
        name, pattern = self._compiled
        if name not in args or isinstance(args[name], (dict, list)) or args[name] is None:
            return False  # "A parameter the model omits is never matched"
        value = args[name]
        shown = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return bool(_glob(pattern).fullmatch(shown))


def canonical_tool(name: str) -> str:
    """A tool name as permission rules see it: ``Task`` is ``Agent``, ``@srv/t`` is
    ``mcp__srv__t`` (toolkit's canonical MCP spelling).

    >>> canonical_tool("Task"), canonical_tool("@github/get_issue")
    ('Agent', 'mcp__github__get_issue')
    """
    if name.startswith("@") and "/" in name:
        server, _, tool = name[1:].partition("/")
        return f"mcp__{server}__{tool}"
    return LEGACY_ALIASES.get(name, name)


def call_arguments(tool: str, text: str) -> dict[str, Any]:
    """A call's arguments written on a command line: a JSON object, or for a tool with a
    primary field (Bash's ``command``, Read's ``file_path``, WebFetch's ``url`` ...) just
    that field's value; ``ValueError`` says what is wrong.

    >>> call_arguments("Bash", "npm test && git push"), call_arguments("Read", '{"file_path": "a"}')
    ({'command': 'npm test && git push'}, {'file_path': 'a'})
    """
    import json

    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(f"arguments are not valid JSON: {exc.msg} (column {exc.colno})"
                             ) from None
        if not isinstance(value, dict):
            raise ValueError("arguments must be a JSON object")
        return value
    field = PRIMARY_FIELDS.get(canonical_tool(tool), {"Agent": "subagent_type",
                                                     "Skill": "skill"}.get(tool))
    if field is None:
        if not stripped:
            return {}
        raise ValueError(f"give {tool}'s arguments as a JSON object, e.g. '{{\"field\": "
                         "\"value\"}'")
    return {field: text}


def split_rule(text: str) -> tuple[str, str | None] | None:
    """``Tool(spec)`` -> (``Tool``, ``spec``); ``Tool`` -> (``Tool``, None); None if malformed.

    The specifier runs from the first unescaped ``(`` to a final ``)``; ``\\(`` and
    ``\\)`` inside it are literal; ``Tool()`` and ``Tool(*)`` are the bare tool.
    """
    text = text.strip()
    opening = _unescaped(text, "(")
    if opening < 0:
        return (text, None) if text and ")" not in text else None
    if not text.endswith(")") or text.endswith("\\)"):
        return None
    name, spec = text[:opening].strip(), text[opening + 1:-1]
    spec = spec.replace("\\(", "(").replace("\\)", ")")
    if not name:
        return None
    return (name, None) if spec.strip() in ("", "*") else (name, spec)


def parse_rule(text: object, kind: Kind, *, layer: str | None = None, file: str | None = None,
               line: int | None = None, anchors: Anchors | None = None,
               agent: str | None = None) -> PermissionRule:
    """Parse one rule string; a rule Claude Code skips comes back with ``skipped`` set.
    ``text`` of the result is the rule as written (escapes kept)."""
    parsed = _parse_rule(text, kind, layer=layer, file=file, line=line, anchors=anchors,
                         agent=agent)
    shown = text.strip() if isinstance(text, str) else None
    if shown is not None and shown != parsed.text:
        return replace(parsed, written=shown)
    return parsed


def _parse_rule(text: object, kind: Kind, *, layer: str | None, file: str | None,
                line: int | None, anchors: Anchors | None, agent: str | None
                ) -> PermissionRule:
    split = split_rule(text) if isinstance(text, str) else None
    if split is None:
        rule = Rule(kind=kind, pattern=str(text), layer=layer, file=file, line=line, agent=agent)
        why = (f"cannot parse {text!r} as Tool or Tool(specifier)" if isinstance(text, str)
               else f"a rule must be a string, not {type(text).__name__}")
        return PermissionRule(rule, str(text), "skipped", anchors, skipped=why)
    name, spec = split
    shown = str(text).strip()
    written = spec if spec is not None or not shown.endswith(")") else (
        shown[len(name):].strip()[1:-1])  # keep Bash(*) as written
    rule = Rule(kind=kind, pattern=name, spec=written, layer=layer, file=file, line=line,
                agent=agent)
    tool = canonical_tool(name)
    if not _TOOL_NAME.match(name):
        return PermissionRule(rule, tool, "skipped", anchors,
                              skipped=f"{name!r} is not a tool name")
    if spec is None:
        return _bare(rule, tool, anchors)
    return _specified(rule, tool, spec, anchors)


def _bare(rule: Rule, tool: str, anchors: Anchors | None) -> PermissionRule:
    if "*" in tool:
        return _name_glob(rule, tool, anchors)
    if tool.startswith("mcp__") and "__" not in tool[5:]:
        return PermissionRule(rule, tool, "mcp-server", anchors)
    warning = None
    if rule.kind != "allow" and tool not in BUILTIN_TOOLS and "_" not in tool:
        # permissions#tool-name-wildcards: "A deny or ask rule whose tool name matches no
        # known tool produces a startup warning ... containing _ or * are exempt"
        warning = f"{tool!r} matches no known tool (a typo?)"
    return PermissionRule(rule, tool, "tool", anchors, warning=warning)


def _name_glob(rule: Rule, tool: str, anchors: Anchors | None) -> PermissionRule:
    """permissions#tool-name-wildcards: deny and ask rules may glob the whole name; "Allow
    rules accept tool-name globs only after a literal mcp__<server>__ prefix"."""
    if rule.kind == "allow":
        server = tool[5:].split("__", 1)[0] if tool.startswith("mcp__") else ""
        anchored = tool.startswith("mcp__") and "__" in tool[5:] and server and "*" not in server
        if not anchored:
            return PermissionRule(rule, tool, "skipped", anchors,
                                  skipped="an unanchored allow glob is skipped and approves "
                                          "nothing; write mcp__<server>__* or name the tool")
    return PermissionRule(rule, tool, "name-glob", anchors)


def _specified(rule: Rule, tool: str, spec: str, anchors: Anchors | None) -> PermissionRule:
    if tool.startswith("mcp__"):
        return PermissionRule(rule, tool, "skipped", anchors,
                              skipped="MCP rules take no parentheses: write mcp__<server>__<tool> "
                                      "or mcp__<server>__*")
    if "*" in tool:
        return PermissionRule(rule, tool, "skipped", anchors,
                              skipped="a tool-name glob takes no specifier")
    param = _param(rule, tool, spec, anchors)
    if param is not None:
        return param
    if tool in _UNCONSULTED_PATH_TOOLS:
        family = "Read" if tool == "Glob" else "Edit"
        return PermissionRule(rule, tool, "skipped", anchors,
                              skipped=f"Claude Code accepts a path rule for {tool} but never "
                                      f"consults it; write {family}({spec})")
    form = _SPEC_FORMS.get(tool)
    if form == "domain":
        return _domain_rule(rule, tool, spec, anchors)
    if form is None:
        if tool == "WebSearch" or tool in BUILTIN_TOOLS:
            return PermissionRule(rule, tool, "skipped", anchors,
                                  skipped=f"{tool} accepts only the bare tool name, no specifier")
        return PermissionRule(rule, tool, "skipped", anchors,
                              skipped=f"no specifier syntax is known for {tool!r}")
    if form == "path" and spec.startswith("!"):
        # permissions#read-and-edit: rules use gitignore pattern syntax and are matched one by
        # one (deny -> ask -> allow, first match wins); the docs name no '!' exception syntax
        return PermissionRule(rule, tool, form, anchors, warning=(
            f"{spec!r} is a gitignore negation: on its own it matches no path, and Claude Code "
            "matches each rule separately, so it makes no exception to another rule; narrow "
            "that rule instead"))
    return PermissionRule(rule, tool, form, anchors)


def _param(rule: Rule, tool: str, spec: str, anchors: Anchors | None) -> PermissionRule | None:
    """``Tool(param:value)`` (permissions#match-by-input-parameter), or None if not one."""
    m = _PARAM.match(spec)
    if m is None:
        return None
    name, value = m.group(1), m.group(2)
    fields = _INPUT_FIELDS.get(tool)
    if tool == "WebFetch" and name == "domain":
        return None
    if fields is not None and name not in fields:
        return None  # Bash(git:*): a command, not a parameter
    if value == "*" and "command" in (fields or ()):
        # Bash(timeout:*): the legacy prefix syntax, which Claude Code reads first and writes
        # itself when a user approves a command ("timeout ..."): a command prefix
        return None
    if fields is None and tool in _SPEC_FORMS:
        return None  # Read(c:/x) and the like: the tool's own specifier
    if PRIMARY_FIELDS.get(tool) == name:
        return PermissionRule(rule, tool, "skipped", anchors,
                              skipped=f"{name} is {tool}'s primary field, which parameter rules "
                                      "cannot match (a compound command would bypass it)")
    if rule.kind == "allow":
        return PermissionRule(rule, tool, "skipped", anchors,
                              skipped="parameter rules (Tool(param:value)) work in deny and ask "
                                      "rules only; an allow rule never matches this way")
    return PermissionRule(rule, tool, "param", anchors, _compiled=(name, value))


def _domain_rule(rule: Rule, tool: str, spec: str, anchors: Anchors | None) -> PermissionRule:
    if not spec.startswith("domain:"):
        return PermissionRule(rule, tool, "skipped", anchors,
                              skipped="WebFetch rules take domain:<host>")
    return PermissionRule(rule, tool, "domain", anchors)


# -- compiled patterns (cached: a rule set is matched many times) -------------------------------

def _unescaped(text: str, char: str) -> int:
    for i, c in enumerate(text):
        if c == char and (i == 0 or text[i - 1] != "\\"):
            return i
    return -1


@lru_cache(maxsize=4096)
def _glob(pattern: str) -> re.Pattern[str]:
    """``*`` matches anything; everything else is literal."""
    return re.compile(".*".join(re.escape(p) for p in pattern.split("*")), re.DOTALL)


@lru_cache(maxsize=4096)
def _command_regex(spec: str, ignore_case: bool) -> re.Pattern[str]:
    """permissions#bash: ``*`` matches any run of characters, spaces included; a trailing
    `` *`` that is the rule's only wildcard also matches the bare command (a word boundary:
    ``ls *`` is not ``lsof``); a
    trailing ``:*`` is the same as `` *``; no ``*`` means the exact command."""
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    if spec.endswith(" *") and "*" not in spec[:-2]:
        # "only when the trailing * is the rule's only wildcard: Bash(* --help *) matches
        # npm --help x but not npm --help" (permissions#bash)
        return re.compile(f"{re.escape(spec[:-2])}(?: .*)?", flags)
    return re.compile(".*".join(re.escape(p) for p in spec.split("*")), flags)


def command_first_word(spec: str) -> str | None:
    """The first word (the text before the first space) of every command a command pattern
    matches, when the pattern spells it out: ``git`` of ``git status *``, ``ls`` of ``ls *``
    (``ls`` or ``ls ...``) or of the exact ``ls``; None for ``git*`` or ``* --help *``.

    >>> command_first_word("npm run *"), command_first_word("ls:*"), command_first_word("np*")
    ('npm', 'ls', None)
    """
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    if spec.endswith(" *") and "*" not in spec[:-2]:
        spec = spec[:-2]  # the bare command, or it and " ..."
    head, star, _ = spec.partition("*")
    if " " in head:
        return head.split(" ", 1)[0]
    return None if star else head


def command_alternation(rules: Sequence[tuple[int, PermissionRule]]) -> re.Pattern[str] | None:
    """One regex for many command rules: alternative ``r<position>`` is each rule's pattern,
    in order, so ``fullmatch(text).lastgroup`` names the first rule that matches the text
    (alternatives are tried left to right). None for no rules."""
    if not rules:
        return None
    ignore_case = any(r.tool == "PowerShell" for _, r in rules)
    parts = [f"(?P<r{position}>{_command_regex(str(r.spec), ignore_case).pattern})"
             for position, r in rules]
    return re.compile("|".join(parts), re.DOTALL | (re.IGNORECASE if ignore_case else 0))


@lru_cache(maxsize=4096)
def _domain_regex(spec: str) -> re.Pattern[str]:
    """permissions#webfetch: ``*.x.com`` matches subdomains at any depth, not ``x.com``; a bare
    ``*`` matches every host; any other ``*`` matches within one label."""
    host = spec[len("domain:"):].strip().lower().rstrip(".")
    if host == "*":
        return re.compile(r".*")
    if host.startswith("*."):
        return re.compile(r"(?:[^.]+\.)+" + _label_glob(host[2:]))
    return re.compile(_label_glob(host))


def _label_glob(host: str) -> str:
    return "[^.]*".join(re.escape(p) for p in host.split("*"))


@lru_cache(maxsize=4096)
def _literal_words(pattern: str) -> tuple[str, ...]:
    """The words (letters, digits, ``.``, ``_``, ``-``) a gitignore ``pattern`` spells out
    literally: pathspec turns each into literal text its regex requires (``*``, ``?`` and
    ``**`` only add wildcards between them), so a path that lacks one cannot match. None
    are given for a pattern with a character class or an escape (``[ab]``, ``\\*``), whose text is
    not all literal.

    >>> _literal_words("**/secret0/**"), _literal_words("*.env"), _literal_words("[ab].py")
    (('secret0',), ('.env',), ())
    """
    if "[" in pattern or "\\" in pattern:
        return ()
    return tuple(_WORD.findall(pattern))


_WORD = re.compile(r"[A-Za-z0-9._-]+")


@lru_cache(maxsize=4096)
def _full_segment(pattern: str) -> str | None:
    """The longest segment of a gitignore ``pattern`` made of literal characters only (letters,
    digits, ``.``, ``_``, ``-``; not ``.`` or ``..``), or None.

    >>> _full_segment("**/secret0/**"), _full_segment("src/*.py"), _full_segment("*.env")
    ('secret0', 'src', None)
    """
    segments = [s for s in pattern.split("/") if _WORD.fullmatch(s) and s not in (".", "..")]
    return max(segments, key=len) if segments else None


@lru_cache(maxsize=4096)
def _anchored(spec: str, kind: str, anchors: Anchors, cwd: str) -> AnchoredPattern:
    """permissions#read-and-edit: ``//x`` absolute, ``~/x`` from home, ``/x`` from the settings
    source, ``x`` or ``./x`` from the working directory; a one-segment directory pattern
    (``src/**``) in a deny or ask rule matches that directory at any depth."""
    pattern = spec.replace("\\", "/") if re.match(r"^[A-Za-z]:\\", spec) else spec
    if pattern.startswith("//"):
        return AnchoredPattern("/", "/" + pattern[2:].lstrip("/"))
    if pattern.startswith("~/") and anchors.home is not None:
        return AnchoredPattern(absolute(anchors.home, "/", None), "/" + pattern[2:])
    if pattern.startswith("/"):  # "" = the working directory (local settings, CLI flags)
        return AnchoredPattern(absolute(anchors.source or cwd, "/", None), pattern)
    if pattern.startswith("./"):
        pattern = pattern[2:]
    segments = pattern.split("/")
    if kind != "allow" and len(segments) == 2 and segments[1] == "**" and "*" not in segments[0]:
        pattern = "**/" + pattern
    return AnchoredPattern(absolute(cwd, "/", None), pattern)
