"""Shared pieces of the benchmarks: timing, result rows, the machine, peer environments."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VENVS = ROOT / ".cache" / "bench-venvs"
PEERS = Path(__file__).with_name("peers")

#: Peer environments: name -> pinned requirement (created on first use by the bench command).
PEER_ENVS = {
    "openai-agents": "openai-agents==0.24.0",
    "langchain": "langchain-mcp-adapters==0.3.2",
    "fastmcp": "fastmcp==4.1.2",
}


@dataclass
class Row:
    """One figure of ``RESULTS.md``: our median, the comparisons' medians, the target."""

    figure: str
    ours: float  # seconds (or bytes / a ratio: see ``unit``)
    unit: str = "s"
    peers: dict[str, float] = field(default_factory=dict)
    target: str = ""
    met: bool | None = None  # None: no target on this row, or not measurable
    note: str = ""

    def ratio(self, peer: str) -> float:
        """Our median divided by ``peer``'s (below 1.0: we are faster)."""
        return self.ours / self.peers[peer] if self.peers[peer] else float("inf")


def median_time(func: Callable[[], Any], repeat: int, setup: Callable[[], Any] | None = None
                ) -> float:
    """Median wall time of ``func()`` over ``repeat`` runs (``setup()`` untimed before each)."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(funcs: dict[str, Callable[[], float]], repeat: int) -> dict[str, float]:
    """A/B/...: each repetition runs every ``func`` once, in rotating order; medians.

    Each ``func`` returns the seconds it measured itself (so a subprocess can
    leave its interpreter start-up out).
    """
    samples: dict[str, list[float]] = {name: [] for name in funcs}
    names = list(funcs)
    for i in range(repeat):
        order = names[i % len(names):] + names[:i % len(names)]
        for name in order:
            samples[name].append(funcs[name]())
    return {name: statistics.median(values) for name, values in samples.items()}


def versions(*names: str) -> dict[str, str]:
    """Installed versions of ``names`` in this interpreter (``-`` when not installed)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "-"
    return out


def machine() -> dict[str, str]:
    """Cores, CPU, Python and OS of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cores": str(os.cpu_count()), "cpu": cpu, "python": sys.version.split()[0],
            "os": platform.platform()}


def peer_python(name: str, *, create: bool = True) -> Path | None:
    """The Python of peer environment ``name`` under ``.cache/bench-venvs`` (created once)."""
    venv = VENVS / name
    python = venv / "bin" / "python"
    stamp = venv / ".installed"
    spec = PEER_ENVS[name]
    if stamp.exists() and stamp.read_text() == spec:
        return python
    if not create:
        return None
    VENVS.mkdir(parents=True, exist_ok=True)
    base = os.environ.get("BENCH_BASE_PYTHON") or str(
        getattr(sys, "_base_executable", sys.executable))
    subprocess.run([base, "-m", "venv", "--clear", str(venv)], check=True, timeout=300)
    subprocess.run([str(python), "-m", "pip", "install", "-q", spec], check=True, timeout=900)
    stamp.write_text(spec)
    return python


def peer_versions(name: str, packages: tuple[str, ...]) -> dict[str, str]:
    """Versions of ``packages`` inside peer environment ``name``."""
    python = peer_python(name, create=False)
    if python is None:
        return {}
    code = ("import json,sys\nfrom importlib import metadata as m\nout={}\n"
            "for n in sys.argv[1:]:\n"
            "    try: out[n]=m.version(n)\n"
            "    except m.PackageNotFoundError: out[n]='-'\nprint(json.dumps(out))")
    done = subprocess.run([str(python), "-c", code, *packages], capture_output=True, text=True,
                          timeout=120, check=True)
    return dict(json.loads(done.stdout))


def run_json(argv: list[str], payload: dict[str, Any], timeout: float = 600) -> Any:
    """Run ``argv`` with ``payload`` as JSON on stdin; its stdout's last line, parsed."""
    done = subprocess.run(argv, input=json.dumps(payload), capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
