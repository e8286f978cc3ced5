"""toolkit: which agent may call which tool, in which situation, and why.

>>> import toolkit as tk
>>> proj = tk.load("toolkit/examples/trustgraph")
>>> print(proj.explain("react-agent", "graph-update", state="analysis"))
IMPLICIT-DENY react-agent -> graph-update: tool groups ['write', 'knowledge', 'admin'] do not
meet requested ['default']

``import toolkit`` stays cheap: pandas, ipywidgets and mcp are imported only
when a feature needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    AccessDeniedError,
    DefinitionError,
    LockError,
    Problem,
    ProjectClosedError,
    ServerError,
    ServerUnavailableError,
    SpawnError,
    ToolkitError,
    ToolNotFoundError,
    ToolTimeoutError,
    UnknownAgentError,
)

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "AccessDeniedError",
    "AgentDefinition",
    "Decision",
    "DefinitionError",
    "Effect",
    "LockError",
    "PolicyDiff",
    "Preset",
    "Problem",
    "Project",
    "ProjectClosedError",
    "Reason",
    "Replay",
    "Resolution",
    "Rule",
    "ServerError",
    "ServerUnavailableError",
    "Session",
    "SpawnError",
    "Tool",
    "ToolNotFoundError",
    "ToolTimeoutError",
    "ToolkitError",
    "UnknownAgentError",
    "User",
    "convert",
    "diff",
    "load",
    "load_ipython_extension",
    "replay",
]

# Public name -> module that defines it, imported on first use.
_LAZY = {
    "load": "toolkit.runtime.project",
    "Project": "toolkit.runtime.project",
    "Session": "toolkit.runtime.session",
    "Decision": "toolkit.core.decision",
    "Effect": "toolkit.core.decision",
    "Reason": "toolkit.core.decision",
    "Resolution": "toolkit.core.resolve",
    "AgentDefinition": "toolkit.core.models",
    "Rule": "toolkit.core.models",
    "Tool": "toolkit.core.models",
    "User": "toolkit.core.models",
    "Preset": "toolkit.core.presets",
    "PRESETS": "toolkit.systems.registry",
    "replay": "toolkit.analysis.replay",
    "Replay": "toolkit.analysis.replay",
    "diff": "toolkit.analysis.diff",
    "convert": "toolkit.analysis.convert",
    "PolicyDiff": "toolkit.analysis.diff",
}

if TYPE_CHECKING:
    from .analysis.convert import convert
    from .analysis.diff import PolicyDiff, diff
    from .analysis.replay import Replay, replay
    from .core.decision import Decision, Effect, Reason
    from .core.models import AgentDefinition, Rule, Tool, User
    from .core.presets import Preset
    from .core.resolve import Resolution
    from .runtime.project import Project, load
    from .runtime.session import Session
    from .systems.registry import PRESETS


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext toolkit``: register the ``%tk`` magics (IPython is imported only now)."""
    from .notebook import load_ipython_extension as load_extension

    load_extension(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext toolkit``: close the project the magics loaded (IPython's hook)."""
    from .notebook import unload_ipython_extension as unload_extension

    unload_extension(ipython)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

