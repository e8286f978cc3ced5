"""tk.convert measured on real policies: every real Claude Code settings file in the fixtures
(tests/fixtures/convert, SOURCES.md names each repo@commit, and
tests/fixtures/claude-settings-real) converted to each target runtime.

Per target: the calls compared (the corpus generated from each file's own rules, with the
commands runtimes run unasked when no rule matches: ``ls``, ``cat README.md``, ``git status``
... and each command the target's engine lists as such, and each file command Claude Code
checks against its Read / Edit rules on each denied or asked-for path: ``cat .env``,
``grep KEY .env``, ``touch .env``...; decided by Claude Code and by the
target's engine loaded from the written files), the share deciding the
same, then the calls deciding differently: not explained by a listed loss (``unlisted``, the
goal is 0), allowed by the target where the source asks or refuses (``allows more``: only
where a ``permissive`` loss says no written rule can stop it), asked where the source refuses
(``weaker``), asked or refused where the source allows (``stricter``); then the rule losses by
kind and the permissive behaviours met.

A second table converts the other sources' real files (tests/fixtures/gemini-cli,
codex/real, opencode: each folder names its repo@commit) to every target, Claude Code
included, the corpus generated from each source's own rules. Run: ``python -m
bench.convert_corpus`` (about a minute; ``--sources`` / ``--claude`` for one table).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
TARGETS = ("gemini-cli", "codex", "opencode", "cursor")
COUNTS = ("compared", "same", "unlisted", "allows_more", "weaker", "stricter")
#: the targets of the other sources' table (Claude Code is a target there)
ALL_TARGETS = ("claude-code", "gemini-cli", "codex", "opencode", "cursor")


def real_files() -> list[Path]:
    """The real settings files of the measured corpus."""
    return sorted([*(FIXTURES / "convert").glob("*.settings.json"),
                   *(FIXTURES / "claude-settings-real").glob("*.settings.json")])


def measure(files: Sequence[Path], targets: Sequence[str] = TARGETS
            ) -> dict[str, dict[str, Counter[str]]]:
    """target -> {"counts", "losses" (rule losses by action), "permissive" (the permissive
    behaviours that explained a call, by count)}."""
    import toolkit as tk
    from toolkit.analysis.convert import convert

    out = {t: {"counts": Counter[str](), "losses": Counter[str](),
               "permissive": Counter[str]()} for t in targets}
    with tempfile.TemporaryDirectory(prefix="toolmatrix-convert-bench-") as tmp:
        for index, settings in enumerate(files):
            root = Path(tmp) / str(index)
            (root / ".claude").mkdir(parents=True)
            shutil.copy(settings, root / ".claude" / "settings.json")
            proj = tk.load(root, home=False, managed=False)
            for target in targets:
                conv = convert(proj, to=target)
                out[target]["counts"].update({k: conv.counts[k] for k in COUNTS})
                out[target]["losses"].update(x.action for x in conv.loss_list if x.rule)
                more = conv.check[conv.check["direction"] == "allows more"]
                out[target]["permissive"].update(str(w) for w in more["loss"])
    return out


def table(results: dict[str, dict[str, Counter[str]]], n_files: int) -> str:
    """The markdown table of :func:`measure` (and the permissive behaviours, one per line)."""
    lines = [f"{n_files} real Claude Code settings files, each converted to each target",
             "",
             "| target | calls compared | decide the same | differ | unlisted | allows more "
             "| weaker | stricter | rule losses |",
             "|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for target, data in results.items():
        c = data["counts"]
        share = c["same"] / c["compared"] if c["compared"] else 1.0
        losses = ", ".join(f"{n} {action}" for action, n in sorted(data["losses"].items()))
        lines.append(f"| {target} | {c['compared']} | {c['same']} ({share:.1%}) | "
                     f"{c['compared'] - c['same']} | {c['unlisted']} | {c['allows_more']} | "
                     f"{c['weaker']} | {c['stricter']} | {losses or 'none'} |")
        notes += [f"- {target}: {n} call(s) allowed more, permissive loss: {why}"
                  for why, n in data["permissive"].most_common()]
    return "\n".join(lines + (["", *notes] if notes else []))


def _gemini(root: Path, fixture: Path) -> Path:
    """A trusted Gemini CLI project whose user tier holds ``fixture``; the home folder."""
    home = root.parent / (root.name + "-home")
    (root / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "policies").mkdir(parents=True)
    shutil.copy(fixture, home / ".gemini" / "policies" / "policy.toml")
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(root): "TRUST_FOLDER"}), encoding="utf-8")
    return home


def _codex(root: Path, fixture: Path) -> Path:
    """A trusted Codex project holding ``fixture`` (rules or config); the home folder."""
    home = root.parent / (root.name + "-home")
    (root / ".codex" / "rules").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    shutil.copy(fixture, root / ".codex" / ("rules/default.rules" if fixture.suffix == ".rules"
                                            else "config.toml"))
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{root}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    return home


def _opencode(root: Path, fixture: Path) -> Path:
    shutil.copytree(fixture, root)
    return root.parent / (root.name + "-home")


#: source runtime -> (its real files, how to make a project of one: returns the home folder)
SOURCES: dict[str, tuple[Callable[[], list[Path]], Callable[[Path, Path], Path]]] = {
    "gemini-cli": (lambda: sorted((FIXTURES / "gemini-cli").glob("*.toml")), _gemini),
    # tanf-app is refused by Codex itself (a wrong match example)
    "codex": (lambda: sorted(p for p in (FIXTURES / "codex" / "real").glob("*")
                             if p.suffix in (".rules", ".toml")
                             and not p.name.startswith("tanf-app")), _codex),
    # 0xC0D3D00D names a prompt file its excerpt does not hold: OpenCode refuses it
    "opencode": (lambda: sorted(p for p in (FIXTURES / "opencode").iterdir() if p.is_dir()
                                and p.name != "0xC0D3D00D-opencode.config"), _opencode),
}


def measure_sources(targets: Sequence[str] = ALL_TARGETS
                    ) -> dict[str, tuple[int, dict[str, dict[str, Counter[str]]]]]:
    """source -> (files, target -> {"counts", "losses", "permissive"}) over its real files."""
    import toolkit as tk
    from toolkit.analysis.convert import convert

    out: dict[str, tuple[int, dict[str, dict[str, Counter[str]]]]] = {}
    with tempfile.TemporaryDirectory(prefix="toolmatrix-convert-bench-") as tmp:
        for source, (files, make) in SOURCES.items():
            found = files()
            results = {t: {"counts": Counter[str](), "losses": Counter[str](),
                           "permissive": Counter[str]()} for t in targets}
            for index, fixture in enumerate(found):
                root = Path(tmp) / f"{source}-{index}"
                home = make(root, fixture)
                proj = tk.load(root, home=home, managed=False, runtime=source)
                for target in targets:
                    conv = convert(proj, to=target)
                    results[target]["counts"].update({k: conv.counts[k] for k in COUNTS})
                    results[target]["losses"].update(x.action for x in conv.loss_list
                                                     if x.rule)
                    more = conv.check[conv.check["direction"] == "allows more"]
                    results[target]["permissive"].update(str(w) for w in more["loss"])
            out[source] = (len(found), results)
    return out


def sources_table(measured: dict[str, tuple[int, dict[str, dict[str, Counter[str]]]]]) -> str:
    """The markdown table of :func:`measure_sources`, one row per source and target."""
    lines = ["Other sources: their real files, each converted to each target", "",
             "| source (files) | target | calls compared | decide the same | unlisted "
             "| allows more | weaker | stricter | rule losses |",
             "|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for source, (n_files, results) in measured.items():
        for target, data in results.items():
            c = data["counts"]
            share = c["same"] / c["compared"] if c["compared"] else 1.0
            losses = ", ".join(f"{n} {a}" for a, n in sorted(data["losses"].items()))
            lines.append(f"| {source} ({n_files}) | {target} | {c['compared']} | {c['same']} "
                         f"({share:.1%}) | {c['unlisted']} | {c['allows_more']} | "
                         f"{c['weaker']} | {c['stricter']} | {losses or 'none'} |")
            notes += [f"- {source} -> {target}: {n} call(s) allowed more, permissive loss: {why}"
                      for why, n in data["permissive"].most_common()]
    return "\n".join(lines + (["", *notes] if notes else []))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.convert_corpus",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", action="append", choices=TARGETS,
                        help="only this target (repeatable; default: all)")
    parser.add_argument("--sources", action="store_true",
                        help="only the other sources' table (Gemini CLI, Codex, OpenCode)")
    parser.add_argument("--claude", action="store_true",
                        help="only the Claude Code settings table")
    args = parser.parse_args(argv)
    if not args.sources:
        files = real_files()
        print(table(measure(files, args.target or TARGETS), len(files)))
    if not args.claude:
        print("" if args.sources else "\n")
        print(sources_table(measure_sources()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
