"""``%tk load PATH [--preset NAME] [--connect] [--home DIR] [--managed PATH]``: load a project;
it becomes the current one (``--home`` / ``--managed`` / ``--claude``: a Claude Code project's
user, managed and command-line settings layers; ``--runtime-args``: any runtime's command-line
flags, each engine reading its own)."""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

from ._parser import MagicParser, configured, positive_seconds, preset_name, words
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    from ...runtime.project import Project

PARSER = MagicParser("load", "Load a project folder or one definition file.")
PARSER.add_argument("path")
PARSER.add_argument("--preset", type=preset_name, default=None,
                    help="override the project's preset")
PARSER.add_argument("--connect", action="store_true", help="connect its MCP servers too")
PARSER.add_argument("--home", default=None,
                    help="Claude Code: the folder standing for ~ (its .claude/settings.json)")
PARSER.add_argument("--no-home", action="store_true", help="Claude Code: no user settings layer")
PARSER.add_argument("--managed", default=None,
                    help="Claude Code: a managed-settings.json file or its folder")
PARSER.add_argument("--no-managed", action="store_true",
                    help="no managed (system-wide) settings layer for any runtime")
PARSER.add_argument("--claude", default="", metavar="'FLAGS'",
                    help="Claude Code command-line flags as one quoted string")
PARSER.add_argument("--runtime-args", default="", metavar="'FLAGS'",
                    help="the runtimes' command-line flags as one quoted string; each engine "
                         "reads its own (Codex: '-a never -s read-only -c key=value')")


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
    flags = words(args.claude) + words(args.runtime_args)
    project = load(args.path, preset=preset, home=False if args.no_home else args.home,
                   managed=False if args.no_managed else args.managed, cli=flags)
    magics.close()
    magics.project = project
    if not (project.agents or project.tools or project.server_configs):
        warn(str(p) for p in project.warnings)  # an empty project says why, not silently
    if connect:
        project.connect(timeout=timeout)
    else:
        warm_up(project)
    return project


def warm_up(project: Project) -> threading.Thread | None:
    """Import the MCP client and pandas in the background when ``project`` has servers.

    A fresh kernel's first ``%tk connect`` would otherwise import the ``mcp``
    SDK (most of a second of CPU) before any server can start; done while the
    person reads the loaded project, the connect starts the servers at once.
    Returns the thread (None: nothing to do).
    """
    if not project.server_configs or "mcp" in sys.modules:
        return None
    thread = threading.Thread(target=_import_client, name="toolkit warm-up", daemon=True)
    thread.start()
    return thread


def _import_client() -> None:
    import importlib

    for name in ("toolkit.runtime.servers", "pandas"):
        try:
            importlib.import_module(name)
        except ImportError:  # the connect will say what is missing, where it matters
            return
