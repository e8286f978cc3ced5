"""``toolmatrix probe PATH``: does a rule hold when its command is spelt another way?

Every shell-command rule of every runtime (Claude Code ``Bash(...)``, Gemini CLI
``commandPrefix`` / ``commandRegex``, Codex ``prefix_rule``, OpenCode's ``bash`` patterns,
Cursor's ``Shell(...)`` tokens, VS Code's terminal auto-approve entries) is probed with
200-odd named templates, each variant decided by the project's own engine
(:mod:`toolkit.analysis.probe`). One line per finding (``file:line: kind: rule — command;
effect by RULE [template]``), then a summary; ``--rules`` adds the rules skipped (their own
command is decided otherwise, or their runtime is not probed: a warning names it).

Exit status: 1 when a finding has a kind of ``--fail-on`` (default ``deny-bypass``: a deny
or ask rule whose command runs unasked in another form does not do what its author wrote;
an ``allow-escape`` is often the documented reach of a broad allow, such as
``Bash(python:*)`` running any Python, so it is reported and fails only when named), 0
otherwise, 2 a usage error (an unknown mode or rule). ``--format json`` and ``--format
sarif`` (SARIF 2.1.0, findings at the rule's file:line) are for CI.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from ..analysis.probe import KINDS, run_probe
from ._common import UsageError, add_load_options, load_project
from ._registry import verb
from ._sarif import Finding, sarif

_LEVEL = {"deny-bypass": "error", "allow-escape": "warning"}


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder")
    parser.add_argument("--format", choices=["table", "json", "sarif"], default="table")
    parser.add_argument("--fail-on", default="deny-bypass", metavar="KINDS",
                        help="comma-separated finding kinds that make the exit status 1 "
                             f"({', '.join(KINDS)}; default deny-bypass; '' never)")
    parser.add_argument("--mode", default=None,
                        help="the permission mode to decide in (default: the project's own; "
                             "bypassPermissions or yolo shows what deny rules alone stop)")
    parser.add_argument("--rule", action="append", default=None, metavar="TEXT",
                        help="probe only this rule (as written, e.g. 'Bash(git push *)'); "
                             "repeatable")
    parser.add_argument("--runtime", default=None, help="only this runtime's rules")
    parser.add_argument("--rules", action="store_true",
                        help="also list each rule probed or skipped, with its seed command")
    add_load_options(parser)


@verb("probe", "bypass probes: each shell-command rule's command respelt 200-odd ways, "
               "each decided by the engine; exit 1 on a deny-bypass (--fail-on)", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the findings (or JSON / SARIF); exit 1 when one has a --fail-on kind."""
    fail_on = {s.strip() for s in args.fail_on.split(",") if s.strip()}
    unknown = sorted(fail_on - set(KINDS))
    if unknown:
        raise UsageError(f"--fail-on: unknown kind {unknown[0]!r}; kinds: {', '.join(KINDS)}")
    proj = load_project(args)
    try:
        report = run_probe(proj, args.rule, args.mode, args.runtime)
    except ValueError as exc:  # an unknown mode or rule: what is wrong and what exists
        raise UsageError(" ".join(str(exc).split())) from None
    finally:
        proj.close()
    rows = _records(report.findings)
    failed = any(r["kind"] in fail_on for r in rows)
    if args.format == "json":
        print(json.dumps({"ok": not failed, "fail_on": sorted(fail_on), "mode": args.mode,
                          "variants": report.variants, "findings": rows,
                          "rules": _records(report.rules)}, indent=2, default=str), file=out)
    elif args.format == "sarif":
        findings = [Finding(r["kind"], _LEVEL[r["kind"]], _line(r).split(": ", 1)[1],
                            r["file"], r["line"]) for r in rows]
        print(json.dumps(sarif("toolmatrix probe", {
            "allow-escape": "an allow rule lets a dangerous payload run unasked",
            "deny-bypass": "a deny or ask rule's command runs unasked in another form"},
            findings), indent=2, default=str), file=out)
    else:
        for row in rows:
            print(_line(row), file=out)
        if args.rules:
            for rule in _records(report.rules):
                where = rule["file"] if rule["line"] is None else f"{rule['file']}:{rule['line']}"
                note = f" — {rule['note']}" if rule["note"] else ""
                print(f"{where}: {rule['status']}: {rule['kind']} {rule['rule']} (seed "
                      f"{rule['seed']!r}, {rule['variants']} variants, {rule['findings']} "
                      f"findings){note}", file=out)
        print(report.summary(), file=out)
    for runtime in report.unprobed:
        count = int((report.rules["runtime"] == runtime).sum())
        print(f"toolmatrix: warning: {runtime} is not probed: toolkit does not know which "
              f"commands its rules speak of ({count} rule(s) listed as skipped, --rules)",
              file=err)
    if not len(report.rules):
        print("toolmatrix: warning: no shell-command rule to probe", file=err)
    return 1 if failed else 0


def _records(frame: Any) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in r.items()}
            for r in frame.astype(object).where(frame.notna(), None).to_dict("records")]


def _line(row: dict[str, Any]) -> str:
    where = row["file"] if row["line"] is None else f"{row['file']}:{row['line']}"
    by = row["deciding_rule"] or f"no rule ({row['reason']})"
    return (f"{where}: {row['kind']}: {row['rule_kind']} {row['rule']} — {row['command']!r} "
            f"runs unasked ({row['effect']} by {by}) [{row['template']}]")
