"""``toolmatrix lint PATH``: rules that can never decide, repeat others, or fight each other.

One line per finding (``file:line: status: rule — note; by RULE (file:line); witness
CALL``), then a summary. Statuses: ``dead`` (matches no tool of the pool), ``shadowed``
(a stronger or earlier identical rule decides every call it matches), ``redundant``
(removing it changes no effect), ``conflict`` (an allow a deny / ask rule overlaps),
``ok``; see :mod:`toolkit.analysis.lint`.

Exit status: 1 when a rule has a status of ``--fail-on`` (default ``dead,shadowed``: a
rule that can never decide is a mistake; a redundant rule is harmless and a conflict is
often a deliberate carve-out such as ``allow Bash(git *)`` with ``ask Bash(git push *)``,
so they are reported and fail only when named), 0 otherwise, 2 a usage error.
``--format sarif`` writes SARIF 2.1.0 for code-scanning uploads.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from ..analysis.lint import STATUSES, describe_witness, lint
from ._common import UsageError, add_load_options, load_project
from ._registry import verb
from ._sarif import Finding, sarif

_FINDINGS = tuple(s for s in STATUSES if s != "ok")
_LEVEL = {"dead": "error", "shadowed": "error", "conflict": "warning", "redundant": "note"}


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder")
    parser.add_argument("--format", choices=["table", "json", "sarif"], default="table")
    parser.add_argument("--fail-on", default="dead,shadowed", metavar="STATUSES",
                        help="comma-separated statuses that make the exit status 1 "
                             f"({', '.join(_FINDINGS)}; default dead,shadowed; '' never)")
    parser.add_argument("--all", action="store_true", help="list ok rules too")
    add_load_options(parser)


@verb("lint", "static rule analysis: dead, shadowed, redundant and conflicting permission "
              "rules, each with a witness call; exit 1 on dead or shadowed (--fail-on)",
      _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the findings (or JSON / SARIF); exit 1 when one has a --fail-on status."""
    fail_on = {s.strip() for s in args.fail_on.split(",") if s.strip()}
    unknown = sorted(fail_on - set(_FINDINGS))
    if unknown:
        raise UsageError(f"--fail-on: unknown status {unknown[0]!r}; statuses: "
                         f"{', '.join(_FINDINGS)}")
    proj = load_project(args)
    try:
        frame = lint(proj)
    finally:
        proj.close()
    rows: list[dict[str, Any]] = [
        {str(k): v for k, v in r.items()}
        for r in frame.astype(object).where(frame.notna(), None).to_dict("records")]
    failed = any(r["status"] in fail_on for r in rows)
    if args.format == "json":
        print(json.dumps({"ok": not failed, "fail_on": sorted(fail_on), "rules": rows},
                         indent=2, default=str), file=out)
    elif args.format == "sarif":
        print(json.dumps(_sarif(rows), indent=2, default=str), file=out)
    else:
        for row in rows:
            if row["status"] != "ok" or args.all:
                print(_line(row), file=out)
        counts = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
        print(f"{len(rows)} rule(s): " + ", ".join(f"{n} {s}" for s, n in counts.items()),
              file=out)
    if not rows:
        print("toolmatrix: warning: no permission rule to lint", file=err)
    return 1 if failed else 0


def _where(row: dict[str, Any]) -> str:
    return row["file"] if row["line"] is None else f"{row['file']}:{row['line']}"


def _line(row: dict[str, Any]) -> str:
    text = f"{_where(row)}: {row['status']}: {row['kind']} {row['rule']}"
    if row["note"]:
        text += f" — {row['note']}"
    if row["by"]:
        text += f"; by {row['by']} ({row['by_where']})"
    if row["witness"]:
        checked = "" if row["verified"] else " (not confirmed by check_call)"
        text += f"; witness {describe_witness(row['witness'])}{checked}"
    return text


def _sarif(rows: list[dict[str, Any]]) -> dict[str, Any]:
    findings = [Finding(row["status"], _LEVEL[row["status"]], _line(row).split(": ", 1)[1],
                        row["file"], row["line"])
                for row in rows if row["status"] != "ok"]
    return sarif("toolmatrix lint", {s: f"{s} permission rule" for s in _FINDINGS}, findings)
