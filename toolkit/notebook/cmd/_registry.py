"""The table of ``%tk`` subcommands: each ``cmd`` module registers itself here.

``magic.py`` reads the table; a subcommand module sees the magics only as
:class:`MagicState` (what it may use), so neither imports the other.

>>> @subcommand("doctest-echo", "doctest-echo TEXT")
... def run(magics: MagicState, rest: str, cell: str | None) -> str:
...     return rest
>>> SUBCOMMANDS.pop("doctest-echo").run(None, "hi", None)
'hi'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ...runtime.project import Project
    from ...runtime.session import Session

__all__ = ["SUBCOMMANDS", "MagicState", "Run", "Subcommand", "subcommand"]


class MagicState(Protocol):
    """What a subcommand may use of the ``%tk`` magics: the current project and session."""

    project: Project | None
    session: Session | None

    @property
    def preset(self) -> str | None:
        """``%config ToolkitMagics.preset``."""

    @property
    def connect_timeout(self) -> float:
        """``%config ToolkitMagics.connect_timeout``."""

    @property
    def autoconnect(self) -> bool:
        """``%config ToolkitMagics.autoconnect``."""

    def require_project(self) -> Project:
        """The loaded project; a usage error when there is none."""

    def require_session(self) -> Session:
        """The current session; a usage error when there is none."""

    def close(self) -> None:
        """Close the loaded project (its sessions and servers)."""


#: ``run(magics, rest_of_the_line, cell_body_or_None) -> what the cell shows``
Run = Callable[[MagicState, str, "str | None"], Any]


@dataclass(frozen=True)
class Subcommand:
    """One ``%tk`` subcommand: its name, how ``%tk`` help shows it, and what runs it."""

    name: str
    synopsis: str
    run: Run
    cell: bool = False  # True: a cell magic (``%%tk NAME``), the cell body is its input


#: name -> subcommand, in registration order (the order ``%tk --help`` lists them)
SUBCOMMANDS: dict[str, Subcommand] = {}


def subcommand(name: str, synopsis: str, *, cell: bool = False) -> Callable[[Run], Run]:
    """Register the decorated ``run`` function as ``%tk NAME`` (or ``%%tk NAME`` if ``cell``)."""

    def register(run: Run) -> Run:
        if name in SUBCOMMANDS:
            raise RuntimeError(f"%tk {name} is registered twice")
        SUBCOMMANDS[name] = Subcommand(name, synopsis, run, cell)
        return run

    return register
