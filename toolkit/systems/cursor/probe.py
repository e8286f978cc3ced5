"""The commands Cursor's ``Shell(...)`` tokens and ``terminalAllowlist`` entries speak of.

For the bypass probes (cursor.com/docs/cli/reference/permissions, read as :mod:`.tokens`
reads it): ``Shell(git)`` matches a command whose first token is ``git`` ("The commandBase is
the first token in the command line. Supports glob patterns"), whatever follows, so it speaks
of ``git`` followed by any words; ``Shell(curl:*)`` matches ``curl`` with any arguments, and
``Shell(npm:install*)`` speaks of ``npm install`` and more; a ``command:args`` token whose
args glob does not end in ``*`` matches those arguments only. A glob in a word is filled (its
``*`` left out, ``?`` as a letter); ``Shell(*)`` decides every command: it names none. The
IDE's ``terminalAllowlist`` entries ("a command or command prefix string", ``npm:install*``)
read the same way; they decide only in the ``ide`` mode (the CLI does not read them).
The CLI checks each simple command of a line (tree-sitter-bash: lists, pipes and
substitutions split) and "Deny rules take precedence": a line holding a denied command is
denied (``compound_deny``); the IDE has no deny list, so nothing is refused there.

>>> seed("git"), seed("npm:install*"), seed("curl:-s https://x"), seed("*")
(('git', True), ('npm install', True), ('curl -s https://x', False), (None, True))
"""

from __future__ import annotations

from typing import Any

from ..base.probe import ProbeRule, ShellProbe, shell_command
from .config import Entry
from .engine import CursorEngine

__all__ = ["probe", "seed"]


def _fill(glob: str) -> str:
    """Words of a glob as one command text: ``*`` left out (a word of only ``*``: ``x``)."""
    words = [w.replace("*", "").replace("?", "x") or "x" for w in glob.split()]
    return " ".join(words)


def seed(value: str) -> tuple[str | None, bool]:
    """(the command ``Shell(value)`` speaks of, whether more words may follow it)."""
    base, colon, args = value.partition(":")
    if not base.strip() or not base.replace("*", "").strip():
        return None, True
    head = _fill(base)
    if not colon:
        return head, True
    rest = _fill(args.rstrip("*")) if args.rstrip("*").strip() else ""
    return (f"{head} {rest}" if rest else head), args.endswith("*")


def _probe_rule(engine: CursorEngine, entry: Entry, value: str) -> ProbeRule:
    rule = engine.rule(entry)
    command, open_ended = seed(value)
    if command is None:
        return ProbeRule(entry.text, entry.kind, rule, open_ended=open_ended,
                         note="a rule of every command: it names none")
    return ProbeRule(entry.text, entry.kind, rule, seed=command, open_ended=open_ended)


def probe(engine: Any) -> ShellProbe:
    """``System.probe``: the ``Shell`` tool, the CLI's ``Shell`` tokens (user and project
    files), then the IDE's ``terminalAllowlist`` entries."""
    if not isinstance(engine, CursorEngine):
        raise TypeError(f"not a Cursor engine: {type(engine).__name__}")
    rules = [_probe_rule(engine, e, e.token.value) for e in engine.config.cli
             if e.token is not None and e.token.kind == "Shell"]
    rules += [_probe_rule(engine, e, e.text) for e in engine.config.terminal or ()]
    return ShellProbe("Shell", shell_command, tuple(rules), compound_deny=True)
