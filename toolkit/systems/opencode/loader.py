"""OpenCode's agents as toolkit agents (``proj.agents``, ``explain``, the matrix, the explorer).

The first OpenCode file the folder walk offers (``opencode.json``, ``opencode.jsonc``,
``.opencode/...``) reads the whole project's configuration, as OpenCode merges it
(:func:`.config.load_config`, the project's own files: the global ``~/.config/opencode``
layer is the permission engine's, read with ``home=``), and adds every agent OpenCode would
run: the built-in ``build``, ``plan``, ``general``, ``explore`` (and the hidden
``compaction``, ``title``, ``summary``) and those of ``agent`` / ``.opencode/agent*/``.

Each agent holds every tool (``allow: *``); its name-level rules are the ``*``-pattern deny
and ask rules of its ruleset, matched OpenCode's way (syntax ``opencode``, :mod:`.names`):
a tool whose last matching rule denies with pattern ``*`` is removed, as
``Permission.disabled`` removes it; one whose last rule asks is ``ask``; one decided by
rules with other patterns is ``conditional`` (the engine's ``argument_rules``).
"""

from __future__ import annotations

import json
from pathlib import Path

from ...core.models import AgentDefinition, Rule
from ...errors import DefinitionError
from ..base.definitions import Definitions
from ..base.source import SourceFile
from .agents import Agent, build_agents
from .config import load_config
from .engine import OpenCodePermissions
from .names import SYNTAX
from .tools import BUILTINS

__all__ = ["load_project", "to_definition"]

_LOADED = "opencode-loaded"


def to_definition(agent: Agent, engine: OpenCodePermissions, key: str) -> AgentDefinition:
    """One OpenCode agent as a toolkit agent (see the module docstring)."""
    rules = engine.ruleset(agent)
    deny: list[Rule] = []
    ask: list[Rule] = []
    for i, rule in enumerate(rules):
        if rule.pattern != "*" or rule.action == "allow":
            continue
        later = json.dumps(sorted({r.permission for r in rules[i + 1:]}))
        shown = Rule(kind="deny" if rule.action == "deny" else "ask", pattern=rule.permission,
                     agent=key, file=rule.file, line=rule.line, layer=rule.layer,
                     syntax=SYNTAX, target=later)
        (deny if rule.action == "deny" else ask).append(shown)
    literal = [r.permission for r in rules if "*" not in r.permission and "?" not in r.permission]
    return AgentDefinition(
        name=key, description=agent.description, format="opencode",
        file=agent.file or "<opencode built-in>", line=agent.line,
        allow=(Rule(kind="allow", pattern="*", agent=key, file=agent.file, line=agent.line),),
        deny=tuple(deny), ask=tuple(ask), system_prompt=agent.prompt,
        metadata={"mode": agent.mode, "hidden": agent.hidden, "native": agent.native,
                  "opencode_tools": tuple(dict.fromkeys([*BUILTINS, *literal]))})


def load_project(file: SourceFile, defs: Definitions) -> None:
    """Read the whole OpenCode project once (its agents), whichever of its files comes first."""
    root = Path(defs.root)
    if root.is_file():
        root = file.path.parent
    place = file.path.absolute()
    own = (place.parent == root.absolute() and place.name in ("opencode.json", "opencode.jsonc")
           ) or root.absolute() / ".opencode" in place.parents
    if not own:
        defs.warn(file.display, 1, "an OpenCode config below the project folder: OpenCode "
                  "started at the project folder does not read it (it reads the folder's own "
                  "opencode.json(c) and .opencode/)")
        return
    if defs.notes.get(_LOADED):
        return
    defs.notes[_LOADED] = True
    config = load_config(root, home=None, managed=None)
    defs.problems.extend(p for p in config.problems if p not in defs.problems)
    if config.errors:
        raise DefinitionError(list(config.errors))
    engine = OpenCodePermissions(config)
    for key, agent in build_agents(config).items():
        defs.add_agent(to_definition(agent, engine, key))

