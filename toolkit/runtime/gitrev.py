"""A project folder as it was at a git revision (``toolmatrix diff --git REV``).

The revision's files are exported with ``git archive`` into a temporary folder
that lives as long as the ``with`` block; the working tree is never touched.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import ToolkitError

__all__ = ["at_revision"]


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True,
                              timeout=60, check=False)
    except FileNotFoundError:
        raise ToolkitError("git is not installed (needed to read an older revision)") from None


def _first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "git failed"


@contextmanager
def at_revision(path: str | Path, revision: str) -> Iterator[Path]:
    """The project at ``path`` as of ``revision``, in a temporary folder.

    A path outside a git repository, a revision that does not exist, or a
    project folder that did not exist at that revision is a one-line
    ``ToolkitError``.
    """
    target = Path(path).resolve()
    folder = target if target.is_dir() else target.parent
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise ToolkitError(f"{str(path)!r} is not in a git repository: {_first_line(top.stderr)}")
    root = Path(top.stdout.decode().strip())
    relative = target.relative_to(root).as_posix() if target != root else "."
    if _git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").returncode != 0:
        raise ToolkitError(f"git revision {revision!r} does not exist in {str(root)!r}")
    archive = _git(root, "archive", "--format=tar", revision, "--", relative)
    if archive.returncode != 0:
        raise ToolkitError(f"{relative!r} does not exist at revision {revision!r}: "
                           f"{_first_line(archive.stderr)}")
    with tempfile.TemporaryDirectory(prefix="toolmatrix-rev-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        yield Path(tmp) / relative
