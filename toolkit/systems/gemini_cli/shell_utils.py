"""The platform half of Gemini CLI's ``packages/core/src/utils/shell-utils.ts`` (5411f11):
which shell a command runs in (``getShellConfiguration``, ``resolveExecutable``), how an
argument is quoted for it (``escapeShellArg``, with shell-quote 1.8.3's ``quote``), and
``hasRedirection`` as it picks a parser by shell.

The bash half (tree-sitter splitting, redirection, wrappers) is in :mod:`.policy`, where the
engine uses it. On Windows Gemini CLI parses with PowerShell, spawning ``powershell.exe``
with its AST script; toolkit spawns nothing: the PowerShell parser's output is a parameter
(``powershell``: a callable given the command and the executable, returning what the script
prints, as upstream's tests mock ``spawnSync``). Without one, the PowerShell parse fails,
and Gemini's own fallbacks apply.
"""

from __future__ import annotations

import json
import ntpath
import os
import posixpath
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from . import policy

__all__ = [
    "ShellConfiguration",
    "escape_shell_arg",
    "get_shell_configuration",
    "has_redirection",
    "quote",
    "resolve_executable",
]

ShellType = Literal["cmd", "powershell", "bash"]
#: (command, executable) -> what Gemini's PowerShell parser script prints, or None when the
#: process fails (``spawnSync`` with an error or a non-zero status)
PowerShellRunner = Callable[[str, str], str | None]


@dataclass(frozen=True)
class ShellConfiguration:
    """``ShellConfiguration``: how a command string is run."""

    executable: str
    args_prefix: tuple[str, ...]
    shell: ShellType


def _platform(platform: str | None) -> str:
    """``os.platform()``: ``win32``, ``darwin``, ``linux``..."""
    return platform if platform is not None else sys.platform


def _is_executable(path: str) -> bool:
    return os.access(path, os.X_OK)


def resolve_executable(exe: str, *, platform: str | None = None,
                       env: Mapping[str, str] | None = None,
                       is_executable: Callable[[str], bool] = _is_executable) -> str | None:
    """``resolveExecutable``: an absolute path that is executable, else the first
    ``PATH`` folder holding it (on Windows trying ``.exe``, ``.cmd``, ``.bat``, then the
    bare name); None when not found or ``PATH`` is unset."""
    windows = _platform(platform) == "win32"
    paths = ntpath if windows else posixpath
    if paths.isabs(exe):
        return exe if is_executable(exe) else None
    path_env = (os.environ if env is None else env).get("PATH")
    if not path_env:
        return None
    extensions = (".exe", ".cmd", ".bat", "") if windows else ("",)
    for folder in path_env.split(";" if windows else ":"):
        for ext in extensions:
            full: str = paths.join(folder, exe + ext)
            if is_executable(full):
                return full
    return None


_POWERSHELL_PREFIX = ("-NoProfile", "-NonInteractive", "-Command")


def get_shell_configuration(*, platform: str | None = None,
                            env: Mapping[str, str] | None = None,
                            is_executable: Callable[[str], bool] = _is_executable
                            ) -> ShellConfiguration:
    """``getShellConfiguration``: bash off Windows; on Windows ``ComSpec`` when it names
    PowerShell (cmd.exe is ignored), else ``pwsh.exe`` found on ``PATH``, else Windows
    PowerShell 5.1."""
    if _platform(platform) != "win32":
        return ShellConfiguration("bash", ("-c",), "bash")
    environ = os.environ if env is None else env
    com_spec = environ.get("ComSpec")
    if com_spec and com_spec.lower().endswith(("powershell.exe", "pwsh.exe")):
        return ShellConfiguration(com_spec, _POWERSHELL_PREFIX, "powershell")
    pwsh = resolve_executable("pwsh.exe", platform="win32", env=environ,
                              is_executable=is_executable)
    if pwsh:
        return ShellConfiguration(pwsh, ("-NoProfile", "-Command"), "powershell")
    return ShellConfiguration("powershell.exe", _POWERSHELL_PREFIX, "powershell")


_QUOTE_PLAIN = re.compile(r"""([A-Za-z]:)?([#!"$&'()*,:;<=>?@\[\\\]^`{|}])""")


def quote(words: list[str]) -> str:
    """shell-quote 1.8.3's ``quote`` (what Gemini CLI's bash escaping calls)."""
    out = []
    for word in words:
        if word == "":
            out.append("''")
        elif re.search(r'["\s\\]', word) and "'" not in word:
            out.append("'" + word + "'")
        elif re.search(r"""["'\s]""", word):
            out.append('"' + re.sub(r'(["\\$`!])', r"\\\1", word) + '"')
        else:
            out.append(_QUOTE_PLAIN.sub(lambda m: (m.group(1) or "") + "\\" + m.group(2), word))
    return " ".join(out)


_SIMPLE = re.compile(r"^[a-zA-Z0-9\-_.]+$")


def escape_shell_arg(arg: str, shell: ShellType) -> str:
    """``escapeShellArg``: one argument quoted for ``shell`` (empty stays empty)."""
    if not arg:
        return ""
    if shell == "powershell":
        return arg if _SIMPLE.match(arg) else "'" + arg.replace("'", "''") + "'"
    if shell == "cmd":
        return arg if _SIMPLE.match(arg) else '"' + arg.replace('"', '""') + '"'
    return quote([arg])


def parse_powershell_redirection(command: str, executable: str,
                                 powershell: PowerShellRunner | None) -> bool | None:
    """What ``parsePowerShellCommandDetails`` says of redirection: None when the parse
    fails (no runner, the process failed, output not JSON, ``success`` false, no command)."""
    if not command.strip() or powershell is None:
        return None
    output = powershell(command, executable)
    if output is None or not output.strip():
        return None
    try:
        parsed: Any = json.loads(output.strip())
    except ValueError:
        return None
    if not isinstance(parsed, dict) or not parsed.get("success"):
        return None
    commands = [c for c in parsed.get("commands") or ()
                if isinstance(c, dict) and isinstance(c.get("name"), str)]
    if not commands:
        return None
    return bool(parsed.get("hasRedirection"))


def has_redirection(command: str, *, configuration: ShellConfiguration | None = None,
                    powershell: PowerShellRunner | None = None) -> bool:
    """``hasRedirection``: no ``<`` / ``>`` at all is none; PowerShell trusts its parser
    (the ``[><]`` test when that fails); bash walks the tree-sitter tree."""
    if not re.search(r"[><]", command):
        return False
    configuration = configuration or get_shell_configuration()
    if configuration.shell == "powershell":
        found = parse_powershell_redirection(command, configuration.executable, powershell)
        return found if found is not None else True
    if configuration.shell == "bash":
        return policy.has_redirection(command)
    return True
