"""emergent: blueprint agents (``blueprints/*/agents/*.yaml``), read as emergent's Go decoder."""

from __future__ import annotations

from ...core.presets import Preset
from ..base.formats import Format
from ..base.system import System
from . import loader

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="emergent",
    title="emergent",
    formats=(Format("emergent-agent", loader.load, paths=loader.PATHS,
                    sniff=loader.is_agent_file,
                    expects="an emergent blueprint agent (name, tools, systemPrompt, ...)"),),
    preset=Preset(name="emergent", unknown_name="warn-skip", omitted_root="none",
                  empty_list="none", child_extra="drop-warn", strip_coordination=True,
                  max_depth=2),
)
