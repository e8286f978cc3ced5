"""Risk: which tools read private data, see untrusted content, send data out, destroy.

Each pool tool gets up to four classes (SPEC section 12):

- built-in tools by their known behaviour: Claude Code's ``Read``, ``Grep``,
  ``Glob``, ``LS`` read private data; ``WebFetch`` and ``WebSearch`` see untrusted
  content and send data out; ``Bash`` does all four; ``Edit``, ``Write``,
  ``MultiEdit``, ``NotebookEdit`` are destructive. work-agent's ``fs_read`` /
  ``fs_write`` / ``shell_exec`` and adh-cli's ``read_file``, ``list_directory``,
  ``get_file_info`` / ``execute_command`` likewise; the native ``google_search``
  and ``google_url_context`` see untrusted content and send data out;
- MCP tools by their annotations: ``openWorldHint`` true -> untrusted content and
  a way out; ``destructiveHint`` true (and ``readOnlyHint`` not true) -> destructive;
- an override map (``risk=`` or the manifest's ``risk:`` when the loader keeps it)
  replaces the classes of the tools or servers it names.

An agent holding all three of private data, untrusted content and a way out —
directly, or through the sub-agents it may spawn, as the project would resolve
them under it — has the "lethal trifecta": untrusted content can steer it into
sending private data away. ``toolmatrix check`` warns about each such agent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.models import DEFAULT_STATE, Tool
from ..core.pool import glob_match
from ..core.resolve import Lineage
from ..errors import DefinitionError, Problem
from ..systems import registry
from ..systems.base.risks import ALL, LEGS, READ, RISKS, WEB, WRITE

if TYPE_CHECKING:
    import pandas as pd

    from ..core.resolve import Grant
    from ..policy import Policy

__all__ = ["LEGS", "RISKS", "AgentRisk", "agent_risks", "classify", "risk_frame",
           "risk_problems", "tool_risk_frame", "tool_risks"]

_LEG_WORDS = {"reads_private": "private data", "untrusted_input": "untrusted content",
              "sends_out": "a way out"}
#: toolkit's own built-ins (SPEC section 7) and other runtimes' native tools; each agent
#: system adds its own built-ins' risks (``toolkit.systems.registry.risks``).
_OWN_RISKS: Mapping[str, frozenset[str]] = {
    "fs_read": READ, "fs_write": WRITE, "shell_exec": ALL,
    **dict.fromkeys(("google_search", "google_url_context"), WEB),
}


def builtin_risks() -> Mapping[str, frozenset[str]]:
    """Built-in tool -> risk classes: toolkit's own and every agent system's."""
    systems = registry.risks()
    if _cache.get("key") != len(systems):
        _cache["key"], _cache["risks"] = len(systems), {**_OWN_RISKS, **systems}
    risks: Mapping[str, frozenset[str]] = _cache["risks"]
    return risks


_cache: dict[str, Any] = {}


def classify(tool: Tool) -> frozenset[str]:
    """The risk classes of one tool, from its known behaviour or its MCP annotations."""
    own = tool.server is None and tool.binding is None
    known = builtin_risks().get(tool.name) if own else None
    if known is not None:
        return known
    hints = tool.annotations or {}
    found: set[str] = set()
    if hints.get("openWorldHint") is True:
        found |= WEB
    if hints.get("destructiveHint") is True and hints.get("readOnlyHint") is not True:
        found |= WRITE
    return frozenset(found)


def _overrides(policy: Policy, overrides: Mapping[str, Iterable[str]] | None
               ) -> dict[str, frozenset[str]]:
    """The override map (argument first, else the manifest's ``risk:``), checked."""
    given = overrides if overrides is not None else policy.definitions.settings.get("risk")
    out: dict[str, frozenset[str]] = {}
    for key, classes in (given or {}).items():
        names = [classes] if isinstance(classes, str) else list(classes)
        unknown = [c for c in names if c not in RISKS]
        if unknown:
            raise DefinitionError(f"risk override {key!r}: unknown class(es) {unknown}; the "
                                  f"classes are {', '.join(RISKS)}",
                                  file=policy.definitions.settings.get("_file"))
        out[str(key)] = frozenset(names)
    return out


def tool_risks(policy: Policy, overrides: Mapping[str, Iterable[str]] | None = None
               ) -> dict[str, frozenset[str]]:
    """Canonical tool name -> its risk classes, for every pool tool.

    An override key is a tool name or glob (any spelling of the tool) or a
    server name; the most specific wins: tool name, then glob, then server.
    """
    table = _overrides(policy, overrides)
    out = {}
    for name, tool in policy.tools.items():
        override = _override_for(tool, table) if table else None
        out[name] = override if override is not None else classify(tool)
    return out


def _override_for(tool: Tool, table: Mapping[str, frozenset[str]]) -> frozenset[str] | None:
    for spelling in tool.names:
        if spelling in table:
            return table[spelling]
    for pattern, classes in table.items():
        if any(glob_match(s, pattern) for s in tool.names if "*" in pattern or "?" in pattern):
            return classes
    server = tool.server or (tool.binding[1:].partition("/")[0] if tool.binding else None)
    return table.get(server) if server else None


@dataclass
class AgentRisk:
    """One agent's risk: for each class, the tools that give it, and how they are reached."""

    agent: str
    #: class -> the tools giving it: ``["Read", "WebFetch (via researcher)"]``
    legs: dict[str, list[str]] = field(default_factory=dict)

    def has(self, risk: str) -> bool:
        """Whether some tool (held or reachable through a sub-agent) gives ``risk``."""
        return bool(self.legs.get(risk))

    @property
    def trifecta(self) -> bool:
        """Private data, untrusted content and a way out, all three."""
        return all(self.has(leg) for leg in LEGS)

    @property
    def via(self) -> str:
        """``reads_private: Read; untrusted_input: WebFetch (via researcher); ...``."""
        return "; ".join(f"{risk}: {', '.join(self.legs[risk])}" for risk in RISKS
                         if self.legs.get(risk))


def agent_risks(policy: Policy, overrides: Mapping[str, Iterable[str]] | None = None,
                preset: str | None = None) -> list[AgentRisk]:
    """Every agent's risk, counting the tools of the sub-agents it may spawn."""
    risks = tool_risks(policy, overrides)
    out = []
    for name in policy.agents:
        grant = policy.grant(name, preset)
        found = AgentRisk(name)
        _collect(policy, grant, risks, found, path=(), preset=preset, seen={name})
        out.append(found)
    return out


def _collect(policy: Policy, grant: Grant, risks: Mapping[str, frozenset[str]],
             found: AgentRisk, path: tuple[str, ...], preset: str | None,
             seen: set[str]) -> None:
    """Add ``grant``'s tools to ``found``, then those of every sub-agent it may spawn."""
    via = f" (via {' > '.join(path)})" if path else ""
    for tool in sorted(grant.tools):
        for risk in sorted(risks.get(tool, ())):
            entry = f"{tool}{via}"
            legs = found.legs.setdefault(risk, [])
            if not any(e.split(" (via ")[0] == tool for e in legs):
                legs.append(entry)
    # A sub-agent holds at most its parent's tools (the ceiling, SPEC section 4 step 5), so
    # a subtree can add a leg only through a risky tool of ``grant`` not recorded yet: when
    # there is none, walking it (every spawn path to max_depth: 45 agents ** 3 grants in a
    # large collection) changes nothing.
    recorded = {e.split(" (via ")[0] for legs in found.legs.values() for e in legs}
    if all(tool in recorded for tool in grant.tools if risks.get(tool)):
        return
    for child, child_grant in _children(policy, grant, preset):
        if child not in seen:
            _collect(policy, child_grant, risks, found, (*path, child), preset, seen | {child})


def _children(policy: Policy, grant: Grant, preset: str | None) -> list[tuple[str, Grant]]:
    """The agents ``grant``'s agent may spawn (it holds a coordination tool), as its children."""
    coordination = {grant.pool.index.lookup(n) for n in grant.preset.coordination_tools}
    if not grant.tools & (coordination - {None}):
        return []
    if grant.max_depth is not None and grant.depth + 1 > grant.max_depth:
        return []
    ancestors = (*(grant.lineage.ancestors if grant.lineage else ()), grant.agent)
    lineage = Lineage(id=grant.agent.name, depth=grant.depth, ancestors=ancestors,
                      ceiling=grant.tools, groups=("*",), state=DEFAULT_STATE,
                      max_depth=grant.max_depth)
    out = []
    for name in policy.agents:
        child = policy.grant(name, preset, lineage)
        if not child.spawn_errors and not child.errors:
            out.append((name, child))
    return out


def risk_frame(policy: Policy, overrides: Mapping[str, Iterable[str]] | None = None,
               preset: str | None = None) -> pd.DataFrame:
    """``proj.risk()``: per agent, the four classes (bool), ``trifecta`` and ``via``."""
    import pandas as pd

    rows = [{"agent": r.agent, **{risk: r.has(risk) for risk in RISKS},
             "trifecta": r.trifecta, "via": r.via}
            for r in agent_risks(policy, overrides, preset)]
    return pd.DataFrame(rows, columns=["agent", *RISKS, "trifecta", "via"]).set_index("agent")


def tool_risk_frame(policy: Policy, overrides: Mapping[str, Iterable[str]] | None = None
                    ) -> pd.DataFrame:
    """Per pool tool, its risk classes (bool columns) and a short ``risk`` label."""
    import pandas as pd

    risks = tool_risks(policy, overrides)
    rows = [{"tool": name, **{r: r in classes for r in RISKS},
             "risk": ",".join(r for r in RISKS if r in classes)}
            for name, classes in sorted(risks.items())]
    return pd.DataFrame(rows, columns=["tool", *RISKS, "risk"]).set_index("tool")


def risk_problems(policy: Policy) -> list[Problem]:
    """A ``toolmatrix check`` warning for each agent with the lethal trifecta."""
    out = []
    for found in agent_risks(policy):
        if not found.trifecta:
            continue
        agent = policy.agents[found.agent]
        legs = "; ".join(f"{_LEG_WORDS[leg]} ({', '.join(found.legs[leg])})" for leg in LEGS)
        out.append(Problem(agent.file, agent.line,
                           f"agent {found.agent!r} holds the lethal trifecta: {legs}; untrusted "
                           "content could make it send private data out - remove a leg or "
                           "split the agent", "warning"))
    return out
