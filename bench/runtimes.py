"""Figure 9: ``check_call`` of a three-part shell command against 250 rules of each runtime.

One generated repository per runtime, each with 250 rules of the kinds real projects write:

- Claude Code: ``.claude/settings.json`` (Bash prefixes in allow / ask / deny, Read / Edit
  paths, WebFetch domains, MCP globs), asked about ``Bash``;
- Gemini CLI: a user-tier policy file ``~/.gemini/policies/bench.toml`` (``[[rule]]`` with
  ``commandPrefix`` / ``commandRegex`` for ``run_shell_command``, ``argsPattern`` for
  ``read_file`` / ``write_file``, MCP ``mcpName`` rules, priorities), the project holding
  ``.gemini/settings.json``, asked about ``run_shell_command``;
- Codex: ``.codex/rules/bench.rules`` (``prefix_rule`` with alternatives, allow / prompt /
  forbidden, justifications) in a trusted project, asked about ``shell`` with
  ``["bash", "-lc", SCRIPT]`` (Codex splits the word-only script into its three commands).

The command ``git status && npm test | tee out.txt`` has three parts, each matched by an
allow rule. Rows:

- 9 / 9a / 9b: the same command again and again (Claude Code, Gemini CLI, Codex): target
  median ≤ 50 µs (issue 21);
- 9c / 9d / 9e: a new command every call (nothing cached: parse, split, every part
  matched): target median ≤ 200 µs.

Each runtime's decision is checked before timing (allowed, three parts).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import Row

N_RULES = 250
COMMAND = "git status && npm test | tee out.txt"
TOOLS = ["npm", "git", "docker", "kubectl", "make", "cargo", "go", "python3", "pip", "yarn"]
SUBCOMMANDS = ["run", "test", "build", "status", "log", "push", "install", "exec", "apply",
               "diff", "lint", "fmt", "check", "deploy", "clean"]
CACHED_TARGET = 50e-6
NEW_TARGET = 200e-6


def fresh_command(i: int, runtime: str = "") -> str:
    """The ``i``-th never-seen command: the same three programs, different arguments. Each
    runtime gets its own (``runtime`` is in the words), so no engine meets a command another
    one parsed before (the tree-sitter splitter they share keeps its parses)."""
    tag = f"{runtime}{i}"
    return f"git status --short s{tag} && npm test -- --shard={tag} | tee out{tag}.txt"


@dataclass(frozen=True)
class Runtime:
    """One runtime's generated project and how a shell call of it is written."""

    name: str
    title: str
    tool: str
    rules: int
    args: Callable[[str], dict[str, Any]]


# -- the generated rules --------------------------------------------------------------------

def claude_settings(n_rules: int = N_RULES) -> dict[str, Any]:
    """A Claude Code settings object with ``n_rules`` rules (``tee`` allowed too)."""
    allow = ["Bash(tee *)"] + [f"Bash({t} {s} *)" for t in TOOLS for s in SUBCOMMANDS]
    allow += [f"Edit(/src{i}/**)" for i in range(20)] + [f"mcp__srv{i}__*" for i in range(10)]
    allow += [f"WebFetch(domain:docs{i}.example.com)" for i in range(10)]
    deny = [f"Bash({t} {s} --force *)" for t in TOOLS for s in SUBCOMMANDS[:4]]
    deny += [f"Read(./secret{i}/**)" for i in range(10)]
    ask = [f"Bash({t} push *)" for t in TOOLS] + [f"Edit(/conf{i}/**)" for i in range(10)]
    ask += [f"WebFetch(domain:*.site{i}.com)" for i in range(10)]
    allow = allow[:max(n_rules - len(deny) - len(ask), 0)]
    return {"permissions": {"allow": allow, "ask": ask, "deny": deny}}


def _toml_rule(**fields: Any) -> str:
    def value(v: Any) -> str:
        return json.dumps(v)  # TOML basic strings, ints and arrays read as JSON writes them
    return "[[rule]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in fields.items()) + "\n"


def gemini_policy(n_rules: int = N_RULES) -> tuple[str, int]:
    """A Gemini CLI policy file of ``n_rules`` rules and how many it holds."""
    rules = [_toml_rule(toolName="run_shell_command", commandPrefix="tee", decision="allow",
                        priority=100)]
    rules += [_toml_rule(toolName="run_shell_command", commandPrefix=f"{t} {s}",
                         decision="allow", priority=100)
              for t in TOOLS for s in SUBCOMMANDS]
    rules += [_toml_rule(toolName="run_shell_command", commandRegex=f"{t} {s} .*--force.*",
                         decision="deny", priority=500, denyMessage="no forced runs")
              for t in TOOLS for s in SUBCOMMANDS[:4]]
    rules += [_toml_rule(toolName="run_shell_command", commandPrefix=f"{t} push",
                         decision="ask_user", priority=300) for t in TOOLS]
    rules += [_toml_rule(toolName="read_file", argsPattern=f'"file_path":"[^"]*secret{i}/',
                         decision="deny", priority=400) for i in range(10)]
    rules += [_toml_rule(toolName="write_file", argsPattern=f'"file_path":"[^"]*conf{i}/',
                         decision="ask_user", priority=200) for i in range(10)]
    rules += [_toml_rule(mcpName=f"srv{i}", toolName="*", decision="allow", priority=50)
              for i in range(10)]
    rules += [_toml_rule(toolName="web_fetch", argsPattern=f"docs{i}\\.example\\.com",
                         decision="allow", priority=60) for i in range(10)]
    rules += [_toml_rule(toolName="replace", argsPattern=f'"file_path":"[^"]*/gen{i}/',
                         decision="deny", priority=450) for i in range(10)]
    rules = rules[:n_rules]
    return "".join(rules), len(rules)


def codex_rules(n_rules: int = N_RULES) -> tuple[str, int]:
    """A Codex ``.rules`` file of ``n_rules`` prefix rules and how many it holds."""
    def rule(pattern: list[Any], decision: str, why: str | None = None) -> str:
        text = f"prefix_rule(pattern={json.dumps(pattern)}, decision={json.dumps(decision)}"
        return text + (f", justification={json.dumps(why)})\n" if why else ")\n")

    rules = [rule(["tee"], "allow")]
    rules += [rule([t, s], "allow") for t in TOOLS for s in SUBCOMMANDS]
    rules += [rule([t, s, "--force"], "forbidden", "no forced runs")
              for t in TOOLS for s in SUBCOMMANDS[:4]]
    rules += [rule([t, "push"], "prompt", "pushes are reviewed") for t in TOOLS]
    rules += [rule(["rm", ["-rf", "-fr"], f"/data{i}"], "forbidden", "shared data")
              for i in range(10)]
    rules += [rule(["curl", ["-X", "--request"], ["PUT", "DELETE"], f"api{i}.internal"],
                   "prompt") for i in range(10)]
    rules += [rule([f"tool{i}", ["lint", "fmt", "check"]], "allow") for i in range(30)]
    rules = rules[:n_rules]
    return "".join(rules), len(rules)


# -- the projects ---------------------------------------------------------------------------

def projects(base: Path, n_rules: int = N_RULES) -> dict[str, tuple[Any, Runtime]]:
    """The three generated projects, loaded: runtime name -> (project, how to call it)."""
    import toolkit as tk

    out: dict[str, tuple[Any, Runtime]] = {}

    claude = base / "claude" / "repo"
    (claude / ".claude").mkdir(parents=True, exist_ok=True)
    data = claude_settings(n_rules)
    (claude / ".claude" / "settings.json").write_text(json.dumps(data, indent=2))
    count = sum(len(v) for v in data["permissions"].values())
    out["claude-code"] = (tk.load(claude, home=False, managed=False),
                          Runtime("claude-code", "Claude Code", "Bash", count,
                                  lambda command: {"command": command}))

    gemini = base / "gemini" / "repo"
    home = base / "gemini" / "home"
    (gemini / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "policies").mkdir(parents=True, exist_ok=True)
    (gemini / ".gemini" / "settings.json").write_text("{}\n")
    text, count = gemini_policy(n_rules)
    (home / ".gemini" / "policies" / "bench.toml").write_text(text)
    out["gemini-cli"] = (tk.load(gemini, home=home, managed=False),
                         Runtime("gemini-cli", "Gemini CLI", "run_shell_command", count,
                                 lambda command: {"command": command}))

    codex = base / "codex" / "repo"
    home = base / "codex" / "home"
    (codex / ".codex" / "rules").mkdir(parents=True, exist_ok=True)
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    text, count = codex_rules(n_rules)
    (codex / ".codex" / "rules" / "bench.rules").write_text(text)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{codex.resolve()}"]\ntrust_level = "trusted"\n')
    out["codex"] = (tk.load(codex, home=home, managed=False),
                    Runtime("codex", "Codex", "shell", count,
                            lambda command: {"command": ["bash", "-lc", command]}))
    return out


def check(proj: Any, runtime: Runtime, command: str) -> Any:
    """One ``check_call`` of ``command`` as the runtime's shell tool."""
    return proj.check_call(runtime.tool, runtime.args(command), runtime=runtime.name)


def measure(repeat: int = 2000, n_rules: int = N_RULES, workdir: Path | None = None
            ) -> list[Row]:
    """Rows 9-9e (medians of ``repeat`` single calls per runtime)."""
    base = Path(tempfile.mkdtemp(prefix="bench-runtimes-")) if workdir is None else workdir
    loaded = projects(base, n_rules)
    cached: list[Row] = []
    fresh: list[Row] = []
    letters = iter(["9.", "9a.", "9b.", "9c.", "9d.", "9e."])
    for proj, runtime in loaded.values():
        first = check(proj, runtime, COMMAND)
        if not first.allowed or len(first.parts) != 3:
            raise AssertionError(f"{runtime.title}: the benchmark command is not decided as "
                                 f"expected:\n{first.report()}")
        for _ in range(min(repeat, 200)):  # warm up
            check(proj, runtime, COMMAND)
        same = _median(lambda i, p=proj, r=runtime: check(p, r, COMMAND), repeat)
        cached.append(Row(
            f"{next(letters)} `check_call` of a cached 3-part command against {runtime.rules} "
            f"{runtime.title} rules", same, target="≤ 50 µs", met=same <= CACHED_TARGET,
            note=f"`{COMMAND.replace('|', chr(92) + '|')}` as `{runtime.tool}`; median of "
                 f"{repeat} calls, one process"))
        new = _median(lambda i, p=proj, r=runtime: check(p, r, fresh_command(i, r.name)),
                      repeat)
        fresh.append(Row(
            f"the same, {runtime.title}, a new command every call", new, target="≤ 200 µs",
            met=new <= NEW_TARGET,
            note="nothing cached: the command is parsed, split and each part matched"))
    for row in fresh:
        row.figure = f"{next(letters)} {row.figure}"
    return cached + fresh


def _median(call: Callable[[int], Any], repeat: int) -> float:
    samples = []
    for i in range(repeat):
        start = time.perf_counter()
        call(i)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
