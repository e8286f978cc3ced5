"""``%tk convert --to R``: the loaded project's policy written for another runtime, proved.

Returns the :class:`~toolkit.analysis.convert.Conversion` itself (``tk.convert(proj, to=R)``):
in a notebook it shows the summary, each file's text, the losses and the calls deciding
differently as tables (every rule, command and file text escaped); ``.files``, ``.losses``,
``.check`` and ``.write(DIR)`` for code. Nothing is written by the magic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._parser import MagicParser
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    from ...analysis.convert import Conversion

PARSER = MagicParser("convert", "Write the loaded project's policy for another runtime; the "
                                "files are loaded back with that runtime's engine and every "
                                "corpus call is decided by both (tk.convert is the same).")
PARSER.add_argument("--to", required=True, metavar="RUNTIME",
                    help="the runtime to write for (gemini-cli, codex, opencode, cursor, "
                         "claude-code)")
PARSER.add_argument("--source", default=None, metavar="RUNTIME",
                    help="the runtime whose policy is converted, when the project holds several")


@subcommand("convert", "convert --to RUNTIME [--source RUNTIME]")
def run(magics: MagicState, rest: str, cell: str | None) -> Conversion:
    """``tk.convert(proj, to=..., source=...)`` of the loaded project."""
    from ...analysis.convert import convert

    args = PARSER.parse(rest)
    proj = magics.require_project()
    try:
        return convert(proj, to=args.to, source=args.source)
    except ValueError as exc:  # an unknown target, nothing to convert
        raise UsageError(f"%tk convert: {' '.join(str(exc).split())}") from None
