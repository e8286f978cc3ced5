"""Which preset a project's layout shows (SPEC section 3: ``preset=None`` means the manifest's
preset, else the one the layout shows unambiguously, else ``strict``), and why."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.systems.load import layout_preset


def make(root: Path, *folders: str) -> Path:
    for folder in folders:
        (root / folder).mkdir(parents=True)
    return root


@pytest.mark.parametrize(("folders", "preset"), [
    ((".work-agent/agents",), "work-agent"),
    ((".work-agent/tools",), "work-agent"),
    ((".claude/agents",), "claude-code"),
    ((), None),
    ((".work-agent/config",), None),  # only the app's own config: no agents or tools to read
    ((".claude/agents", ".work-agent/agents"), None),  # two systems: not unambiguous
])
def test_layout_preset(tmp_path: Path, folders: tuple[str, ...], preset: str | None) -> None:
    found = layout_preset(make(tmp_path, *folders))
    assert (found[0] if found else None) == preset


def test_the_system_folder_itself_shows_its_layout(tmp_path: Path) -> None:
    make(tmp_path, ".work-agent/agents")
    assert layout_preset(tmp_path / ".work-agent") == (
        "work-agent", f"the project folder is {tmp_path / '.work-agent'} (the work-agent layout)")


def test_load_picks_the_layout_preset_and_says_why(tmp_path: Path) -> None:
    make(tmp_path, ".work-agent/agents")
    proj = tk.load(tmp_path)
    assert proj.preset.name == "work-agent"
    assert proj.preset_reason == "the project folder holds .work-agent/ (the work-agent layout)"
    assert "preset=work-agent (the project folder holds .work-agent/" in repr(proj)


def test_manifest_and_argument_win_over_the_layout(tmp_path: Path) -> None:
    make(tmp_path, ".work-agent/agents")
    (tmp_path / "toolkit.yaml").write_text("preset: mux\n")
    proj = tk.load(tmp_path)
    assert (proj.preset.name, proj.preset_reason) == ("mux", "set by toolkit.yaml")
    given = tk.load(tmp_path, preset="strict")
    assert (given.preset.name, given.preset_reason) == ("strict", "given as preset=")


def test_no_layout_is_strict(tmp_path: Path) -> None:
    proj = tk.load(tmp_path)
    assert proj.preset.name == "strict"
    assert proj.preset_reason.startswith("the default")


def test_toolmatrix_check_says_which_preset_and_why(tmp_path: Path) -> None:
    make(tmp_path, ".work-agent/agents")
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(tmp_path)], out=out, err=err) == 0
    assert "preset work-agent: the project folder holds .work-agent/" in err.getvalue()
