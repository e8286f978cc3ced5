"""The ``make`` fixture: a Claude Code project written into a temporary folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from tests.support.claude import build_project

Make = Callable[..., tk.Project]


@pytest.fixture
def make(tmp_path: Path) -> Make:
    """``make(project={...}, local={...}, user={...}, managed={...}, agents={...}, cli=[...])``
    (see ``tests.support.claude.build_project``)."""

    def build(**layers: Any) -> tk.Project:
        return build_project(tmp_path, **layers)

    return build
