"""Codex's heuristics for commands no rule matches: a port of
``codex-rs/shell-command/src/command_safety/is_safe_command.rs`` and
``is_dangerous_command.rs`` (their Unix branches; Linux, where ``numfmt`` and ``tac``
count as safe).

>>> is_known_safe_command(["bash", "-lc", "ls && pwd"]), is_known_safe_command(["git", "status"])
(True, False)
>>> command_might_be_dangerous(["sudo", "rm", "-rf", "/tmp/x"])
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from .bash import parse_shell_lc_literal_commands, parse_shell_lc_plain_commands

__all__ = ["command_might_be_dangerous", "is_known_safe_command", "is_safe_to_call_with_exec",
           "known_safe_prefixes"]

_SAFE = frozenset({"cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl",
                   "paste", "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname", "uniq",
                   "wc", "which", "whoami",
                   "numfmt", "tac"})  # the last two on Linux only, where toolkit runs them
_UNSAFE_FIND = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint",
                          "-fprint0", "-fprintf"})
_SED_N = re.compile(r"^(\d+,)?\d+p$")


def _name(raw: str) -> str:
    return PurePosixPath(raw).name


def is_safe_to_call_with_exec(command: Sequence[str]) -> bool:
    """One argv that only reads (``is_safe_to_call_with_exec``)."""
    if not command:
        return False
    cmd = _name(command[0])
    args = command[1:]
    if cmd in _SAFE:
        return True
    if cmd == "base64":
        return not any(a in ("-o", "--output") or a.startswith("--output=")
                       or (a.startswith("-o") and a != "-o") for a in args)
    if cmd == "find":
        return not any(a in _UNSAFE_FIND for a in command)
    if cmd == "rg":
        return not any(a in ("--search-zip", "-z")
                       or any(a == o or a.startswith(o + "=") for o in ("--pre", "--hostname-bin"))
                       for a in command)
    if cmd == "sed":
        return (len(command) <= 4 and len(command) > 2 and command[1] == "-n"
                and bool(_SED_N.match(command[2])))
    return False


def known_safe_prefixes() -> tuple[tuple[str, ...], ...]:
    """The word prefixes :func:`is_safe_to_call_with_exec` may pass (each safe program, and
    ``base64``, ``find``, ``rg``, ``sed -n`` with harmless arguments)."""
    return (*((name,) for name in sorted(_SAFE)), ("base64",), ("find",), ("rg",),
            ("sed", "-n"))


def is_known_safe_command(command: Sequence[str]) -> bool:
    """``is_known_safe_command``: a safe argv, or a ``bash -lc`` chain of safe commands
    (``zsh`` read as ``bash``)."""
    command = ["bash" if s == "zsh" else s for s in command]
    if is_safe_to_call_with_exec(command):
        return True
    parts = parse_shell_lc_plain_commands(command)
    return bool(parts) and all(is_safe_to_call_with_exec(p) for p in parts or ())


def _forced_rm(args: Sequence[str]) -> bool:
    for arg in args:
        if arg == "--":
            return False
        if arg == "--force" or (arg.startswith("-") and not arg.startswith("--") and "f" in arg):
            return True
    return False


def _dangerous_exec(command: Sequence[str]) -> bool:
    if not command:
        return False
    cmd = _name(command[0])
    if cmd == "rm":
        return _forced_rm(command[1:])
    if cmd == "sudo":
        return _dangerous_exec(command[1:])
    return False


def command_might_be_dangerous(command: Sequence[str]) -> bool:
    """``command_might_be_dangerous``: a forced ``rm`` (``-f``, ``--force``; after ``sudo``),
    directly or as any literal command of a ``bash -lc`` script."""
    if _dangerous_exec(command):
        return True
    literal = parse_shell_lc_literal_commands(command)
    return any(_dangerous_exec(c) for c in literal or ())
