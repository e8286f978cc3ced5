"""``toolmatrix test PATH``: run the calls of ``toolmatrix.tests.yaml`` beside the policy.

Each case goes through the project's own engine (``proj.check_call``); each failure is
printed with the deciding rule (``file:line``) and the expected effect. ``--coverage``
lists the permission rules no test covers; ``--threshold N`` fails under N % rule
coverage. Exit status: 0 all passed, 1 a failed case, coverage under the threshold or a
malformed test file (``file:line: what to fix``), 2 a usage error. ``--format json`` and
``--format sarif`` (SARIF 2.1.0: failed cases as errors at their test, uncovered rules as
notes at the rule with ``--coverage``) are for CI.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, TextIO

from ..analysis.policy_tests import TEST_FILES, run_tests
from ._common import UsageError, add_load_options, load_project
from ._registry import verb
from ._sarif import Finding, sarif


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help=f"the project folder, or its test file ({TEST_FILES[0]} "
                                     "or .toml; the project is the file's folder)")
    parser.add_argument("--tests", default=None,
                        help="the test file, when it is not beside the policy")
    parser.add_argument("--coverage", action="store_true",
                        help="list the permission rules no test covers")
    parser.add_argument("--threshold", type=float, default=None, metavar="N",
                        help="fail under N %% rule coverage")
    parser.add_argument("--format", choices=["table", "json", "sarif"], default="table")
    add_load_options(parser)


@verb("test", "run toolmatrix.tests.yaml beside the policy; exit 1 on a failed case "
              "(--coverage: rules no test covers; --threshold N)", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print failures (and with --coverage the uncovered rules), then a summary line."""
    if args.threshold is not None and not 0 <= args.threshold <= 100:
        raise UsageError(f"--threshold must be a percentage from 0 to 100, not {args.threshold}")
    root, tests = Path(args.path), args.tests
    if root.is_file():
        root, tests = root.parent, tests or str(root)
    proj = load_project(args, root)
    try:
        report = run_tests(proj, tests)
    finally:
        proj.close()
    under = args.threshold is not None and report.percent < args.threshold
    failed = bool(len(report.failures)) or under
    if report.file is None and not len(report.results):
        print(f"toolmatrix: warning: no test file beside the policy ({', '.join(TEST_FILES)})",
              file=err)
    if args.format == "json":
        print(json.dumps(_json(report, args, under, failed), indent=2, default=str), file=out)
        return 1 if failed else 0
    if args.format == "sarif":
        print(json.dumps(_sarif(report, args.coverage or under), indent=2, default=str),
              file=out)
        return 1 if failed else 0
    for line in report.failure_lines():
        print(line, file=out)
    if args.coverage:
        _print_uncovered(report, out)
    print(report.summary(), file=out)
    if under:
        print(f"toolmatrix: error: rule coverage {report.percent:.1f}% is under the threshold "
              f"{args.threshold:g}%", file=err)
    return 1 if failed else 0


def _json(report: Any, args: argparse.Namespace, under: bool, failed: bool) -> dict[str, Any]:
    results = report.results.astype(object).where(report.results.notna(), None)
    coverage = report.coverage.astype(object).where(report.coverage.notna(), None)
    return {"file": report.file, "ok": not failed,
            "cases": results.to_dict("records"),
            "failures": len(report.failures),
            "coverage": {"percent": round(report.percent, 2), "threshold": args.threshold,
                         "under_threshold": under,
                         "rules": coverage.to_dict("records") if args.coverage
                         else coverage[coverage["status"] != "covered"].to_dict("records")}}


def _missing(value: Any) -> bool:
    return value is None or str(value) == "<NA>"


def _print_uncovered(report: Any, out: TextIO) -> None:
    uncovered = report.uncovered
    if len(uncovered):
        print(f"rules no test covers ({len(uncovered)}):", file=out)
    for row in uncovered.to_dict("records"):
        where = row["file"] if _missing(row["line"]) else f"{row['file']}:{row['line']}"
        whose = f" (agent {row['agent']})" if row["agent"] else ""
        note = "  (matched, never decided)" if row["status"] == "matched" else ""
        print(f"  {where}: {row['kind']} {row['rule']}{whose}{note}", file=out)


_CASE_AT = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?: |$)")


def _sarif(report: Any, uncovered: bool) -> dict[str, Any]:
    """Failed cases as errors at their test (``file:line``); with ``--coverage`` or a missed
    ``--threshold``, each rule no test covers as a note at the rule."""
    findings = []
    for line, row in zip(report.failure_lines(), report.failures.to_dict("records"),
                         strict=True):
        at = _CASE_AT.match(str(row["case"]))
        findings.append(Finding("failed-case", "error", line.split(": ", 1)[1],
                                at["file"] if at else report.file,
                                int(at["line"]) if at else None))
    if uncovered:
        for row in report.uncovered.to_dict("records"):
            whose = f" (agent {row['agent']})" if isinstance(row["agent"], str) else ""
            findings.append(Finding(
                "uncovered-rule", "note",
                f"no test covers the {row['kind']} rule {row['rule']}{whose}"
                + (" (matched, never decided)" if row["status"] == "matched" else ""),
                row["file"], None if _missing(row["line"]) else int(row["line"])))
    return sarif("toolmatrix test", {"failed-case": "a test case got another effect",
                                     "uncovered-rule": "a permission rule no test covers"},
                 findings)
