"""The notebook face: the ``%tk`` magics and the widgets.

In a notebook (IPython syntax, run by ``tests/notebook/test_magics.py``)::

    %load_ext toolkit
    %tk load ../toolkit/examples/trustgraph
    table = %tk matrix --groups read-only --groups '*' --states undefined,analysis

Importing the magics registers every ``%tk`` subcommand:

>>> from toolkit.notebook.cmd._registry import SUBCOMMANDS
>>> import toolkit.notebook.magic
>>> [name for name in ("load", "matrix", "explain", "call") if name in SUBCOMMANDS]
['load', 'matrix', 'explain', 'call']

Widgets (ipywidgets 8) are imported on first use::

    from toolkit.notebook import MatrixExplorer, WorkflowStepper
    MatrixExplorer(proj)

Every view also renders as ``text/html`` + ``text/plain`` when no widget front
end is present (GitHub, nbviewer, a saved notebook). Imports point inward:
this package uses ``toolkit.core`` and ``toolkit.runtime``, never the reverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "AuditView",
    "DiffView",
    "MatrixExplorer",
    "ReplayExplorer",
    "ServerPanel",
    "SpawnTree",
    "ToolkitMagics",
    "WorkflowStepper",
    "load_ipython_extension",
    "unload_ipython_extension",
]

_LAZY = {
    "ToolkitMagics": "toolkit.notebook.magic",
    "MatrixExplorer": "toolkit.notebook.widgets.matrix",
    "WorkflowStepper": "toolkit.notebook.widgets.stepper",
    "SpawnTree": "toolkit.notebook.widgets.spawn",
    "ServerPanel": "toolkit.notebook.widgets.servers",
    "AuditView": "toolkit.notebook.widgets.audit",
    "ReplayExplorer": "toolkit.notebook.widgets.replay",
    "DiffView": "toolkit.notebook.widgets.diff",
}

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .magic import ToolkitMagics
    from .widgets.audit import AuditView
    from .widgets.diff import DiffView
    from .widgets.matrix import MatrixExplorer
    from .widgets.replay import ReplayExplorer
    from .widgets.servers import ServerPanel
    from .widgets.spawn import SpawnTree
    from .widgets.stepper import WorkflowStepper


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """``%load_ext toolkit``: register the ``%tk`` / ``%%tk`` magics."""
    from .magic import ToolkitMagics

    ipython.register_magics(ToolkitMagics(ipython))


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    """``%unload_ext toolkit``: close the loaded project (its sessions and servers)."""
    from .magic import ToolkitMagics

    for magics in list(ipython.magics_manager.registry.values()):
        if isinstance(magics, ToolkitMagics):
            magics.close()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkit.notebook' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
