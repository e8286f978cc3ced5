"""Cursor: its CLI's permission tokens and its IDE's allowlists (issue 22).

- :mod:`.tokens`: ``Shell(...)``, ``Read(...)``, ``Write(...)``, ``WebFetch(...)``,
  ``Mcp(server:tool)`` and the IDE's ``terminalAllowlist`` / ``mcpAllowlist`` entries, parsed
  and matched as cursor.com/docs/cli/reference/permissions and /docs/reference/permissions
  describe them;
- :mod:`.config`: ``~/.cursor/cli-config.json`` (``home=``), ``<project>/.cursor/cli.json``,
  ``~/.cursor/permissions.json`` and ``<workspace>/.cursor/permissions.json``, located;
- :mod:`.engine`: the PermissionEngine ``proj.check_call(..., runtime="cursor")`` asks;
- :mod:`.tools`, :mod:`.names`: Cursor's tool names (``Shell``, ``Read``, ``Write``, ``Grep``,
  ``Delete``, ``Task``, ``WebFetch``), its ``Mcp`` rules over a pool.

Cursor is closed source: every behaviour here is the docs', or a reading of them that the
docstrings name. A project is Cursor's when it holds ``.cursor/cli.json`` or
``.cursor/permissions.json``: only those files mark the layout (a ``.cursor/`` holding
``rules/`` alone is in many projects whose agents are another system's), and then Cursor's
built-in tools join the pool, so the matrix and the explorer show them.
"""

from __future__ import annotations

from ...core.models import Tool
from ...core.presets import Preset
from ..base.definitions import Definitions
from ..base.formats import Format
from ..base.source import SourceFile
from ..base.system import Layout, System
from .engine import MODE_ALIASES, MODES, empty_engine, open_engine
from .names import cursor_names
from .probe import probe as shell_probe
from .tools import BUILTINS, RISKS

__all__ = ["SYSTEM"]


def _engine_file(file: SourceFile, defs: Definitions) -> None:
    """``.cursor/cli.json`` / ``.cursor/permissions.json`` are the permission engine's (read
    there, errors located)."""


def _add_builtins(defs: Definitions) -> None:
    for name, description in BUILTINS.items():
        defs.tools.setdefault(name, Tool(name=name, description=description, source="native",
                                         file="<cursor built-in>"))


SYSTEM = System(
    name="cursor",
    title="Cursor",
    formats=(Format("cursor-permissions", _engine_file,
                    paths=(".cursor/cli.json", ".cursor/permissions.json")),),
    preset=Preset(name="cursor", unknown_name="warn", omitted_root="all", empty_list="none",
                  child_extra="drop-warn", strip_coordination=False, max_depth=None),
    layouts=(Layout(".cursor", ("cli.json", "permissions.json")),),
    hidden_folders=(".cursor",),
    add_builtins=_add_builtins,
    engine=open_engine,
    probe=shell_probe,
    empty_engine=empty_engine,
    name_rules=cursor_names,
    modes=MODES,
    mode_aliases=MODE_ALIASES,
    risks=RISKS,
)
