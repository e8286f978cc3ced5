"""Mutation testing of the modules that decide (issue 25): ``make mutate [MODULES=...]``.

``MODULES`` below is the one list to edit when a module moves: each module with
the fast tests that exercise it. For each module asked for (all by default),
mutmut mutates it in a copy of the tree under ``$TMPDIR/toolmatrix-mutate/``
(the working tree is never written), runs the module's tests against each
mutant, and the share of mutants killed is printed, with every survivor's diff
in ``survivors.txt`` beside the copy.

    python tests/mutate.py                          # every module below
    python tests/mutate.py toolkit/core/decision.py # one (or several)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# module -> the tests that exercise it (kept fast: mutmut runs them once per mutant)
MODULES: dict[str, tuple[str, ...]] = {
    "toolkit/core/decision.py": (
        "tests/core/test_decision.py", "tests/core/test_decision_mutants.py",
        "tests/core/permissions", "tests/test_why.py",
    ),
    "toolkit/systems/claude_code/permissions/evaluate.py": (
        "tests/core/permissions", "tests/core/test_claude_code_layout.py",
    ),
    "toolkit/systems/claude_code/permissions/rules.py": (
        "tests/core/permissions", "tests/core/test_claude_code_layout.py",
    ),
    "toolkit/systems/claude_code/permissions/bash.py": ("tests/core/permissions",),
    "toolkit/systems/base/shell.py": ("tests/core/permissions",),
    "toolkit/analysis/diff.py": ("tests/core/test_diff.py", "tests/core/test_diff_mutants.py",
                                 "tests/analysis/test_diff_witness.py"),
    # the fast set without servers (tests/runtime/test_lock.py starts MCP servers: under
    # mutmut's forked workers every mutant timed out; those tests stay, run by make test)
    "toolkit/analysis/lock.py": ("tests/runtime/test_lock_mutants.py",),
    # without tests/core/test_replay.py: its spawn-tree test starts live sessions, whose
    # event-loop thread (left running in mutmut's parent by the stats run) is missing in the
    # forked workers, so the test hangs there and every mutant it covers times out
    "toolkit/analysis/replay.py": ("tests/core/test_replay_mutants.py",
                                   "tests/test_cli_replay.py"),
}

# what the tests read besides toolkit/ and tests/ (mutmut copies these into its mutants/)
DATA = ("notebooks", "docs", "README.md")
COPIED = ("toolkit", "tests", "pyproject.toml", *DATA)


def _copy_tree(dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "mutants")
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / name)


def _config(module: str, tests: tuple[str, ...]) -> str:
    present = [t for t in tests if (ROOT / t).exists()]
    return (
        "\n[tool.mutmut]\n"
        'source_paths = ["toolkit"]\n'
        f"only_mutate = [{json.dumps(module)}]\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(present)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-W", "ignore"]\n'
        f"also_copy = {json.dumps(list(DATA))}\n"
        "use_git_change_detection = false\n"
    )


def mutate(module: str, workdir: Path, children: int) -> dict[str, int]:
    """Run mutmut on ``module`` in a fresh copy under ``workdir``; its summary counts."""
    copy = workdir / Path(module).with_suffix("").as_posix().replace("/", ".")
    _copy_tree(copy)
    with (copy / "pyproject.toml").open("a") as f:
        f.write(_config(module, MODULES[module]))
    mutmut = [str(Path(sys.executable).parent / "mutmut")]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    log = copy / "mutmut.log"
    with log.open("w") as out:
        run = subprocess.run([*mutmut, "run", "--max-children", str(children)], cwd=copy,
                             env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if run.returncode != 0:
        print(f"{module}: mutmut failed (exit {run.returncode}), see {log}")
        return {}
    subprocess.run([*mutmut, "export-cicd-stats"], cwd=copy, env=env,
                   capture_output=True, check=False)
    stats_file = copy / "mutants" / "mutmut-cicd-stats.json"
    if not stats_file.exists():
        print(f"{module}: mutmut did not finish, see {log}")
        return {}
    stats: dict[str, int] = json.loads(stats_file.read_text())
    listing = subprocess.run([*mutmut, "results"], cwd=copy, env=env, capture_output=True,
                             text=True, check=False).stdout
    survivors = [line.split(":")[0].strip() for line in listing.splitlines()
                 if line.strip().endswith(": survived")]
    with (copy / "survivors.txt").open("w") as out:
        for name in survivors:
            shown = subprocess.run([*mutmut, "show", name], cwd=copy, env=env,
                                   capture_output=True, text=True, check=False).stdout
            out.write(f"# {name}\n{shown}\n")
    return stats


def main(argv: list[str]) -> int:
    modules = argv or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        print(f"not in tests/mutate.py MODULES: {', '.join(unknown)}")
        return 2
    workdir = Path(os.environ.get("MUTATE_DIR") or Path(tempfile.gettempdir())
                   / "toolmatrix-mutate")
    children = int(os.environ.get("MUTATE_CHILDREN") or 2)
    rows = []
    for module in modules:
        stats = mutate(module, workdir, children)
        total = stats.get("total", 0)
        killed = stats.get("killed", 0)  # a timeout is not counted as a kill: shown apart
        share = f"{100 * killed / total:.1f} %" if total else "-"
        rows.append(f"{module}: {killed}/{total} killed ({share}), "
                    f"{stats.get('survived', 0)} survived, {stats.get('timeout', 0)} timed out, "
                    f"{stats.get('no_tests', 0)} not reached by its tests")
        print(rows[-1], flush=True)
    print(f"\nsurvivors' diffs: {workdir}/<module>/survivors.txt")
    for row in rows:
        print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
