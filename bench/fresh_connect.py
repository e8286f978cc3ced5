"""Figure 3b's subject: a new user's first connect, in a fresh interpreter.

Reads ``{"root": folder}`` on stdin; loads the project, connects every server
(timed), closes; prints one JSON line: connect seconds, this process's CPU
seconds during the connect, and the servers' CPU seconds (children's rusage
over connect and close).
"""

from __future__ import annotations

import json
import resource
import sys
import time


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    """Connect once, print the figures."""
    import toolkit as tk

    root = json.loads(sys.stdin.read())["root"]
    proj = tk.load(root)
    children, own, start = _children(), time.process_time(), time.perf_counter()
    proj.connect()
    seconds, own = time.perf_counter() - start, time.process_time() - own
    proj.close()
    print(json.dumps({"seconds": seconds, "own_cpu": own, "servers_cpu": _children() - children}))


if __name__ == "__main__":
    main()
