"""MCP server configs, each read as the application that owns it reads it.

- ``.mcp.json`` (Claude Code, project scope) and ``claude_desktop_config.json`` (Claude
  Desktop): an ``mcpServers`` map; other top-level keys (``preferences``, ...) are
  ignored. ``${VAR}`` and ``${VAR:-default}`` in ``command``, ``args``, ``env``, ``url``,
  ``headers`` and ``cwd`` expand from the environment at load time (Claude Code's
  expansion); an unset variable without a default is a warning.
- ``mcp.json`` (VS Code's ``.vscode/mcp.json`` with ``servers`` and ``inputs``; Cursor's
  ``.cursor/mcp.json`` with ``mcpServers``): JSON with comments and trailing commas, as
  VS Code reads it. VS Code's variables: ``${env:VAR}`` (empty when unset),
  ``${workspaceFolder}`` (the folder holding ``.vscode/``), ``${workspaceFolderBasename}``,
  ``${userHome}``, ``${pathSeparator}``. ``${input:id}`` is kept as written (VS Code asks
  the user for it when the server starts; toolkit cannot ask): an id that ``inputs``
  does not declare is a warning. ``${VAR}`` is not expanded (VS Code does not).

A server entry: ``type`` / ``transport`` (default ``stdio`` with a ``command``,
``streamable-http`` with a ``url``), ``command``, ``args``, ``env``, ``cwd``, ``url``,
``headers``; keys of other applications' (``envFile``, ``dev``, ``disabled``, ...) are ignored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...core.models import ServerConfig
from ...errors import DefinitionError
from .definitions import Definitions
from .source import Located, Path_, SourceFile, parse_json

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
#: VS Code's ``${name}`` / ``${name:argument}`` variables.
_VSCODE_VAR = re.compile(r"\$\{([A-Za-z]+)(?::([^}]*))?\}")
#: In JSON with comments: a string (kept), a comment (blanked) or a trailing comma (dropped).
_COMMENT = r"//[^\n]*|/\*.*?\*/"
_JSONC_TOKEN = re.compile(rf'"(?:[^"\\\n]|\\.)*"|{_COMMENT}|,(?=(?:\s|{_COMMENT})*[}}\]])',
                          re.DOTALL)
#: Keys a server entry of another kind of "servers" map has (AsyncAPI's), never an MCP one's.
_NOT_MCP_KEYS = frozenset({"protocol", "host", "protocolVersion"})


def is_config(data: Any) -> bool:
    """A mapping with an ``mcpServers`` map, or a ``servers`` map of MCP server entries
    (each with a ``command`` or a ``url``; AsyncAPI's ``servers``, with ``protocol`` or
    ``host``, are not MCP servers)."""
    if not isinstance(data, dict):
        return False
    if isinstance(data.get("mcpServers"), dict):
        return True
    servers = data.get("servers")
    return (isinstance(servers, dict) and bool(servers)
            and not any(k in data for k in ("asyncapi", "openapi", "swagger"))
            and all(isinstance(e, dict) and ("command" in e or "url" in e)
                    and not _NOT_MCP_KEYS & set(e) for e in servers.values()))


def load(file: SourceFile, defs: Definitions) -> None:
    """Read every server of the config into ``defs``.

    A file claimed by its name (``.mcp.json``) whose content is no config is an error.
    In a Claude Code project a broken ``.mcp.json`` does not block the project: Claude
    Code reports the bad MCP config and still runs with its settings, so its problems are
    warnings at file:line, plus one saying that none of its servers is loaded.
    """
    try:
        servers = _read_servers(file, defs)
    except DefinitionError as exc:
        if not _runs_without(file, defs):
            raise
        _skip_broken(file, defs, exc)
        return
    for server in servers:
        defs.add_server(server)


def _runs_without(file: SourceFile, defs: Definitions) -> bool:
    """Whether the application owning ``file`` runs the project without it when it is
    broken: Claude Code's ``.mcp.json`` in a Claude Code project folder (the file loaded
    on its own is what was asked about, so its error is the answer)."""
    root = Path(defs.root)
    return (file.name == ".mcp.json" and root.is_dir()
            and ((root / ".claude").is_dir()
                 or (defs.layout is not None and defs.layout[0] == "claude-code")))


def _read_servers(file: SourceFile, defs: Definitions) -> list[ServerConfig]:
    """Every server of the config, or the first ``DefinitionError`` (none is added then)."""
    if not file.text.strip():
        raise DefinitionError("the MCP config file is empty; it needs a JSON object such as "
                              '{"mcpServers": {}}', file=file.display, line=1)
    src = read_config(file)
    if not _has_servers(src.data):
        key = next((k for k in ("mcpServers", "servers")
                    if isinstance(src.data, dict) and k in src.data), None)
        got = type(src.data[key] if key else src.data).__name__
        raise DefinitionError("an MCP config needs an 'mcpServers' or 'servers' mapping of "
                              f"server name -> settings, not {got}", file=src.file,
                              line=src.line((key,) if key else ()) or 1)
    key = "mcpServers" if isinstance(src.data.get("mcpServers"), dict) else "servers"
    expand = _expander(file, src, defs)
    servers = []
    for name, entry in src.data[key].items():
        path = (key, name)
        if not isinstance(name, str) or not name or "/" in name or "__" in name:
            raise src.error(path, f"server name {name!r} must be a non-empty string without "
                                  "'/' or '__' (they separate server and tool names)")
        if not isinstance(entry, dict):
            raise src.error(path, f"server {name!r} must be a mapping, not "
                                  f"{type(entry).__name__}")
        servers.append(parse_server(src, path, name, entry, defs, expand))
    return servers


def _skip_broken(file: SourceFile, defs: Definitions, exc: DefinitionError) -> None:
    """Report a broken config's problems as warnings and say which servers are missing."""
    for problem in exc.problems:
        defs.warn(problem.file, problem.line, problem.message)
    names = _server_names(file)
    missing = (f"its server(s) {', '.join(repr(n) for n in names)} are missing"
               if names else "whatever servers it was meant to hold are missing")
    first = exc.problems[0] if exc.problems else None
    defs.warn(file.display, first.line if first is not None else 1,
              f"this MCP config is not loaded, so {missing}; the rest of the project loads "
              "(Claude Code reports a bad MCP config and runs without its servers); fix the file "
              "to load its servers")


def _server_names(file: SourceFile) -> list[str]:
    """The server names a broken config still shows (none when it does not parse)."""
    try:
        data = read_config(file).data
    except DefinitionError:
        return []
    if not isinstance(data, dict):
        return []
    servers = data.get("mcpServers", data.get("servers"))
    return [str(n) for n in servers] if isinstance(servers, dict) else []


def _has_servers(data: Any) -> bool:
    return isinstance(data, dict) and (isinstance(data.get("mcpServers"), dict)
                                       or isinstance(data.get("servers"), dict))


def is_vscode(file: SourceFile) -> bool:
    """VS Code's (and Cursor's) ``mcp.json``: JSON with comments, VS Code's variables."""
    return file.name == "mcp.json"


def read_config(file: SourceFile) -> Located:
    """The config as its application reads it: ``mcp.json`` as JSON with comments and
    trailing commas (VS Code's JSONC; every line keeps its number), others as JSON."""
    if not is_vscode(file):
        return file.located
    return parse_json(strip_jsonc(file.text), file.display)


def strip_jsonc(text: str) -> str:
    """JSON with comments as plain JSON: comments blanked (their line breaks kept) and
    trailing commas dropped, strings untouched.

    >>> strip_jsonc('{"a": "//x", /* note */ "b": [1, 2,],}')
    '{"a": "//x",            "b": [1, 2 ] }'
    """
    def blank(m: re.Match[str]) -> str:
        token = m.group()
        if token.startswith('"'):
            return token
        if token.startswith(","):
            return " "
        return re.sub(r"[^\n]", " ", token)

    return _JSONC_TOKEN.sub(blank, text)


Expand = Callable[[str, Path_], str]


def _expander(file: SourceFile, src: Located, defs: Definitions) -> Expand:
    """How this file's application expands variables in server settings."""
    if not is_vscode(file):
        return lambda value, path: _expand(value, src, path, defs)
    folder = file.path.absolute().parent
    workspace = folder.parent if folder.name in (".vscode", ".cursor") else folder
    inputs = _input_ids(src.data.get("inputs"))

    def expand_vscode(value: str, path: Path_) -> str:
        def repl(m: re.Match[str]) -> str:
            name, argument = m.group(1), m.group(2)
            if name == "env" and argument is not None:
                return os.environ.get(argument, "")
            if name == "input" and argument is not None and argument not in inputs:
                defs.warn(src.file, src.line(path), f"${{input:{argument}}} names no input "
                                                    "of this file's 'inputs'; kept as written")
            known = {"workspaceFolder": str(workspace),
                     "workspaceFolderBasename": workspace.name, "userHome": str(Path.home()),
                     "pathSeparator": os.sep}
            return known.get(name, m.group()) if argument is None else m.group()

        return _VSCODE_VAR.sub(repl, value)

    return expand_vscode


def _input_ids(inputs: Any) -> frozenset[str]:
    """The ids VS Code's ``inputs`` declare (``[{type, id, description, password}]``)."""
    if not isinstance(inputs, list):
        return frozenset()
    return frozenset(str(i["id"]) for i in inputs if isinstance(i, dict) and "id" in i)


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
    """Claude Code's expansion: ``${VAR}`` and ``${VAR:-default}`` from the environment."""
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
                 defs: Definitions, expand: Expand | None = None) -> ServerConfig:
    """One server entry as a ``ServerConfig`` (``expand``: the file's variable expansion,
    by default Claude Code's)."""
    if expand is None:
        def expand(value: str, at: Path_) -> str:
            return _expand(value, src, at, defs)

    transport = _transport(src, path, name, entry)
    command = entry.get("command")
    args = entry.get("args") or []
    if command is not None and not isinstance(command, str):
        raise src.error((*path, "command"), f"server {name!r}: command must be a string")
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise src.error((*path, "args"), f"server {name!r}: args must be a list of strings")
    if transport == "stdio" and not command:
        raise src.error(path, f"server {name!r}: a stdio server needs a 'command'")
    url = entry.get("url", entry.get("endpoint"))
    if transport != "stdio" and not isinstance(url, str):
        raise src.error(path, f"server {name!r}: a {transport} server needs a 'url'")
    cwd = _optional_string(src, path, entry, "cwd")
    return server_config(
        src, path, name, transport,
        command=expand(command, (*path, "command")) if command else command,
        args=[expand(str(a), (*path, "args", i)) for i, a in enumerate(args)],
        env=_string_map(src, path, name, entry, "env", expand),
        headers=_string_map(src, path, name, entry, "headers", expand),
        cwd=expand(cwd, (*path, "cwd")) if cwd else cwd,
        url=expand(url, (*path, "url")) if isinstance(url, str) else url,
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
                expand: Expand) -> dict[str, str]:
    """``env`` or ``headers``: names to strings, variables expanded."""
    value = entry.get(field) or {}
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float))
                                              for v in value.values()):
        raise src.error((*path, field), f"server {name!r}: {field} must map names to strings")
    return {str(k): expand(str(v), (*path, field, k)) for k, v in value.items()}


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
