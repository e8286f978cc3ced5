"""``%tk load PATH [--preset NAME] [--connect]``: load a project; it becomes the current one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser

if TYPE_CHECKING:
    from ...runtime.project import Project
    from ..magic import ToolkitMagics

PARSER = MagicParser("load", "Load a project folder or one definition file.")
PARSER.add_argument("path")
PARSER.add_argument("--preset", default=None, help="override the project's preset")
PARSER.add_argument("--connect", action="store_true", help="connect its MCP servers too")


def run(magics: ToolkitMagics, rest: str, cell: str | None) -> Project:
    """Load ``path``; the previous project (its sessions and servers) is closed first."""
    from ...runtime.project import load  # on first use: %load_ext stays cheap

    args = PARSER.parse(magics.split(rest))
    project = load(args.path, preset=args.preset or magics.preset)
    magics.close()
    magics.project = project
    if args.connect or magics.autoconnect:
        project.connect(timeout=magics.connect_timeout)
    return project
