"""mux: agent configs with Go's field names (``AllowedTools``, ``MaxIterations``, ...)."""

from __future__ import annotations

from ...core.presets import Preset
from ..base.formats import Format
from ..base.system import System
from . import loader

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="mux",
    title="mux",
    formats=(Format("mux", loader.load, sniff=loader.is_config_file, marks=loader.MARKERS,
                    expects="a mux agent config"),),
    preset=Preset(name="mux", unknown_name="error", omitted_root="all", empty_list="inherit",
                  child_extra="error", strip_coordination=False, max_depth=None),
)
