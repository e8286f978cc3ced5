"""Figure 3: connect to and list the tools of N stdio servers.

The same servers (the demo server, ``mcp-server-time`` and, when node and npm
are there, ``server-everything``) are started by: toolkit's ``proj.connect()``
(concurrent), toolkit connecting them one at a time (sequential), and the
peers in their own venvs: ``langchain-mcp-adapters``'
``MultiServerMCPClient.get_tools()`` and the ``fastmcp`` multi-server
``Client``. Each repetition runs every contender once, in rotating order;
every contender times only connect + list (not its interpreter's start-up).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import ROOT, Row, interleaved, peer_python, run_json

sys.path.insert(0, str(ROOT))  # tests.support: the shared server helpers


def server_configs(n: int) -> dict[str, dict[str, Any]]:
    """``.mcp.json`` entries of ``n`` stdio servers: demo, time and everything, in turn."""
    from tests.support import procs

    kinds: list[tuple[str, list[str]]] = [
        ("demo", [sys.executable, "-m", "toolkit.examples.demo_server"]),
        ("time", [str(Path(sys.executable).with_name("mcp-server-time"))]),
    ]
    if shutil.which("node") and (procs.EVERYTHING.exists() or shutil.which("npm")):
        kinds.append(("everything", [procs.node(), str(procs.ensure_everything()), "stdio"]))
    out = {}
    for i in range(n):
        kind, argv = kinds[i % len(kinds)]
        out[f"{kind}{i}"] = {"command": argv[0], "args": argv[1:]}
    return out


def _project(configs: dict[str, dict[str, Any]]) -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-fanout-"))
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": configs}), encoding="utf-8")
    (root / "toolkit.yaml").write_text("preset: claude-code\n", encoding="utf-8")
    return root


#: CPU seconds the servers had used when each concurrent run of ``ours`` was connected
SERVER_CPU: list[float] = []
#: CPU seconds this process (toolkit, all its threads) used during each concurrent connect
OWN_CPU: list[float] = []


def own_cpu() -> float:
    """CPU seconds (user + system) used so far by this process, every thread included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def servers_cpu() -> float:
    """CPU seconds used so far by this process's live descendants (the servers), from /proc.

    Read right after the connect, so the floor counts the servers' start-up only, not
    their shutdown (children's rusage would add that, as it counts a child once reaped).
    """
    from tests.support.procs import descendants

    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in descendants():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended while we looked
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def ours(root: Path, *, sequential: bool) -> float:
    """Seconds for toolkit to connect every server of ``root`` and list their tools.

    For a concurrent run the servers' own CPU time up to then is recorded in
    :data:`SERVER_CPU` (:func:`servers_cpu`), and this process's CPU time during the
    connect in :data:`OWN_CPU` (``getrusage(RUSAGE_SELF)`` before and after).
    """
    import toolkit as tk

    proj = tk.load(root)
    names = list(proj.server_configs)
    try:
        cpu, start = own_cpu(), time.perf_counter()
        if sequential:
            for name in names:
                proj.connect([name])
        else:
            proj.connect()
        elapsed, cpu = time.perf_counter() - start, own_cpu() - cpu
        if not sequential:
            SERVER_CPU.append(servers_cpu())
            OWN_CPU.append(cpu)
        status = proj.servers
        failed = status[status["state"] != "connected"]
        if len(failed):
            raise RuntimeError(f"servers failed to connect: {failed['last_error'].to_dict()}")
        if (status["tools"] == 0).any():
            raise RuntimeError("a server listed no tools")
    finally:
        proj.close()
    return elapsed


def measure(n_servers: int = 8, repeat: int = 5, *, peers: bool = True) -> list[Row]:
    """Figure 3: one Row with our concurrent median, sequential and the peers' medians."""
    configs = server_configs(n_servers)
    root = _project(configs)
    kinds = sorted({name.rstrip("0123456789") for name in configs})
    funcs = {"concurrent": lambda: ours(root, sequential=False),
             "sequential": lambda: ours(root, sequential=True)}
    if peers:
        for peer, script in (("langchain", "langchain_fanout.py"),
                             ("fastmcp", "fastmcp_fanout.py")):
            python = peer_python(peer)
            assert python is not None

            def run(python: Path = python, script: str = script) -> float:
                out = run_json([str(python), str(ROOT / "bench" / "peers" / script)],
                               {"servers": configs}, timeout=300)
                if out["tools"] <= 0:
                    raise RuntimeError(f"{script} listed no tools")
                return float(out["seconds"])

            funcs[peer] = run
    ours(root, sequential=False)  # warm-up: imports, npm install, page cache
    fresh = [run_json([sys.executable, str(ROOT / "bench" / "fresh_connect.py")],
                      {"root": str(root)}, timeout=300) for _ in range(max(1, repeat // 2))]
    SERVER_CPU.clear()
    OWN_CPU.clear()
    medians = interleaved(funcs, repeat)
    concurrent = medians.pop("concurrent")
    cores = os.cpu_count() or 1
    floor = statistics.median(SERVER_CPU) / cores
    names = {"sequential": "toolkit sequential", "langchain": "langchain-mcp-adapters",
             "fastmcp": "fastmcp"}
    peers_out = {names[k]: v for k, v in medians.items()}
    met = concurrent <= 0.5 * medians["sequential"]
    if peers:
        goal = all(concurrent <= v for k, v in medians.items() if k != "sequential")
        note = ("peers' goal (ratio ≤ 1.0): " + ("met" if goal else "missed")
                + "; langchain's get_tools() also closes its sessions inside the timing")
    else:
        note = "peers not run"
    return [Row(f"3. Fan-out: connect + list tools of {n_servers} stdio servers "
                f"({', '.join(kinds)})", concurrent, peers=peers_out,
                target="≤ 0.5× sequential", met=met, note=note),
            Row(f"3a. Fan-out vs its physical floor: the servers' own CPU time / {cores} cores",
                concurrent, peers={"floor": floor}, target="≤ 1.1× the floor",
                met=concurrent <= 1.1 * floor,
                note=f"servers' CPU when connected (utime + stime in /proc/<pid>/stat of the "
                     f"server processes, read right after the connect returns): "
                     f"{statistics.median(SERVER_CPU):.2f} s; toolkit's own process during "
                     f"the connect (getrusage RUSAGE_SELF, all threads): "
                     f"{statistics.median(OWN_CPU):.2f} s (max {max(OWN_CPU):.2f} s)"),
            _fresh_row(fresh, cores)]


def _fresh_row(runs: list[dict[str, float]], cores: int) -> Row:
    """3b: the first connect in a fresh interpreter (what a new user's first cell does)."""
    seconds = statistics.median(r["seconds"] for r in runs)
    floor = statistics.median(r["servers_cpu"] for r in runs) / cores
    own = statistics.median(r["own_cpu"] for r in runs)
    return Row("3b. The same, a new user's first connect in a fresh interpreter "
               "(bench/fresh_connect.py)", seconds, peers={"floor": floor},
               target="≤ 1.1× the floor", met=seconds <= 1.1 * floor,
               note=f"toolkit's own CPU during it: {own:.2f} s, mostly importing the mcp SDK "
                    "(done once per process, before any server can start)")
