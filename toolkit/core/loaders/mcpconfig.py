"""MCP server configs: ``.mcp.json`` / ``claude_desktop_config.json`` (``mcpServers``)
and VS Code ``mcp.json`` (``servers`` with ``type``).

``env`` values and ``args`` expand ``${VAR}`` and ``${VAR:-default}`` from the
environment at load time; an unset variable without a default is a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from ...errors import DefinitionError
from ..models import ServerConfig
from ._common import Definitions
from ._source import Located, Path_, SourceFile

#: File names that are MCP server configs whatever they hold (Claude Code, Claude Desktop,
#: VS Code / Cursor ``mcp.json``).
NAMES = (".mcp.json", "mcp.json", "claude_desktop_config.json")
TRANSPORTS = {
    "stdio": "stdio",
    "http": "streamable-http",
    "streamable-http": "streamable-http",
    "streamableHttp": "streamable-http",
    "sse": "sse",
    "ws": "ws",
    "websocket": "ws",
    "tcp": "tcp",
}
#: Seconds a server may take to start when its entry does not say.
DEFAULT_STARTUP_TIMEOUT = 30.0
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def is_config(data: Any) -> bool:
    """A mapping with an ``mcpServers`` or ``servers`` map."""
    return isinstance(data, dict) and (isinstance(data.get("mcpServers"), dict)
                                       or isinstance(data.get("servers"), dict))


def load(file: SourceFile, defs: Definitions) -> None:
    """Read every server of the config into ``defs``.

    A file claimed by its name (``.mcp.json``) whose content is no config is an error here.
    """
    src = file.located
    if not is_config(src.data):
        key = next((k for k in ("mcpServers", "servers")
                    if isinstance(src.data, dict) and k in src.data), None)
        got = type(src.data[key] if key else src.data).__name__
        raise DefinitionError("an MCP config needs an 'mcpServers' or 'servers' mapping of "
                              f"server name -> settings, not {got}", file=src.file,
                              line=src.line((key,) if key else ()) or 1)
    key = "mcpServers" if isinstance(src.data.get("mcpServers"), dict) else "servers"
    for name, entry in src.data[key].items():
        path = (key, name)
        if not isinstance(name, str) or not name or "/" in name or "__" in name:
            raise src.error(path, f"server name {name!r} must be a non-empty string without "
                                  "'/' or '__' (they separate server and tool names)")
        if not isinstance(entry, dict):
            raise src.error(path, f"server {name!r} must be a mapping, not "
                                  f"{type(entry).__name__}")
        defs.add_server(parse_server(src, path, name, entry, defs))


def server_config(src: Located, path: Path_, name: str, transport: str, *,
                  command: str | None = None, args: Iterable[str] = (),
                  env: dict[str, str] | None = None, headers: dict[str, str] | None = None,
                  cwd: str | None = None, url: str | None = None,
                  health: bool | dict[str, Any] | None = None,
                  startup_timeout: float | None = None) -> ServerConfig:
    """The ``ServerConfig`` of one server entry, whichever file spelt it.

    ``.mcp.json`` entries and work-agent catalog entries both end here, so a
    transport spelling, ``healthCheck: true`` and the default startup timeout
    mean the same in both. The caller has checked the fields its format requires.

    >>> src = Located({}, ".mcp.json")
    >>> server_config(src, (), "web", "http", url="http://x/mcp", health=True).health_check
    {}
    """
    return ServerConfig(
        name=name, transport=TRANSPORTS[transport], command=command, args=tuple(args),
        env=env or {}, headers=headers or {}, cwd=cwd, url=url,
        health_check=({} if health is True else health) if health else None,
        startup_timeout=float(startup_timeout or DEFAULT_STARTUP_TIMEOUT),
        file=src.file, line=src.line(path))


def _expand(value: str, src: Located, path: Path_, defs: Definitions) -> str:
    def repl(m: re.Match[str]) -> str:
        var, default = m.group(1), m.group(2)
        if var in os.environ:
            return os.environ[var]
        if default is not None:
            return default
        defs.warn(src.file, src.line(path), f"environment variable {var} is not set; "
                                            "it expands to an empty string")
        return ""

    return _VAR.sub(repl, value)


def parse_server(src: Located, path: Path_, name: str, entry: dict[str, Any],
                 defs: Definitions) -> ServerConfig:
    """One ``.mcp.json`` server entry as a ``ServerConfig``."""
    transport = _transport(src, path, name, entry)
    command = entry.get("command")
    args = entry.get("args", [])
    if command is not None and not isinstance(command, str):
        raise src.error((*path, "command"), f"server {name!r}: command must be a string")
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise src.error((*path, "args"), f"server {name!r}: args must be a list of strings")
    if transport == "stdio" and not command:
        raise src.error(path, f"server {name!r}: a stdio server needs a 'command'")
    url = entry.get("url", entry.get("endpoint"))
    if transport != "stdio" and not isinstance(url, str):
        raise src.error(path, f"server {name!r}: a {transport} server needs a 'url'")
    return server_config(
        src, path, name, transport, command=command,
        args=[_expand(str(a), src, (*path, "args"), defs) for a in args],
        env=_string_map(src, path, name, entry, "env", defs),
        headers=_string_map(src, path, name, entry, "headers", defs),
        cwd=_optional_string(src, path, entry, "cwd"), url=url,
        health=_health(src, path, entry), startup_timeout=_timeout(src, path, entry))


def _transport(src: Located, path: Path_, name: str, entry: dict[str, Any]) -> str:
    """The entry's transport, canonical; without ``type`` it follows from command or url."""
    kind = entry.get("type", entry.get("transport"))
    if kind is None:
        kind = "stdio" if "command" in entry else ("streamable-http" if "url" in entry else None)
    if kind not in TRANSPORTS:
        raise src.error((*path, "type"), f"server {name!r}: unknown transport {kind!r}; use "
                        f"one of {', '.join(sorted(TRANSPORTS))}")
    return TRANSPORTS[kind]


def _string_map(src: Located, path: Path_, name: str, entry: dict[str, Any], field: str,
                defs: Definitions) -> dict[str, str]:
    """``env`` or ``headers``: names to strings, ``${VAR}`` expanded."""
    value = entry.get(field) or {}
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float))
                                              for v in value.values()):
        raise src.error((*path, field), f"server {name!r}: {field} must map names to strings")
    return {str(k): _expand(str(v), src, (*path, field, k), defs) for k, v in value.items()}


def _health(src: Located, path: Path_, entry: dict[str, Any]) -> bool | dict[str, Any] | None:
    health = entry.get("healthCheck", entry.get("health_check"))
    if health is not None and not isinstance(health, (bool, dict)):
        raise src.error((*path, "healthCheck"), "healthCheck must be true/false or a mapping")
    return health


def _timeout(src: Located, path: Path_, entry: dict[str, Any]) -> float:
    timeout = entry.get("startupTimeout", entry.get("timeout", DEFAULT_STARTUP_TIMEOUT))
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise src.error((*path, "startupTimeout"), "startupTimeout must be a positive number")
    return float(timeout)


def _optional_string(src: Located, path: Path_, entry: dict[str, Any], field: str) -> str | None:
    value = entry.get(field)
    if value is not None and not isinstance(value, str):
        raise src.error((*path, field), f"{field} must be a string")
    return value
