"""``%tk why TOOL ARGS... [--agent A] [--mode M] [--cwd DIR] [--hook H]``: what Claude Code
would do with one call of the loaded project, and why (the deciding rule, layer, file:line,
one part per subcommand, the trace).

``ARGS`` is a JSON object, or the tool's main field (Bash's command, Read's path, WebFetch's
url) as the rest of the line; quote a command to keep its own quoting:
``%tk why Bash 'git commit -m "fix it" && git push'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._parser import MagicParser
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    from ...core.decision import Decision

PARSER = MagicParser("why", "What Claude Code would do with one call of TOOL, and why: the "
                            "deciding rule (layer, file:line), one part per subcommand, the "
                            "trace.")
PARSER.add_argument("tool")
PARSER.add_argument("args", nargs="*", help="a JSON object, or the command / path / url")
PARSER.add_argument("--agent", default=None, help="check as this subagent (its front matter too)")
PARSER.add_argument("--mode", default=None,  # the engine checks it and lists its modes
                    help="permission mode (default: the settings' defaultMode, else default)")
PARSER.add_argument("--cwd", default=None, help="working directory (default: the project)")
PARSER.add_argument("--runtime", default=None,
                    help="whose permission engine answers (when the project holds several)")
PARSER.add_argument("--hook", choices=["allow", "deny", "ask"], default=None,
                    help="what a PreToolUse hook would answer (what-if)")


@subcommand("why", "why TOOL ARGS")
def run(magics: MagicState, rest: str, cell: str | None) -> Decision:
    """The ``Decision`` of one call (it renders with its parts and trace); warnings as lines."""
    args = PARSER.parse(rest)
    project = magics.require_project()
    try:
        call = project.call_arguments(args.tool, " ".join(args.args), runtime=args.runtime)
        decision = project.check_call(args.tool, call, agent=args.agent, mode=args.mode,
                                      cwd=args.cwd, hook=args.hook, runtime=args.runtime)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"%tk why: {exc}") from None
    warn(decision.warnings)
    return decision
