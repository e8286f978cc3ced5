"""``%tk connect [NAME ...] [--timeout S]``: connect MCP servers; returns the status table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser

if TYPE_CHECKING:
    import pandas as pd

    from ..magic import ToolkitMagics

PARSER = MagicParser("connect", "Connect the project's MCP servers (all, or those named) "
                                "concurrently; a failing one is marked, the rest carry on.")
PARSER.add_argument("names", nargs="*")
PARSER.add_argument("--timeout", type=float, default=None,
                    help="seconds per server (default: %%config ToolkitMagics.connect_timeout)")


def run(magics: ToolkitMagics, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.connect(...)``: the servers DataFrame."""
    args = PARSER.parse(magics.split(rest))
    project = magics.require_project()
    return project.connect(args.names or None, timeout=args.timeout or magics.connect_timeout)
