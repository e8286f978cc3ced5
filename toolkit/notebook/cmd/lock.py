"""``%tk lock [--timeout S]``: pin the MCP servers' tools in the project's toolmatrix.lock."""

from __future__ import annotations

from ._parser import MagicParser, configured, positive_seconds
from ._registry import MagicState, subcommand
from ._warnings import warn

PARSER = MagicParser("lock", "Connect every MCP server and pin each tool (name, description, "
                             "input schema, annotations) in toolmatrix.lock; connect --locked "
                             "then keeps changed tools out.")
PARSER.add_argument("--timeout", type=positive_seconds, default=None,
                    help="seconds per server (default: %%config ToolkitMagics.connect_timeout)")


@subcommand("lock", "lock")
def run(magics: MagicState, rest: str, cell: str | None) -> str:
    """Write the lock; servers that could not be reached are ``warning:`` lines."""
    from ...runtime import lock

    args = PARSER.parse(rest)
    project = magics.require_project()
    timeout = args.timeout or configured("connect_timeout", magics.connect_timeout,
                                         positive_seconds)
    entries, failures = lock.write(project, timeout)
    warn([f"server {name!r} could not be reached ({error}); its tools are not pinned"
          for name, error in failures.items()])
    return f"wrote {lock.lock_path(project)}: {len(entries)} tool(s)"
