"""Binder opens JupyterLab with the package and the third-party demo server installed."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_binder_installs_the_package_and_mcp_server_time() -> None:
    post_build = (ROOT / "binder" / "postBuild").read_text()
    assert "set -euo pipefail" in post_build
    assert "-e '.[notebook]'" in post_build and "mcp-server-time" in post_build
    assert os.access(ROOT / "binder" / "postBuild", os.X_OK)
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    assert (ROOT / "notebooks" / "01-quickstart.ipynb").is_file()  # the badge's urlpath
