"""tk.convert measured on real policies: every real Claude Code settings file in the fixtures
(tests/fixtures/convert, SOURCES.md names each repo@commit, and
tests/fixtures/claude-settings-real) converted to each target runtime.

Per target: the calls compared (the corpus generated from each file's own rules, decided by
Claude Code and by the target's engine loaded from the written files), the share deciding the
same, then the calls deciding differently: not explained by a listed loss (``unlisted``, the
goal is 0), allowed by the target where the source asks or refuses (``allows more``: only
where a ``permissive`` loss says no written rule can stop it), asked where the source refuses
(``weaker``), asked or refused where the source allows (``stricter``); then the rule losses by
kind and the permissive behaviours met. Run: ``python -m bench.convert_corpus`` (about half a
minute).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
TARGETS = ("gemini-cli", "codex", "opencode", "cursor")
COUNTS = ("compared", "same", "unlisted", "allows_more", "weaker", "stricter")


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


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.convert_corpus",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", action="append", choices=TARGETS,
                        help="only this target (repeatable; default: all)")
    args = parser.parse_args(argv)
    files = real_files()
    print(table(measure(files, args.target or TARGETS), len(files)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
