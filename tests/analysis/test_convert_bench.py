"""bench/convert_corpus.py: the table of tk.convert over the real settings files adds up the
conversions' own counts (the figures the report and the README quote)."""

from __future__ import annotations

import shutil
from pathlib import Path

import toolkit as tk
from bench.convert_corpus import measure, real_files, table
from toolkit.analysis.convert import convert


def test_the_corpus_table_sums_each_conversions_counts(tmp_path: Path) -> None:
    files = real_files()
    assert len(files) >= 30
    chosen = [f for f in files if f.name.startswith(("soochol", "sonarsource"))]
    results = measure(chosen, ("codex",))
    expected = {"compared": 0, "same": 0, "unlisted": 0}
    for index, settings in enumerate(chosen):
        root = tmp_path / str(index)
        (root / ".claude").mkdir(parents=True)
        shutil.copy(settings, root / ".claude" / "settings.json")
        conv = convert(tk.load(root, home=False, managed=False), to="codex")
        for key in expected:
            expected[key] += conv.counts[key]
    counts = results["codex"]["counts"]
    assert {k: counts[k] for k in expected} == expected
    row = next(line for line in table(results, 2).splitlines() if line.startswith("| codex"))
    share = expected["same"] / expected["compared"]
    assert row.startswith(f"| codex | {expected['compared']} | {expected['same']} "
                          f"({share:.1%}) | {expected['compared'] - expected['same']} | 0 |")


def test_the_other_sources_table_has_a_row_per_source_and_target_none_unlisted() -> None:
    from bench.convert_corpus import ALL_TARGETS, SOURCES, measure_sources, sources_table

    measured = measure_sources()
    assert set(measured) == set(SOURCES)
    rows = [line for line in sources_table(measured).splitlines()
            if line.startswith("| ") and not line.startswith("| source")]
    assert len(rows) == len(SOURCES) * len(ALL_TARGETS)
    for source, (n_files, results) in measured.items():
        assert n_files >= 4, source
        for target, data in results.items():
            counts = data["counts"]
            assert counts["compared"] > 0, (source, target)
            assert counts["unlisted"] == 0, (source, target)
            # a call allowed more only where a permissive loss (no rule can stop it) says so
            permissive = data["permissive"]
            assert sum(permissive.values()) == counts["allows_more"], (source, target)
            assert all(why.startswith("OpenCode asks no bash permission for cd")
                       for why in permissive), (source, target, permissive)
