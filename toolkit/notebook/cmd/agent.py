"""``%%tk agent [--replace]``: define an agent from the cell (markdown with YAML front matter).

Re-running the cell replaces the agent it defined; replacing an agent that
came from a file needs ``--replace``. The cell shows the new agent's resolution
(every tool, its effect and deciding step) for the default request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    from ...core.resolve import Resolution

PARSER = MagicParser("agent", "Define an agent from the cell body (front matter: name, tools, "
                              "disallowedTools, ...; the body is its prompt).")
PARSER.add_argument("--replace", action="store_true",
                    help="replace an agent of the same name that came from a file")

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
    project.add_agent(definition, replace=replace)
    return project.resolve(definition.name)
