"""Figure 5: what ``import toolkit`` and ``%load_ext toolkit`` cost beyond pydantic and PyYAML.

Each measurement is a fresh interpreter. ``-X importtime`` gives the
cumulative time of the ``toolkit`` import when pydantic and PyYAML are
already imported (the package's own share); the wall-clock difference
between ``import pydantic, yaml`` and ``import pydantic, yaml, toolkit`` is
interleaved A/B and reported beside it.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

from .common import ROOT, Row

_LOAD_EXT = """
import json, sys, time
import pydantic, yaml
pydantic.BaseModel
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
start = time.perf_counter()
try:
    answer = shell.extension_manager.load_extension("toolkit")
except Exception as exc:
    answer = f"{type(exc).__name__}: {exc}"
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "answer": answer}))
"""


def importtime(stmt: str, module: str) -> float:
    """Cumulative ``-X importtime`` seconds of ``module`` when running ``stmt``."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", stmt], capture_output=True,
                          text=True, timeout=120, check=True, cwd=ROOT)
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = [p.strip() for p in line[len("import time:"):].split("|")]
        if parts[2] == module:
            return int(parts[1]) / 1e6
    return 0.0


def _first_use(base: str) -> float:
    """Seconds that the first ``toolkit.load`` access imports (the runtime, lazily)."""
    code = (f"{base}; import time, toolkit; t = time.perf_counter(); toolkit.load; "
            "print(time.perf_counter() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True, cwd=ROOT)
    return float(done.stdout.strip().splitlines()[-1])


def _wall(stmt: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", stmt], check=True, timeout=120, cwd=ROOT)
    return time.perf_counter() - start


def measure(repeat: int = 7) -> list[Row]:
    """Figure 5: ``import toolkit`` and ``%load_ext toolkit`` rows."""
    base = "import pydantic, yaml; pydantic.BaseModel"  # pydantic loads BaseModel lazily
    own: list[float] = []
    walls_base: list[float] = []
    walls_ours: list[float] = []
    first_use: list[float] = []
    for i in range(repeat):
        own.append(importtime(f"{base}; import toolkit", "toolkit"))
        first_use.append(_first_use(base))
        pair = [(walls_base, base), (walls_ours, f"{base}; import toolkit")]
        for samples, stmt in (pair if i % 2 else pair[::-1]):
            samples.append(_wall(stmt))
    share = statistics.median(own)
    wall = statistics.median(walls_ours) - statistics.median(walls_base)
    rows = [Row("5. `import toolkit`: the package's own share (-X importtime, after pydantic "
                "and PyYAML)", share, peers={"import pydantic, yaml (wall)":
                                             statistics.median(walls_base)},
                target="≤ 150 ms", met=share <= 0.150,
                note=f"wall-clock difference, interleaved A/B: {wall * 1e3:.1f} ms; first use "
                     f"(the lazy `toolkit.load`) imports "
                     f"{statistics.median(first_use) * 1e3:.0f} ms more (no target)")]
    ext = []
    answer = ""
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", _LOAD_EXT], capture_output=True, text=True,
                              timeout=120, cwd=ROOT)
        if done.returncode != 0:
            answer = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
            break
        out = json.loads(done.stdout.strip().splitlines()[-1])
        answer = out["answer"]
        if answer is not None:
            break
        ext.append(out["seconds"])
    if ext and len(ext) == repeat:
        seconds = statistics.median(ext)
        rows.append(Row("5b. `%load_ext toolkit` in a fresh IPython (after pydantic and "
                        "PyYAML)", seconds, target="≤ 150 ms", met=seconds <= 0.150))
    else:
        rows.append(Row("5b. `%load_ext toolkit` in a fresh IPython", float("nan"),
                        target="≤ 150 ms", met=None,
                        note=f"n/a: extension not yet shipped ({answer})"))
    return rows
