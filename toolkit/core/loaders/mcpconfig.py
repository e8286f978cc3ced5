"""MCP server configs: ``.mcp.json`` / ``claude_desktop_config.json`` (``mcpServers``)
and VS Code ``mcp.json`` (``servers`` with ``type``).

``env`` values and ``args`` expand ``${VAR}`` and ``${VAR:-default}`` from the
environment at load time; an unset variable without a default is a warning.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ..models import ServerConfig
from ._common import Definitions
from ._source import Located

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
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def is_config(data: Any) -> bool:
    """A mapping with an ``mcpServers`` or ``servers`` map."""
    return isinstance(data, dict) and (isinstance(data.get("mcpServers"), dict)
                                       or isinstance(data.get("servers"), dict))


def load(src: Located, defs: Definitions) -> None:
    """Read every server of the config into ``defs``."""
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


def _expand(value: str, src: Located, path: tuple[Any, ...], defs: Definitions) -> str:
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


def parse_server(src: Located, path: tuple[Any, ...], name: str, entry: dict[str, Any],
                 defs: Definitions) -> ServerConfig:
    """One server entry as a ``ServerConfig``."""
    kind = entry.get("type", entry.get("transport"))
    if kind is None:
        kind = "stdio" if "command" in entry else ("streamable-http" if "url" in entry else None)
    if kind not in TRANSPORTS:
        raise src.error((*path, "type"), f"server {name!r}: unknown transport {kind!r}; use "
                        f"one of {', '.join(sorted(TRANSPORTS))}")
    transport = TRANSPORTS[kind]
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
    maps: dict[str, dict[str, str]] = {}
    for field in ("env", "headers"):
        value = entry.get(field) or {}
        if not isinstance(value, dict) or not all(isinstance(v, (str, int, float))
                                                  for v in value.values()):
            raise src.error((*path, field), f"server {name!r}: {field} must map names to "
                                             "strings")
        maps[field] = {str(k): _expand(str(v), src, (*path, field, k), defs)
                       for k, v in value.items()}
    health = entry.get("healthCheck", entry.get("health_check"))
    if health is not None and not isinstance(health, (bool, dict)):
        raise src.error((*path, "healthCheck"), "healthCheck must be true/false or a mapping")
    timeout = entry.get("startupTimeout", entry.get("timeout", 30.0))
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise src.error((*path, "startupTimeout"), "startupTimeout must be a positive number")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise src.error((*path, "cwd"), "cwd must be a string")
    return ServerConfig(
        name=name, transport=transport,
        command=command, args=tuple(_expand(str(a), src, (*path, "args"), defs) for a in args),
        env=maps["env"], headers=maps["headers"], cwd=cwd,
        url=url,
        health_check=({} if health is True else health) if health else None,
        startup_timeout=float(timeout), file=src.file, line=src.line(path),
    )
