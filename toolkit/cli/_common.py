"""What the verbs share: the program name, exit codes, loading and one-line messages."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import DefinitionError

if TYPE_CHECKING:
    from ..runtime.project import Project

PROG = "toolmatrix"
USAGE_ERROR = 2  # argparse's exit status for a usage error


class UsageError(Exception):
    """A command-line mistake: printed as one line, exit status 2."""


def load(path: str, preset: str | None = None) -> Project:
    """The project at ``path`` (the runtime is imported on first use: ``check`` stays light)."""
    from ..runtime.project import load as load_project

    return load_project(path, preset=preset)


#: what ``--home`` stands for in each runtime (the user layer read under it)
_HOME = ("folder standing for ~: each runtime reads its user settings under it (Claude Code "
         "~/.claude/settings.json, Gemini CLI ~/.gemini/, Codex ~/.codex/, OpenCode "
         "~/.config/opencode/, Cursor ~/.cursor/, VS Code ~/.config/Code/User/settings.json)")
_MANAGED = ("managed (administrator) settings, a file or folder: Claude Code's "
            "managed-settings.json, Gemini CLI's admin folder (/etc/gemini-cli), Codex's "
            "requirements.toml or a folder laid out as /etc/codex, OpenCode's /etc/opencode; "
            "each runtime reads its own and leaves the others'")


def add_load_options(parser: argparse.ArgumentParser, *, home_default: bool = True,
                     flags: bool = True) -> None:
    """The options that say which settings layers a verb loads, with the same meaning in every
    verb: ``--home DIR`` / ``--no-home``, ``--managed PATH`` and (``flags``) ``--claude`` /
    ``--runtime-args``. ``home_default``: True reads the real home folder and each runtime's
    managed place unless told otherwise (``check_call`` as on this machine); False reads the
    project's own files only unless ``--home`` / ``--managed`` is given (``convert``: a
    translation of what the project holds). :func:`load_project` loads with them."""
    if home_default:
        home = f"{_HOME}; default: the real home folder"
        no_home = "read no user settings (no ~ layer in any runtime)"
        managed = f"{_MANAGED}; default: each runtime's own place (Codex: none)"
    else:
        home = f"{_HOME}; they join the project's. Default: none, the project's files only"
        no_home = "read no user settings (the default here; accepted as in every verb)"
        managed = f"{_MANAGED}; default: none"
    parser.add_argument("--home", metavar="DIR", help=home)
    parser.add_argument("--no-home", action="store_true", help=no_home)
    parser.add_argument("--managed", metavar="PATH", help=managed)
    if flags:
        parser.add_argument("--claude", default="", metavar="'FLAGS'",
                            help="Claude Code's command-line flags, quoted as one string: "
                                 "--claude='--allowedTools \"Bash(make *)\"' (the other "
                                 "runtimes ignore them)")
        parser.add_argument("--runtime-args", default="", metavar="'FLAGS'",
                            help="command-line flags of the runtimes, quoted as one string; "
                                 "each engine reads its own: --runtime-args='-a never -s "
                                 "read-only' (Codex), '--allowedTools ...' (Claude Code)")
    parser.set_defaults(_home_default=home_default)


def load_project(args: argparse.Namespace, path: str | Path | None = None) -> Project:
    """The project at ``path`` (default ``args.path``) loaded with the options of
    :func:`add_load_options`; a ``--claude`` / ``--runtime-args`` string that is not shell
    words is a :class:`UsageError`."""
    from ..runtime.project import load as load_path

    try:
        flags = shlex.split(getattr(args, "claude", "") or "") + shlex.split(
            getattr(args, "runtime_args", "") or "")
    except ValueError as exc:
        raise UsageError(f"--claude / --runtime-args: {exc}") from None
    default = getattr(args, "_home_default", True)
    home = False if args.no_home else args.home if args.home else None if default else False
    managed = args.managed if args.managed else None if default else False
    return load_path(args.path if path is None else path, home=home, managed=managed,
                     cli=flags)


def warn(messages: Iterable[str], err: TextIO) -> None:
    """Each distinct message as one ``toolmatrix: warning:`` line."""
    for message in dict.fromkeys(messages):
        print(f"{PROG}: warning: {message}", file=err)


def one_line(exc: BaseException) -> str:
    """An error's message on one line."""
    lines = [s.strip() for s in str(exc).splitlines() if s.strip()]
    return "; ".join(lines) or type(exc).__name__


def print_problems(exc: DefinitionError, err: TextIO) -> None:
    """One problem: one error line. Several: each as ``file:line: message``, then a summary."""
    if len(exc.problems) <= 1:
        print(f"{PROG}: error: {one_line(exc)}", file=err)
        return
    for p in exc.problems:
        print(p, file=err)
    print(f"{PROG}: error: {len(exc.problems)} problems in the definitions (listed above); "
          f"fix them, then run {PROG} check PATH", file=err)
