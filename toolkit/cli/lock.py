"""``toolmatrix lock PATH``: pin every MCP tool the project's servers offer.

Writes ``PATH/toolmatrix.lock`` (a fingerprint of each tool's name,
description, input schema and annotations); ``toolmatrix check PATH --locked``
then fails when a tool was added, removed or changed. Exit status: 0; 1 when a
server could not be reached (its tools are not pinned: the lock is written for
the others); 2 on a usage error.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ._common import PROG, load
from ._registry import verb


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds to wait for each server to start (default: its config's)")


@verb("lock", "pin the MCP servers' tools in PATH/toolmatrix.lock (exit 1 if a server is "
              "unreachable)", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Connect every server, write the lock; list servers that could not be pinned."""
    from ..runtime import lock

    proj = load(args.path)
    try:
        entries, failures = lock.write(proj, args.timeout)
    finally:
        proj.close()
    servers = len({e.server for e in entries})
    print(f"wrote {lock.lock_path(proj)}: {len(entries)} tool(s) of {servers} server(s)",
          file=out)
    for server, error in failures.items():
        print(f"{PROG}: error: server {server!r} could not be reached ({error}); its tools are "
              "not pinned", file=err)
    return 1 if failures else 0
