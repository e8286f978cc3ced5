"""A project's policy: its definitions, pool and preset, and the questions you can ask.

``Policy`` is pure: no I/O beyond what the loaders read, no asyncio. The
runtime's ``Project`` adds servers and sessions on top of it.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .core import matrix as matrix_mod
from .core.decision import Decision, Effect, decide
from .core.explain import explain
from .core.incremental import added_grant, merge_grant
from .core.models import (
    DEFAULT_STATE,
    NO_RULE,
    AgentDefinition,
    Rule,
    ServerConfig,
    Tool,
    normalize_groups,
)
from .core.pool import ToolPool
from .core.presets import Preset, all_presets, get_preset
from .core.resolve import (
    Grant,
    Lineage,
    ProjectRules,
    Resolution,
    compile_grant,
    follow_aliases,
    resolve_request,
)
from .errors import (
    DefinitionError,
    Problem,
    SpawnError,
    UnknownAgentError,
    nearest_names,
    where,
)
from .systems import registry
from .systems.base.system import PermissionEngine
from .systems.load import Definitions, load_definitions, nothing_found

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MAIN", "Policy", "choose_preset", "load_policy"]

#: The main conversation's column in a matrix with ``runtimes=`` (and the agent name
#: ``explain`` takes for it): every runtime has one, whatever agents a project defines.
MAIN = "(main)"
_MAIN_DEFINITION = AgentDefinition(
    name=MAIN, description="the main conversation: every tool no rule takes away",
    allow=(Rule(kind="allow", pattern="*", agent=MAIN),))


class HasLineage(Protocol):
    """Anything a child can be resolved under (a runtime ``Session``)."""

    def child_lineage(self) -> Lineage: ...


def apply_group_map(tools: Mapping[str, Tool], defs: Definitions, pending: Iterable[str]
                    ) -> tuple[dict[str, Tool], list[Problem]]:
    """Add the group map's memberships to declared (and discovered) tools."""
    out = dict(tools)
    problems: list[Problem] = []
    if not defs.group_assignments:
        return out, problems  # no group map: skip indexing the whole pool
    pool = ToolPool(out.values())
    for a in defs.group_assignments:
        name = pool.index.lookup(a.tool)
        if name is None:
            if not any(a.tool.startswith((f"@{s}/", f"mcp__{s}__")) for s in pending):
                problems.append(Problem(a.file, a.line, f"group map puts {a.tool!r} in group "
                                                        f"{a.group!r}, but no such tool is "
                                                        "declared", "warning"))
            continue
        tool = out[name]
        if a.group not in tool.groups:
            groups = tool.groups if tool.groups != ("default",) or tool.group_line else ()
            out[name] = tool.model_copy(update={"groups": (*groups, a.group)})
    return out, problems


def bind_registry_tools(declared: Mapping[str, Tool], discovered: Mapping[str, Tool]
                        ) -> dict[str, Tool]:
    """Registry tools executed by a discovered MCP tool, merged with it.

    A registry entry binds to the server tool its ``mcp_tool_id`` names
    (``@server/tool``, ``server/tool``, ``mcp__server__tool`` or a unique bare
    name), else to the one server tool of its own name. The registry entry is
    the tool (its groups and states govern it); the server supplies what the
    entry leaves out (description, schema, annotations) and executes it.
    """
    if not discovered:
        return {}
    index = ToolPool(discovered).index
    # Only an entry with an mcp_tool_id, or named like a server tool, can bind (a set
    # intersection, not a loop over a large registry).
    candidates = declared.keys() & index.exact.keys()
    candidates.update(name for name, tool in declared.items() if tool.mcp_tool_id)
    out: dict[str, Tool] = {}
    for name in [n for n in declared if n in candidates]:
        tool = declared[name]
        if tool.source != "registry":
            continue
        target = None
        if tool.mcp_tool_id:
            ref = tool.mcp_tool_id
            if "/" in ref and not ref.startswith("@"):
                ref = "@" + ref
            target = index.lookup(ref)
        if target is None:
            target = index.lookup(name)
        if target is None or target not in discovered:
            continue
        remote = discovered[target]
        out[name] = tool.model_copy(update={
            "binding": remote.name,
            "description": tool.description or remote.description,
            "input_schema": tool.input_schema or remote.input_schema,
            "annotations": {**remote.annotations, **tool.annotations},
        })
    return out


def choose_preset(defs: Definitions, preset: str | Preset | None) -> tuple[str, str]:
    """The project's preset and why (SPEC section 3): the one given, else the manifest's,
    else the one the folder's layout shows unambiguously (``.claude/``, ``.work-agent/``),
    else ``strict``."""
    if preset is not None:
        return get_preset(preset).name, "given as preset="
    if "preset" in defs.settings:
        return (get_preset(defs.settings["preset"]).name,
                f"set by {defs.settings.get('_file', 'the manifest')}")
    if defs.layout is not None:
        return get_preset(defs.layout[0]).name, defs.layout[1]
    return "strict", "the default: no preset given, none in a manifest, no layout shows one"


class Policy:
    """Definitions + pool + preset: resolve, explain and tabulate tool access."""

    def __init__(self, defs: Definitions, preset: str | Preset | None = None,
                 engine: PermissionEngine | None = None, *,
                 engines: Mapping[str, PermissionEngine] | None = None,
                 runtime: str | None = None) -> None:
        self.definitions = defs
        self.root = defs.root
        self._preset_name, self.preset_reason = choose_preset(defs, preset)
        self._rules = ProjectRules(deny=tuple(defs.project_deny), ask=tuple(defs.project_ask),
                                   aliases=tuple(defs.aliases))
        self._servers: dict[str, ServerConfig] = dict(defs.servers)
        self._declared: dict[str, Tool] = dict(defs.tools)
        self._discovered: dict[str, list[Tool]] = {}
        self._grants: dict[tuple[str, str, int], Grant] = {}
        # After a pool change that only added tools: (old version, the added tools). A root
        # grant on the new pool is then its old grant plus the decisions about the added
        # tools (a delta); _pending holds (old grant, new pool, delta) until the grant is
        # asked for, so a matrix can insert the added rows without merging every grant.
        self._added: tuple[int, ToolPool] | None = None
        self._pending: dict[tuple[str, str, int], tuple[Grant, ToolPool, Grant]] = {}
        self._unextendable: set[tuple[str, str, int]] = set()
        self._codes: _Codes | None = None  # the last matrix's reason codes
        self.matrix_warnings: list[str] = []  # unknown group / state names of the last matrix
        # the pool's group and state names, for the unknown-name warnings (key: the pool)
        self._known_names: tuple[tuple[int, int], frozenset[str], frozenset[str]] | None = None
        self._presets: dict[str, Preset] = {}  # preset name -> with the manifest's settings
        # Warnings seen so far, each once (an ordered set: grants recompile and repeat theirs).
        self._problems: dict[Problem, None] = dict.fromkeys(
            p for p in defs.problems if p.severity == "warning")
        # Warnings about one pool (grants', the group map's) -> the pool version they are
        # about: once servers connect, those about the earlier pool are no longer shown.
        self._pool_problems: dict[Problem, int] = {}
        #: every runtime's permission engine found for the project, by runtime (SPEC 13)
        self.engines: dict[str, PermissionEngine] = dict(engines or {})
        if engine is not None:
            self.engines.setdefault(engine.system, engine)
        # engines with no settings, for what-if questions (by runtime; None: the default one)
        self._what_if: dict[str | None, PermissionEngine] = {}
        if runtime is not None and runtime not in self.engines:
            self._what_if[runtime] = registry.empty_engine(str(self.root), runtime)
        #: the project's permission engine (the runtime given, else the first found): its
        #: settings layers, rule grammar and evaluation (None: no settings; see check_call)
        self.engine = self.engines.get(runtime) if runtime is not None else next(
            iter(self.engines.values()), None)
        self._runtime = runtime
        self._argument_cache: dict[tuple[str | None, int], dict[str, tuple[Any, ...]]] = {}
        for found in self.engines.values():
            self._problems.update(dict.fromkeys(found.problems))
        empty = None if self.engines else nothing_found(defs)
        if empty is not None:  # not silently an empty project: say so, and what is there
            self._problems[empty] = None
        if self.engine is not None:
            self._reject_mcp_servers(self.engine)
        self.pool = self._build_pool()
        #: the rules before any runtime's settings joined them (each runtime adds its own)
        self._base_rules = self._rules
        if self.engine is not None:
            self._rules = self._with_settings_rules(self.engine)
        # another runtime's grants and rules than the default one's (runtime=, runtimes=)
        self._runtime_grants: dict[tuple[str, str, str, int], Grant] = {}
        self._runtime_rules: dict[tuple[str, int], ProjectRules] = {}
        self._foreign_cache: tuple[tuple[str, int], dict[str, str]] | None = None
        self._validate()

    # -- what the project holds ---------------------------------------------------------------

    @property
    def agents(self) -> Mapping[str, AgentDefinition]:
        """Agent definitions by name."""
        return MappingProxyType(self.definitions.agents)

    @property
    def tools(self) -> Mapping[str, Tool]:
        """The current pool: canonical tool name → ``Tool``."""
        return self.pool

    @property
    def warnings(self) -> list[Problem]:
        """The warnings that hold now (each with file and line): those of loading, and
        those about the current pool (a name under a server not connected yet is no
        longer warned about once the server is connected and has the tool)."""
        version = self.pool.version
        for name in self.definitions.agents:
            try:
                self.grant(name)  # the current pool's grants, whose warnings are current
            except DefinitionError:
                continue  # an error, raised where the agent is resolved
        current = [p for p, v in self._pool_problems.items()
                   if v == version and p not in self._problems]
        return [*self._problems, *current]

    def _note(self, problems: Iterable[Problem], version: int) -> None:
        """Record warnings about the pool of ``version``."""
        self._pool_problems.update(dict.fromkeys(problems, version))

    @property
    def preset(self) -> Preset:
        """The project's preset, with the manifest's overrides applied."""
        return self.preset_for(None)

    @property
    def users(self) -> Mapping[str, tuple[str, ...]]:
        """User name → permitted groups (from the manifest)."""
        return MappingProxyType(self.definitions.users)

    @property
    def server_configs(self) -> Mapping[str, ServerConfig]:
        """Configured MCP servers by name."""
        return MappingProxyType(self._servers)

    def preset_for(self, name: str | Preset | None) -> Preset:
        """A preset with the manifest's overrides (coordination tools, max_depth, overrides)."""
        key = name if name is not None else self._preset_name
        if isinstance(key, str) and key in self._presets:
            return self._presets[key]
        preset = self._apply_settings(get_preset(key))
        if isinstance(key, str):
            self._presets[key] = preset
        return preset

    def _apply_settings(self, base: Preset) -> Preset:
        settings = self.definitions.settings
        update: dict[str, Any] = dict(settings.get("overrides", {}))
        if "coordination_tools" in settings:
            update["coordination_tools"] = tuple(settings["coordination_tools"])
        if "max_depth" in settings:
            update["max_depth"] = settings["max_depth"]
        if not update:
            return base
        try:
            return Preset.model_validate({**base.model_dump(), **update})
        except ValueError as exc:
            raise DefinitionError(f"invalid preset override: {exc}",
                                  file=settings.get("_file")) from None

    @property
    def states(self) -> tuple[str, ...]:
        """Every state a tool names (in ``state`` or ``available_in_states``), plus undefined."""
        return tuple(sorted({DEFAULT_STATE} | _state_names(self.pool.values())))

    @property
    def groups(self) -> tuple[str, ...]:
        """Every group some tool belongs to."""
        return tuple(sorted(_group_names(self.pool.values())))

    # -- pool ---------------------------------------------------------------------------------

    def _build_pool(self) -> ToolPool:
        tools: dict[str, Tool] = dict(self._declared)
        discovered = {t.name: t for ts in self._discovered.values() for t in ts}
        for name, bound in bind_registry_tools(self._declared, discovered).items():
            tools[name] = bound
            discovered.pop(str(bound.binding), None)
        tools.update(discovered)
        pending = set(self._servers) - set(self._discovered)
        tools, problems = apply_group_map(tools, self.definitions, pending)
        previous: ToolPool | None = getattr(self, "pool", None)
        # (not ``if previous``: an empty pool is falsy, and every pool needs a new version)
        version = 0 if previous is None else previous.version + 1
        self._note(problems, version)
        return ToolPool(tools, pending, version)

    def set_server_tools(self, server: str, tools: Iterable[Tool] | None) -> None:
        """Replace a server's discovered tools (``None``: not available) and rebuild the pool."""
        self.set_many_server_tools({server: tools})

    def set_many_server_tools(self, servers: Mapping[str, Iterable[Tool] | None]) -> None:
        """:meth:`set_server_tools` for several servers, rebuilding the pool once.

        When the change only adds tools (a new server, say), grants and the
        last matrix are brought up to date for the added tools instead of
        being recomputed (see :func:`~toolkit.core.incremental.added_grant`).
        """
        for server, tools in servers.items():
            if tools is None:
                self._discovered.pop(server, None)
            else:
                self._discovered[server] = list(tools)
        self._replace_pool(self._build_pool())

    def add_server_config(self, config: ServerConfig) -> None:
        """Add or replace a server config; its tools join once it is discovered."""
        self._servers[config.name] = config
        self._discovered.pop(config.name, None)
        self._replace_pool(self._build_pool())

    def remove_server_config(self, name: str) -> None:
        """Remove a server and its tools from the project."""
        self._servers.pop(name, None)
        self._discovered.pop(name, None)
        self._replace_pool(self._build_pool())

    def clear_caches(self) -> None:
        """Forget every compiled grant and the last matrix (the next question recomputes)."""
        self._grants.clear()
        self._added = None
        self._pending.clear()
        self._unextendable.clear()
        self._codes = None
        self._argument_cache.clear()
        self._runtime_grants.clear()
        self._runtime_rules.clear()

    def _replace_pool(self, pool: ToolPool) -> None:
        old, self.pool = self.pool, pool
        self._runtime_grants.clear()  # recompiled when asked (only the default's are extended)
        self._runtime_rules.clear()
        self._pool_problems = {p: v for p, v in self._pool_problems.items() if v == pool.version}
        self._unextendable.clear()
        added = pool.added_to(old)
        if added is None:
            self.clear_caches()
            return
        # Keep the old pool's grants (merged or pending): the new ones extend them.
        self._grants = {k: g for k, g in self._grants.items() if k[2] == old.version}
        self._pending = {k: d for k, d in self._pending.items() if k[2] == old.version}
        self._added = (old.version, added)
        known = self._known_names
        if known is not None and known[0] == (old.version, id(old)):
            # the known group / state names grow by the added tools' only (no pool scan)
            self._known_names = ((pool.version, id(pool)),
                                 known[1] | _group_names(added.values()),
                                 known[2] | _state_names(added.values()))

    # -- definitions at run time ---------------------------------------------------------------

    def add_agent(self, definition: AgentDefinition | str, *, file: str = "<cell>",
                  replace: bool = False) -> AgentDefinition:
        """Add an agent at run time, validated like :func:`toolkit.load` validates one.

        ``definition`` is an ``AgentDefinition`` or the text of a markdown agent
        file with YAML front matter (what ``%%tk agent`` passes; ``file`` names
        it in error messages). An agent of the same name is an error unless
        ``replace``. On any error nothing changes and ``DefinitionError`` says
        what to fix, with its line.

        >>> import toolkit as tk
        >>> proj = tk.load("toolkit/examples/trustgraph")
        >>> helper = proj.add_agent("---\\nname: helper\\ntools: [text-completion]\\n---\\nHelps.")
        >>> helper.name, sorted(proj.resolve("helper", groups=["*"]).allowed)
        ('helper', ['text-completion'])
        """
        if isinstance(definition, str):
            # read as the project's system reads its agent files (Claude Code's .claude/agents)
            definition = registry.read_agent(self.definitions.layout)(definition, file)
        name = definition.name
        agents = self.definitions.agents
        previous = agents.get(name)
        if previous is not None and not replace:
            raise DefinitionError(f"duplicate agent name {name!r} (first defined at "
                                  f"{where(previous.file, previous.line)}); "
                                  "rename it or pass replace=True", file=definition.file,
                                  line=definition.line)
        agents[name] = definition
        self.clear_caches()
        try:
            self.grant(name)
        except DefinitionError:
            if previous is None:
                del agents[name]
            else:
                agents[name] = previous
            self.clear_caches()
            raise
        return definition

    # -- resolution ---------------------------------------------------------------------------

    def agent(self, name: str) -> AgentDefinition:
        """The agent called ``name``; ``UnknownAgentError`` listing the known ones otherwise."""
        try:
            return self.definitions.agents[name]
        except KeyError:
            raise UnknownAgentError(name, list(self.definitions.agents)) from None

    def _definition(self, name: str) -> AgentDefinition:
        """:meth:`agent`, or for ``"(main)"`` (:data:`MAIN`) that no agent is called, the main
        conversation: it holds every tool of the pool that no project or settings rule takes
        away (what ``check_call(agent=None)`` asks about, call by call)."""
        if name == MAIN and name not in self.definitions.agents:
            return _MAIN_DEFINITION
        return self.agent(name)

    def grant(self, agent: str, preset: str | Preset | None = None,
              lineage: Lineage | None = None, pool: ToolPool | None = None) -> Grant:
        """The compiled grant of ``agent`` (cached for root agents on the current pool);
        ``"(main)"`` is the main conversation unless an agent has that name."""
        definition = self._definition(agent)
        effective = self.preset_for(preset)
        pool = pool or self.pool
        key = (agent, effective.name, pool.version)
        root = lineage is None and pool is self.pool
        if root:
            found = self._root_grant(key)
            if found is None and self._delta(key) is not None:
                found = self._root_grant(key)  # the old grant and its delta, merged
            if found is not None:
                return found
        grant = compile_grant(definition, pool, effective, self._rules, lineage,
                              max_depth=effective.max_depth)
        if grant.errors:
            raise DefinitionError(grant.errors)
        self._note(grant.warnings, pool.version)
        if root:
            self._grants[key] = grant
        return grant

    def _root_grant(self, key: tuple[str, str, int]) -> Grant | None:
        """The cached root grant for ``key``, merging a pending delta; None if there is none."""
        grant = self._grants.get(key)
        if grant is not None:
            return grant
        pending = self._pending.pop(key, None)
        if pending is None:
            return None
        grant = merge_grant(*pending)
        self._note(grant.warnings, grant.pool.version)
        self._grants[key] = grant
        return grant

    def _delta(self, key: tuple[str, str, int]) -> Grant | None:
        """What the grant for ``key`` (on the current pool) decides about the added tools.

        None when the pool did not just gain tools, or the old grant cannot be
        extended (see :func:`~toolkit.core.incremental.added_grant`).
        """
        if key in self._pending:
            return self._pending[key][2]
        merged = self._grants.get(key)
        if merged is not None:
            return merged.added
        if self._added is None or key in self._unextendable:
            return None
        version, added = self._added
        previous = self._root_grant((key[0], key[1], version))
        delta = None if previous is None else added_grant(previous, added, self._rules)
        if previous is None or delta is None:
            self._unextendable.add(key)
            return None
        self._pending[key] = (previous, self.pool, delta)
        return delta

    def child_grant(self, agent: str, lineage: Lineage, preset: str | Preset | None = None,
                    pool: ToolPool | None = None) -> Grant:
        """A child's grant; ``SpawnError`` when its preset says naming extra tools is an error."""
        grant = self.grant(agent, preset, lineage, pool)
        if grant.spawn_errors:
            raise SpawnError("\n".join(str(p) for p in grant.spawn_errors))
        return grant

    def request_warnings(self, groups: tuple[str, ...], state: str) -> list[Problem]:
        """Warnings about a request: a group no tool has, a state no tool names."""
        out = []
        known_groups = set(self.groups)
        for g in groups:
            if g != "*" and g not in known_groups:
                out.append(Problem(None, None, f"requested group {g!r} is not a group of any "
                                               "tool", "warning"))
        if state not in self.states:
            out.append(Problem(None, None, f"invalid state {state!r}: no tool lists it in "
                                           "state or available_in_states", "warning"))
        return out

    @staticmethod
    def _request(groups: Any, state: str | None, parent: HasLineage | Lineage | None
                 ) -> tuple[Lineage | None, tuple[str, ...], str]:
        """(lineage, groups, state): a child inherits its parent's request unless given one."""
        lineage = parent if parent is None or isinstance(parent, Lineage) else (
            parent.child_lineage())
        if lineage is not None:
            groups = lineage.groups if groups is None else groups
            state = lineage.state if state is None else state
        return lineage, normalize_groups(groups), state or DEFAULT_STATE

    def resolve(self, agent: str, groups: Any = None, state: str | None = None,
                parent: HasLineage | Lineage | None = None,
                preset: str | Preset | None = None) -> Resolution:
        """``agent``'s tool set for a request (groups, state), optionally as ``parent``'s child."""
        lineage, group_set, state = self._request(groups, state, parent)
        if lineage is None:
            grant = self.grant(agent, preset)
        else:
            grant = self.child_grant(agent, lineage, preset)
        resolution = resolve_request(grant, group_set, state,
                                     self.request_warnings(group_set, state))
        if self.engine is None:
            return resolution
        arguments = self._argument_rules(agent)
        verdicts = {tool: self.engine.conditional_verdict(v) if tool in arguments else v
                    for tool, v in resolution.verdicts.items()}
        return replace(resolution, verdicts=verdicts)

    def explain(self, agent: str | None, tool: str, groups: Any = None,
                state: str | None = None, parent: HasLineage | Lineage | None = None,
                preset: str | Preset | None = None, runtime: str | None = None) -> Decision:
        """Why ``agent`` may or may not call ``tool``: a ``Decision`` with its full trace.

        ``agent=None`` (or ``"(main)"``) is the main conversation. ``runtime``: under that
        runtime's permission settings (``proj.runtimes``; the cells of
        ``matrix(runtimes=...)``), where another runtime's built-in tool is not in the pool;
        None: the project's default runtime, as ``matrix()`` shows it.
        """
        agent = MAIN if agent is None else agent
        given_groups, given_state = groups, state
        lineage, group_set, state = self._request(groups, state, parent)
        notes = self._unknown_names(group_set if given_groups is not None else (),
                                    [state] if given_state is not None else [])
        if runtime is None:
            decision = explain(self.grant(agent, preset, lineage), tool, group_set, state,
                               tuple(notes))
            engine = self.engine
        else:
            engine = self._engine(runtime)
            decision = explain(self._runtime_grant(runtime, agent, preset, lineage), tool,
                               group_set, state, tuple(notes))
            decision = replace(decision, runtime=runtime)
            owner = self._foreign(runtime).get(str(decision.canonical))
            if owner is not None:
                return self._not_a_tool_of(decision, runtime, owner)
        if engine is not None and decision.canonical is not None:
            rules = self._argument_rules(agent, runtime).get(decision.canonical, ())
            decision = engine.conditional(decision, rules)
        return decision

    # -- several runtimes (SPEC section 13) -----------------------------------------------------

    @property
    def default_runtime(self) -> str | None:
        """The runtime ``check_call`` and ``matrix()`` answer for when none is named."""
        return self.engine.system if self.engine is not None else None

    def runtime_names(self, runtimes: Sequence[str] | str) -> list[str]:
        """``"*"`` (every runtime of the project; the what-if one when it has none), a name or
        a list of names, checked: ``ValueError`` names a runtime without an engine."""
        if runtimes == "*":
            names = list(self.engines) or [self._engine().system]
        else:
            names = [runtimes] if isinstance(runtimes, str) else list(runtimes)
        for name in names:
            self._engine(name)  # ValueError: no permission engine for runtime 'x'
        if not names:
            raise ValueError("runtimes= is empty: name at least one runtime, or '*' for all "
                             f"of the project's ({', '.join(self.runtimes) or 'none'})")
        return list(dict.fromkeys(names))

    def _runtime_grant(self, runtime: str, agent: str, preset: str | Preset | None = None,
                       lineage: Lineage | None = None) -> Grant:
        """``agent``'s grant under ``runtime``'s settings rules (the default runtime's is
        :meth:`grant`'s, cached and extended incrementally; another's is cached per pool)."""
        if runtime == self.default_runtime:
            return self.grant(agent, preset, lineage)
        effective = self.preset_for(preset)
        key = (runtime, agent, effective.name, self.pool.version)
        found = self._runtime_grants.get(key) if lineage is None else None
        if found is not None:
            return found
        grant = compile_grant(self._definition(agent), self.pool, effective,
                              self._runtime_project_rules(runtime), lineage,
                              max_depth=effective.max_depth)
        if grant.errors:
            raise DefinitionError(grant.errors)
        if lineage is None:
            self._runtime_grants[key] = grant
        return grant

    def _runtime_project_rules(self, runtime: str) -> ProjectRules:
        key = (runtime, self.pool.version)
        rules = self._runtime_rules.get(key)
        if rules is None:
            rules = self._runtime_rules[key] = self._with_settings_rules(
                self._engine(runtime), self._base_rules)
        return rules

    def _foreign(self, runtime: str) -> dict[str, str]:
        """Pool tools that are another runtime's built-ins and not ``runtime``'s: tool ->
        the runtime whose built-in it is (``shell`` is Codex's, not Claude Code's)."""
        key = (runtime, self.pool.version)
        cached = self._foreign_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        own = _builtin_tools(runtime)
        out: dict[str, str] = {}
        for system in registry.SYSTEMS:
            if system.name == runtime or system.add_builtins is None:
                continue
            for name in sorted(_builtin_tools(system.name) - own):
                tool = self.pool.get(name)
                if tool is not None and tool.source == "native":
                    out.setdefault(name, system.name)
        self._foreign_cache = (key, out)
        return out

    def _not_a_tool_of(self, decision: Decision, runtime: str, owner: str) -> Decision:
        """``decision`` as the pool step's failure: the tool is ``owner``'s built-in only."""
        from .core.decision import Reason, Step

        verdict = decide({Reason.POOL})
        message = (f"{decision.canonical} is a built-in tool of {registry.by_name(owner).title}"
                   f", not of {registry.by_name(runtime).title}: it has no tool of that name")
        return replace(decision, effect=verdict.effect, reason=verdict.reason, message=message,
                       rule=NO_RULE, trace=(Step("pool", "fail", message),))

    def _unknown_names(self, groups: Iterable[str], states: Iterable[str]) -> list[str]:
        """Warnings for group and state names the user gave that no tool knows (typos?)."""
        out = []
        key = (self.pool.version, id(self.pool))
        if self._known_names is None or self._known_names[0] != key:  # a pool scan, once
            self._known_names = (key, frozenset(self.groups), frozenset(self.states))
        _, known_groups, known_states = self._known_names
        for g in dict.fromkeys(groups):
            if g != "*" and g not in known_groups:
                out.append(f"requested group {g!r} is not a group of any tool "
                           f"(known: {', '.join(sorted(known_groups)) or 'none'})")
        for s in dict.fromkeys(states):
            if s not in known_states:
                out.append(f"invalid state {s!r}: no tool lists it in state or "
                           f"available_in_states (known: {', '.join(sorted(known_states))})")
        return out

    # -- tables -------------------------------------------------------------------------------

    def _matrix_codes(self, agents: Sequence[str] | None, groups: Any, states: Any,
                      presets: Any) -> tuple[Any, list[str], list[str], list[Any], list[str]]:
        agent_names, contexts, preset_names = self._matrix_axes(agents, groups, states, presets)
        tool_names = list(self.pool.names)
        shape = (tuple(agent_names), tuple(contexts), tuple(preset_names))
        codes = self._cached_codes(shape)
        if codes is None:
            grants = [[self.grant(a, p) for a in agent_names] for p in preset_names]
            codes = matrix_mod.build(tool_names, dict(self.pool), grants, preset_names,
                                     agent_names, contexts)
        self._codes = _Codes(shape, self.pool.version, tool_names, codes)
        return codes, tool_names, agent_names, contexts, preset_names

    def _matrix_axes(self, agents: Sequence[str | None] | str | None, groups: Any, states: Any,
                     presets: Any, main: bool = False
                     ) -> tuple[list[str], list[Any], list[str]]:
        """The agents (``main``: the main conversation first when none are named; None in
        the list is it), contexts and presets of a matrix, checked (unknown group and state
        names are warned about)."""
        if agents is None:
            agent_names = ([MAIN] if main else []) + list(self.definitions.agents)
        else:
            agent_names = [agents] if isinstance(agents, str) else [
                MAIN if a is None else a for a in agents]
        for a in agent_names:
            self._definition(a)
        group_sets = _group_sets(groups)
        state_list = [DEFAULT_STATE] if states is None else (
            [states] if isinstance(states, str) else list(states))
        self.matrix_warnings = self._unknown_names(
            [g for gs in group_sets for g in gs] if groups is not None else [],
            state_list if states is not None else [])
        for note in self.matrix_warnings:
            warnings.warn(note, UserWarning, stacklevel=4)
        preset_names = [self._preset_name] if presets is None else (
            [presets] if isinstance(presets, str) else list(presets))
        preset_names = [get_preset(p).name for p in preset_names]
        contexts = [(g, s) for g in group_sets for s in state_list]
        return agent_names, contexts, preset_names

    def _runtime_frame(self, runtimes: Sequence[str] | str, agents: Any, groups: Any,
                       states: Any, presets: Any, cells: Literal["bool", "label", "effect"]
                       ) -> pd.DataFrame:
        """The matrix with a ``runtime`` column level: each runtime's grants (its settings'
        name rules), its argument rules (``conditional``), and no tool another runtime
        brings as a built-in (the pool step fails: ``explain(..., runtime=)`` says so)."""
        names = self.runtime_names(runtimes)
        agent_names, contexts, preset_names = self._matrix_axes(agents, groups, states,
                                                                presets, main=True)
        tool_names = list(self.pool.names)
        variants = [(r, p) for r in names for p in preset_names]
        grants = [[self._runtime_grant(r, a, p) for a in agent_names] for r, p in variants]
        codes = matrix_mod.build(tool_names, dict(self.pool), grants,
                                 [f"{r}/{p}" for r, p in variants], agent_names, contexts)
        position = {t: i for i, t in enumerate(tool_names)}
        for v, (runtime, _) in enumerate(variants):
            rows = [position[t] for t in self._foreign(runtime) if t in position]
            matrix_mod.not_in_pool(codes, rows, v)
        frame = matrix_mod.frame(codes, tool_names, agent_names, contexts, preset_names,
                                 cells=cells, runtimes=names)
        if cells != "bool":
            granted = (decide().label, decide(asks=True).label) if cells == "label" else (
                Effect.ALLOW.value, Effect.ASK.value)
            frame = self._conditional_cells(frame, granted, names)
        return self._noted(frame)

    def _cached_codes(self, shape: tuple[Any, ...]) -> Any:
        """The last matrix's codes when still valid, or with rows for the tools added since.

        Grants are a function of (agent, preset, pool version) until
        :meth:`clear_caches`, which also drops the codes, so codes of the same
        shape and version are still right; after an addition, only the added
        tools' rows are computed, from each grant's delta.
        """
        cached = self._codes
        if cached is None or cached.shape != shape:
            return None
        if cached.version == self.pool.version:
            return cached.codes
        if self._added is None or cached.version != self._added[0]:
            return None
        agents, contexts, presets = shape
        version = self.pool.version
        deltas = []
        for preset in presets:
            name = self.preset_for(preset).name
            row = [self._delta((agent, name, version)) for agent in agents]
            if any(d is None for d in row):
                return None  # some grant must be recompiled: its old rows may change
            deltas.append(row)
        added = self._added[1]
        return matrix_mod.insert_rows(cached.codes, cached.tool_names, list(added.names),
                                      dict(added), deltas, list(presets), list(agents),
                                      list(contexts))

    def matrix(self, agents: Sequence[str] | str | None = None, groups: Any = None,
               states: Sequence[str] | str | None = None,
               presets: Sequence[str] | str | None = None,
               runtimes: Sequence[str] | str | None = None) -> pd.DataFrame:
        """Booleans: rows tools, columns agents (+ group set / state / preset levels).

        ``groups`` is one group set (``["read-only", "knowledge"]``) or several
        (``[["read-only"], ["*"]]``); ``states`` and ``presets`` a name or a list.
        ``runtimes`` (``"*"``: every runtime of ``proj.runtimes``, or a list of names) puts
        the same tools under each runtime's permission settings side by side: a ``runtime``
        column level first, and the main conversation (``"(main)"``) before the agents;
        each cell is ``explain(agent, tool, runtime=...)``. None: the default runtime only.
        """
        if runtimes is not None:
            return self._runtime_frame(runtimes, agents, groups, states, presets, "bool")
        codes, tools, agents_, contexts, presets_ = self._matrix_codes(agents, groups, states,
                                                                       presets)
        frame = matrix_mod.frame(codes, tools, agents_, contexts, presets_)
        return self._noted(frame)

    def reasons(self, agents: Sequence[str] | str | None = None, groups: Any = None,
                states: Sequence[str] | str | None = None,
                presets: Sequence[str] | str | None = None,
                runtimes: Sequence[str] | str | None = None) -> pd.DataFrame:
        """The matrix's companion: the deciding step of every cell (``Verdict.label``).

        ``allow`` / ``approval`` (ask) for allowed cells, else the step that
        decided: ``deny``, ``implicit`` (no allow rule), ``ceiling``, ...
        ``runtimes``: as for :meth:`matrix`.
        """
        if runtimes is not None:
            return self._runtime_frame(runtimes, agents, groups, states, presets, "label")
        codes, tools, agents_, contexts, presets_ = self._matrix_codes(agents, groups, states,
                                                                       presets)
        frame = matrix_mod.frame(codes, tools, agents_, contexts, presets_, cells="label")
        return self._noted(self._conditional_cells(frame, ("allow", "approval")))

    def effects(self, agents: Sequence[str] | str | None = None, groups: Any = None,
                states: Sequence[str] | str | None = None,
                presets: Sequence[str] | str | None = None,
                runtimes: Sequence[str] | str | None = None) -> pd.DataFrame:
        """The effect of every cell: ``allow``, ``ask``, ``explicit-deny``, ``implicit-deny``
        (``conditional``: its calls' arguments decide). ``runtimes``: as for :meth:`matrix`.
        """
        if runtimes is not None:
            return self._runtime_frame(runtimes, agents, groups, states, presets, "effect")
        codes, tools, agents_, contexts, presets_ = self._matrix_codes(agents, groups, states,
                                                                       presets)
        frame = matrix_mod.frame(codes, tools, agents_, contexts, presets_, cells="effect")
        return self._noted(self._conditional_cells(frame, ("allow", "ask")))

    def _noted(self, frame: pd.DataFrame) -> pd.DataFrame:
        frame.attrs["warnings"] = list(self.matrix_warnings)
        return frame

    def preset_diff(self, presets: Sequence[str] | None = None, agents: Any = None,
                    groups: Any = None, state: str | None = None) -> pd.DataFrame:
        """Cells where presets disagree: one row per (tool, agent), a column per preset."""
        import pandas as pd

        names = list(presets) if presets is not None else list(all_presets())
        usable = []
        for p in names:
            try:
                self._matrix_codes(agents, groups, state, [p])
                usable.append(p)
            except DefinitionError:
                continue  # a preset that rejects these definitions cannot be compared
        table = self.reasons(agents, groups, state, usable)
        long = table.stack(level=list(range(table.columns.nlevels - 1)), future_stack=True) if (
            isinstance(table.columns, pd.MultiIndex)) else table
        if not isinstance(long, pd.DataFrame):
            long = long.to_frame()
        differs = long.nunique(axis=1) > 1
        return long[differs]

    # -- argument-level permissions (SPEC section 11) ------------------------------------------

    def check_call(self, tool: str, args: Mapping[str, Any] | None = None,
                   agent: str | None = None, mode: str | None = None, cwd: str | None = None,
                   hook: str | None = None, runtime: str | None = None) -> Decision:
        """What the runtime would do with this call, and exactly why (a what-if, offline).

        The project's permission engine answers (Claude Code's: its settings layers); a
        project without settings is asked about as one with none.

        ``agent=None`` is the main conversation; a subagent's name applies its
        ``tools`` / ``disallowedTools`` / ``permissionMode`` front matter too. ``mode``
        defaults to the layers' ``defaultMode`` (else ``default``); ``cwd`` to the
        project folder; ``hook`` is what a PreToolUse hook would answer. Any tool
        name may be asked about (a name the project does not know is noted in
        ``warnings``). ``d.allowed`` is True only when the call runs without a
        prompt; a compound Bash command has one decision per part in ``d.parts``.

        >>> import toolkit as tk
        >>> proj = tk.load("toolkit/examples/claude-code")  # no settings: default mode
        >>> d = proj.check_call("Bash", {"command": "npm test && git push"})
        >>> d.effect.value, d.reason.value, [part.effect.value for part in d.parts]
        ('ask', 'mode', ['ask', 'ask'])
        >>> d = proj.check_call("Bash", {"command": "npm test"}, agent="generalist")
        >>> d.effect.value, d.reason.value, d.rule.text, d.rule.where
        ('explicit-deny', 'agent-tools', 'Bash', '.claude/agents/generalist.md:4')
        """
        engine = self._engine(runtime)
        definition = self.agent(agent) if agent is not None else None
        if definition is not None and not engine.applies_agent_tools \
                and self.pool.index.lookup(tool) is not None:
            # This runtime's engine reads no agent definitions: the agent's own tool list
            # (its front matter, SPEC section 4) still decides first, as the matrix shows it.
            gate = self.explain(agent, tool, runtime=runtime)
            if not gate.effect.granted:
                return replace(gate, runtime=engine.system)
        decision = engine.check_call(tool, args, definition, mode=mode, cwd=cwd, hook=hook,
                                     known=lambda name: self.pool.index.lookup(name) is not None)
        return replace(decision, runtime=engine.system)

    @property
    def runtimes(self) -> tuple[str, ...]:
        """The runtimes whose permission settings the project holds (``"claude-code"``, ...):
        ``check_call(runtime=...)`` picks one when there are several."""
        return tuple(self.engines)

    def unknown_tool(self, name: str) -> str:
        """``"no tool 'x' in the project; did you mean: y?"`` (the nearest names, if any)."""
        return f"no tool {name!r} in the project{nearest_names(name, self.tools)}"

    def call_arguments(self, tool: str, text: str, runtime: str | None = None
                       ) -> dict[str, Any]:
        """A call's arguments as written on a command line (a JSON object, or the value of
        the tool's main field: a shell command, a path, a URL), read by the project's engine;
        ``ValueError`` says what is wrong."""
        return self._engine(runtime).call_arguments(tool, text)

    @property
    def permissions(self) -> pd.DataFrame:
        """Every permission rule: text, kind, tool, spec, layer, file, line, agent, status,
        warnings (settings layers first, then each subagent's front matter).

        A project holding several runtimes' settings lists every engine's rules, each
        engine's in its own order, under a first column ``runtime`` (columns one runtime
        lacks, such as Gemini CLI's ``priority``, are empty for the others).
        """
        if len(self.engines) <= 1:
            return self._engine().frame(self.definitions.agents.values())
        import pandas as pd

        frames = []
        for name, engine in self.engines.items():
            frame = engine.frame(self.definitions.agents.values())
            frame.insert(0, "runtime", name)
            frames.append(frame)
        columns = list(dict.fromkeys(c for f in frames for c in f.columns))
        table = pd.concat([f.reindex(columns=columns) for f in frames], ignore_index=True)
        return table.astype({"line": "Int64"}) if "line" in table else table

    def inheritance_gaps(self) -> pd.DataFrame:
        """Per subagent: settings deny / ask rules its tools could get around when a runtime
        does not apply settings to subagents, and its ``Agent(a, b)`` spawn lists."""
        import pandas as pd

        rows = self._engine().gaps(self.definitions.agents.values())
        frame = pd.DataFrame(rows, columns=["agent", "rule", "kind", "layer", "file", "line",
                                            "tool", "granted_by", "note"])
        return frame.astype({"line": "Int64"})

    @property
    def mcp_approvals(self) -> pd.DataFrame:
        """Project ``.mcp.json`` servers: approved, rejected (not connected) or pending."""
        import pandas as pd

        found = self._engine().approvals(self.definitions.servers)
        return pd.DataFrame([{"server": a.server, "status": a.status, "setting": a.detail,
                              "layer": a.rule.layer, "file": a.rule.file, "line": a.rule.line}
                             for a in found],
                            columns=["server", "status", "setting", "layer", "file", "line"]
                            ).astype({"line": "Int64"})

    @property
    def claude(self) -> PermissionEngine | None:
        """Deprecated: use ``engine`` (the project's permission engine, Claude Code's or not)."""
        warnings.warn("Policy.claude is deprecated; use Policy.engine", DeprecationWarning,
                      stacklevel=2)
        return self.engine

    def _engine(self, runtime: str | None = None) -> PermissionEngine:
        """The engine of ``runtime`` (one with no settings when the project has none of it),
        else the project's; a project with several runtimes and none chosen needs ``runtime``."""
        runtime = runtime or self._runtime
        if runtime is not None:
            if runtime not in self._what_if and runtime not in self.engines:
                self._what_if[runtime] = registry.empty_engine(str(self.root), runtime)
            return self.engines.get(runtime) or self._what_if[runtime]
        if len(self.engines) > 1:
            raise ValueError(f"the project holds permission settings of several runtimes "
                             f"({', '.join(self.engines)}); pass runtime= (--runtime) to pick")
        if self.engine is not None:
            return self.engine
        if None not in self._what_if:  # no settings: ask as a project whose every rule is absent
            self._what_if[None] = registry.empty_engine(str(self.root))
        return self._what_if[None]

    def _reject_mcp_servers(self, engine: PermissionEngine) -> None:
        """Servers the settings reject (Claude Code's disabledMcpjsonServers: "never connects
        them or asks you to approve") are not connected."""
        for approval in engine.approvals(self._servers):
            if approval.status == "rejected":
                del self._servers[approval.server]
                self._problems[Problem(approval.rule.file, approval.rule.line,
                                       f"MCP server {approval.server!r} from .mcp.json is "
                                       f"rejected ({approval.detail}); it is not connected",
                                       "warning")] = None

    def _with_settings_rules(self, engine: PermissionEngine,
                             base: ProjectRules | None = None) -> ProjectRules:
        """The project rules (``base``, else the current ones) plus the settings' bare deny /
        ask rules (name level)."""
        def known(name: str) -> bool:
            return self.pool.index.lookup(name) is not None

        base = base or self._rules
        return ProjectRules(
            deny=(*base.deny, *engine.name_rules("deny", known, self._servers)),
            ask=(*base.ask, *engine.name_rules("ask", known, self._servers)),
            aliases=base.aliases)

    def _argument_rules(self, agent: str | None, runtime: str | None = None
                        ) -> dict[str, tuple[Any, ...]]:
        """Pool tool -> the argument rules deciding its calls for ``agent`` (cached), under
        ``runtime``'s engine (None: the default runtime's)."""
        engine = self.engine if runtime is None else self._engine(runtime)
        if engine is None:
            return {}
        key = (agent, self.pool.version) if runtime is None else (
            f"{runtime}\x1f{agent}", self.pool.version)
        found = self._argument_cache.get(key)
        if found is None:
            definition = self.definitions.agents.get(agent) if agent is not None else None
            found = engine.argument_rules(definition, self.pool.index.lookup)
            self._argument_cache[key] = found
        return found

    def _conditional_cells(self, frame: pd.DataFrame, granted: tuple[str, str],
                           runtimes: Sequence[str] | None = None) -> pd.DataFrame:
        """Granted cells of tools whose calls depend on arguments read ``conditional``
        (per runtime when the frame has a ``runtime`` level)."""
        if frame.empty or (runtimes is None and self.engine is None):
            return frame
        agents = frame.columns.get_level_values("agent")
        in_runtime = frame.columns.get_level_values("runtime") if runtimes is not None else None
        shown: Sequence[str | None] = runtimes or [None]
        for runtime in shown:
            for agent in dict.fromkeys(agents):
                rows = [t for t in self._argument_rules(agent, runtime) if t in frame.index]
                if not rows:
                    continue
                chosen = agents == agent
                if in_runtime is not None:
                    chosen = chosen & (in_runtime == runtime)
                columns = frame.columns[chosen]
                block = frame.loc[rows, columns]
                frame.loc[rows, columns] = block.mask(block.isin(granted), Effect.CONDITIONAL.value)
        return frame

    # -- validation ---------------------------------------------------------------------------

    def _validate(self) -> None:
        errors = [p for p in self.definitions.problems if p.severity == "error"]
        errors += follow_aliases(self._rules.aliases)[1]
        for name in self.definitions.agents:
            try:
                self.grant(name)
            except DefinitionError as exc:
                errors.extend(exc.problems)
        if errors:
            raise DefinitionError(list(dict.fromkeys(errors)))  # one report per problem


@dataclass(frozen=True)
class _Codes:
    """A matrix's reason codes and what they were computed from."""

    shape: tuple[Any, ...]  # (agents, contexts, presets)
    version: int  # the pool's
    tool_names: list[str]
    codes: Any


def _group_sets(groups: Any) -> list[tuple[str, ...]]:
    if groups is None:
        return [normalize_groups(None)]
    if isinstance(groups, str):
        return [normalize_groups(groups)]
    items = list(groups)
    if items and all(isinstance(g, (list, tuple, set, frozenset)) for g in items):
        return [tuple(g) for g in items]
    return [normalize_groups(items)]


def _builtin_tools(system: str) -> frozenset[str]:
    """The names of the tools ``system`` brings as its built-ins (none for an unknown one)."""
    try:
        add = registry.by_name(system).add_builtins
    except KeyError:
        return frozenset()
    return frozenset() if add is None else _tools_added_by(add)


@functools.cache
def _tools_added_by(add: Callable[[Definitions], None]) -> frozenset[str]:
    scratch = Definitions(root="")
    add(scratch)
    return frozenset(scratch.tools)


def _group_names(tools: Iterable[Tool]) -> frozenset[str]:
    """Every group one of ``tools`` belongs to."""
    return frozenset(g for t in tools for g in t.groups)


def _state_names(tools: Iterable[Tool]) -> frozenset[str]:
    """Every state one of ``tools`` names (``state`` or ``available_in_states``, not ``*``)."""
    states: set[str] = set()
    for tool in tools:
        if tool.state:
            states.add(tool.state)
        states.update(s for s in tool.available_in_states or () if s != "*")
    return frozenset(states)


def load_policy(path: str | os.PathLike[str], preset: str | Preset | None = None, *,
                runtime: str | None = None, **options: Any) -> Policy:
    """The project at ``path`` with its permission engine (``options``: the engine's, such as
    Claude Code's ``home=``, ``managed=``, ``cli=``)."""
    return Policy(load_definitions(path), preset, engines=registry.engines_for(path, **options),
                  runtime=runtime)
