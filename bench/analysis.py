"""Figure 10: static analysis and bypass probes of a 600-rule Claude Code settings file.

A generated ``.claude/settings.json`` with 600 rules in the shapes real files have (see
tests/fixtures/claude-settings-real): ``Bash(tool sub:*)`` and ``Bash(tool sub *)`` prefix
allows, exact commands, ``--force`` / ``rm -rf`` / ``curl`` denies, ``push`` / ``publish``
asks, ``Read`` / ``Edit`` path rules, ``WebFetch`` domains and MCP server rules. Two rows,
each the median of ``repeat`` runs in one process, each on a freshly loaded project (no
cache of a previous run helps):

- 10. ``proj.lint()``: every rule's status decided on automata (target ≤ 2 s);
- 10b. ``proj.probe()``: every Bash rule probed with the templates, every variant decided
  by ``check_call`` (target ≤ 10 s).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import Row

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
    """Rows 10 and 10b (medians of ``repeat`` runs, each on a freshly loaded project)."""
    import toolkit as tk

    root, count = project(workdir, n_rules)
    lint_times, probe_times = [], []
    statuses: dict[str, int] = {}
    summary = ""
    for _ in range(repeat):
        _clear_caches()
        proj = tk.load(root, preset="claude-code", home=False, managed=False)
        start = time.perf_counter()
        frame = proj.lint()
        lint_times.append(time.perf_counter() - start)
        statuses = frame["status"].value_counts().to_dict()
        proj.close()
        _clear_caches()
        proj = tk.load(root, preset="claude-code", home=False, managed=False)
        from toolkit.analysis.probe import run_probe

        start = time.perf_counter()
        run = run_probe(proj)
        probe_times.append(time.perf_counter() - start)
        summary = run.summary()
        proj.close()
    lint_s, probe_s = statistics.median(lint_times), statistics.median(probe_times)
    shown = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
    each = ", ".join(f"{t:.2f}" for t in lint_times)
    return [Row(f"10. Static analysis (`proj.lint()`) of a {count}-rule Claude Code settings "
                "file", lint_s, target="≤ 2 s", met=lint_s <= 2.0,
                note=f"{shown}; each run (s): {each}; a fresh project and cleared automaton "
                     "caches each run"),
            Row(f"10b. Bypass probes (`proj.probe()`) of the same {count} rules", probe_s,
                target="≤ 10 s", met=probe_s <= 10.0,
                note=f"{summary}; each run (s): "
                     + ", ".join(f"{t:.2f}" for t in probe_times))]


def _clear_caches() -> None:
    """Forget every memo of the analysis and the engine, so each run starts cold."""
    from toolkit.analysis import lint as lint_module

    for name in dir(lint_module):
        cached = getattr(lint_module, name)
        if callable(getattr(cached, "cache_clear", None)):
            cached.cache_clear()
