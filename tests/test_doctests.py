"""Every module's doctests run in the normal test run (issue 25, item 10).

The examples in ``toolkit``'s docstrings are documentation a reader copies, so
each one is run here, one test per module, from the folder that holds the
``toolkit`` package (so ``tk.load("toolkit/examples/trustgraph")`` reads as in
the README). An example left as a comment (``>>> # ...``) would be shown to
the reader and never checked, so none may be.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

import toolkit

PACKAGE_PARENT = Path(toolkit.__file__).resolve().parent.parent
MODULES = sorted(
    info.name for info in pkgutil.walk_packages(toolkit.__path__, "toolkit.")
    if not info.name.endswith("__main__")
)
COMMENTED_EXAMPLE = re.compile(r"^\s*>>> #", re.MULTILINE)


def _doctests(module: ModuleType) -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [test for test in finder.find(module) if test.examples]


def test_every_module_is_checked() -> None:
    assert "toolkit.core.decision" in MODULES
    assert "toolkit.systems.claude_code.permissions.rules" in MODULES
    assert len(MODULES) > 50


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PACKAGE_PARENT)
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in _doctests(module):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} doctest example(s) failed in {name}"


@pytest.mark.parametrize("name", MODULES)
def test_no_commented_out_examples(name: str) -> None:
    source = Path(importlib.import_module(name).__file__ or "").read_text(encoding="utf-8")
    lines = [m.group().strip() for m in COMMENTED_EXAMPLE.finditer(source)]
    assert not lines, f"{name} has examples doctest never runs: {lines}"
