"""``%tk connect [NAME ...] [--timeout S] [--locked]``: connect MCP servers; the status table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser, configured, positive_seconds
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    import pandas as pd

PARSER = MagicParser("connect", "Connect the project's MCP servers (all, or those named) "
                                "concurrently; a failing one is marked, the rest carry on.")
PARSER.add_argument("names", nargs="*")
PARSER.add_argument("--timeout", type=positive_seconds, default=None,
                    help="seconds per server (default: %%config ToolkitMagics.connect_timeout)")
PARSER.add_argument("--locked", action="store_true",
                    help="keep tools that differ from toolmatrix.lock out (fails listing them)")


@subcommand("connect", "connect")
def run(magics: MagicState, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.connect(...)``: the servers DataFrame (an unknown name is a usage error)."""
    args = PARSER.parse(rest)
    project = magics.require_project()
    timeout = args.timeout or configured("connect_timeout", magics.connect_timeout,
                                         positive_seconds)
    return project.connect(args.names or None, timeout=timeout, locked=args.locked)
