"""``%%tk agent [--replace]``: define an agent from the cell (markdown with YAML front matter).

Re-running the cell replaces the agent it defined; replacing an agent that
came from a file needs ``--replace``. The cell shows the new agent's resolution
(every tool, its effect and deciding step) for the default request (or for
``--groups`` / ``--state``), after a
``warning:`` line for each problem of the cell itself (a tool name the pool
lacks, with the nearest names the project has).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ...errors import DefinitionError, Problem, nearest_names
from ._parser import MagicParser, group_set
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    from ...core.models import AgentDefinition
    from ...core.resolve import Resolution
    from ...runtime.project import Project

PARSER = MagicParser("agent", "Define an agent from the cell body (front matter: name, tools, "
                              "disallowedTools, ...; the body is its prompt).")
PARSER.add_argument("--replace", action="store_true",
                    help="replace an agent of the same name that came from a file")
PARSER.add_argument("--groups", default=None,
                    help="show the resolution for these groups, comma-separated ('*' = all; "
                         "default: the default request's)")
PARSER.add_argument("--state", default=None, help="... and this workflow state")

CELL_FILE = "<cell>"


@subcommand("agent", "agent [--replace]", cell=True)
def run(magics: MagicState, rest: str, cell: str | None) -> Resolution:
    """``proj.add_agent(...)``, validated like a loaded file; shows what the agent now gets."""
    args = PARSER.parse(rest)
    project = magics.require_project()
    from ...systems.base.frontmatter import read_agent  # on first use: %load_ext stays cheap

    definition = read_agent((cell or "").strip("\n"), CELL_FILE)
    existing = project.agents.get(definition.name)
    replace = args.replace or (existing is not None and existing.file == CELL_FILE)
    try:
        project.add_agent(definition, replace=replace)
        resolution = project.resolve(definition.name, groups=group_set(args.groups),
                                     state=args.state)
    except DefinitionError as exc:  # e.g. a name the pool lacks, under a preset that refuses
        raise DefinitionError([_hinted(project, definition, p) for p in exc.problems]) from None
    warn(str(_hinted(project, definition, p)) for p in resolution.warnings
         if p.file == CELL_FILE)
    return resolution


def _hinted(project: Project, definition: AgentDefinition, problem: Problem) -> Problem:
    """``problem`` in the magic's words, with the nearest tool names when it is about a tool
    name the cell wrote."""
    rules = (*(definition.allow or ()), *definition.deny, *definition.ask)
    names = [str(r.pattern) for r in rules if r.line == problem.line and r.pattern
             and f"tool {r.pattern!r}" in problem.message]
    hint = nearest_names(names[0], project.tools) if names else ""
    # the Python spelling of the flag (add_agent's replace=True) is the magic's --replace
    message = problem.message.replace("pass replace=True", "use %%tk agent --replace")
    return dataclasses.replace(problem, message=message + hint)
