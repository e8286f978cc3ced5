"""``toolmatrix convert PATH --to R``: a project's policy written for another runtime, proved.

The policy (Claude Code's, Gemini CLI's, Codex's or OpenCode's; ``--source`` names the
runtime when the folder holds several) is written in the target runtime's own files
(:func:`toolkit.analysis.convert.convert`), which are loaded back with the target's engine;
every corpus call is decided by both.
Printed: the files (their text, when no ``--out`` is given: what would be written), one line
per loss (``file:line: action: rule — why``), the differences grouped by the loss that
explains them (``--differences`` lists each one), then a summary.

``--out DIR`` writes the files under ``DIR`` (a file of the home folder, ``~/...``, under
``DIR/home``); never into the source project: a ``DIR`` inside it is a usage error.

Exit status: 0; 1 with ``--strict`` when a difference is not explained by a listed loss, a
call is allowed where the source asks or refuses, or the target's engine reported a problem
in the written files; 2 on bad input (no folder, a settings file that cannot be read, a
runtime that cannot be converted from or to).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..analysis.convert import TARGETS
from ..errors import DefinitionError
from ._common import USAGE_ERROR, UsageError, add_load_options, load_project, print_problems
from ._registry import verb

if TYPE_CHECKING:
    from ..analysis.convert import Conversion



def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder holding the policy (.claude/, "
                                     ".gemini/, .codex/, opencode.json, ...)")
    parser.add_argument("--to", required=True, choices=TARGETS, metavar="RUNTIME",
                        help=f"the runtime to write for: {', '.join(TARGETS)}")
    parser.add_argument("--out", metavar="DIR",
                        help="write the files under DIR (never inside the source project); "
                             "without it, print what would be written")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when a call decides differently and no listed loss "
                             "explains it, or decides more permissively")
    parser.add_argument("--source", metavar="RUNTIME", default=None,
                        help="the runtime whose policy is converted, when the folder holds "
                             "several (default: the one it holds)")
    parser.add_argument("--differences", action="store_true",
                        help="list every call deciding differently (default: grouped)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    # a translation of what the project holds: no user or managed layer unless asked for
    add_load_options(parser, home_default=False, flags=False)


@verb("convert", "write the policy for another runtime (Gemini CLI, Codex, OpenCode, Cursor, "
                 "Claude Code), with what is lost and the proof; --strict exits 1 on an "
                 "unlisted difference", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Convert, print (or write) the files, the losses and the differences."""
    from ..analysis.convert import convert

    root = Path(args.path)
    destination = Path(args.out) if args.out else None
    if destination is not None and _inside(destination, root):
        raise UsageError(f"--out {args.out} is inside the source project {args.path}: the "
                         "converted files are never written into it; pick a folder outside")
    try:
        proj = load_project(args)
    except DefinitionError as exc:
        print_problems(exc, err)
        return USAGE_ERROR
    try:
        conv = convert(proj, to=args.to, source=args.source)
    except ValueError as exc:
        raise UsageError(" ".join(str(exc).split())) from None
    finally:
        proj.close()
    try:
        written = ([str(p) for p in conv.write(destination)] if destination is not None
                   else None)
    except OSError as exc:  # --out names a file, or a folder that cannot be written
        raise UsageError(f"--out {args.out}: cannot write the converted files there: "
                         f"{exc.strerror or exc}") from None
    if args.format == "json":
        print(json.dumps(_json(conv, written), indent=2, ensure_ascii=False, default=str),
              file=out)
    else:
        _table(conv, written, args.differences, out)
    return 1 if args.strict and not conv.ok else 0


def _inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or lies below it (symbolic links resolved)."""
    here, top = path.resolve(), root.resolve()
    return here == top or top in here.parents


def _records(frame: Any) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in r.items()}
            for r in frame.astype(object).where(frame.notna(), None).to_dict("records")]


def _json(conv: Conversion, written: list[str] | None) -> dict[str, Any]:
    return {"source": conv.source, "target": conv.target, "ok": conv.ok,
            "files": conv.files, "written": written, "counts": conv.counts,
            "same": round(conv.same, 4), "losses": _records(conv.losses),
            "differences": _records(conv.check), "problems": conv.problems,
            "notes": conv.notes}


def loss_line(row: dict[str, Any]) -> str:
    """One loss: ``file:line: action: rule — why [written: ...]`` (a runtime behaviour rather
    than a rule: ``runtime: semantics: why``)."""
    if row.get("file") is None and row.get("kind") is None:
        return f"runtime: {row['action']}: {row['why']}"
    where = f"{row['file']}:{row['line']}" if row.get("line") is not None else row["file"]
    written = f" [written: {row['written']}]" if row.get("written") else ""
    return f"{where}: {row['action']}: {row['rule']} — {row['why']}{written}"


def difference_line(row: dict[str, Any]) -> str:
    """One call deciding differently: the call, both decisions and their rules, the loss."""
    source = f"{row['source']}" + (f" by {row['source_rule']}" if row.get("source_rule") else "")
    target = f"{row['target']}" + (f" by {row['target_rule']}" if row.get("target_rule") else "")
    listed = "listed" if row["listed"] else "NOT LISTED"
    return (f"{row['tool']} {row['command']!r} ({row['variant']}): {source} -> "
            f"{row['target_tool']} {target} [{row['direction']}, {listed}]")


def _differences(rows: list[dict[str, Any]], each: bool, out: TextIO) -> None:
    """Every difference (``each``), or the listed ones grouped by their loss with one example,
    then every unlisted one in full."""
    print(f"\ncalls deciding differently ({len(rows)}):", file=out)
    if not each:
        groups = Counter((r["direction"], r["loss"]) for r in rows if r["listed"])
        for (direction, why), count in groups.most_common():
            example = next(r for r in rows if r["listed"] and r["loss"] == why
                           and r["direction"] == direction)
            print(f"{count} {direction}, e.g. {example['tool']} {example['command']!r}: "
                  f"{example['source']} -> {example['target']} — {why}", file=out)
    for row in rows:
        if each or not row["listed"]:
            print(difference_line(row), file=out)


def _table(conv: Conversion, written: list[str] | None, each: bool, out: TextIO) -> None:
    if written is None:
        for path, text in conv.files.items():
            print(f"--- would write {path} ---", file=out)
            print(text.rstrip("\n"), file=out)
    for path in written or ():
        print(f"wrote {path}", file=out)
    losses = _records(conv.losses)
    if losses:
        print(f"\nlosses ({len(losses)}):", file=out)
        for row in losses:
            print(loss_line(row), file=out)
    rows = _records(conv.check)
    if rows:
        _differences(rows, each, out)
    print("", file=out)
    print(conv.summary(), file=out)
