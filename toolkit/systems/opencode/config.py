"""OpenCode's configuration layers, merged as ``packages/opencode/src/config/config.ts`` does.

Sources (anomalyco/opencode, the 1.x ``packages/opencode`` line; each function cites its file):

- global: ``~/.config/opencode/config.json``, ``opencode.json``, ``opencode.jsonc`` in that
  order (``loadGlobal``), then the agents in ``~/.config/opencode/{agent,agents}/**/*.md``;
- project: ``opencode.json`` then ``opencode.jsonc`` at the project root
  (``ConfigPaths.files``: found upwards, outermost first), then ``.opencode/opencode.json``,
  ``.opencode/opencode.jsonc`` and ``.opencode/{agent,agents}/**/*.md`` (``{mode,modes}/*.md``
  as primary agents), then ``~/.opencode/`` likewise (``ConfigPaths.directories``);
- managed: ``/etc/opencode/opencode.json(c)`` (``managed=``), merged last.

Every file is merged with remeda's ``mergeDeep`` (objects merge key by key, a key keeps its
first place, anything else is replaced). Within one file an agent's legacy ``tools`` map is
turned into permissions before its ``permission`` is assigned over them
(``core/src/v1/config/agent.ts`` ``normalize``); the top-level ``tools`` map, after every
file is merged, goes under the merged ``permission`` (``mergeDeep(perms, permission)``).
The text of each file goes through ``{env:VAR}`` / ``{file:path}`` substitution
(``config/variable.ts``) and is parsed as JSONC (``config/parse.ts``). Every permission
value keeps the file and line it was written at.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ...errors import DefinitionError, Problem
from ..base.source import Located, parse_yaml, read_text
from .jsonc import JsoncError
from .jsonc import parse as parse_jsonc

__all__ = ["ACTIONS", "AgentConfig", "OpenCodeConfig", "Src", "js_order", "load_config",
           "merge_deep", "read_config_file"]

ACTIONS = ("ask", "allow", "deny")
_ACTION_SHOWN = '"ask" | "allow" | "deny"'
#: keys whose value may only be an action, never a pattern map (ConfigPermissionV1.InputObject)
ACTION_ONLY = frozenset({"question", "webfetch", "websearch", "doom_loop"})
#: ConfigV1.Info's keys (``core/src/v1/config/config.ts``); others are warned about and dropped
KNOWN_KEYS = frozenset({
    "$schema", "shell", "logLevel", "server", "command", "skills", "reference", "watcher",
    "snapshot", "plugin", "share", "autoshare", "autoupdate", "disabled_providers",
    "enabled_providers", "model", "small_model", "default_agent", "username", "mode", "agent",
    "provider", "mcp", "formatter", "lsp", "instructions", "layout", "permission", "tools",
    "attachment", "json_response", "enterprise", "tool_output", "compaction", "experimental"})
#: dropped without a word by ``normalizeLoadedConfig`` (the TUI's keys, moved to tui.json)
_LEGACY_TUI_KEYS = frozenset({"theme", "keybinds", "tui"})
#: ConfigAgentV1's own keys; any other key of an agent goes into its ``options``
AGENT_KEYS = frozenset({"name", "model", "variant", "prompt", "description", "temperature",
                        "top_p", "mode", "hidden", "hidden_from_cycle", "color", "steps",
                        "maxSteps", "options", "permission", "disable", "tools"})
_MODES = ("subagent", "primary", "all")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")


@dataclass(frozen=True)
class Src:
    """One configured value (an action, a boolean) and where it was written."""

    value: Any
    file: str | None
    line: int | None
    layer: str


@dataclass
class AgentConfig:
    """One agent's merged configuration (``cfg.agent[name]``) and where it was defined."""

    name: str
    fields: dict[str, Any]
    file: str | None
    line: int | None


@dataclass
class OpenCodeConfig:
    """The merged configuration of one project, as OpenCode's ``Config.get()`` returns it."""

    root: Path
    home: Path
    permission: dict[str, Any] = field(default_factory=dict)
    agents: dict[str, AgentConfig] = field(default_factory=dict)
    default_agent: Src | None = None
    files: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    mcp: dict[str, Src] = field(default_factory=dict)

    @property
    def data_dir(self) -> Path:
        """``Global.Path.data``: ``$XDG_DATA_HOME/opencode`` (``~/.local/share/opencode``)."""
        return self.home / ".local" / "share" / "opencode"


def js_order(keys: Iterable[str]) -> list[str]:
    """Object keys in JavaScript's order: array-index keys ascending first, then the rest as
    inserted (``Object.entries``, which ``Permission.fromConfig`` walks).

    >>> js_order(["*", "10", "git *", "2"])
    ['2', '10', '*', 'git *']
    """
    keys = list(keys)
    index = sorted((k for k in keys if _ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1),
                   key=int)
    return index + [k for k in keys if k not in set(index)]


def merge_deep(target: Mapping[str, Any], source: Mapping[str, Any]) -> dict[str, Any]:
    """remeda's ``mergeDeep``: ``{...target, ...source}``, then plain objects on both sides
    merged recursively (a key keeps its place in ``target``; arrays are replaced).

    >>> merge_deep({"a": {"x": 1}, "b": 2}, {"b": 3, "a": {"y": 4}, "c": 5})
    {'a': {'x': 1, 'y': 4}, 'b': 3, 'c': 5}
    """
    out = {**target, **source}
    for key, value in source.items():
        if key in target and isinstance(target[key], dict) and isinstance(value, dict):
            out[key] = merge_deep(target[key], value)
    return out


# -- one file ---------------------------------------------------------------------------------

def _substitute(text: str, file: Path, display: str, env: Mapping[str, str]) -> str:
    """``{env:VAR}`` and ``{file:path}`` (``config/variable.ts`` ``substitute``)."""
    text = re.sub(r"\{env:([^}]+)\}", lambda m: env.get(m.group(1)) or "", text)
    out, cursor = [], 0
    for m in re.finditer(r"\{file:[^}]+\}", text):
        out.append(text[cursor:m.start()])
        cursor = m.end()
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start:m.start()].lstrip().startswith("//"):
            out.append(m.group())  # in a comment: left as written
            continue
        name = m.group()[6:-1]
        target = Path(os.path.expanduser(name)) if name.startswith("~/") else Path(name)
        target = target if target.is_absolute() else (file.parent / target).resolve()
        try:
            out.append(target.read_text(encoding="utf-8").strip())
        except OSError as exc:
            missing = f" {target} does not exist" if not target.exists() else ""
            raise DefinitionError(
                f'Configuration is invalid at {display}: bad file reference: "{m.group()}"'
                f"{missing}; fix the path or remove the reference ({exc.strerror})",
                file=display, line=text.count("\n", 0, m.start()) + 1) from None
    out.append(text[cursor:])
    return "".join(out)


def read_config_file(path: Path, display: str, env: Mapping[str, str] | None = None
                     ) -> Located | None:
    """One config file's text, substituted and parsed (None: the file is empty, which OpenCode
    reads as ``{}``). A syntax error is a ``DefinitionError`` in OpenCode's words
    (``Config file at ... is not valid JSON(C): <code> at line L, column C``) at its line."""
    text = read_text(path, display)
    if not text:  # loadFile: ``if (!text) return {}``; whitespace is parsed, and refused
        return None
    text = _substitute(text, path, display, os.environ if env is None else env)
    try:
        return parse_jsonc(text, display)
    except JsoncError as exc:
        fix = ("the file holds only whitespace, which OpenCode refuses (only an empty file "
               "reads as {}): write {} or empty it") if not text.strip() else (
            "fix the syntax there (comments and trailing commas are allowed, single quotes "
            "and unquoted keys are not)")
        raise DefinitionError(
            f"Config file at {display} is not valid JSON(C): {exc.code} at line {exc.line}, "
            f"column {exc.column}; {fix}", file=display, line=exc.line) from None


def _invalid(src: Located, path: tuple[Any, ...], message: str) -> DefinitionError:
    """OpenCode's ``ConfigInvalidError`` as FormatError prints it, located."""
    dotted = ".".join(str(p) for p in path)
    return src.error(path, f"Configuration is invalid at {src.file}\n\u21b3 {message} {dotted}")


def _shown(value: Any) -> str:
    import json

    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _permission(src: Located, path: tuple[Any, ...], value: Any, layer: str
                ) -> dict[str, Any]:
    """A ``permission`` value checked against ConfigPermissionV1.Info, with each action located;
    a bare action stands for ``{"*": action}``."""
    if isinstance(value, str):
        if value not in ACTIONS:
            raise _invalid(src, path, f"Expected {_ACTION_SHOWN}, got {_shown(value)}")
        return {"*": Src(value, src.file, src.line(path), layer)}
    if not isinstance(value, dict):
        raise _invalid(src, path, f"Expected {_ACTION_SHOWN} or an object, got {_shown(value)}")
    out: dict[str, Any] = {}
    for key in js_order(value):
        rule = value[key]
        where = (*path, key)
        if isinstance(rule, str):
            if rule not in ACTIONS:
                raise _invalid(src, where, f"Expected {_ACTION_SHOWN}, got {_shown(rule)}")
            out[key] = Src(rule, src.file, src.line(where), layer)
        elif isinstance(rule, dict) and key not in ACTION_ONLY:
            patterns: dict[str, Src] = {}
            for pattern in js_order(rule):
                action = rule[pattern]
                if action not in ACTIONS:
                    raise _invalid(src, (*where, pattern),
                                   f"Expected {_ACTION_SHOWN}, got {_shown(action)}")
                patterns[pattern] = Src(action, src.file, src.line((*where, pattern)), layer)
            out[key] = patterns
        else:
            expected = _ACTION_SHOWN if key in ACTION_ONLY else f"{_ACTION_SHOWN} or an object"
            raise _invalid(src, where, f"Expected {expected}, got {_shown(rule)}")
    return out


def _tools(src: Located, path: tuple[Any, ...], value: Any, layer: str) -> dict[str, Src]:
    if not isinstance(value, dict):
        raise _invalid(src, path, f"Expected an object of booleans, got {_shown(value)}")
    out = {}
    for name in js_order(value):
        if not isinstance(value[name], bool):
            raise _invalid(src, (*path, name), f"Expected boolean, got {_shown(value[name])}")
        out[name] = Src(value[name], src.file, src.line((*path, name)), layer)
    return out


def tools_to_permission(tools: Mapping[str, Src]) -> dict[str, Any]:
    """Legacy ``tools: {name: bool}`` as permissions: true allow, false deny; ``write``,
    ``edit`` and ``patch`` are the ``edit`` permission (agent.ts ``normalize``, config.ts)."""
    perms: dict[str, Any] = {}
    for tool, enabled in tools.items():
        action = Src("allow" if enabled.value else "deny", enabled.file, enabled.line,
                     f"{enabled.layer} tools")
        perms["edit" if tool in ("write", "edit", "patch") else tool] = action
    return perms


def _agent_strings(src: Located, path: tuple[Any, ...], value: dict[str, Any]
                   ) -> dict[str, Any]:
    """An agent's string fields, each checked to be a string."""
    out: dict[str, Any] = {}
    for key in ("description", "prompt", "model", "color", "variant", "name"):
        if key in value and not isinstance(value[key], str):
            raise _invalid(src, (*path, key), f"Expected string, got {_shown(value[key])}")
        if key in value:
            out[key] = value[key]
    return out


def _agent(src: Located, path: tuple[Any, ...], value: Any, layer: str) -> dict[str, Any]:
    """One agent entry decoded as ConfigAgentV1.Info: types checked, ``tools`` folded into
    ``permission`` (then the agent's own ``permission`` assigned over it), ``maxSteps`` read
    as ``steps``; unknown keys are the agent's options."""
    if not isinstance(value, dict):
        raise _invalid(src, path, f"Expected an agent object, got {_shown(value)}")
    out = _agent_strings(src, path, value)
    if "mode" in value:
        if value["mode"] not in _MODES:
            raise _invalid(src, (*path, "mode"),
                           f'Expected "subagent" | "primary" | "all", got {_shown(value["mode"])}')
        out["mode"] = Src(value["mode"], src.file, src.line((*path, "mode")), layer)
    for key in ("disable", "hidden"):
        if key in value:
            if not isinstance(value[key], bool):
                raise _invalid(src, (*path, key), f"Expected boolean, got {_shown(value[key])}")
            out[key] = Src(value[key], src.file, src.line((*path, key)), layer)
    permission = tools_to_permission(_tools(src, (*path, "tools"), value["tools"], layer)) \
        if "tools" in value else {}
    if "permission" in value:
        # Object.assign: the agent's own permission keys replace the tools-derived ones
        permission.update(_permission(src, (*path, "permission"), value["permission"], layer))
    out["permission"] = permission
    out["options"] = {k: v for k, v in value.items() if k not in AGENT_KEYS}
    return out


def _agents(src: Located, key: str, agents: Any, layer: str) -> dict[str, Any]:
    """The ``agent`` (or legacy ``mode``) map, each entry decoded and located."""
    if not isinstance(agents, dict):
        raise _invalid(src, (key,), f"Expected an object, got {_shown(agents)}")
    return {name: {**_agent(src, (key, name), entry, layer),
                   "_where": (src.file, src.line((key, name)))}
            for name, entry in agents.items()}


def decode(src: Located, layer: str, problems: list[Problem]) -> dict[str, Any]:
    """A parsed config file as ConfigV1.Info decodes it (the parts toolkit reads)."""
    data = src.data
    if not isinstance(data, dict):
        raise _invalid(src, (), f"Expected an object, got {_shown(data)}")
    extra = [k for k in data if k not in KNOWN_KEYS and k not in _LEGACY_TUI_KEYS]
    if extra:
        problems.append(Problem(src.file, src.line((extra[0],)),
                                f'Config "{src.file}": ignoring unrecognized keys: '
                                f"{', '.join(extra)}", "warning"))
    out: dict[str, Any] = {}
    if "permission" in data:
        out["permission"] = _permission(src, ("permission",), data["permission"], layer)
    if "tools" in data:
        out["tools"] = _tools(src, ("tools",), data["tools"], layer)
    for key in ("agent", "mode"):
        if key in data:
            out[key] = _agents(src, key, data[key], layer)
    if "default_agent" in data:
        if not isinstance(data["default_agent"], str):
            raise _invalid(src, ("default_agent",),
                           f"Expected string, got {_shown(data['default_agent'])}")
        out["default_agent"] = Src(data["default_agent"], src.file, src.line(("default_agent",)),
                                   layer)
    if isinstance(data.get("mcp"), dict):
        out["mcp"] = {name: Src(entry, src.file, src.line(("mcp", name)), layer)
                      for name, entry in data["mcp"].items()}
    return out


# -- markdown agents --------------------------------------------------------------------------

def _sanitize_front_matter(text: str) -> str:
    """``ConfigMarkdown.fallbackSanitization``: an unquoted value holding ``:`` becomes a block
    scalar, as OpenCode retries a front matter that YAML refuses (Claude Code style files)."""
    m = re.match(r"^---\r?\n([\s\S]*?)\r?\n---", text)
    if m is None:
        return text
    lines = []
    for line in re.split(r"\r?\n", m.group(1)):
        kv = re.match(r"^([a-zA-Z_][a-zA-Z0-9_]*)\s*:\s*(.*)$", line)
        value = kv.group(2).strip() if kv else ""
        if (kv is None or line.strip().startswith("#") or not line.strip()
                or re.match(r"^\s+", line) or value in ("", ">", "|")
                or value.startswith(("'", '"')) or ":" not in value):
            lines.append(line)
            continue
        lines.extend((f"{kv.group(1)}: |-", f"  {value}"))
    return text.replace(m.group(1), "\n".join(lines), 1)


def read_markdown_agent(path: Path, display: str) -> tuple[dict[str, Any], Located, str]:
    """(front matter, its located form, body) of an agent file (gray-matter, with OpenCode's
    fallback sanitization; a front matter it still cannot read is ``ConfigFrontmatterError``)."""
    text = read_text(path, display)
    m = re.match(r"^---\r?\n([\s\S]*?)\r?\n?---[^\S\n]*(?:\r?\n|$)", text)
    if m is None:
        return {}, Located({}, display, {(): 1}), text.strip()
    body = text[m.end():]
    try:
        src = parse_yaml(m.group(1), display, first_line=2)
    except DefinitionError:
        sanitized = _sanitize_front_matter(text)
        m2 = re.match(r"^---\r?\n([\s\S]*?)\r?\n?---", sanitized)
        try:
            src = parse_yaml(m2.group(1) if m2 else "", display, first_line=2)
        except DefinitionError as exc:
            raise DefinitionError(f"{display}: Failed to parse YAML frontmatter: "
                                  f"{exc.problems[0].message}", file=display,
                                  line=exc.problems[0].line) from None
    except yaml.YAMLError as exc:  # pragma: no cover - parse_yaml reports YAML errors itself
        raise DefinitionError(f"{display}: Failed to parse YAML frontmatter: {exc}",
                              file=display, line=2) from None
    data = src.data if isinstance(src.data, dict) else {}
    return data, src, body.strip()


def agent_name(relative: str) -> str:
    """The agent a file under ``agent/`` or ``agents/`` defines: its path below that folder,
    without ``.md`` (``agent/review/deep.md`` -> ``review/deep``)."""
    for prefix in ("agent/", "agents/", "mode/", "modes/"):
        if relative.startswith(prefix):
            relative = relative[len(prefix):]
            break
    return relative[:-3] if relative.endswith(".md") else relative


def _markdown_agents(folder: Path, root: Path, layer: str, primary: bool
                     ) -> dict[str, dict[str, Any]]:
    """``ConfigAgent.load`` (``{agent,agents}/**/*.md``) or ``loadMode`` (``{mode,modes}/*.md``,
    each a primary agent) of one config folder."""
    found: dict[str, dict[str, Any]] = {}
    subs = ("mode", "modes") if primary else ("agent", "agents")
    for sub in subs:
        base = folder / sub
        if not base.is_dir():
            continue
        files = sorted(base.glob("*.md") if primary else base.rglob("*.md"))
        for path in files:
            display = _display(path, root)
            data, src, body = read_markdown_agent(path, display)
            name = agent_name(path.relative_to(folder).as_posix())
            entry = {"name": name, **data, "prompt": body}
            decoded = _agent(src, (), entry, layer)
            if primary:
                decoded["mode"] = Src("primary", display, 1, layer)
            decoded["_where"] = (display, 1)
            found[str(entry["name"]) if isinstance(entry.get("name"), str) else name] = decoded
    return found


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# -- the layers ---------------------------------------------------------------------------------

class _Layers:
    """The merge of one project's files, in OpenCode's order (see ``load_config``)."""

    def __init__(self, config: OpenCodeConfig, env: Mapping[str, str] | None) -> None:
        self.config = config
        self.env = env
        self.merged: dict[str, Any] = {}

    def file(self, path: Path, layer: str) -> None:
        """Merge one config file (a missing one is skipped, as ``readFileStringSafe`` does;
        a folder of its name is an error: ``loadFile`` reads it and fails with EISDIR)."""
        if path.is_dir():
            self.config.errors.append(Problem(
                _display(path, self.config.root), None,
                f"{path.name} is a folder, not a file: OpenCode cannot read its config there "
                "(ConfigJsonError, EISDIR) and does not start; remove or rename the folder"))
            return
        if not path.is_file():
            return
        display = _display(path, self.config.root)
        try:
            src = read_config_file(path, display, self.env)
            if src is None:
                return
            self.merged = merge_deep(self.merged, decode(src, layer, self.config.problems))
            self.config.files.append(display)
        except DefinitionError as exc:
            self.config.errors.extend(exc.problems)

    def agents(self, folder: Path, layer: str) -> None:
        """Merge one folder's markdown agents (``agent/``) and modes (``mode/``)."""
        for primary in (False, True):
            try:
                found = _markdown_agents(folder, self.config.root, layer, primary)
            except DefinitionError as exc:
                self.config.errors.extend(exc.problems)
                continue
            if found:
                self.merged = merge_deep(self.merged, {"agent": found})

    def finish(self) -> None:
        """``mode`` entries become primary agents; ``tools`` goes under ``permission``."""
        merged, config = self.merged, self.config
        for name, mode in (merged.get("mode") or {}).items():
            where = mode.get("_where", (None, None))
            merged = merge_deep(merged, {"agent": {name: {
                **mode, "mode": Src("primary", where[0], where[1], "mode")}}})
        permission = merged.get("permission") or {}
        if merged.get("tools"):
            permission = merge_deep(tools_to_permission(merged["tools"]), permission)
        config.permission = permission
        config.default_agent = merged.get("default_agent")
        config.mcp = merged.get("mcp") or {}
        for name, entry in (merged.get("agent") or {}).items():
            file, line = entry.get("_where", (None, None))
            config.agents[name] = AgentConfig(name=name, fields=entry, file=file, line=line)


def load_config(root: Path, *, home: Path | None, managed: Path | None,
                env: Mapping[str, str] | None = None) -> OpenCodeConfig:
    """The merged configuration of the project at ``root`` (``home``: the folder standing for
    ``~``, None for no global layer; ``managed``: the managed folder, None for none). Errors
    are collected in ``errors`` (each with file:line), warnings in ``problems``."""
    config = OpenCodeConfig(root=root, home=home if home is not None else Path.home())
    layers = _Layers(config, env)
    global_dir = home / ".config" / "opencode" if home is not None else None
    if global_dir is not None:
        for name in ("config.json", "opencode.json", "opencode.jsonc"):
            layers.file(global_dir / name, "global")
    for name in ("opencode.json", "opencode.jsonc"):
        layers.file(root / name, "project")
    folders: list[tuple[Path, str]] = [] if global_dir is None else [(global_dir, "global")]
    folders.append((root / ".opencode", "project"))
    if home is not None and (home / ".opencode").resolve() != (root / ".opencode").resolve():
        folders.append((home / ".opencode", "global"))
    for folder, layer in folders:
        if folder.name == ".opencode":
            for name in ("opencode.json", "opencode.jsonc"):
                layers.file(folder / name, layer)
        layers.agents(folder, layer)
    if managed is not None:
        for name in ("opencode.json", "opencode.jsonc"):
            layers.file(managed / name, "managed")
    layers.finish()
    return config
