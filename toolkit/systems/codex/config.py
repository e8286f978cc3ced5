"""Codex's settings layers: ``config.toml`` (user, trusted project, profile, ``-c``), project
trust, and the ``.rules`` files of each layer.

Where Codex reads them (developers.openai.com/codex/config-reference, /codex/rules,
``codex-rs/core/src/exec_policy.rs`` ``load_exec_policy``): ``$CODEX_HOME`` (``~/.codex``)
holds the user ``config.toml`` and ``rules/*.rules``; a project's ``.codex/config.toml``
and ``.codex/rules/*.rules`` are read only when the project is trusted
(``[projects."/abs/path"] trust_level = "trusted"`` in the user config). Rules files of
a layer are read in file-name order, the user layer's first.
"""

from __future__ import annotations

import os
import shlex
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import DefinitionError, Problem
from .execpolicy import ExecPolicyError, Policy, PolicyParser

__all__ = ["APPROVAL_POLICIES", "SANDBOX_MODES", "CodexSettings", "read_settings"]

APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
_FLAGS_WITH_VALUE = {"-c": "config", "--config": "config", "-a": "approval",
                     "--ask-for-approval": "approval", "-s": "sandbox", "--sandbox": "sandbox",
                     "-p": "profile", "--profile": "profile"}


@dataclass(frozen=True)
class McpServer:
    name: str
    enabled: bool = True
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    file: str | None = None


@dataclass
class CodexSettings:
    """Everything Codex's approval decision reads, with where each value came from."""

    root: Path
    codex_home: Path | None
    trusted: bool | None  # None: the user config says nothing about the project
    policy: Policy = field(default_factory=Policy)
    rules_files: list[str] = field(default_factory=list)
    approval_policy: str = "on-request"
    granular: Mapping[str, bool] = field(default_factory=dict)
    sandbox_mode: str = "read-only"
    sources: dict[str, str] = field(default_factory=dict)  # key -> "file" it came from
    mcp_servers: dict[str, McpServer] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def approval_label(self) -> str:
        return "granular" if self.granular else self.approval_policy


def _toml(path: Path, shown: str) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        raise DefinitionError(Problem(shown, line, f"failed to parse config.toml: {exc}")) \
            from None
    except OSError as exc:
        raise DefinitionError(Problem(shown, None, f"failed to read config.toml: {exc}")) \
            from None


def _set_dotted(table: dict[str, Any], dotted: str, value: Any) -> None:
    keys = [k.strip().strip('"') for k in _split_dotted(dotted)]
    for key in keys[:-1]:
        table = table.setdefault(key, {})
    table[keys[-1]] = value


def _split_dotted(dotted: str) -> list[str]:
    parts, current, quoted = [], "", False
    for ch in dotted:
        if ch == '"':
            quoted = not quoted
        if ch == "." and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current]


def _cli(cli: Sequence[str] | None) -> tuple[dict[str, Any], list[str]]:
    """Codex flags among ``cli`` (``-c key=value``, ``-a``, ``-s``, ``-p``, ``--full-auto``,
    ``--dangerously-bypass-approvals-and-sandbox``); other flags are another runtime's."""
    out: dict[str, Any] = {}
    notes: list[str] = []
    args = list(cli or ())
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        kind = _FLAGS_WITH_VALUE.get(name)
        if kind is not None:
            value = inline if eq else (args[i + 1] if i + 1 < len(args) else "")
            i += 1 if eq else 2
            if kind == "config":
                key, _, raw = value.partition("=")
                try:
                    parsed: Any = tomllib.loads(f"v = {raw}")["v"]
                except tomllib.TOMLDecodeError:
                    parsed = raw  # Codex takes a value that is not TOML as a string
                _set_dotted(out.setdefault("config", {}), key, parsed)
            else:
                out[kind] = value
            continue
        if arg == "--full-auto":
            out["approval"], out["sandbox"] = "on-request", "workspace-write"
        elif arg in ("--dangerously-bypass-approvals-and-sandbox", "--yolo"):
            out["approval"], out["sandbox"] = "never", "danger-full-access"
        i += 1
    return out, notes


def _trust(user: Mapping[str, Any], root: Path) -> bool | None:
    projects = user.get("projects")
    if not isinstance(projects, Mapping):
        return None
    for place in (root, *root.parents):
        entry = projects.get(str(place))
        if isinstance(entry, Mapping) and "trust_level" in entry:
            return bool(entry["trust_level"] == "trusted")
    return None


def _rules_files(folder: Path) -> list[Path]:
    rules = folder / "rules"
    if not rules.is_dir():
        return []
    return sorted(p for p in rules.iterdir() if p.suffix == ".rules" and p.is_file())


def codex_home(home: Any) -> Path | None:
    """``$CODEX_HOME`` or ``<home>/.codex``; None when ``home`` is False (no user layer)."""
    if home is False:
        return None
    if home is None:
        env = os.environ.get("CODEX_HOME")
        return Path(env) if env else Path.home() / ".codex"
    return Path(home) / ".codex"


Layer = tuple[str, dict[str, Any], Path, str]  # name, data, folder, shown file


def _layers(settings: CodexSettings, root: Path, chome: Path | None) -> list[Layer]:
    """The user layer, then the project's when it is trusted (else a warning saying so)."""
    layers: list[Layer] = []
    if chome is not None:
        user_file = chome / "config.toml"
        data = _toml(user_file, "~/.codex/config.toml") if user_file.is_file() else {}
        layers.append(("user", data, chome, "~/.codex/config.toml"))
    project_dir = root / ".codex"
    if not project_dir.is_dir():
        return layers
    if settings.trusted:
        file = project_dir / "config.toml"
        data = _toml(file, ".codex/config.toml") if file.is_file() else {}
        layers.append(("project", data, project_dir, ".codex/config.toml"))
        return layers
    why = ("is marked untrusted" if settings.trusted is False else
           f'is not trusted (no [projects."{root}"] trust_level = "trusted" in '
           "~/.codex/config.toml)")
    settings.problems.append(Problem(
        ".codex", None, f"the project {why}: Codex does not read its .codex/rules or "
                        ".codex/config.toml", severity="warning"))
    return layers


def _servers(data: Mapping[str, Any], shown: str) -> dict[str, McpServer]:
    """``[mcp_servers.NAME]`` tables: ``enabled``, ``enabled_tools``, ``disabled_tools``."""
    out: dict[str, McpServer] = {}
    for server, conf in (data.get("mcp_servers") or {}).items():
        if isinstance(conf, Mapping):
            tools = conf.get("enabled_tools")
            out[server] = McpServer(server, bool(conf.get("enabled", True)),
                                    tuple(tools) if isinstance(tools, list) else None,
                                    tuple(conf.get("disabled_tools") or ()), shown)
    return out


def _merge(settings: CodexSettings, layers: list[Layer], flags: Mapping[str, Any]
           ) -> dict[str, Any]:
    """Scalar keys, highest layer winning: user < project < -c < profile < flags; MCP servers."""
    merged: dict[str, Any] = {}
    for _, data, _, shown in layers:
        for key, value in data.items():
            merged[key] = value
            settings.sources[key] = shown
        settings.mcp_servers.update(_servers(data, shown))
    for key, value in flags.get("config", {}).items():
        merged[key] = value
        settings.sources[key] = "-c"
    profile = flags.get("profile") or merged.get("profile")
    if profile:
        chosen = (merged.get("profiles") or {}).get(profile)
        if not isinstance(chosen, Mapping):
            settings.problems.append(Problem(None, None, f"config profile `{profile}` not found",
                                             severity="warning"))
            chosen = {}
        for key, value in chosen.items():
            merged[key] = value
            settings.sources[key] = f"profile {profile}"
    for flag, key, shown in (("approval", "approval_policy", "--ask-for-approval"),
                             ("sandbox", "sandbox_mode", "--sandbox")):
        if flag in flags:
            merged[key] = flags[flag]
            settings.sources[key] = shown
    return merged


def _approval(settings: CodexSettings, merged: Mapping[str, Any]) -> None:
    approval = merged.get("approval_policy", "on-request")
    if isinstance(approval, Mapping) and isinstance(approval.get("granular"), Mapping):
        settings.granular = {k: bool(v) for k, v in approval["granular"].items()}
        settings.approval_policy = "granular"
    elif approval in APPROVAL_POLICIES:
        settings.approval_policy = str(approval)
    else:
        settings.problems.append(Problem(settings.sources.get("approval_policy"), None,
                                         f"unknown approval_policy {approval!r}; "
                                         f"expected one of {', '.join(APPROVAL_POLICIES)}"))
    sandbox = merged.get("sandbox_mode", "workspace-write" if settings.trusted else "read-only")
    if sandbox in SANDBOX_MODES:
        settings.sandbox_mode = str(sandbox)


def _read_rules(settings: CodexSettings, layers: list[Layer]) -> None:
    """Every layer's ``rules/*.rules``, lowest precedence first, into one policy."""
    parser = PolicyParser()
    for name, _, folder, _ in layers:
        for file in _rules_files(folder):
            shown = (f"~/.codex/rules/{file.name}" if name == "user"
                     else f".codex/rules/{file.name}")
            try:
                parser.parse(str(file), file.read_text(encoding="utf-8"), display=shown)
            except ExecPolicyError as exc:
                raise DefinitionError(Problem(shown, exc.line, _codex_words(exc, shown))) \
                    from None
            except (OSError, UnicodeDecodeError) as exc:
                raise DefinitionError(Problem(shown, None,
                                              f"failed to read rules file {shown}: {exc}")) \
                    from None
            settings.rules_files.append(shown)
    settings.policy = parser.build()


def read_settings(path: str | os.PathLike[str], *, home: Any = None,
                  cli: Sequence[str] | None = None) -> CodexSettings:
    """The project's Codex settings; ``DefinitionError`` (file:line, Codex's words) for a
    config or rules file Codex could not load."""
    root = Path(path).resolve()
    chome = codex_home(home)
    flags, _ = _cli(cli)
    user_file = chome / "config.toml" if chome is not None else None
    user = _toml(user_file, "~/.codex/config.toml") if user_file and user_file.is_file() else {}
    trusted = _trust(flags.get("config", {}), root)
    if trusted is None:
        trusted = _trust(user, root)
    settings = CodexSettings(root=root, codex_home=chome, trusted=trusted)
    layers = _layers(settings, root, chome)
    _approval(settings, _merge(settings, layers, flags))
    _read_rules(settings, layers)
    return settings


def _codex_words(exc: ExecPolicyError, shown: str) -> str:
    """With the Problem's ``file:line``, as Codex shows it
    (``format_exec_policy_error_with_source``): ``PATH:N: MESSAGE (problem is on or around
    line N)``; ``failed to parse rules file PATH: MESSAGE`` when it has no line."""
    if exc.line is None:
        return f"failed to parse rules file {shown}: {exc.message}"
    return f"{exc.message} (problem is on or around line {exc.line})"


def quote(argv: Sequence[str]) -> str:
    """An argv as Codex renders it in messages (``shlex::try_join``)."""
    return shlex.join(argv)
