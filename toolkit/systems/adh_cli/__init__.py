"""adh-cli: markdown agents (``agent.md``, front matter optional), its preset and built-ins.

Its files are read by the shared front-matter reader (:mod:`toolkit.systems.base.frontmatter`);
its built-in tools (``read_file``, ``execute_command``, ...) are toolkit's own built-ins under
adh-cli's names (``toolkit.core.models.BUILTIN_KINDS``).
"""

from __future__ import annotations

from ...core.presets import Preset
from ..base.risks import ALL, READ
from ..base.system import System

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="adh-cli",
    title="adh-cli",
    preset=Preset(name="adh-cli", unknown_name="error-list", omitted_root="none",
                  empty_list="none", child_extra="drop-warn", strip_coordination=False,
                  max_depth=2),
    risks={**dict.fromkeys(("read_file", "list_directory", "get_file_info"), READ),
           "execute_command": ALL},
)
