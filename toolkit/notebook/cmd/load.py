"""``%tk load PATH [--preset NAME] [--connect]``: load a project; it becomes the current one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._parser import MagicParser, configured, positive_seconds, preset_name
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
    preset = args.preset
    if preset is None and magics.preset is not None:
        preset = configured("preset", magics.preset, preset_name)
    connect = args.connect or magics.autoconnect
    timeout = configured("connect_timeout", magics.connect_timeout, positive_seconds
                         ) if connect else None
    project = load(args.path, preset=preset)
    magics.close()
    magics.project = project
    if connect:
        project.connect(timeout=timeout)
    return project
