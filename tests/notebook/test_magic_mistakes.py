"""Mistakes at the %tk magics say what happened, in the magic's own words (issue 23 item 11;
``%tk why`` with an unknown tool is in ``test_magic_why.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError

import toolkit as tk

from .conftest import TestingShell

TG = Path(tk.__file__).parent / "examples" / "trustgraph"


@pytest.mark.parametrize("line", ["%tk --help", "%tk -h", "%tk help"])
def test_tk_help_prints_usage_not_an_error(ip: TestingShell, line: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert ip.run_cell(line).result is None
    assert capsys.readouterr().out.startswith("usage: %tk load PATH | agents | matrix")
    with pytest.raises(UsageError, match=r"^usage: %tk"):  # %tk alone is still a mistake
        ip.run_cell("%tk")


def test_duplicate_agent_names_the_magics_flag(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {TG}")
    with pytest.raises(UsageError) as caught:
        ip.run_cell("%%tk agent\n---\nname: react-agent\ntools: [text-completion]\n---\n")
    message = str(caught.value)
    assert "duplicate agent name 'react-agent'" in message
    assert message.endswith("rename it or use %%tk agent --replace")
    assert "replace=True" not in message
    ip.run_cell("%%tk agent --replace\n---\nname: react-agent\ntools: [text-completion]\n---\n")


def test_diff_names_every_missing_path(ip: TestingShell, tmp_path: Path) -> None:
    a, b = tmp_path / "old-policy", tmp_path / "new-policy"
    with pytest.raises(UsageError, match=f"^%tk diff: no such file or folder: {a}, {b};"):
        ip.run_cell(f"%tk diff {a} {b}")
    with pytest.raises(UsageError, match=f"^%tk diff: no such file or folder: {b};"):
        ip.run_cell(f"%tk diff {TG} {b}")
