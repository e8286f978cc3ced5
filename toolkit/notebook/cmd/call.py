"""``%tk call TOOL [JSON]``: call a tool as the current session (``{}`` when no JSON)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ...runtime.builtins import CallResult
    from ..magic import ToolkitMagics

HELP = ("%tk call TOOL [JSON object of arguments]   e.g. "
        "%tk call knowledge-query {\"query\": \"Acme\"}")


def run(magics: ToolkitMagics, rest: str, cell: str | None) -> CallResult:
    """``session.call(tool, args)``: a blocked tool fails the cell with ``tool not found``."""
    tool, _, raw = rest.partition(" ")
    if not tool or tool in ("-h", "--help"):
        raise UsageError(HELP)
    arguments: Any = {}
    if raw.strip():
        try:
            arguments = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise UsageError(f"%tk call: arguments must be a JSON object: {exc}") from None
        if not isinstance(arguments, dict):
            raise UsageError("%tk call: arguments must be a JSON object, not "
                             f"{type(arguments).__name__}")
    return magics.require_session().call(tool, arguments)
