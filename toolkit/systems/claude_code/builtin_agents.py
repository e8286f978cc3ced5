"""Claude Code's built-in subagents: agents of every Claude Code project.

Sources: the sub-agents documentation ("Built-in subagents": Explore — read-only tools,
denied Write and Edit, Haiku; Plan — read-only tools, inherits the model; general-purpose —
all tools; statusline-setup — Sonnet; Claude Code Guide — Haiku) and the Agent tool's own
list of agent types as Claude Code writes it into every session ("Available agent types and
the tools they have access to": ``general-purpose ... (Tools: *)``, ``statusline-setup ...
(Tools: Read, Edit)``, ``output-style-setup ... (Tools: Read, Write, Edit, Glob, Grep)``
(1.x), ``Explore`` / ``Plan ... (Tools: All tools except Agent, ExitPlanMode, Edit, Write,
NotebookEdit)``, ``claude-code-guide ... (Tools: Glob, Grep, Read, WebFetch, WebSearch)``).

Each "inherits the parent conversation's permissions with additional tool restrictions": a
built-in subagent's calls are decided by the session's settings like any subagent's, its
tools narrowed as below. A project's own subagent of the same name replaces it (the
documentation's priority: project and user subagents before built-in ones).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.models import AgentDefinition, Rule
from .tools import SOURCE

__all__ = ["BUILTIN_AGENTS", "BuiltinAgent", "WithBuiltinAgents", "builtin_definitions"]

#: What ``AgentDefinition.file`` of a built-in subagent says.
AGENT_SOURCE = "<Claude Code built-in subagent>"


@dataclass(frozen=True)
class BuiltinAgent:
    """One built-in subagent: its tools (None: every tool) and the tools it is denied."""

    name: str
    description: str
    tools: tuple[str, ...] | None
    disallowed: tuple[str, ...] = ()
    model: str | None = None


_READ_ONLY_DENIED = ("Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit")

BUILTIN_AGENTS: tuple[BuiltinAgent, ...] = (
    BuiltinAgent("general-purpose", "General-purpose agent for researching complex questions, "
                 "searching for code, and executing multi-step tasks", None),
    BuiltinAgent("Explore", "Fast agent specialized for exploring codebases", None,
                 _READ_ONLY_DENIED, "haiku"),
    BuiltinAgent("Plan", "Software architect agent for designing implementation plans", None,
                 _READ_ONLY_DENIED, "inherit"),
    BuiltinAgent("statusline-setup", "Use this agent to configure the user's Claude Code "
                 "status line setting", ("Read", "Edit"), (), "sonnet"),
    BuiltinAgent("output-style-setup", "Use this agent to create a Claude Code output style",
                 ("Read", "Write", "Edit", "Glob", "Grep"), (), "sonnet"),
    BuiltinAgent("claude-code-guide", "Answers questions about Claude Code, the Claude Agent "
                 "SDK and the Claude API", ("Glob", "Grep", "Read", "WebFetch", "WebSearch"),
                 (), "haiku"),
)


def builtin_definitions() -> list[AgentDefinition]:
    """The built-in subagents as agent definitions (``metadata["builtin"]`` True)."""
    out = []
    for agent in BUILTIN_AGENTS:
        allow = None if agent.tools is None else tuple(
            Rule(kind="allow", pattern=t, agent=agent.name, file=AGENT_SOURCE)
            for t in agent.tools)
        deny = tuple(Rule(kind="deny", pattern=t, agent=agent.name, file=AGENT_SOURCE)
                     for t in agent.disallowed)
        out.append(AgentDefinition(
            name=agent.name, description=agent.description, model=agent.model,
            format="claude-code", file=AGENT_SOURCE, allow=allow, deny=deny,
            metadata={"builtin": True, "source": SOURCE}))
    return out


_BY_NAME: dict[str, AgentDefinition] = {}


class WithBuiltinAgents(dict[str, AgentDefinition]):
    """A Claude Code project's agents: its own (iterated, counted, listed) and, asked by name,
    the built-in subagents it does not define itself. They are not listed (the matrix,
    ``sorted(proj.agents)`` and ``toolmatrix check`` show the project's own subagents), but
    every question by name answers for them."""

    def __missing__(self, name: str) -> AgentDefinition:
        if not _BY_NAME:
            _BY_NAME.update((a.name, a) for a in builtin_definitions())
        try:
            return _BY_NAME[name]
        except KeyError:
            raise KeyError(name) from None
