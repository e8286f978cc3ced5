"""``%tk replay SOURCE [--main AGENT] [--preset P] [--mode M] [--runtime R] [--names-only]``.

The explorer widget is ``toolkit.notebook.ReplayExplorer(result)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._parser import MagicParser, preset_name
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    from ...analysis.replay import Replay

PARSER = MagicParser("replay", "Evaluate logged tool calls (a Claude Code transcript or "
                               "folder of them, a toolkit audit log, a call table) against "
                               "the loaded project's policy.")
PARSER.add_argument("source")
PARSER.add_argument("--main", default=None,
                    help="evaluate the main conversation's calls as this agent")
PARSER.add_argument("--preset", type=preset_name, default=None)
PARSER.add_argument("--mode", default=None,
                    help="Claude Code permission mode for argument-level evaluation")
PARSER.add_argument("--runtime", default=None,
                    help="the runtime whose permission engine judges the calls (needed when "
                         "the project holds the settings of several)")
PARSER.add_argument("--names-only", action="store_true",
                    help="evaluate tool names only (never check_call with the arguments)")


@subcommand("replay", "replay SOURCE")
def run(magics: MagicState, rest: str, cell: str | None) -> Replay:
    """``tk.replay(project, SOURCE, ...)``; unreadable lines and notes are ``warning:`` lines."""
    from ...analysis.replay import replay

    args = PARSER.parse(rest)
    project = magics.require_project()
    try:
        result = replay(project, args.source, preset=args.preset, main=args.main,
                        mode=args.mode, arguments=False if args.names_only else None,
                        runtime=args.runtime)
    except (FileNotFoundError, ValueError) as exc:  # ValueError: which runtime (--runtime)
        raise UsageError(f"%tk replay: {exc}") from None
    warn([*result.problem_lines(), *result.warnings])
    return result
