"""VS Code (GitHub Copilot agent mode): terminal auto-approval and tool approvals (issue 22).

- :mod:`.autoapprove`: ``CommandLineAutoApprover`` ported (``chat.tools.terminal.autoApprove``
  entries as rules: prefixes, paths, ``/regex/flags``, ``matchCommandLine``, defaults);
- :mod:`.subcommands`: sub-commands as VS Code cuts them (tree-sitter ``(command)`` nodes),
  and the older string splitter of ``subCommands.ts``;
- :mod:`.settings`: user and workspace ``settings.json`` (JSONC), VS Code's default list;
- :mod:`.engine`: the PermissionEngine ``proj.check_call(..., runtime="vscode")`` asks.

Source: microsoft/vscode, ``src/vs/workbench/contrib/terminalContrib/chatAgentTools``.
A project is VS Code's when its ``.vscode/settings.json`` sets a ``chat.tools.*`` key; the
folder chooses no preset (``.vscode/`` is in too many projects of other systems).
"""

from __future__ import annotations

from ..base.definitions import Definitions
from ..base.formats import Format
from ..base.source import SourceFile
from ..base.system import System
from .engine import MODES, empty_engine, open_engine
from .probe import probe as shell_probe
from .transcript import TranscriptReader

__all__ = ["SYSTEM"]


def _engine_file(file: SourceFile, defs: Definitions) -> None:
    """``.vscode/settings.json`` is the permission engine's (read there, errors located)."""


def _is_agent_settings(file: SourceFile) -> bool:
    """A ``.vscode/settings.json`` that sets Copilot agent-mode tool settings (``chat.tools.*``
    or ``chat.agent.terminal.*``): others (most VS Code projects') are not this system's."""
    return file.place.endswith(".vscode/settings.json") and (
        "chat.tools." in file.text or "chat.agent.terminal." in file.text)


SYSTEM = System(
    name="vscode",
    title="VS Code (Copilot agent mode)",
    formats=(Format("vscode-settings", _engine_file, sniff=_is_agent_settings,
                    suffixes=(".json",)),),
    engine=open_engine,
    probe=shell_probe,
    empty_engine=empty_engine,
    modes=MODES,
    transcripts=TranscriptReader,
)
