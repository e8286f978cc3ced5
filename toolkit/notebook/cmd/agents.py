"""``%tk agents``: one row per agent of the loaded project."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    import pandas as pd

PARSER = MagicParser("agents", "List the loaded project's agents and where each is defined.")


@subcommand("agents", "agents")
def run(magics: MagicState, rest: str, cell: str | None) -> pd.DataFrame:
    """A DataFrame: format, file, line, allow patterns, deny patterns, max_depth, description."""
    import pandas as pd

    PARSER.parse(rest)
    project = magics.require_project()
    rows = []
    for a in project.agents.values():
        rows.append({
            "agent": a.name, "format": a.format, "file": a.file, "line": a.line,
            "allow": None if a.allow is None else [r.pattern for r in a.allow],
            "deny": [r.pattern for r in a.deny], "max_depth": a.max_depth,
            "description": a.description})
    return pd.DataFrame(rows).set_index("agent") if rows else pd.DataFrame()
