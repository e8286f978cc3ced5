"""``toolmatrix replay PATH SOURCE``: logged calls against the policy, for people and CI.

Exit status: 0; 1 with ``--fail-on-regressions`` when a call that ran then would
not be allowed now (or on broken definitions); 2 on a usage error (no such
source, an unknown ``--main`` agent). Unreadable log lines are warning lines
(``toolmatrix: warning: file:line: ...``) on stderr, never fatal.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..core.presets import all_presets
from ..systems.registry import modes
from ._common import UsageError, load, warn
from ._registry import verb
from ._tables import FORMATS, write_frame, write_sections

CALLS = ["time", "session", "agent", "tool", "args", "effect", "reason", "rule", "file", "line",
         "observed", "source"]
RULES = ["agent", "kind", "rule", "layer", "file", "line", "hits", "decisive", "status"]
SHOW = ("summary", "calls", "regressions", "newly-allowed", "rules", "suggest")


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder")
    parser.add_argument("source", help="a session log or a folder of them: Claude Code "
                                       "(~/.claude/projects/...), Gemini CLI (~/.gemini/tmp/"
                                       ".../chats), Codex (~/.codex/sessions), OpenCode "
                                       "(opencode.db or storage/), VS Code (workspaceStorage/"
                                       ".../chatSessions); a toolkit audit log, or a call "
                                       "table (.jsonl / .csv)")
    parser.add_argument("--main", metavar="AGENT",
                        help="evaluate the main conversation's calls as this agent")
    parser.add_argument("--preset", choices=list(all_presets()))
    parser.add_argument("--mode", choices=modes(),
                        help="Claude Code permission mode for argument-level evaluation")
    parser.add_argument("--runtime", default=None, metavar="R",
                        help="the runtime whose permission engine judges the calls (needed "
                             "when the folder holds the settings of several)")
    parser.add_argument("--names-only", action="store_true",
                        help="evaluate tool names only, never arguments (no check_call)")
    parser.add_argument("--show", choices=SHOW, default="summary",
                        help="what to print (default: the summary and the tables that need "
                             "attention)")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("--fail-on-regressions", action="store_true",
                        help="exit 1 when a call that ran then would not be allowed now")


@verb("replay", "evaluate logged tool calls against the policy (exit 1 on regressions with "
                "--fail-on-regressions)", _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the replay (summary, or one table); the exit status says whether it regressed."""
    from ..analysis.replay import replay

    proj = load(args.path, args.preset)
    try:
        rp = replay(proj, args.source, preset=args.preset, main=args.main, mode=args.mode,
                    arguments=False if args.names_only else None, runtime=args.runtime)
    except (FileNotFoundError, ValueError) as exc:  # ValueError: which runtime (--runtime)
        raise UsageError(str(exc)) from None
    warn(rp.problem_lines(), err)
    warn(rp.warnings, err)
    if args.show == "summary":
        _summary(rp, args.format, out)
    else:
        table = {"calls": (rp.calls, CALLS), "regressions": (rp.regressions, CALLS),
                 "newly-allowed": (rp.newly_allowed, CALLS), "rules": (rp.rules, RULES),
                 "suggest": (rp.suggest(), None)}[args.show]
        write_frame(table[0], args.format, out, table[1])
    return 1 if args.fail_on_regressions and len(rp.regressions) else 0


def _summary(rp: object, fmt: str, out: TextIO) -> None:
    from ..analysis.replay import Replay

    assert isinstance(rp, Replay)
    print(rp.summary().split("\n  warning:")[0], file=out)
    sections = [("regressions (ran then, not allowed now)", rp.regressions, CALLS),
                ("newly allowed (denied then, allowed now)", rp.newly_allowed, CALLS),
                ("rules never decisive", rp.rules[rp.rules["status"] != "used"], RULES)]
    write_sections(sections, fmt, out)
