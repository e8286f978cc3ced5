"""OpenAI Codex: ``.codex/rules/*.rules`` (execpolicy), ``config.toml`` and its built-in tools.

- :mod:`.execpolicy`: rules files read with starlark-rust (``starlark-pyo3``), matching;
- :mod:`.bash`: how Codex splits ``bash -lc`` scripts (tree-sitter-bash);
- :mod:`.safety`: its known-safe and dangerous command heuristics;
- :mod:`.config`: ``config.toml`` layers (system, user, each trusted project ``.codex``
  from the project root down to the working folder), project trust, the rules files of
  each layer, legacy ``.codexpolicy`` files reported;
- :mod:`.requirements`: managed ``requirements.toml`` (``tk.load(..., managed=...)``);
- :mod:`.engine`: the permission engine (``proj.check_call(..., runtime="codex")``).
"""

from __future__ import annotations

from pathlib import Path

from ...core.models import Tool
from ...core.presets import Preset
from ..base.definitions import Definitions
from ..base.risks import ALL, WRITE
from ..base.system import Layout, System
from .config import APPROVAL_POLICIES, project_folders
from .engine import empty_engine, open_engine
from .probe import probe as shell_probe
from .transcript import TranscriptReader

__all__ = ["SYSTEM"]

#: Codex's built-in tools (codex-rs/core/src/tools/spec.rs), as the model sees them.
BUILTINS = {
    "shell": "Runs a shell command (an argv) and returns its output",
    "apply_patch": "Edits files with a patch",
    "update_plan": "Updates the task plan",
    "view_image": "Attaches a local image",
}


def _enclosing_layout(path: Path) -> tuple[str, str] | None:
    """("codex", why) for a folder without ``.codex/`` of its own inside a project whose
    ``.codex/`` is higher up: Codex reads the ``.codex`` folders from the project root
    (marked by ``.git``) down to the folder a session starts in."""
    target = Path(path)
    if not target.is_dir() or (target / ".codex").is_dir():
        return None
    folders = project_folders(target.resolve())
    if not folders:
        return None
    nearest = folders[-1]
    return "codex", (f"the project folder is below {nearest.parent}, whose .codex/ Codex reads "
                     "for a session started here (the codex layout)")


def _add_builtins(defs: Definitions) -> None:
    for name, description in BUILTINS.items():
        defs.tools.setdefault(name, Tool(name=name, description=description, source="native",
                                         file="<codex built-in>"))


SYSTEM = System(
    name="codex",
    title="Codex",
    preset=Preset(name="codex", unknown_name="warn", omitted_root="all", empty_list="none",
                  child_extra="drop-warn", strip_coordination=False, max_depth=None),
    layouts=(Layout(".codex", ("rules", "config.toml")),),
    enclosing_layout=_enclosing_layout,
    hidden_folders=(".codex",),
    add_builtins=_add_builtins,
    engine=open_engine,
    probe=shell_probe,
    empty_engine=empty_engine,
    modes=APPROVAL_POLICIES,
    risks={"shell": ALL, "apply_patch": WRITE},
    transcripts=TranscriptReader,
)
