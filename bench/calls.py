"""Figure 4: the cost of the guard on a tool call.

One demo server (stdio, ``echo`` only), one connection. Each iteration makes
one guarded call (``await session.acall``: resolve check, audit, metrics,
state) and one raw ``ClientSession.call_tool`` on the *same* connection, in
alternating order, both on toolkit's loop thread; the medians of the
per-call times are compared. A second row does the same through the sync
faces (``session.call`` vs the raw call through the same portal).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import Row

ARGS = {"text": "hello"}


def _project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-calls-"))
    server = {"command": sys.executable,
              "args": ["-m", "toolkit.examples.demo_server", "--tools", "echo"]}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": server}}),
                                    encoding="utf-8")
    (root / "caller.md").write_text("---\nname: caller\ntools: ['*']\n---\nCalls echo.\n",
                                    encoding="utf-8")
    return root


def _split(ours: list[float], raw: list[float]) -> tuple[float, float]:
    return statistics.median(ours), statistics.median(raw)


def measure(calls: int = 1000, rounds: int = 3) -> list[Row]:
    """Figure 4: rows for the async (primary) and the sync faces."""
    import toolkit as tk
    from toolkit.runtime.loop import background_loop

    proj = tk.load(_project())
    try:
        proj.connect()
        session = proj.start("caller")
        raw = proj.server_manager.connections["demo"].session
        assert raw is not None
        loop = background_loop()

        async def block(n: int) -> tuple[list[float], list[float]]:
            guarded: list[float] = []
            direct: list[float] = []
            for i in range(n):
                for which in ((0, 1) if i % 2 else (1, 0)):
                    start = time.perf_counter()
                    if which == 0:
                        result: Any = await session.acall("@demo/echo", ARGS)
                        guarded.append(time.perf_counter() - start)
                        assert not result.is_error
                    else:
                        result = await raw.call_tool("echo", ARGS)
                        direct.append(time.perf_counter() - start)
                        assert not result.is_error
            return guarded, direct

        def sync_block(n: int) -> tuple[list[float], list[float]]:
            guarded: list[float] = []
            direct: list[float] = []
            for i in range(n):
                for which in ((0, 1) if i % 2 else (1, 0)):
                    start = time.perf_counter()
                    if which == 0:
                        session.call("@demo/echo", ARGS)
                        guarded.append(time.perf_counter() - start)
                    else:
                        loop.run(raw.call_tool, "echo", ARGS)
                        direct.append(time.perf_counter() - start)
            return guarded, direct

        loop.run(block, min(50, calls))  # warm-up
        async_medians = [_split(*loop.run(block, calls)) for _ in range(rounds)]
        sync_medians = [_split(*sync_block(calls)) for _ in range(rounds)]
    finally:
        proj.close()
    rows = []
    for label, medians in (("await session.acall vs await call_tool, on the loop thread",
                            async_medians),
                           ("session.call vs call_tool through the same portal (sync)",
                            sync_medians)):
        ours = statistics.median(m[0] for m in medians)
        base = statistics.median(m[1] for m in medians)
        added = ours - base
        ratio = ours / base
        rows.append(Row(f"4. Guarded call overhead, {calls} `echo` calls × {rounds} rounds: "
                        f"{label}", ours, peers={"raw mcp call_tool": base},
                        target="≤ 1.10× and ≤ 100 µs added",
                        met=ratio <= 1.10 and added <= 100e-6,
                        note=f"added per call: {added * 1e6:.0f} µs (median of per-call times)"))
    return rows
