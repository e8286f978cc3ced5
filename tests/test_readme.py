"""The README's Python examples run as doctests (from the repository root, as a reader would)."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_readme_python_examples_pass_as_doctests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(os.fspath(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
                              raise_on_error=False, verbose=False)
    assert result.attempted >= 10, "the README lost its examples"
    assert result.failed == 0
