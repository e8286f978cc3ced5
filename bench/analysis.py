"""Figure 10: static analysis and bypass probes of a 600-rule Claude Code settings file.

A generated ``.claude/settings.json`` with 600 rules in the shapes real files have (see
tests/fixtures/claude-settings-real): ``Bash(tool sub:*)`` and ``Bash(tool sub *)`` prefix
allows, exact commands, ``--force`` / ``rm -rf`` / ``curl`` denies, ``push`` / ``publish``
asks, ``Read`` / ``Edit`` path rules, ``WebFetch`` domains and MCP server rules. Two rows,
each the median of ``repeat`` runs, each in a fresh interpreter (``python -m bench.analysis
ROOT``: no cache of a previous run helps):

- 10. ``proj.lint()``: every rule's status decided on automata (target ≤ 2 s);
- 10b. ``proj.probe()``: every Bash rule probed with the templates, every variant decided
  by ``check_call`` (target ≤ 10 s).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import ROOT, Row

TOOLS = ["npm", "pnpm", "yarn", "git", "docker", "kubectl", "make", "cargo", "go", "pip",
         "uv", "poetry", "terraform", "helm", "gradle", "mvn", "dotnet", "bundle", "rails",
         "php", "composer", "swift", "xcodebuild", "gh", "aws", "gcloud", "az", "flutter",
         "deno", "bun"]
SUBCOMMANDS = ["run", "test", "build", "status", "log", "diff", "install", "lint", "fmt",
               "check", "list", "show", "exec", "apply", "plan", "clean"]


def settings(n_rules: int = 600) -> dict[str, Any]:
    """A settings object with ``n_rules`` rules: about 65 % Bash allows, then denies, asks,
    paths, domains and MCP rules (the mix of the real files in the test fixtures)."""
    allow: list[str] = []
    for i, (tool, sub) in enumerate((t, s) for s in SUBCOMMANDS for t in TOOLS):
        allow.append([f"Bash({tool} {sub}:*)", f"Bash({tool} {sub} *)",
                      f"Bash({tool} {sub} --verbose)"][i % 3])
    deny = [f"Bash({t} {s} --force:*)" for t in TOOLS[:12] for s in ("push", "delete")]
    deny += [f"Bash(rm -rf {d}:*)" for d in ("/", "~", "..", "/etc", "/usr", "/var")]
    deny += ["Bash(curl *)", "Bash(wget *)", "Bash(sudo *)", "Bash(ssh *)", "Bash(scp *)"]
    deny += [f"Read(./secrets{i}/**)" for i in range(10)] + ["Read(./.env)", "Read(./.env.*)",
                                                             "Read(./**/*.pem)"]
    ask = [f"Bash({t} push *)" for t in TOOLS[12:]] + [f"Bash({t} publish *)" for t in TOOLS[:10]]
    ask += [f"Edit(./config{i}/**)" for i in range(10)]
    paths = [f"Edit(src/mod{i}/**)" for i in range(25)] + [f"Read(docs/part{i}/**)"
                                                           for i in range(10)]
    web = [f"WebFetch(domain:docs{i}.example.com)" for i in range(25)]
    mcp = [f"mcp__srv{i}__tool{i}" for i in range(10)] + [f"mcp__srv{i}__*" for i in range(10, 20)]
    if n_rules < 600:  # a smaller file of the same mix (the smoke test's)
        share = n_rules / 600
        deny, ask, paths, web, mcp = (x[:max(1, round(len(x) * share))]
                                      for x in (deny, ask, paths, web, mcp))
    fixed = len(deny) + len(ask) + len(paths) + len(web) + len(mcp)
    allow = allow[:max(n_rules - fixed, 0)] + paths + web + mcp
    return {"permissions": {"allow": allow, "ask": ask, "deny": deny}}


def project(workdir: Path | None = None, n_rules: int = 600) -> tuple[Path, int]:
    """The generated project's folder and its rule count."""
    base = Path(tempfile.mkdtemp(prefix="bench-analysis-")) if workdir is None else workdir
    root = base / "repo"
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    data = settings(n_rules)
    (root / ".claude" / "settings.json").write_text(json.dumps(data, indent=2))
    return root, sum(len(v) for v in data["permissions"].values())


def measure(repeat: int = 3, n_rules: int = 600, workdir: Path | None = None) -> list[Row]:
    """Rows 10 and 10b: medians of ``repeat`` runs, each in a fresh interpreter (no cache of
    the analysis or of the engine survives from one run to the next)."""
    root, count = project(workdir, n_rules)
    runs = [json.loads(subprocess.run(
        [sys.executable, "-m", "bench.analysis", str(root)], cwd=ROOT, capture_output=True,
        text=True, check=True, timeout=900).stdout.strip().splitlines()[-1])
        for _ in range(repeat)]
    lint_times = [r["lint"] for r in runs]
    probe_times = [r["probe"] for r in runs]
    lint_s, probe_s = statistics.median(lint_times), statistics.median(probe_times)
    shown = ", ".join(f"{n} {s}" for s, n in sorted(runs[-1]["statuses"].items()))
    return [Row(f"10. Static analysis (`proj.lint()`) of a {count}-rule Claude Code settings "
                "file", lint_s, target="≤ 2 s", met=lint_s <= 2.0,
                note=f"{shown}; each run (s): {_each(lint_times)}; each run in a fresh "
                     f"interpreter (load average {_load()} after)"),
            Row(f"10b. Bypass probes (`proj.probe()`) of the same {count} rules", probe_s,
                target="≤ 10 s", met=probe_s <= 10.0,
                note=f"{runs[-1]['summary']}; each run (s): {_each(probe_times)}; "
                     "every variant a new command for the engine (parsed and matched)")]


def _each(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


def _load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg()[:2])


def one_run(root: Path) -> dict[str, Any]:
    """Lint, then probe, the project at ``root`` (each on a freshly loaded project)."""
    import toolkit as tk
    from toolkit.analysis.probe import run_probe

    proj = tk.load(root, preset="claude-code", home=False, managed=False)
    start = time.perf_counter()
    frame = proj.lint()
    lint_s = time.perf_counter() - start
    proj.close()
    proj = tk.load(root, preset="claude-code", home=False, managed=False)
    start = time.perf_counter()
    run = run_probe(proj)
    probe_s = time.perf_counter() - start
    proj.close()
    return {"lint": lint_s, "probe": probe_s, "summary": run.summary(),
            "statuses": {str(k): int(v) for k, v in frame["status"].value_counts().items()}}


if __name__ == "__main__":
    print(json.dumps(one_run(Path(sys.argv[1]))))
