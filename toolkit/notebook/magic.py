"""``%tk``: one magic family over the project API (one module per subcommand in ``cmd/``).

User errors become one-line ``UsageError``s: IPython shows the line, not a
traceback, and the cell still fails (nbclient, "Run all" and CI stop there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from traitlets import Bool, Float, Unicode
from traitlets.config import Configurable

from ..errors import ToolkitError
from .cmd import SUBCOMMANDS, Subcommand
from .cmd._parser import HelpShownError

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..runtime.project import Project
    from ..runtime.session import Session

__all__ = ["ToolkitMagics", "one_line", "usage"]


def usage() -> str:
    """One line listing every registered subcommand (``%tk``, ``%tk --help``)."""
    lines = " | ".join(c.synopsis for c in SUBCOMMANDS.values() if not c.cell)
    cells = "".join(f"  %%tk {c.synopsis} (cell magic);" for c in SUBCOMMANDS.values() if c.cell)
    return f"usage: %tk {lines};{cells} %tk SUBCOMMAND --help for details"


#: What asks ``%tk`` itself for help.
HELP_FLAGS = ("-h", "--help", "help")


def one_line(exc: BaseException) -> str:
    """An error's message on one line (a DefinitionError may list several problems)."""
    lines = [s.strip() for s in str(exc).splitlines() if s.strip()]
    if not lines:
        return type(exc).__name__
    return lines[0] if len(lines) == 1 else f"{lines[0]} (and {len(lines) - 1} more: " + \
        "; ".join(lines[1:]) + ")"


@magics_class
class ToolkitMagics(Magics, Configurable):
    """The ``%tk`` line magic and ``%%tk agent`` cell magic; settings via ``%config``.

    Settings are traitlets, set in a notebook with ``%config ToolkitMagics.connect_timeout = 10``:

    >>> ToolkitMagics.class_traits()["connect_timeout"].default_value
    30.0
    """

    preset = Unicode(None, allow_none=True,
                     help="Preset for %tk load when --preset is not given (None: the "
                          "project's own)").tag(config=True)
    connect_timeout = Float(30.0, help="Seconds %tk connect waits for each server").tag(
        config=True)
    autoconnect = Bool(False, help="Connect the project's MCP servers right after %tk load").tag(
        config=True)

    def __init__(self, shell: InteractiveShell) -> None:
        Configurable.__init__(self, config=shell.config)
        Magics.__init__(self, shell=shell)
        # So that %config ToolkitMagics... works (IPython types the list too narrowly).
        shell.configurables.append(cast("Any", self))
        self.project: Project | None = None
        self.session: Session | None = None

    # -- state the subcommands share ------------------------------------------------------------

    def require_project(self) -> Project:
        """The loaded project; a usage error when there is none."""
        if self.project is None:
            raise UsageError("no project loaded: run %tk load PATH first")
        return self.project

    def require_session(self) -> Session:
        """The current session (from %tk start or %tk spawn); a usage error when there is none."""
        if self.session is None or self.session.closed:
            raise UsageError("no session: run %tk start AGENT first")
        return self.session

    def close(self) -> None:
        """Close the loaded project: its sessions end and its servers stop."""
        if self.project is not None:
            self.project.close()
        self.project = None
        self.session = None

    # -- the magic --------------------------------------------------------------------------------

    @line_cell_magic
    def tk(self, line: str, cell: str | None = None) -> Any:
        """%tk SUBCOMMAND ...: load, tabulate, explain, connect, start, call, spawn, audit."""
        name, _, rest = line.strip().partition(" ")
        if name in HELP_FLAGS and cell is None:  # asked for: help, not an error
            print(usage())
            return None
        command = self._subcommand(name, cell)
        try:
            return command.run(self, rest.strip(), cell)
        except HelpShownError:
            return None
        except ToolkitError as exc:  # toolkit's own errors say what is wrong and what to do
            raise UsageError(one_line(exc)) from None

    @staticmethod
    def _subcommand(name: str, cell: str | None) -> Subcommand:
        """The registered subcommand ``name``; a usage error if none, or if line/cell is wrong."""
        if not name or name in HELP_FLAGS:
            raise UsageError(usage())
        command = SUBCOMMANDS.get(name)
        if command is None:
            raise UsageError(f"unknown subcommand {name!r}; {usage()}")
        if command.cell and cell is None:
            raise UsageError(f"%%tk {name} is a cell magic (the cell body is its input)")
        if not command.cell and cell is not None:
            raise UsageError(f"%%tk {name} is not a cell magic; use %tk {name} on one line")
        return command
