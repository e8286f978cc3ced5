"""``toolmatrix check``: every problem of a project, located, for CI.

Besides definition errors it warns when an agent's "Tool Usage Guidelines"
mention a tool the agent does not declare (ADR 021), about workflow
states that cannot be reached from ``undefined`` or cannot be left, and about
agents holding the lethal trifecta (:mod:`toolkit.analysis.risk`).
"""

from __future__ import annotations

from ..core.models import DEFAULT_STATE
from ..core.pool import glob_match
from ..core.presets import Preset
from ..errors import DefinitionError, Problem
from ..policy import Policy, load_policy
from .risk import risk_problems

__all__ = ["check_project", "checked_policy", "guideline_problems", "server_problems",
           "state_problems"]


def check_project(path: str, preset: str | Preset | None = None) -> tuple[list[Problem], bool]:
    """(problems, ok): errors and warnings of the project at ``path``.

    The project's permission settings (a Claude Code project's layers) are read too: a
    malformed settings file is an error, a skipped rule a warning, and so is each subagent
    whose tools get around settings deny / ask rules when a runtime does not apply settings
    to subagents.
    """
    problems, ok, _policy = checked_policy(path, preset)
    return problems, ok


def checked_policy(path: str, preset: str | Preset | None = None
                   ) -> tuple[list[Problem], bool, Policy | None]:
    """:func:`check_project` plus the policy it checked (None when the definitions are
    broken), so a caller can say which preset governs the project and why."""
    try:
        policy = load_policy(path, preset)
    except DefinitionError as exc:
        return list(exc.problems), False, None
    problems = [*policy.warnings, *guideline_problems(policy), *state_problems(policy),
                *server_problems(policy), *risk_problems(policy)]
    if policy.engine is not None:
        problems += policy.engine.gap_problems(policy.agents.values())
    return problems, True, policy


def server_problems(policy: Policy) -> list[Problem]:
    """A work-agent ``mcpServers`` entry that names no configured server and no catalog tool
    (work-agent logs "Failed to load tool" and goes on without it)."""
    out = []
    for agent in policy.agents.values():
        for server in agent.use_servers:
            if server in policy.server_configs or server in policy.pool:
                continue
            out.append(Problem(agent.file, agent.line,
                               f"agent {agent.name!r} lists MCP server {server!r} in "
                               "mcpServers, but no tool.json or server config defines it; "
                               "it contributes no tools (work-agent: \"Failed to load tool\")",
                               "warning"))
    return out


def guideline_problems(policy: Policy) -> list[Problem]:
    """Guidelines that mention a tool the agent's allow rules do not declare."""
    out = []
    for agent in policy.agents.values():
        patterns = [str(r.pattern) for r in agent.allow or ()]
        declared = set(patterns) | {str(r.pattern) for r in agent.aliases}
        for tool, line in agent.guideline_lines.items():
            if tool in declared or any(glob_match(tool, p) for p in patterns):
                continue
            out.append(Problem(agent.file, line,
                               f"agent {agent.name!r}: Tool Usage Guidelines mention {tool!r}, "
                               "which the agent does not declare in tools", "warning"))
    return out


def state_problems(policy: Policy) -> list[Problem]:
    """Unreachable states (from ``undefined``) and dead ends (no tool leads out)."""
    tools = list(policy.tools.values())
    states = set(policy.states)
    if states == {DEFAULT_STATE}:
        return []

    def available(tool_states: tuple[str, ...] | None, state: str) -> bool:
        return tool_states is None or state in tool_states or "*" in tool_states

    edges = {s: {t.state for t in tools if t.state and t.state != s
                 and available(t.available_in_states, s)} for s in states}
    reached = {DEFAULT_STATE}
    frontier = [DEFAULT_STATE]
    while frontier:
        for nxt in edges.get(frontier.pop(), ()):
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    out = []
    for state in sorted(states):
        first = next((t for t in tools if t.state == state
                      or state in (t.available_in_states or ())), None)
        file, line = (first.file, first.states_line or first.line) if first else (None, None)
        if state not in reached:
            out.append(Problem(file, line, f"state {state!r} is unreachable: no tool leads "
                                           f"to it from {DEFAULT_STATE!r}", "warning"))
        elif not edges.get(state):
            out.append(Problem(file, line, f"state {state!r} is a dead end: no tool available "
                                           "in it moves to another state", "warning"))
    return out
