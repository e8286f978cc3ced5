"""Figure 3b's subject: a new user's first connect, in a fresh interpreter.

Reads ``{"root": folder}`` on stdin; loads the project, connects every server
(timed), closes; prints one JSON line: connect seconds, this process's CPU
seconds during the connect, and the servers' CPU seconds when connected
(``fanout.servers_cpu``, from /proc).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    """Connect once, print the figures."""
    import toolkit as tk
    from bench.fanout import servers_cpu

    root = json.loads(sys.stdin.read())["root"]
    proj = tk.load(root)
    own, start = time.process_time(), time.perf_counter()
    proj.connect()
    seconds, own = time.perf_counter() - start, time.process_time() - own
    cpu = servers_cpu()
    proj.close()
    print(json.dumps({"seconds": seconds, "own_cpu": own, "servers_cpu": cpu}))


if __name__ == "__main__":
    main()
