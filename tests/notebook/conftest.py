"""An IPython shell that raises cell errors (like jupysql's TestingShell), with %tk loaded;
and a guard: the notebook tests leave the user's notebooks and the screenshots alone."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import ExecutionResult, InteractiveShell
from traitlets.config import Config

from toolkit.notebook.magic import ToolkitMagics


class TestingShell(InteractiveShell):
    """``run_cell`` raises the cell's error instead of printing it, so tests see failures."""

    __test__ = False  # not a pytest test class

    def run_cell(self, *args: Any, **kwargs: Any) -> ExecutionResult:
        result = super().run_cell(*args, **kwargs)
        result.raise_error()
        return result


ROOT = Path(__file__).resolve().parents[2]
#: What a user owns and the notebook tests must never rewrite: the teaching notebooks (a
#: user's outputs and edits live there), their data, and the README's screenshots.
USER_FOLDERS = (ROOT / "notebooks", ROOT / "docs" / "screenshots")


def user_files(folders: tuple[Path, ...] = USER_FOLDERS) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``folders`` (not in hidden or cache folders)."""
    out = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            parts = path.relative_to(folder).parts
            if path.is_file() and not any(p.startswith(".") or p == "__pycache__"
                                          for p in parts):
                out[str(path.relative_to(ROOT))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The paths added, removed or rewritten with other bytes between two :func:`user_files`."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


@pytest.fixture(scope="session", autouse=True)
def user_files_stay_byte_identical() -> Iterator[None]:
    """After the notebook tests, every notebook and screenshot is byte for byte as before."""
    before = user_files()
    yield
    changed = changed_files(before, user_files())
    assert changed == [], (f"the notebook tests changed files they must never write: "
                           f"{', '.join(changed)}")


@pytest.fixture(scope="session")
def shell_instance() -> TestingShell:
    config = Config()
    config.HistoryManager.enabled = False
    return TestingShell.instance(config=config)


@pytest.fixture
def ip(shell_instance: TestingShell) -> Iterator[TestingShell]:
    """The shell with fresh ``%tk`` magics; their project is closed afterwards."""
    magics = ToolkitMagics(shell_instance)
    shell_instance.register_magics(magics)
    shell_instance.user_ns["magics"] = magics
    yield shell_instance
    magics.close()
    shell_instance.configurables.remove(magics)
