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
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import DefinitionError, Problem
from .execpolicy import ExecPolicyError, Policy, PolicyParser
from .requirements import Requirements, toml_error_line

__all__ = [
    "APPROVAL_POLICIES",
    "SANDBOX_MODES",
    "CodexSettings",
    "ConfigLayer",
    "ExecPolicyLoadError",
    "LayerStack",
    "child_uses_parent_exec_policy",
    "collect_policy_files",
    "format_exec_policy_error_with_source",
    "load_exec_policy",
    "load_exec_policy_with_warning",
    "parse_starlark_line_from_message",
    "project_folders",
    "project_root",
    "read_settings",
]

APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
_FLAGS_WITH_VALUE = {"-c": "config", "--config": "config", "-a": "approval",
                     "--ask-for-approval": "approval", "-s": "sandbox", "--sandbox": "sandbox",
                     "-p": "profile", "--profile": "profile"}


@dataclass(frozen=True)
class McpServer:
    """A ``[mcp_servers.NAME]`` table: what decides whether its tools are exposed."""

    name: str
    enabled: bool = True
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    file: str | None = None
    command: str | None = None
    url: str | None = None
    #: the requirements file whose ``mcp_servers`` allowlist disabled it
    disabled_by: str | None = None


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
    #: the managed requirements (``requirements.toml``), when given
    requirements: Requirements | None = None
    #: rules file (as shown) -> the layer it belongs to: system / user / project / managed
    rule_layers: dict[str, str] = field(default_factory=dict)

    @property
    def approval_label(self) -> str:
        return "granular" if self.granular else self.approval_policy


def _toml(path: Path, shown: str) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        line = toml_error_line(exc)
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
        elif arg == "--ignore-rules":  # codex exec: user and project .rules are not read
            out["ignore_rules"] = True
        elif arg == "--ignore-user-config":  # codex exec: ~/.codex/config.toml is not read
            out["ignore_user_config"] = True
        i += 1
    return out, notes


@dataclass(frozen=True)
class Trust:
    """``ProjectTrustDecision``: a folder's trust level (None: not listed) and the key of
    ``[projects."<key>"]`` that decided it (or would, once added)."""

    level: str | None
    key: str

    @property
    def trusted(self) -> bool:
        return self.level == "trusted"

    def disabled_reason(self, user_file: str) -> str | None:
        """``disabled_reason_for_decision``, in Codex's words."""
        if self.trusted:
            return None
        gated = "project-local config, hooks, and exec policies"
        if self.level == "untrusted":
            return f"{self.key} is marked as untrusted in {user_file}. To load {gated}, mark " \
                   "it trusted."
        return f"To load {gated}, add {self.key} as a trusted project in {user_file}."


@dataclass(frozen=True)
class TrustContext:
    """``ProjectTrustContext``: the ``[projects]`` trust levels, the project root (by
    ``project_root_markers``) and the git repository root (a linked worktree's main one)."""

    projects: Mapping[str, str]
    project_root: Path
    repo_root: Path | None

    def decision_for_dir(self, folder: Path) -> Trust:
        """The folder's own entry, else the project root's, else the repository root's
        (``decision_for_dir``): a parent folder's entry does not reach a project below it."""
        for place in (folder, self.project_root, self.repo_root):
            if place is None:
                continue
            level = self.projects.get(str(place))
            if level is not None:
                return Trust(level, str(place))
        return Trust(None, str(self.repo_root or self.project_root))


def _projects(merged: Mapping[str, Any]) -> dict[str, str]:
    """``[projects."<path>"] trust_level = ...`` of the merged config, by path."""
    projects = merged.get("projects")
    if not isinstance(projects, Mapping):
        return {}
    return {str(key): str(entry["trust_level"]) for key, entry in projects.items()
            if isinstance(entry, Mapping) and isinstance(entry.get("trust_level"), str)}


def repo_root(cwd: Path) -> Path | None:
    """The git repository ``cwd`` is in (``resolve_root_git_project_for_trust``): the nearest
    folder holding ``.git``; for a linked worktree (``.git`` a file ``gitdir: <repo>/.git/
    worktrees/<name>``) the main repository's folder."""
    for place in (cwd, *cwd.parents):
        dot_git = place / ".git"
        if dot_git.is_dir():
            return place
        if dot_git.is_file():
            try:
                text = dot_git.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return place
            target = text.strip().removeprefix("gitdir:").strip()
            parts = Path(target).parts
            if "worktrees" in parts and parts.index("worktrees") >= 1 and \
                    parts[parts.index("worktrees") - 1] == ".git":
                return Path(*parts[:parts.index("worktrees") - 1])
            return place
    return None


def codex_home(home: Any) -> Path | None:
    """``$CODEX_HOME`` or ``<home>/.codex``; None when ``home`` is False (no user layer)."""
    if home is False:
        return None
    if home is None:
        env = os.environ.get("CODEX_HOME")
        return Path(env) if env else Path.home() / ".codex"
    return Path(home) / ".codex"


Layer = tuple[str, dict[str, Any], Path | None, str]  # name, data, folder, shown file


#: Codex's default ``project_root_markers``
DEFAULT_MARKERS = (".git",)
#: config keys a project's ``.codex/config.toml`` may not set (``PROJECT_LOCAL_CONFIG_DENYLIST``:
#: "it should not get to choose where a user's credentials are sent or which local commands
#: are run")
PROJECT_DENYLIST = ("openai_base_url", "chatgpt_base_url", "apps_mcp_product_sku",
                    "model_provider", "model_providers", "notify", "profile", "profiles",
                    "experimental_realtime_webrtc_call_base_url",
                    "experimental_realtime_ws_base_url", "otel")


def project_root(cwd: Path, markers: Sequence[str] = DEFAULT_MARKERS) -> Path:
    """The nearest folder at or above ``cwd`` holding a project root marker (``.git`` by
    default), else ``cwd``; with no markers, ``cwd`` (``find_project_root``)."""
    if not markers:
        return cwd
    for place in (cwd, *cwd.parents):
        if any((place / m).exists() for m in markers):
            return place
    return cwd


def project_folders(cwd: Path, markers: Sequence[str] = DEFAULT_MARKERS,
                    codex_home: Path | None = None) -> list[Path]:
    """Every ``.codex`` folder from the project root down to ``cwd``, root first, without
    ``$CODEX_HOME`` (the user layer, never a project one) (``load_project_layers``)."""
    top = project_root(cwd, markers)
    chain = [cwd, *cwd.parents]
    chain = chain[: chain.index(top) + 1] if top in chain else [cwd]
    home = _resolved(codex_home) if codex_home is not None else None
    return [p / ".codex" for p in reversed(chain)
            if (p / ".codex").is_dir() and _resolved(p / ".codex") != home]


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


def _markers(merged: Mapping[str, Any]) -> tuple[str, ...]:
    """``project_root_markers`` of the system, user and ``-c`` config (default ``.git``)."""
    markers = merged.get("project_root_markers")
    if markers is None:
        return DEFAULT_MARKERS
    if not isinstance(markers, list) or not all(isinstance(m, str) for m in markers):
        raise DefinitionError(Problem(
            None, None, f"invalid project_root_markers {markers!r}: expected a list of "
                        "strings (Codex refuses to load this config); set e.g. "
                        'project_root_markers = [".git"]'))
    return tuple(markers)


def _layers(settings: CodexSettings, cwd: Path, chome: Path | None, user: dict[str, Any],
            system: tuple[Path, dict[str, Any]] | None, trust: TrustContext,
            markers: Sequence[str]) -> list[Layer]:
    """The system folder, the user layer, then each project ``.codex`` folder from the
    project root down to ``cwd`` that is trusted (an untrusted one: a warning saying so,
    with Codex's reason) (``load_config_layers_state``)."""
    layers: list[Layer] = []
    if system is not None:
        folder, data = system
        layers.append(("system", data, folder, f"{folder}/config.toml"))
    if chome is not None:
        layers.append(("user", user, chome, "~/.codex/config.toml"))
    for folder in project_folders(cwd, markers, chome):
        shown = _project_shown(folder, cwd)
        decision = trust.decision_for_dir(folder.parent)
        reason = decision.disabled_reason("~/.codex/config.toml")
        if reason is None:
            data = _project_config(settings, folder / "config.toml", f"{shown}/config.toml")
            layers.append(("project", data, folder, f"{shown}/config.toml"))
            continue
        why = "is marked untrusted" if decision.level == "untrusted" else "is not trusted"
        settings.problems.append(Problem(
            shown, None, f"the project {why}: Codex does not read its {shown}/rules or "
                         f"{shown}/config.toml ({reason})", severity="warning"))
    return layers


def _project_config(settings: CodexSettings, file: Path, shown: str) -> dict[str, Any]:
    """A trusted project's ``config.toml`` without the keys a project may not set (Codex
    ignores them with a startup warning: ``sanitize_project_config``)."""
    if not file.is_file():
        return {}
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise DefinitionError(Problem(shown, toml_error_line(exc),
                                      f"Error parsing project config file {shown}: {exc}")
                              ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError(Problem(shown, None, f"Failed to read project config file "
                                                   f"{shown}: {exc}")) from None
    ignored = [key for key in PROJECT_DENYLIST if data.pop(key, None) is not None]
    features = data.get("features")
    if isinstance(features, dict) and features.pop("respect_system_proxy", None) is not None:
        ignored.append("features.respect_system_proxy")
    if ignored:
        settings.problems.append(Problem(
            shown, None, f"Ignored unsupported project-local config keys in {shown}: "
                         f"{', '.join(ignored)}. If you want these settings to apply, manually "
                         "set them in your user-level config.toml.", severity="warning"))
    return data


def _project_shown(folder: Path, root: Path) -> str:
    """``.codex`` for the project's own folder, ``../.codex`` for one above it."""
    if folder.parent == root:
        return ".codex"
    try:
        return str(Path(os.path.relpath(folder, root)))
    except ValueError:
        return str(folder)


def _servers(data: Mapping[str, Any], shown: str) -> dict[str, McpServer]:
    """``[mcp_servers.NAME]`` tables: ``enabled``, ``enabled_tools``, ``disabled_tools``."""
    out: dict[str, McpServer] = {}
    for server, conf in (data.get("mcp_servers") or {}).items():
        if isinstance(conf, Mapping):
            tools = conf.get("enabled_tools")
            command, url = conf.get("command"), conf.get("url")
            out[server] = McpServer(server, bool(conf.get("enabled", True)),
                                    tuple(tools) if isinstance(tools, list) else None,
                                    tuple(conf.get("disabled_tools") or ()), shown,
                                    command if isinstance(command, str) else None,
                                    url if isinstance(url, str) else None)
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
    # unset: on-request, or untrusted for a project marked untrusted (Config::load)
    approval = merged.get("approval_policy",
                          "untrusted" if settings.trusted is False else "on-request")
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


class ExecPolicyLoadError(Exception):
    """``ExecPolicyError`` of ``exec_policy.rs``: ``read_dir``, ``read_file`` or ``parse``."""

    def __init__(self, kind: str, path: str, message: str,
                 source: ExecPolicyError | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.path = path
        self.message = message
        self.source = source

    def __str__(self) -> str:
        what = {"read_dir": "failed to read rules files from",
                "read_file": "failed to read rules file",
                "parse": "failed to parse rules file"}[self.kind]
        return f"{what} {self.path}: {self.message}"


@dataclass(frozen=True)
class ConfigLayer:
    """One entry of Codex's config layer stack, as the rules loader sees it: its source
    (``system`` / ``user`` / ``project`` / ``session``), its config folder (whose
    ``rules/`` holds ``*.rules``) and, for a disabled (untrusted) layer, why."""

    source: str
    folder: Path | None
    disabled: str | None = None
    shown: str | None = None  # how its rules files are named in errors and rules


def collect_policy_files(folder: Path) -> list[Path]:
    """The ``*.rules`` files of a ``rules/`` folder, sorted; none when it does not exist;
    ``ExecPolicyLoadError`` (read_dir) when it is not a folder."""
    try:
        entries = list(folder.iterdir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ExecPolicyLoadError("read_dir", str(folder), exc.strerror or str(exc)) from None
    return sorted(p for p in entries if p.suffix == ".rules" and p.is_file())


def load_exec_policy(layers: Sequence[ConfigLayer], *, requirements: Policy | None = None,
                     ignore_user_and_project_rules: bool = False,
                     files: list[str] | None = None) -> Policy:
    """Every enabled layer's rules, lowest precedence first, then the requirements overlay
    (``load_exec_policy``); ``files`` collects the files read, as shown."""
    parser = PolicyParser()
    for layer in layers:
        if layer.disabled is not None or layer.folder is None:
            continue
        if ignore_user_and_project_rules and layer.source in ("user", "project"):
            continue
        for file in collect_policy_files(layer.folder / "rules"):
            shown = f"{layer.shown}/rules/{file.name}" if layer.shown else str(file)
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ExecPolicyLoadError("read_file", shown, str(exc)) from None
            try:
                parser.parse(str(file), text, display=shown)
            except ExecPolicyError as exc:
                raise ExecPolicyLoadError("parse", shown, exc.message, exc) from None
            if files is not None:
                files.append(shown)
    policy = parser.build()
    return policy if requirements is None else policy.merge_overlay(requirements)


def load_exec_policy_with_warning(layers: Sequence[ConfigLayer], *,
                                  requirements: Policy | None = None,
                                  ignore_user_and_project_rules: bool = False
                                  ) -> tuple[Policy, ExecPolicyLoadError | None]:
    """As Codex starts a session: a rules file it cannot parse is a warning, and only the
    requirements' rules apply (``load_exec_policy_with_warning``)."""
    try:
        return load_exec_policy(layers, requirements=requirements,
                                ignore_user_and_project_rules=ignore_user_and_project_rules
                                ), None
    except ExecPolicyLoadError as exc:
        if exc.kind != "parse":
            raise
        return (requirements.copy() if requirements is not None else Policy()), exc


def parse_starlark_line_from_message(message: str) -> tuple[str, int] | None:
    """``PATH:LINE:COL: starlark error: ...`` -> (PATH, LINE); None for line 0."""
    first = message.splitlines()[0].strip() if message else ""
    where, sep, _ = first.rpartition(": starlark error:")
    if not sep:
        return None
    parts = where.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    line = int(parts[1])
    return None if line == 0 else (parts[0], line)


def format_exec_policy_error_with_source(error: ExecPolicyLoadError) -> str:
    """``PATH:LINE: MESSAGE (problem is on or around line LINE)``, else the error."""
    if error.kind != "parse" or error.source is None:
        return str(error)
    source = error.source
    if source.line is not None:
        return f"{source.path or error.path}:{source.line}: {source.message} " \
               f"(problem is on or around line {source.line})"
    return f"{error.path}: {source.message}"


def _read_rules(settings: CodexSettings, layers: list[Layer], ignore_rules: bool) -> None:
    """Every layer's ``rules/*.rules``, lowest precedence first, into one policy."""
    stack = [ConfigLayer(name, folder, shown=_rules_shown(name, shown))
             for name, _, folder, shown in layers]
    req = settings.requirements
    overlay = req.rules if req is not None else None
    try:
        settings.policy = load_exec_policy(stack, ignore_user_and_project_rules=ignore_rules,
                                           files=settings.rules_files, requirements=overlay)
        for layer in stack:
            prefix = f"{layer.shown}/rules/"
            settings.rule_layers.update({f: layer.source for f in settings.rules_files
                                         if f.startswith(prefix)})
        if overlay is not None and req is not None:
            settings.rule_layers[req.source_of("rules")] = "managed"
    except ExecPolicyLoadError as exc:
        line = exc.source.line if exc.source is not None else None
        message = (_codex_words(exc.source, exc.path) if exc.source is not None
                   else str(exc))
        raise DefinitionError(Problem(exc.path, line, message)) from None


def _rules_shown(name: str, shown: str) -> str:
    """The folder a layer's rules are named under: ``~/.codex``, ``.codex``, ..."""
    return shown.removesuffix("/config.toml")


def read_settings(path: str | os.PathLike[str], *, home: Any = None,
                  cli: Sequence[str] | None = None, system: Any = None,
                  requirements: Requirements | None = None,
                  managed_config: Any = None) -> CodexSettings:
    """The Codex settings of a session started in the folder ``path`` (its cwd);
    ``DefinitionError`` (file:line, Codex's words) for a config or rules file Codex could not
    load. ``system``: the system config folder (``/etc/codex``; default none), whose
    ``config.toml`` is the lowest layer and whose ``rules/`` are read first;
    ``requirements``: the managed requirements (:mod:`.requirements`); ``managed_config``:
    a legacy ``managed_config.toml``, the highest config layer."""
    cwd = Path(path).resolve()
    chome = codex_home(home)
    flags, _ = _cli(cli)
    system_layer = None
    if system not in (None, False):
        folder = Path(system)
        file = folder / "config.toml"
        system_layer = (folder, _toml(file, f"{folder}/config.toml") if file.is_file() else {})
    user_file = chome / "config.toml" if chome is not None else None
    user: dict[str, Any] = {}
    if user_file and user_file.is_file() and not flags.get("ignore_user_config"):
        user = _toml(user_file, "~/.codex/config.toml")
    settings = CodexSettings(root=cwd, codex_home=chome, trusted=None,
                             requirements=requirements)
    # the project root and trust come from the system, user and -c config (merged so far)
    base = _deep_merge(system_layer[1] if system_layer else {}, user, flags.get("config", {}))
    markers = _markers(base)
    trust = TrustContext(_projects(base), project_root(cwd, markers), repo_root(cwd))
    settings.trusted = {"trusted": True, "untrusted": False}.get(
        trust.decision_for_dir(cwd).level or "")
    layers = _layers(settings, cwd, chome, user, system_layer, trust, markers)
    if managed_config not in (None, False):
        file = Path(managed_config)
        layers.append(("managed", _toml(file, str(file)), None, str(file)))
    _approval(settings, _merge(settings, layers, flags))
    _apply_requirements(settings)
    _read_rules(settings, layers, bool(flags.get("ignore_rules")))
    _legacy_policy_files(settings, layers)
    return settings


def _deep_merge(*tables: Mapping[str, Any]) -> dict[str, Any]:
    """TOML tables merged, later ones winning, sub-tables merged key by key
    (``merge_toml_values``)."""
    out: dict[str, Any] = {}
    for table in tables:
        for key, value in table.items():
            if isinstance(value, Mapping) and isinstance(out.get(key), dict):
                out[key] = _deep_merge(out[key], value)
            else:
                out[key] = dict(value) if isinstance(value, Mapping) else value
    return out


def _apply_requirements(settings: CodexSettings) -> None:
    """The managed requirements over the configured values: a disallowed approval policy or
    sandbox mode falls back, with Codex's startup warning; an MCP server off the allowlist
    is disabled."""
    req = settings.requirements
    if req is None:
        return
    configured = settings.approval_label
    approval, warning = req.constrain_approval_policy(configured)
    if warning is not None:
        settings.problems.append(Problem(settings.sources.get("approval_policy", req.source_of(
            "allowed_approval_policies")), None, warning, severity="warning"))
        settings.approval_policy, settings.granular = approval, {}
        settings.sources["approval_policy"] = req.source_of("allowed_approval_policies")
    sandbox, warning = req.constrain_sandbox_mode(settings.sandbox_mode)
    if warning is not None:
        settings.problems.append(Problem(settings.sources.get("sandbox_mode", req.source_of(
            "allowed_sandbox_modes")), None, warning, severity="warning"))
        settings.sandbox_mode = sandbox
        settings.sources["sandbox_mode"] = req.source_of("allowed_sandbox_modes")
    for name, server in list(settings.mcp_servers.items()):
        if not req.mcp_server_allowed(name, server.command, server.url):
            settings.mcp_servers[name] = replace(
                server, enabled=False, disabled_by=req.source_of("mcp_servers"))


def _legacy_policy_files(settings: CodexSettings, layers: Sequence[Layer]) -> None:
    """``.codexpolicy`` files where Codex once read them (``policy/`` of a config folder):
    Codex reads ``rules/*.rules`` only since openai/codex#7888, so each is a warning saying
    where its rules would be read."""
    for name, _, folder, shown in layers:
        if folder is None:
            continue
        base = _rules_shown(name, shown)
        for sub in ("policy", "rules"):
            try:
                found = sorted((folder / sub).glob("*.codexpolicy"))
            except OSError:
                continue
            for file in found:
                settings.problems.append(Problem(
                    f"{base}/{sub}/{file.name}", None,
                    "Codex no longer reads .codexpolicy files (openai/codex#7888 renamed "
                    f"policy/*.codexpolicy to rules/*.rules, December 2025): this file's rules "
                    f"are not applied; move it to {base}/rules/{file.stem}.rules (the "
                    "prefix_rule syntax is the same)", severity="warning"))


def _codex_words(exc: ExecPolicyError, shown: str) -> str:
    """With the Problem's ``file:line``, as Codex shows it
    (``format_exec_policy_error_with_source``): ``PATH:N: MESSAGE (problem is on or around
    line N)``; ``failed to parse rules file PATH: MESSAGE`` when it has no line."""
    if exc.line is None:
        return f"failed to parse rules file {shown}: {exc.message}"
    return f"{exc.message} (problem is on or around line {exc.line})"


def quote(argv: Sequence[str]) -> str:
    """An argv as Codex renders it in messages (``shlex::try_join``)."""
    return _quote(tuple(argv))


@lru_cache(maxsize=4096)
def _quote(argv: tuple[str, ...]) -> str:
    # one call's messages render each of its commands several times
    return shlex.join(argv)


@dataclass(frozen=True)
class LayerStack:
    """What of a ``ConfigLayerStack`` the exec policy depends on: its layers, whether user
    and project rules are ignored (``--ignore-rules``), and the requirements' policy."""

    layers: tuple[ConfigLayer, ...] = ()
    ignore_user_and_project_rules: bool = False
    requirements: Policy | None = None


def child_uses_parent_exec_policy(parent: LayerStack, child: LayerStack) -> bool:
    """A spawned agent shares its parent's exec policy when the enabled layers' config
    folders, the ignore-rules switch and the requirements' policy are the same
    (``child_uses_parent_exec_policy``)."""
    def folders(stack: LayerStack) -> list[Path]:
        return [layer.folder for layer in stack.layers
                if layer.disabled is None and layer.folder is not None]

    return (folders(parent) == folders(child)
            and parent.ignore_user_and_project_rules == child.ignore_user_and_project_rules
            and parent.requirements == child.requirements)
