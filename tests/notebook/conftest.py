"""An IPython shell that raises cell errors (like jupysql's TestingShell), with %tk loaded."""

from __future__ import annotations

from collections.abc import Iterator
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
