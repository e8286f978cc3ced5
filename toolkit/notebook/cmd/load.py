"""``%tk load PATH [--preset NAME] [--connect]``: load a project; it becomes the current one."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._parser import MagicParser, preset_name
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    from ...runtime.project import Project

PARSER = MagicParser("load", "Load a project folder or one definition file.")
PARSER.add_argument("path")
PARSER.add_argument("--preset", type=preset_name, default=None,
                    help="override the project's preset")
PARSER.add_argument("--connect", action="store_true", help="connect its MCP servers too")


@subcommand("load", "load PATH")
def run(magics: MagicState, rest: str, cell: str | None) -> Project:
    """Load ``path``; the previous project (its sessions and servers) is closed first."""
    from ...runtime.project import load  # on first use: %load_ext stays cheap

    args = PARSER.parse(rest)
    project = load(args.path, preset=args.preset or configured_preset(magics))
    magics.close()
    magics.project = project
    if args.connect or magics.autoconnect:
        project.connect(timeout=magics.connect_timeout)
    return project


def configured_preset(magics: MagicState) -> str | None:
    """``%config ToolkitMagics.preset``, checked (a usage error saying where it came from)."""
    if magics.preset is None:
        return None
    try:
        return preset_name(magics.preset)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"%config ToolkitMagics.preset: {exc}; set a known one or None"
                         ) from None
