"""``toolmatrix why PATH TOOL 'ARGS'``: what Claude Code would do with one call, and why.

For a call that asks or is denied, the allow rules that came closest and why each does not
match (``near miss`` lines; ``near_misses`` in JSON).

Exit status: 0 when the call runs without a prompt, 1 when it is denied, 2 when it
asks (SPEC section 11). ``ARGS`` is a JSON object, or for a tool with one main field
just its value: ``toolmatrix why . Bash 'npm test && git push'``.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from ..core.decision import Effect, NearMiss
from ..render.decisions import decision_dict
from ..systems.registry import modes
from ._common import UsageError, add_load_options, load_project, warn
from ._registry import verb

#: SPEC section 11: "exit 0 allow, 1 deny, 2 ask".
EXIT = {Effect.ALLOW: 0, Effect.DENY: 1, Effect.IMPLICIT_DENY: 1, Effect.ASK: 2,
        Effect.CONDITIONAL: 2}


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="the project folder (holding .claude/)")
    parser.add_argument("tool", help="the tool called: Bash, Read, Edit, WebFetch, mcp__s__t ...")
    parser.add_argument("args", nargs="?", default="",
                        help="the call's arguments: a JSON object, or the command / path / "
                             "url itself")
    parser.add_argument("--agent", help="check as this subagent (its front matter applies too)")
    parser.add_argument("--mode", choices=modes(),
                        help="permission mode (default: the settings' defaultMode, else default)")
    parser.add_argument("--cwd", help="working directory (default: the project folder)")
    parser.add_argument("--hook", choices=["allow", "deny", "ask"],
                        help="what a PreToolUse hook would answer (what-if)")
    add_load_options(parser)
    parser.add_argument("--runtime", default=None,
                        help="whose permission engine answers, when the folder holds the "
                             "settings of several runtimes (claude-code, ...)")
    parser.add_argument("--format", choices=["text", "json"], default="text")


@verb("why", "why the runtime would allow, ask or deny one call (exit 0 allow, 1 deny, 2 ask)",
      _arguments)
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the decision and its trace; the exit status is its effect."""
    proj = load_project(args)
    try:
        call = proj.call_arguments(args.tool, args.args, runtime=args.runtime)
        decision = proj.check_call(args.tool, call, agent=args.agent, mode=args.mode,
                                   cwd=args.cwd, hook=args.hook, runtime=args.runtime)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    warn(decision.warnings, err)
    if args.format == "json":
        data = decision_dict(decision)
        # why a rule the user believes allows the call did not (issue 24 item 5)
        data["near_misses"] = [near_miss_dict(m) for m in decision.near_misses]
        print(json.dumps(data, indent=2), file=out)
    else:
        print(decision.report(), file=out)
    return EXIT[decision.effect]


def near_miss_dict(miss: NearMiss) -> dict[str, object]:
    """One near miss as plain data: the rule (text, kind, layer, file, line), why it does not
    allow the call, the kind of miss and the part of a compound command."""
    rule = miss.rule
    return {"rule": {"text": rule.text, "kind": rule.kind, "layer": rule.layer,
                     "file": rule.file, "line": rule.line},
            "why": miss.why, "kind": miss.kind, "part": miss.part}
