"""Shared fixtures: the shipped examples and a folder to write projects into."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

EXAMPLES = Path(tk.__file__).parent / "examples"


@pytest.fixture
def examples() -> Path:
    """The folder of shipped example projects."""
    return EXAMPLES


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """Write dedented files into a fresh project folder: ``write({"a.md": "..."})``."""

    def _write(files: dict[str, str | bytes]) -> Path:
        for name, content in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content).lstrip("\n"))
        return tmp_path

    return _write
