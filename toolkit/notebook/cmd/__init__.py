"""One module per ``%tk`` subcommand; each registers its ``run`` in :data:`SUBCOMMANDS`.

A subcommand module imports only ``_registry`` and ``_parser`` (never the
magics class): ``magic.py`` reads the table this package fills on import.
"""

from __future__ import annotations

from ._registry import SUBCOMMANDS, MagicState, Subcommand, subcommand

# isort: off
# Importing a module registers it; this order is the order `%tk --help` lists them.
from . import load, agents, matrix, explain, connect, servers, start, call, spawn, audit  # noqa: F401
from . import agent, why  # noqa: F401
from . import replay, diff, risk, lock  # noqa: F401
from . import test  # noqa: F401
from . import lint  # noqa: F401
from . import probe  # noqa: F401
from . import convert  # noqa: F401
# isort: on

__all__ = ["SUBCOMMANDS", "MagicState", "Subcommand", "subcommand"]
