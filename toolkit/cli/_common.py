"""What the verbs share: the program name, exit codes, loading and one-line messages."""

from __future__ import annotations

from collections.abc import Iterable
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
