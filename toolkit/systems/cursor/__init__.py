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
``.cursor/permissions.json``; ``.cursor/`` chooses no preset (it is in many projects whose
agents are another system's), so Cursor's built-in tools are not added to the pool.
"""

from __future__ import annotations

from ..base.definitions import Definitions
from ..base.formats import Format
from ..base.source import SourceFile
from ..base.system import System
from .engine import MODE_ALIASES, MODES, empty_engine, open_engine
from .names import cursor_names
from .tools import RISKS

__all__ = ["SYSTEM"]


def _engine_file(file: SourceFile, defs: Definitions) -> None:
    """``.cursor/cli.json`` / ``.cursor/permissions.json`` are the permission engine's (read
    there, errors located)."""


SYSTEM = System(
    name="cursor",
    title="Cursor",
    formats=(Format("cursor-permissions", _engine_file,
                    paths=(".cursor/cli.json", ".cursor/permissions.json")),),
    hidden_folders=(".cursor",),
    engine=open_engine,
    empty_engine=empty_engine,
    name_rules=cursor_names,
    modes=MODES,
    mode_aliases=MODE_ALIASES,
    risks=RISKS,
)
