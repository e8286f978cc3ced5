"""``%tk why TOOL ARGS... [--agent A] [--mode M] [--cwd DIR] [--hook H]``: what Claude Code
would do with one call of the loaded project, and why (the deciding rule, layer, file:line,
one part per subcommand, the trace) and, when it asks or is denied, the allow rules that came
closest and why each does not match (near misses).

``ARGS`` is a JSON object, or the tool's main field (Bash's command, Read's path, WebFetch's
url) as the rest of the line; quote a command to keep its own quoting:
``%tk why Bash 'git commit -m "fix it" && git push'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ...errors import nearest_names
from ._parser import MagicParser
from ._registry import MagicState, subcommand
from ._warnings import warn

if TYPE_CHECKING:
    from ...core.decision import Decision
    from ...runtime.project import Project

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
    text = " ".join(args.args)
    try:
        try:
            call = project.call_arguments(args.tool, text, runtime=args.runtime)
        except ValueError:
            _unknown(project, args.tool, args.runtime)
            raise
        empty = [field for field, value in call.items() if value == ""]
        if not text.strip() and empty:  # a tool whose main field is its call: Bash's command
            raise UsageError(f"%tk why {args.tool}: give its {empty[0]}, e.g. "
                             f"{EXAMPLES.get(empty[0], EXAMPLES['command'])}")
        decision = project.check_call(args.tool, call, agent=args.agent, mode=args.mode,
                                      cwd=args.cwd, hook=args.hook, runtime=args.runtime)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"%tk why: {exc}") from None
    warn(decision.warnings)
    return decision


#: What a usage error shows for a tool's main field left out.
EXAMPLES = {"command": "%tk why Bash 'git status'", "file_path": "%tk why Read src/app.py",
            "url": "%tk why WebFetch https://example.com"}


def _unknown(project: Project, tool: str, runtime: str | None) -> None:
    """A usage error when ``tool`` is no tool of the project's pool and none its engine knows.

    ``check_call`` answers about any name (a what-if); only when the arguments cannot
    be read either is the name, not the argument format, the likelier mistake.
    """
    if project.pool.index.lookup(tool) is not None:
        return
    try:
        warnings = project.check_call(tool, {}, runtime=runtime).warnings
    except (ValueError, TypeError):
        return
    if any(w.startswith(f"{tool!r} is neither") for w in warnings):
        hint = nearest_names(tool, project.tools)
        raise UsageError(f"%tk why: unknown tool {tool!r}"
                         + (f" (did you mean {hint[len('; did you mean: '):]})" if hint else
                            " (not in the project's pool, not a tool the runtime knows); a "
                            "what-if about it takes its arguments as a JSON object"))
