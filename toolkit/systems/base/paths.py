"""Paths: gitignore-style patterns anchored at a folder, and the working-directory checks.

A path rule is a gitignore pattern (matched with :mod:`pathspec`) plus the folder
it is anchored at; a file matches only when it lies under that folder and its
path relative to the folder matches the pattern. How a runtime writes the anchor
(Claude Code's ``//``, ``~/``, ``/`` and ``./``) is the runtime's business: its
rule parser turns a rule into an :class:`AnchoredPattern`.

>>> AnchoredPattern("/p", "src/**").matches("/p/src/a/b.py")
True
>>> env = AnchoredPattern("/p", ".env")
>>> env.matches("/p/deep/er/.env"), env.matches("/q/.env")
(True, False)
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

__all__ = ["AnchoredPattern", "absolute", "home_folder", "inside", "is_under",
           "real_variants"]


def home_folder(value: str | os.PathLike[str] | bool | None,
                default: Path | None) -> Path | None:
    """A ``home=`` / ``managed=`` argument of ``tk.load`` as a folder: False is none, None or
    True the runtime's ``default``, a path that path with ``~`` expanded.

    >>> home_folder(False, Path("/etc/x")), home_folder(True, Path("/etc/x"))
    (None, PosixPath('/etc/x'))
    >>> home_folder("~/h", None) == Path.home() / "h"
    True
    """
    if value is False:
        return None
    if value is None or value is True:
        return default
    return Path(os.fspath(value)).expanduser()


@lru_cache(maxsize=2048)
def _spec(pattern: str) -> pathspec.GitIgnoreSpec:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines([pattern])


@dataclass(frozen=True)
class AnchoredPattern:
    """A gitignore ``pattern`` relative to the folder ``root`` (an absolute POSIX path)."""

    root: str
    pattern: str

    def matches(self, path: str) -> bool:
        """Whether the absolute POSIX ``path`` is under ``root`` and matches the pattern."""
        relative = relative_to(path, self.root)
        if relative is None or relative == "":
            return False
        return _spec(self.pattern).match_file(relative)


def relative_to(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (both absolute and normalised), or None if outside."""
    if root == "/":
        return path.lstrip("/")
    if path == root:
        return ""
    prefix = root.rstrip("/") + "/"
    return path[len(prefix):] if path.startswith(prefix) else None


def is_under(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or inside it."""
    return relative_to(path, folder) is not None


def inside(path: str, folders: Iterable[str]) -> bool:
    """Whether ``path`` is inside one of ``folders`` (the working directories)."""
    return any(is_under(path, f) for f in folders)


def absolute(path: str, cwd: str, home: str | None) -> str:
    """``path`` as an absolute, normalised POSIX path: ``~`` is ``home``, relative is ``cwd``'s.

    >>> absolute("../x/./y", "/p/q", None), absolute("~/.zshrc", "/p", "/home/ann")
    ('/p/x/y', '/home/ann/.zshrc')
    """
    path = path.replace("\\", "/") if os.sep == "\\" else path
    if home is not None and (path == "~" or path.startswith("~/")):
        path = home + path[1:]
    if not path.startswith("/"):
        path = posixpath.join(cwd, path)
    normal = posixpath.normpath(path)
    return "/" + normal.lstrip("/") if normal.startswith("//") else normal


def real_variants(path: str) -> tuple[str, ...]:
    """``path`` and, when a symlink on the way leads elsewhere, the path it resolves to.

    Claude Code checks both: an allow rule must match both, a deny rule either.
    """
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return (path,)
    real = real.replace(os.sep, "/")
    return (path,) if real == path else (path, real)
