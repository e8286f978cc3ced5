"""work-agent's own rules for naming and matching tools, ported from its source.

work-agent (``briananderson1222/work-agent``, renamed Stallion) runs its agents on
VoltAgent. What it does with tool names, quoted from its code:

- An MCP tool is exposed as ``<server id>_<tool>`` (VoltAgent prefixes each tool
  with the catalog id it was loaded under): ``sat-outlook_calendar_view``.
- That name is then *normalised* for Bedrock Nova, which crashes on hyphens:
  ``src-server/utils/tool-name-normalizer.ts:15-44`` — split at the first ``_``,
  each part camel-cased at ``-x`` and ``_x`` (lower-case ASCII letters only):
  ``satOutlook_calendarView``. :func:`normalize_tool_name` is that function,
  edge cases included (``server_2fa_code`` → ``server_2faCode``, ``-leading_tool``
  → ``Leading_tool``, dots untouched).
- ``tools.available`` and a ``delegation`` block's ``allowedTools`` /
  ``blockedTools`` are matched by ``matchesToolPattern``
  (``src-server/runtime/voltagent-runtime.ts:2167-2190`` at the last commit with
  ``.work-agent/``; ``src-server/runtime/mcp-tool-names.ts:52-87`` later): a pattern
  equal to the normalised or the original name, ``<prefix>_*`` (either name starts
  with ``<prefix>_``) or the legacy ``<prefix>/*`` (starts with ``<prefix>_`` or
  ``<prefix>/``). Nothing else is a wildcard there: ``*_view`` names a tool
  literally called ``*_view``; ``"*"`` alone means "every tool" only in
  ``available`` (its caller checks ``available.includes('*')``).
- ``tools.autoApprove`` is matched by ``isAutoApproved``
  (``src-server/runtime/tool-approval.ts:9-17``): ``*`` anywhere matches any run
  of characters, against the normalised and the original name.
- A delegated child always loses ``DEFAULT_CHILD_BLOCKED_TOOLS``
  (``src-server/runtime/delegation.ts:11-20`` on branch ``feat/codex-convergence``);
  ``maxDepth`` defaults to 2 and ``denyApprovals`` to true.

toolkit keeps its own canonical names (``@server/tool``); :class:`WorkAgentNames`
maps work-agent's spellings onto them for one pool. The toolkit's spellings
``@server/tool`` and ``mcp__server__tool`` are accepted too (never a bare MCP
tool name: work-agent has no such name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.models import Rule, Tool
    from ...core.pool import ToolPool

__all__ = [
    "DEFAULT_CHILD_BLOCKED_TOOLS",
    "DEFAULT_MAX_DEPTH",
    "WorkAgentNames",
    "is_auto_approved",
    "matches_tool_pattern",
    "normalize_tool_name",
    "parse_tool_name",
    "work_agent_names",
]

#: ``DEFAULT_DELEGATION_MAX_DEPTH`` (``delegation.ts:11``).
DEFAULT_MAX_DEPTH = 2
#: ``DEFAULT_CHILD_BLOCKED_TOOLS`` (``delegation.ts:13-20``): every delegated child loses
#: these control tools, whatever its parent's ``delegation`` block says.
DEFAULT_CHILD_BLOCKED_TOOLS: tuple[str, ...] = (
    "stallion-control_send_message",
    "stallion-control_add_*",
    "stallion-control_create_*",
    "stallion-control_delete_*",
    "stallion-control_run_job",
    "stallion-control_update_*",
)

_HYPHEN = re.compile(r"-([a-z])")
_UNDERSCORE = re.compile(r"_([a-z])")
# isAutoApproved escapes these before turning * into .*
_REGEX_SPECIAL = re.compile(r"[.+?^${}()|\[\]\\]")


def _camel(part: str) -> str:
    """``hyphenToCamelCase``: ``-x`` then ``_x`` (x a lower-case ASCII letter) become ``X``."""
    part = _HYPHEN.sub(lambda m: m.group(1).upper(), part)
    return _UNDERSCORE.sub(lambda m: m.group(1).upper(), part)


def normalize_tool_name(name: str) -> str:
    """work-agent's ``normalizeToolName``: camel-case the server and tool parts.

    >>> normalize_tool_name("sat-outlook_calendar_view")
    'satOutlook_calendarView'
    >>> normalize_tool_name("my-server_tool_name"), normalize_tool_name("my-tool")
    ('myServer_toolName', 'myTool')
    >>> normalize_tool_name("server_2fa_code"), normalize_tool_name("-leading_tool")
    ('server_2faCode', 'Leading_tool')
    """
    first = name.find("_")
    if first == -1:
        return _camel(name)
    return f"{_camel(name[:first])}_{_camel(name[first + 1:])}"


def parse_tool_name(name: str) -> tuple[str | None, str]:
    """work-agent's ``parseToolName``: (server, tool) split at the first ``_``.

    >>> parse_tool_name("sat-outlook_calendar_view"), parse_tool_name("plain")
    (('sat-outlook', 'calendar_view'), (None, 'plain'))
    """
    first = name.find("_")
    if first == -1:
        return None, name
    return name[:first], name[first + 1:]


def exposed_name(tool: Tool) -> str:
    """The name work-agent gives a tool before normalising: ``<server>_<tool>`` for MCP."""
    if tool.server is None:
        return tool.name
    return f"{tool.server}_{tool.remote_name or tool.name}"


def matches_tool_pattern(pattern: str, name: str, original: str) -> bool:
    """work-agent's ``matchesToolPattern`` for one pattern (``name`` normalised).

    >>> matches_tool_pattern("sat-outlook_*", "satOutlook_calendarView",
    ...                      "sat-outlook_calendar_view")
    True
    >>> matches_tool_pattern("*_view", "satOutlook_calendarView", "sat-outlook_calendar_view")
    False
    """
    if pattern in (name, original):
        return True
    if pattern.endswith("_*"):
        prefix = pattern[:-2] + "_"
        return name.startswith(prefix) or original.startswith(prefix)
    if pattern.endswith("/*"):
        prefixes = (pattern[:-2] + "_", pattern[:-2] + "/")
        return name.startswith(prefixes) or original.startswith(prefixes)
    return False


def is_auto_approved(pattern: str, names: Iterable[str]) -> bool:
    """work-agent's ``isAutoApproved`` for one pattern: ``*`` matches any run of characters.

    >>> is_auto_approved("sat-outlook_calendar_*", ["sat-outlook_calendar_view"])
    True
    """
    if pattern == "*":
        return True
    regex = re.compile(_REGEX_SPECIAL.sub(lambda m: "\\" + m.group(0), pattern)
                       .replace("*", ".*"))
    return any(regex.fullmatch(n) for n in names)


@dataclass(frozen=True)
class _Entry:
    canonical: str
    original: str  # ``server_tool`` as VoltAgent names it
    normalized: str
    toolkit: tuple[str, ...]  # toolkit's own unambiguous spellings: @server/tool, mcp__s__t
    mcp: bool


@dataclass
class WorkAgentNames:
    """work-agent's names for the tools of one pool, and its matchers over them.

    Build one with :func:`work_agent_names` (cached per pool).
    """

    entries: list[_Entry]
    by_name: dict[str, set[str]] = field(default_factory=dict)
    _mcp: frozenset[str] = frozenset()
    _cache: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for e in self.entries:
            for name in (e.original, e.normalized, *e.toolkit):
                self.by_name.setdefault(name, set()).add(e.canonical)
        self._mcp = frozenset(e.canonical for e in self.entries if e.mcp)

    def lookup(self, name: str) -> str | None:
        """The one canonical tool ``name`` is a work-agent name of, or None (none or several)."""
        found = self.by_name.get(name, ())
        return next(iter(found)) if len(found) == 1 else None

    def match(self, rule: Rule) -> frozenset[str]:
        """Canonical tools ``rule`` reaches the way work-agent matches its list.

        ``auto-approve`` rules: ``isAutoApproved``. ``allow`` rules (``available``):
        ``"*"`` is every tool, else ``matchesToolPattern``. ``use`` rules (the
        ``available`` names toolkit adds to ``use``): non-MCP tools only, since an MCP
        tool is in use only through its server in ``mcpServers``. Other rules
        (``delegation.allowedTools`` / ``blockedTools``): ``matchesToolPattern``.
        """
        pattern = str(rule.pattern)
        key = (rule.kind, pattern)
        hits = self._cache.get(key)
        if hits is None:
            hits = self._cache[key] = self._match(rule.kind, pattern)
        return hits

    def _match(self, kind: str, pattern: str) -> frozenset[str]:
        entries = self.entries
        if kind == "auto-approve":
            return frozenset(e.canonical for e in entries if is_auto_approved(
                pattern, (e.normalized, e.original, *e.toolkit)))
        if kind == "allow" and pattern == "*":
            return frozenset(e.canonical for e in entries)
        if pattern.endswith(("_*", "/*")):
            hits = {e.canonical for e in entries
                    if matches_tool_pattern(pattern, e.normalized, e.original)
                    or (pattern.endswith("/*") and any(
                        t.startswith(pattern[:-1]) for t in e.toolkit))}
        else:
            hits = set(self.by_name.get(pattern, ()))
        if kind == "use":
            hits -= self._mcp
        return frozenset(hits)


def _entries(pool: ToolPool) -> WorkAgentNames:
    entries = []
    for tool in pool.values():
        original = exposed_name(tool)
        mcp = tool.server is not None
        toolkit = tool.names[:2] if mcp and tool.binding is None else (tool.name,)
        entries.append(_Entry(tool.name, original, normalize_tool_name(original) if mcp
                              else original, tuple(toolkit), mcp))
    return WorkAgentNames(entries)


def work_agent_names(pool: ToolPool) -> WorkAgentNames:
    """work-agent's names for ``pool``'s tools (built once per pool)."""
    return pool.derived("work-agent names", _entries)
