"""Figure 7: replay 1,000,000 logged calls against a policy of ~250 rules (SPEC section 9).

A generated project (``gen.generate``: 15 agents with exact names, globs,
``"*"``, deny lists and aliases over 2,000 tools with groups and states, about
250 rules) and a generated call log of ``calls`` rows: agent, tool (mostly from
a working set of 300 tools, 2 % names no pool has, 1 % calls of an agent the
project does not define), args, groups, state and what happened then.

Each measurement runs in a fresh interpreter (``python -m bench.replay``):
the log is built as a DataFrame first (untimed), then ``tk.replay(proj, log)``
is timed (median of ``repeat``) and the process's peak RSS is read before and
after. 7b times reading Claude Code transcripts (``tool_use`` / ``tool_result``
line pairs) of ``transcript_calls`` calls, read + replayed.
"""

from __future__ import annotations

import gc
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import Row
from .gen import GROUPS, STATES, generate

__all__ = ["Scale", "build_calls", "measure", "write_transcript"]


@dataclass(frozen=True)
class Scale:
    """Sizes of figure 7."""

    calls: int = 1_000_000
    agents: int = 15
    tools: int = 2000
    repeat: int = 3
    transcript_calls: int = 100_000


def build_calls(root: Path, n: int, seed: int = 6) -> Any:
    """A call log DataFrame of ``n`` rows for the generated project at ``root``."""
    import numpy as np
    import pandas as pd
    import yaml

    import toolkit as tk

    rng = np.random.default_rng(seed)
    tools = list(yaml.safe_load((root / "tools.yaml").read_text())["tool"])
    agents = sorted(p.stem for p in (root / "agents").glob("*.md"))
    working = list(random.Random(seed).sample(tools, min(300, len(tools))))
    working += [f"unknown_tool_{i}" for i in range(6)]  # 2 % of the draws: no such tool
    names = np.asarray(working, dtype=object)
    weights = np.full(len(names), 0.98 / (len(names) - 6))
    weights[-6:] = 0.02 / 6
    agent_names = np.asarray([*agents, "ghost-agent"], dtype=object)
    agent_weights = np.full(len(agent_names), 0.99 / len(agents))
    agent_weights[-1] = 0.01
    group_sets = [(GROUPS[0],), (GROUPS[0], GROUPS[2]), ("*",), (GROUPS[1], GROUPS[3])]
    groups = np.empty(4, dtype=object)
    groups[:] = group_sets
    agent_of_row = agent_names[rng.choice(len(agent_names), n, p=agent_weights)]
    tool_of_row = names[rng.choice(len(names), n, p=weights)]
    # 80 % of an agent's calls are of tools it holds (an agent mostly calls what it may)
    proj = tk.load(root)
    for name in agents:
        held = np.asarray(sorted(proj.resolve(name, groups=["*"]).allowed), dtype=object)
        rows = np.flatnonzero((agent_of_row == name) & (rng.random(n) < 0.8))
        if len(held):
            tool_of_row[rows] = held[rng.integers(0, len(held), len(rows))]
    return pd.DataFrame({
        "time": np.arange(n),
        "session": rng.integers(0, 5000, n).astype(str).astype(object),
        "agent": agent_of_row,
        "tool": tool_of_row,
        "args": [{"q": int(i)} for i in rng.integers(0, 50, n)],
        "groups": groups[rng.integers(0, len(groups), n)],
        "state": np.asarray(STATES, dtype=object)[rng.integers(0, len(STATES), n)],
        "observed": np.asarray(["ran", "denied", "error"], dtype=object)[
            rng.choice(3, n, p=[0.9, 0.08, 0.02])],
    })


def write_transcript(path: Path, log: Any) -> None:
    """``log``'s calls as Claude Code transcript lines (a tool_use, then its tool_result)."""
    lines = []
    for i, (tool, args) in enumerate(zip(log["tool"], log["args"], strict=True)):
        use = f"toolu_{i:012d}"
        lines.append(json.dumps({"type": "assistant", "sessionId": "s", "isSidechain": False,
                                 "message": {"role": "assistant", "content": [
                                     {"type": "tool_use", "id": use, "name": tool,
                                      "input": args}]}}))
        lines.append(json.dumps({"type": "user", "sessionId": "s", "isSidechain": False,
                                 "message": {"role": "user", "content": [
                                     {"type": "tool_result", "tool_use_id": use,
                                      "content": "ok"}]}}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def worker(root: Path, calls: int, repeat: int, transcript_calls: int) -> dict[str, Any]:
    """Run in a fresh interpreter: build the log, time replays, read peak memory."""
    import toolkit as tk

    proj = tk.load(root)
    rules = sum(len(a.allow or ()) + len(a.deny) + len(a.ask) for a in proj.agents.values())
    log = build_calls(root, calls)
    rss_before = _rss_mb()
    times, cpu = [], []
    load = os.getloadavg()[0]
    for i in range(repeat):
        start, started_cpu = time.perf_counter(), time.process_time()
        rp = tk.replay(proj, log)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - started_cpu)
        if i == 0:
            peak = _rss_mb()  # the first replay's high-water mark, one result alive
            rows, regressions = len(rp.calls), len(rp.regressions)
        del rp  # the next repetition starts from the same memory
        gc.collect()
    distinct = int(log[["agent", "tool", "state"]].assign(groups=log["groups"].map(str))
                   .drop_duplicates().shape[0])
    out = {"seconds": times, "cpu_seconds": cpu, "load": [load, os.getloadavg()[0]],
           "rss_before_mb": rss_before, "rss_peak_mb": peak,
           "rules": rules, "distinct": distinct, "rows": rows, "regressions": regressions}
    if transcript_calls:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "session.jsonl"
            write_transcript(path, log.head(transcript_calls))
            start = time.perf_counter()
            read = tk.replay(proj, path, main="agent-001", arguments=False)
            out["transcript_seconds"] = time.perf_counter() - start
            out["transcript_rows"] = len(read.calls)
    return out


def measure(scale: Scale, workdir: Path | None = None) -> list[Row]:
    """Figure 7 (and 7b), in a fresh interpreter."""
    with tempfile.TemporaryDirectory() as tmp:
        root = (workdir or Path(tmp)) / "replay-project"
        generate(root, n_agents=scale.agents, n_tools=scale.tools)
        argv = [sys.executable, "-m", "bench.replay", str(root), str(scale.calls),
                str(scale.repeat), str(scale.transcript_calls)]
        done = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=1800,
                              cwd=Path(__file__).resolve().parent.parent)
        result = json.loads(done.stdout.strip().splitlines()[-1])
    seconds = statistics.median(result["seconds"])
    peak = result["rss_peak_mb"]
    rows = [Row(f"7. Replay {result['rows']:,} logged calls against {result['rules']} rules "
                f"({scale.agents} agents × {scale.tools:,} tools), from a DataFrame",
                seconds, target="≤ 5 s, ≤ 1 GB", met=seconds <= 5 and peak <= 1024,
                note=f"{result['distinct']:,} distinct (agent, tool, groups, state) in the log; "
                     f"peak RSS of the whole process {peak:.0f} MB "
                     f"({result['rss_before_mb']:.0f} MB with the log built, before "
                     f"replaying); times {', '.join(f'{t:.2f}' for t in result['seconds'])} s, "
                     f"CPU time of the process {statistics.median(result['cpu_seconds']):.2f} s"
                     f" (median; load average {result['load'][0]:.1f} / "
                     f"{result['load'][1]:.1f} on the machine before / after)")]
    if "transcript_seconds" in result:
        t = result["transcript_seconds"]
        rows.append(Row(f"7b. Read + replay a Claude Code transcript of "
                        f"{result['transcript_rows']:,} calls ({2 * result['transcript_rows']:,}"
                        " lines)", t, note=f"{result['transcript_rows'] / t:,.0f} calls/s, "
                                          "mostly JSON parsing (no target)"))
    return rows


if __name__ == "__main__":
    print(json.dumps(worker(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                            int(sys.argv[4]))))
