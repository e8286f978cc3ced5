"""Figures 1 and 2: the full matrix at scale, and re-resolving after one new server.

Figure 1 times a *cold* full resolve: the pool rebuilt and every grant
dropped (``set_many_server_tools({})`` and ``clear_caches()``), then ``proj.matrix`` over all
contexts. Figures 1a and 1b time one cold context the same way (pool rebuilt, every grant
recompiled, then ``proj.matrix`` of that one context alone), interleaved with

(a) the per-(agent, tool) ``fnmatch`` loop a notebook user would write,
    on the same one context (16 of them take minutes), and
(b) the OpenAI Agents SDK's ``create_static_tool_filter`` applied per agent to
    the same tools, with each agent's expanded exact names for that context
    (run in its own venv; only the filtering is timed, not the SDK's import).

One cold context against one cold context: the compile cost of the grants is paid in
full by the single context (the 16-context matrix divided by 16, which spreads it, is
in the note only).

Figure 2 adds one server with 100 tools to the loaded, resolved project and
times bringing the same full matrix up to date, interleaved with full resolves.
"""

from __future__ import annotations

import fnmatch
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import ROOT, Row, interleaved, peer_python, run_json
from .gen import GeneratedProject, contexts, generate, new_server_tools

#: The one context the per-context comparisons are timed on.
ONE_CONTEXT = (("read-only", "knowledge"), "analysis")


@dataclass
class Scale:
    """Sizes of the generated project."""

    agents: int = 200
    tools: int = 5000
    contexts: int = 16
    repeat: int = 9
    naive_repeat: int = 3
    new_tools: int = 100


def naive_context(gen: GeneratedProject, groups: tuple[str, ...], state: str
                  ) -> set[tuple[str, str]]:
    """The per-(agent, tool) ``fnmatch`` loop: allowed (agent, tool) pairs for one context."""
    allowed = set()
    for agent in gen.agents:
        patterns = [agent.aliases.get(p, p) for p in agent.tools]
        for name, meta in gen.tools.items():
            if any(fnmatch.fnmatch(name, p) for p in agent.disallowed):
                continue
            if not any(fnmatch.fnmatch(name, p) for p in patterns):
                continue
            if "*" not in groups and not any(g in groups for g in meta["group"]):
                continue
            states = meta.get("available_in_states")
            if states is not None and state not in states:
                continue
            allowed.add((agent.name, name))
    return allowed


def ours_context(proj: Any, groups: tuple[str, ...], state: str) -> set[tuple[str, str]]:
    """Allowed (agent, tool) pairs for one context, from ``proj.matrix``."""
    m = proj.matrix(groups=[list(groups)], states=[state])
    stacked = m.stack()
    return {(str(a), str(t)) for (t, a), v in stacked.items() if v}


def expanded(proj: Any, groups: tuple[str, ...], state: str) -> dict[str, list[str]]:
    """Each agent's allowed tools for one context, as exact names (the SDK's input)."""
    return {a: sorted(proj.resolve(a, groups=list(groups), state=state).allowed)
            for a in proj.agents}


def measure(scale: Scale, *, peers: bool = True, workdir: Path | None = None) -> list[Row]:
    """Figures 1 and 2 (plus peak memory, from a fresh subprocess); one Row each."""
    import toolkit as tk

    root = Path(workdir or tempfile.mkdtemp(prefix="bench-resolution-")) / "project"
    gen = generate(root, scale.agents, scale.tools)
    proj = tk.load(root)
    group_sets, states = contexts(scale.contexts)
    n_contexts = len(group_sets) * len(states)
    server_tools = [tk.Tool(name=c, server="bench", remote_name=r, source="mcp:bench")
                    for c, r in new_server_tools("bench", scale.new_tools)]

    def full() -> float:
        start = time.perf_counter()
        proj.set_many_server_tools({})  # a new pool ...
        proj.clear_caches()  # ... and no cached grant or matrix: everything is recompiled
        proj.matrix(groups=group_sets, states=states)
        return time.perf_counter() - start

    merge_times: list[float] = []

    def incremental() -> float:
        proj.set_server_tools("bench", None)  # untimed: back to the 5,000-tool pool, resolved
        proj.matrix(groups=group_sets, states=states)
        start = time.perf_counter()
        proj.set_server_tools("bench", server_tools)
        m = proj.matrix(groups=group_sets, states=states)
        elapsed = time.perf_counter() - start
        assert len(m) == scale.tools + scale.new_tools
        start = time.perf_counter()  # the grants, merged when first asked for (not in the figure)
        for agent in proj.agents:
            proj.grant(agent)
        merge_times.append(time.perf_counter() - start)
        proj.set_server_tools("bench", None)
        return elapsed

    full()  # warm-up: imports pandas and numpy
    groups1, state1 = ONE_CONTEXT
    ours_pairs = ours_context(proj, groups1, state1)
    naive_pairs = naive_context(gen, groups1, state1)
    if ours_pairs != naive_pairs:
        raise AssertionError(f"naive loop and toolkit disagree on {len(ours_pairs ^ naive_pairs)} "
                             "pairs; the comparison would be meaningless")

    def one_context() -> float:
        start = time.perf_counter()
        proj.set_many_server_tools({})  # cold, as ``full``: a new pool, no cached grant
        proj.clear_caches()
        proj.matrix(groups=[list(groups1)], states=[state1])
        return time.perf_counter() - start

    funcs = {"full": full, "incremental": incremental}
    naive_times: list[float] = []

    def naive() -> float:
        start = time.perf_counter()
        naive_context(gen, groups1, state1)
        naive_times.append(time.perf_counter() - start)
        return naive_times[-1]

    sdk_python = peer_python("openai-agents") if peers else None
    sdk_payload = {"tools": sorted(gen.tools), "agents": expanded(proj, groups1, state1),
                   "repeat": 1}

    def sdk() -> float:
        assert sdk_python is not None
        out = run_json([str(sdk_python), str(ROOT / "bench" / "peers" / "openai_filter.py")],
                       sdk_payload)
        return float(statistics.median(out["seconds"]))

    medians = interleaved(funcs, scale.repeat)
    side = {"naive": naive}
    if sdk_python is not None:
        side["sdk"] = sdk
    one_times: list[float] = []

    def one() -> float:
        one_times.append(one_context())
        return one_times[-1]

    side_medians = interleaved({**side, "one": one, "full": full}, scale.naive_repeat)
    # more cold one-context samples (cheap), interleaved with full resolves as above
    interleaved({"one": one, "full": full}, scale.repeat)
    cold_one = statistics.median(one_times)
    amortised = medians["full"] / n_contexts
    size = f"{scale.agents} agents × {scale.tools} tools × {n_contexts} contexts"
    one_label = f"{' + '.join(groups1)} / {state1}"
    rows = [
        Row(f"1. Full matrix, {size} (cold: pool rebuilt, every grant recompiled)",
            medians["full"], target="< 1 s", met=medians["full"] < 1.0,
            note=f"interleaved with the per-context comparisons: {side_medians['full']:.3f} s"),
        Row("1a. One cold context (pool rebuilt, every grant recompiled, one group set × one "
            "state) vs the per-(agent, tool) `fnmatch` loop on the same context",
            cold_one, peers={"fnmatch loop": side_medians["naive"]},
            target="≥ 20× faster", met=side_medians["naive"] / cold_one >= 20,
            note=f"context {one_label}; {side_medians['naive'] / cold_one:.0f}× faster; same "
                 f"allowed pairs checked before timing; median of {len(one_times)} cold runs; "
                 f"amortised over the {n_contexts}-context matrix (full / {n_contexts}) it is "
                 f"{amortised * 1e3:.1f} ms per context"),
    ]
    if "sdk" in side_medians:
        rows.append(Row("1b. One cold context vs OpenAI Agents SDK `create_static_tool_filter` "
                        "per agent (expanded exact names)", cold_one,
                        peers={"openai-agents": side_medians["sdk"]},
                        note="the SDK only filters exact names; it has no globs, groups or "
                             "states, so it is given our expanded result (its time is the "
                             "filtering alone)"))
    rows.append(memory_row(scale, root, group_sets, states))
    inc = medians["incremental"]
    rows.append(Row(f"2. Incremental: add one server with {scale.new_tools} tools, re-resolve "
                    "the full matrix", inc, peers={"full resolve": medians["full"]},
                    target="≤ 10 % of a full resolve", met=inc <= 0.10 * medians["full"],
                    note="ratio = incremental / full; the matrix is built from each grant's "
                         "decisions about the added tools, and the grants themselves are "
                         "merged when first asked for: all "
                         f"{scale.agents} then take {statistics.median(merge_times) * 1e3:.1f} ms"))
    proj.close()
    return rows


_MEMORY = """
import json, resource, sys, time, tracemalloc
import toolkit as tk
proj = tk.load(sys.argv[1])
groups, states = json.loads(sys.argv[2]), json.loads(sys.argv[3])
proj.matrix(groups=[groups[0]], states=[states[0]])  # imports pandas/numpy outside the trace
proj.set_many_server_tools({})
proj.clear_caches()
tracemalloc.start()
m = proj.matrix(groups=groups, states=states)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"peak": peak, "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "cells": int(m.size)}))
"""


def memory_row(scale: Scale, root: Path, group_sets: list[list[str]], states: list[str]) -> Row:
    """Peak memory of a cold full matrix (tracemalloc), in a fresh interpreter, median of 3."""
    peaks, rss = [], []
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", _MEMORY, str(root), json.dumps(group_sets),
                               json.dumps(states)], capture_output=True, text=True, timeout=600,
                              check=True, cwd=ROOT)
        out = json.loads(done.stdout.strip().splitlines()[-1])
        peaks.append(out["peak"])
        rss.append(out["maxrss"])
    peak, maxrss = statistics.median(peaks), statistics.median(rss)
    return Row("1c. Peak memory of the full matrix (tracemalloc, fresh process)", peak, unit="B",
               target="< 200 MB", met=peak < 200e6,
               note=f"whole process max RSS incl. interpreter, pandas and the loaded project: "
                    f"{maxrss / 1e6:.0f} MB")
