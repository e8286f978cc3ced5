"""An independent brute-force oracle of SPEC section 4 (resolution), for the hardening tests.

Written from the spec text, not from ``toolkit.core.resolve``: it loops over
every tool and every rule with ``fnmatchcase`` and applies the steps in order
(pool, deny, allow, parent ceiling, coordination, groups, state) and the
preset table; under a preset that strips coordination tools a session at ``max_depth``
cannot spawn (step 6). Under work-agent, SPEC section 3's delegation rules for a parent
without a ``delegation`` block: every child loses work-agent's default
child-blocked control tools, and spawning stops at ``maxDepth`` (default 2).
(``denyApprovals`` needs approval-bound tools, which these cases never have.)
Nothing here imports toolkit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

#: The preset table of SPEC section 4, the rows the oracle needs.
PRESET_TABLE: dict[str, dict[str, object]] = {
    # unknown exact name in allow; allow omitted at a root; allow []; child names a tool
    # its parent lacks; coordination-tool stripping; max_depth
    "strict":      {"unknown": "error", "omitted_root": "none", "empty": "none", "extra": "error",
                    "strip": True, "max_depth": 2},
    "emergent":    {"unknown": "warn", "omitted_root": "none", "empty": "none", "extra": "drop",
                    "strip": True, "max_depth": 2},
    "work-agent":  {"unknown": "warn", "omitted_root": "all", "empty": "all", "extra": "drop",
                    "strip": False, "max_depth": 2},
    "adh-cli":     {"unknown": "error", "omitted_root": "none", "empty": "none", "extra": "drop",
                    "strip": False, "max_depth": 2},
    "trustgraph":  {"unknown": "warn", "omitted_root": "all", "empty": "none", "extra": "drop",
                    "strip": False, "max_depth": 2},
    "mux":         {"unknown": "error", "omitted_root": "all", "empty": "inherit",
                    "extra": "error", "strip": False, "max_depth": None},
    "claude-code": {"unknown": "warn", "omitted_root": "all", "empty": "none", "extra": "drop",
                    "strip": True, "max_depth": 3},
}
COORDINATION = {"claude-code": ("Task", "Agent")}
#: SPEC section 3, work-agent: a delegated child always loses these control tools; the
#: ``server_*`` form names every tool whose name starts with ``server_``.
CHILD_BLOCKED = ("stallion-control_send_message", "stallion-control_add_*",
                 "stallion-control_create_*", "stallion-control_delete_*",
                 "stallion-control_update_*", "stallion-control_run_job")
DELEGATION_MAX_DEPTH = 2  # SPEC section 3: the delegation block's maxDepth, default 2
DEFAULT_COORDINATION = ("spawn_agents", "list_available_agents")


@dataclass(frozen=True)
class OTool:
    """A pool tool as the oracle sees it."""

    name: str
    groups: tuple[str, ...] = ("default",)
    states: tuple[str, ...] | None = None  # available_in_states
    to_state: str | None = None  # the state after a successful call
    spellings: tuple[str, ...] = ()  # extra names that reach it (``@srv/x``, ``mcp__srv__x``)

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.spellings)


@dataclass(frozen=True)
class OAgent:
    """An agent: allow rules (None = omitted) and deny rules."""

    name: str
    allow: tuple[str, ...] | None
    deny: tuple[str, ...] = ()


class OracleDefinitionError(Exception):
    """The oracle predicts a DefinitionError."""


class OracleSpawnError(Exception):
    """The oracle predicts a SpawnError."""


def is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def rule_hits(pattern: str, tool: OTool) -> bool:
    """Step 2 and 4: an exact rule names one of the tool's spellings; a glob matches one."""
    if is_glob(pattern):
        return any(fnmatchcase(n, pattern) for n in tool.names())
    return pattern in tool.names()


@dataclass
class Level:
    """One session of a spawn chain as the oracle tracks it."""

    agent: OAgent
    depth: int
    groups: tuple[str, ...]
    state: str
    ancestors: tuple[OAgent, ...]
    ceiling: frozenset[str] | None  # the parent's resolved set at spawn time
    held: frozenset[str] = field(default=frozenset())  # steps 1-6


def check_definitions(pool: dict[str, OTool], agents: dict[str, OAgent], preset: str) -> None:
    """Load-time validation: every agent resolved as a root must not be a definition error."""
    row = PRESET_TABLE[preset]
    for agent in agents.values():
        if agent.allow is not None and not agent.allow and row["empty"] == "error":
            raise OracleDefinitionError(f"{agent.name}: empty list under {preset}")
        for rule in agent.allow or ():
            known = is_glob(rule) or any(rule_hits(rule, t) for t in pool.values())
            if not known and row["unknown"] == "error":
                raise OracleDefinitionError(f"{agent.name}: unknown {rule}")


def child_blocked(tool: OTool) -> bool:
    """SPEC section 3: one of work-agent's default child-blocked tools (exact or ``x_*``)."""
    return any(tool.name == p or (p.endswith("_*") and tool.name.startswith(p[:-1]))
               for p in CHILD_BLOCKED)


def steps_1_to_6(pool: dict[str, OTool], level: Level, preset: str) -> frozenset[str]:
    """Pool, deny (accumulated down the tree), allow, ceiling, coordination."""
    row = PRESET_TABLE[preset]
    agent, depth = level.agent, level.depth
    held: set[str] = set()
    for name, tool in pool.items():  # step 1: only the snapshot's tools
        # step 3: deny of the agent and every ancestor; deny always wins
        if any(rule_hits(r, tool) for a in (*level.ancestors, agent) for r in a.deny):
            continue
        # work-agent: a delegated child loses the default child-blocked control tools
        if depth > 0 and preset == "work-agent" and child_blocked(tool):
            continue
        # step 4: allow
        if agent.allow is None:
            mode = row["omitted_root"] if depth == 0 else "inherit"
        elif not agent.allow:
            mode = row["empty"]
        else:
            mode = "rules"
        if mode == "none":
            continue
        if mode == "rules" and not any(rule_hits(r, tool) for r in agent.allow or ()):
            continue  # implicit deny
        # mode all / inherit / rules matched: allowed so far ("inherit" at a root = all)
        # step 5: parent ceiling
        if depth > 0 and level.ceiling is not None and name not in level.ceiling:
            continue
        # step 6: coordination tools below the root
        if depth > 0 and row["strip"] and name in COORDINATION.get(preset, DEFAULT_COORDINATION):
            exact = name in (agent.allow or ())
            limit = row["max_depth"]
            if not exact or (limit is not None and depth >= int(str(limit))):
                continue
        held.add(name)
    return frozenset(held)


def spawn_errors(pool: dict[str, OTool], level: Level, preset: str) -> list[str]:
    """Step 5: exact names of tools outside the parent's set, under an "error" preset."""
    if level.depth == 0 or PRESET_TABLE[preset]["extra"] != "error":
        return []
    assert level.ceiling is not None
    out = []
    for rule in level.agent.allow or ():
        if is_glob(rule):
            continue
        for name, tool in pool.items():
            if rule_hits(rule, tool) and name not in level.ceiling:
                if any(rule_hits(r, tool) for r in level.agent.deny):
                    continue  # the child denies it itself: it cannot hold it either way
                out.append(name)
    return out


def request_filter(pool: dict[str, OTool], held: frozenset[str], groups: tuple[str, ...],
                   state: str) -> frozenset[str]:
    """Steps 7 and 8."""
    out = set()
    for name in held:
        tool = pool[name]
        if "*" not in groups and not set(tool.groups) & set(groups):
            continue
        if tool.states is not None and state not in tool.states and "*" not in tool.states:
            continue
        out.add(name)
    return frozenset(out)


class OracleSession:
    """A session as the oracle predicts it: ``allowed`` now, ``call`` outcome, ``spawn``."""

    def __init__(self, pool: dict[str, OTool], agents: dict[str, OAgent], preset: str,
                 level: Level) -> None:
        self.pool, self.agents, self.preset, self.level = pool, agents, preset, level
        level.held = steps_1_to_6(pool, level, preset)

    @classmethod
    def root(cls, pool: dict[str, OTool], agents: dict[str, OAgent], preset: str, agent: str,
             groups: tuple[str, ...], state: str) -> OracleSession:
        return cls(pool, agents, preset, Level(agents[agent], 0, groups, state, (), None))

    @property
    def state(self) -> str:
        return self.level.state

    @property
    def allowed(self) -> frozenset[str]:
        return request_filter(self.pool, self.level.held, self.level.groups, self.level.state)

    def lookup(self, name: str) -> str | None:
        """The canonical tool a called name reaches (any unique spelling), or None."""
        hits = [t.name for t in self.pool.values() if name in t.names()]
        return hits[0] if len(hits) == 1 else None

    def call(self, name: str) -> str | None:
        """The canonical tool that would run, or None when the call is blocked."""
        canonical = self.lookup(name)
        if canonical is None or canonical not in self.allowed:
            return None
        to = self.pool[canonical].to_state
        if to is not None:
            self.level.state = to
        return canonical

    def spawn(self, agent: str, groups: tuple[str, ...] | None) -> OracleSession:
        """A child: raises PermissionError for wider groups, OracleSpawnError for extra names."""
        parent = self.level
        if groups is None:
            groups = parent.groups
        elif "*" not in parent.groups and any(g not in parent.groups for g in groups):
            raise PermissionError("groups beyond the parent's")
        level = Level(self.agents[agent], parent.depth + 1, groups, parent.state,
                      (*parent.ancestors, parent.agent), self.allowed)
        row = PRESET_TABLE[self.preset]
        limit = row["max_depth"]
        if row["strip"] and limit is not None and parent.depth >= int(str(limit)):
            # SPEC section 4 step 6: at max_depth a session has lost its coordination tools
            # (removed regardless), so it holds no spawn tool and cannot spawn
            raise OracleSpawnError(f"{parent.agent.name}: max_depth {limit} reached")
        if self.preset == "work-agent" and parent.depth >= DELEGATION_MAX_DEPTH:
            raise OracleSpawnError(f"{agent}: delegation depth limit")
        if spawn_errors(self.pool, level, self.preset):
            raise OracleSpawnError(agent)
        return OracleSession(self.pool, self.agents, self.preset, level)
