"""Where Gemini CLI's policies and settings come from (``policy/config.ts``,
``cli/src/config/policy.ts`` and ``settings.ts`` at 5411f11).

Tiers (``config.ts``): Default 1 (the built-in ``policies/*.toml``, vendored beside this
module), Extension 2, Workspace 3 (``.gemini/policies``: the current CLI does not load it,
``disableWorkspacePolicies = true``; toolkit lists it and says so), User 4
(``~/.gemini/policies``), Admin 5 (``/etc/gemini-cli/policies``, or ``managed=``). A
rule's priority is ``tier + priority/1000``. Settings (system > workspace (trusted folders
only) > user) add rules in fixed bands of the user tier: ``mcp.excluded`` 4.9,
``tools.exclude`` 4.4, ``tools.confirmationRequired`` 4.35, ``tools.allowed`` 4.3 (a
narrowed shell tool adds a deny at 4.29), ``tools.core`` 4.25 with a deny of everything
else at 4.24 (not in plan mode), trusted ``mcpServers`` 4.2, ``mcp.allowed`` 4.1.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import DefinitionError, Problem
from ..base.mcpconfig import strip_jsonc
from ..base.source import parse_json
from .policy import (
    ALLOW,
    ASK_USER,
    DENY,
    MCP_TOOL_PREFIX,
    SHELL_TOOL_NAMES,
    PolicyRule,
    build_args_patterns,
)
from .toml_loader import PolicyFileError, SafetyCheckerRule, load_policies, read_policy_files

__all__ = [
    "BUILTIN_COMMIT",
    "BUILTIN_POLICIES",
    "GeminiConfig",
    "PolicyEngineConfig",
    "Storage",
    "clear_emitted_policy_warnings",
    "create_policy_engine_config",
    "get_policy_directories",
    "get_policy_tier",
    "is_directory_secure",
    "load_config",
]

BUILTIN_COMMIT = "5411f113cafae26161b4969b0237b8e1e024e2c2"
BUILTIN_POLICIES = Path(__file__).parent / "policies"
SYSTEM_DIR = Path("/etc/gemini-cli")

DEFAULT_TIER, EXTENSION_TIER, WORKSPACE_TIER, USER_TIER, ADMIN_TIER = 1, 2, 3, 4, 5
MCP_EXCLUDED_PRIORITY = USER_TIER + 0.9
EXCLUDE_TOOLS_FLAG_PRIORITY = USER_TIER + 0.4
CONFIRMATION_REQUIRED_PRIORITY = USER_TIER + 0.35
ALLOWED_TOOLS_FLAG_PRIORITY = USER_TIER + 0.3
CORE_TOOLS_FLAG_PRIORITY = USER_TIER + 0.25
TRUSTED_MCP_SERVER_PRIORITY = USER_TIER + 0.2
ALLOWED_MCP_SERVER_PRIORITY = USER_TIER + 0.1
NON_PLAN_MODES = ("default", "autoEdit", "yolo")
_LEGACY_TOOL = re.compile(r"^([a-zA-Z0-9_-]+)\((.*)\)$", re.S)


@dataclass
class SettingsFile:
    """One settings.json layer: its data and the line of each value."""

    scope: str  # system | workspace | user
    path: Path
    shown: str
    data: dict[str, Any]
    located: Any = None

    def line(self, *keys: Any) -> int | None:
        return self.located.line(keys) if self.located is not None else None


@dataclass
class GeminiConfig:
    """Everything the engine is built from, and what was odd on the way."""

    root: Path
    rules: list[PolicyRule] = field(default_factory=list)
    checkers: list[SafetyCheckerRule] = field(default_factory=list)
    errors: list[PolicyFileError] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    settings: list[SettingsFile] = field(default_factory=list)
    #: workspace policy files Gemini CLI does not load (disableWorkspacePolicies)
    workspace_files: list[Path] = field(default_factory=list)
    trusted: bool = True
    trust_note: str = ""
    disable_always_allow: bool = False
    #: MCP server -> (includeTools, excludeTools, file, line)
    mcp_filters: dict[str, tuple[list[str] | None, list[str], str, int | None]] = field(
        default_factory=dict)


def _shown(path: Path, root: Path, home: Path | None) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        pass
    if home is not None:
        try:
            return "~/" + path.relative_to(home).as_posix()
        except ValueError:
            pass
    try:
        return "<gemini-cli>/" + path.relative_to(BUILTIN_POLICIES.parent).as_posix()
    except ValueError:
        return str(path)


def _strip_comments(text: str) -> str:
    """settings.json may hold comments and trailing commas (JSONC; lines kept)."""
    return strip_jsonc(text)


def _read_settings(scope: str, path: Path, shown: str, problems: list[Problem]
                   ) -> SettingsFile | None:
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(shown, None, f"Error reading settings file: {exc}"))
        return None
    cleaned = _strip_comments(text)
    try:
        data = json.loads(cleaned) if cleaned.strip() else {}
    except json.JSONDecodeError as exc:
        problems.append(Problem(shown, exc.lineno, f"Error in {shown}: {exc.msg} (Gemini CLI "
                                                   "reports the settings file as invalid JSON "
                                                   "and ignores it)"))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(shown, 1, "settings must be a JSON object"))
        return None
    located = None
    try:
        located = parse_json(cleaned, shown)
    except (DefinitionError, ValueError):
        located = None
    return SettingsFile(scope, path, shown, data, located)


def _folder_trust_enabled(settings: list[SettingsFile | None]) -> bool:
    """``isFolderTrustEnabled``: ``security.folderTrust.enabled`` of the user and system
    settings (the system file wins), true when unset."""
    value: Any = True
    for file in settings:
        if file is None:
            continue
        security = file.data.get("security")
        trust = security.get("folderTrust") if isinstance(security, dict) else None
        if isinstance(trust, dict) and isinstance(trust.get("enabled"), bool):
            value = trust["enabled"]
    return bool(value)


def _trust(root: Path, home: Path | None, trusted: bool | None,  # noqa: C901
           trust_settings: list[SettingsFile | None] | None = None) -> tuple[bool, str]:
    """``isWorkspaceTrusted`` (cli/config/trustedFolders.ts, core/utils/trust.ts
    ``checkPathTrust``): ``GEMINI_CLI_TRUST_WORKSPACE``, folder trust disabled in the user
    or system settings, else the longest matching ``~/.gemini/trustedFolders.json`` entry
    (TRUST_FOLDER / TRUST_PARENT / DO_NOT_TRUST); no entry is untrusted (settings.ts:
    ``isTrusted ?? false``), which drops the workspace settings."""
    if trusted is not None:
        return trusted, f"trusted={trusted} given"
    env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if env in ("true", "false"):
        return env == "true", f"GEMINI_CLI_TRUST_WORKSPACE={env}"
    if not _folder_trust_enabled(trust_settings or []):
        return True, "security.folderTrust.enabled is false: every folder is trusted"
    if home is None:
        return True, "no user folder: the folder is taken as trusted"
    file = Path(os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
                or home / ".gemini" / "trustedFolders.json")
    untrusted = ("not listed in ~/.gemini/trustedFolders.json: Gemini CLI treats the folder as "
                 "untrusted (until the user trusts it) and ignores its .gemini/settings.json")
    try:
        table = json.loads(_strip_comments(file.read_text(encoding="utf-8")))
    except OSError:
        return False, untrusted
    except ValueError:
        return False, ("~/.gemini/trustedFolders.json is not valid JSON (Gemini CLI stops "
                       "with a FatalConfigError): taken as untrusted")
    here = root.resolve()
    best: tuple[int, bool] | None = None
    for raw, level in (table.items() if isinstance(table, dict) else ()):
        folder = Path(os.path.expanduser(raw)).resolve()
        if level == "TRUST_PARENT":
            folder = folder.parent
        if level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        if (here == folder or folder in here.parents) and (
                best is None or len(raw) > best[0]):
            best = (len(raw), level != "DO_NOT_TRUST")
    if best is None:
        return False, untrusted
    return best[1], ("trusted" if best[1] else "untrusted") + " by ~/.gemini/trustedFolders.json"


def is_directory_secure(path: Path | str) -> tuple[bool, str | None]:
    """``isDirectorySecure`` (utils/security.ts, POSIX): a directory owned by root and not
    writable by group or others; a missing one is secure. (secure, reason)."""
    try:
        info = Path(path).stat()
    except FileNotFoundError:
        return True, None
    except OSError as exc:
        return False, f"Failed to access directory: {exc}"
    if not stat.S_ISDIR(info.st_mode):
        return False, "Not a directory"
    if info.st_uid != 0:
        return False, (f"Directory '{path}' is not owned by root (uid 0). Current uid: "
                       f"{info.st_uid}. To fix this, run: sudo chown root:root \"{path}\"")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False, (f"Directory '{path}' is writable by group or others (mode: "
                       f"{info.st_mode:o}). To fix this, run: sudo chmod g-w,o-w \"{path}\"")
    return True, None


def _merged(files: list[SettingsFile], *keys: str, union: bool = False
            ) -> tuple[Any, SettingsFile | None]:
    """A setting after merging (user < workspace < system): the last that sets it, or for a
    UNION setting every layer's entries."""
    value: Any = None
    source = None
    for file in files:
        node: Any = file.data
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            continue
        if union and isinstance(value, list) and isinstance(node, list):
            value = value + [v for v in node if v not in value]
        else:
            value = node
        source = file
    return value, source


def load_config(root: Path, *, home: Path | None, managed: Path | None,  # noqa: C901
                trusted: bool | None = None, workspace_policies: bool = False,
                builtin: bool = True) -> GeminiConfig:
    """Read every tier and settings layer of the project at ``root``."""
    config = GeminiConfig(root)
    ignored: list[Problem] = []
    trust_settings = [
        _read_settings("user", home / ".gemini" / "settings.json", "", ignored)
        if home is not None else None,
        _read_settings("system", managed / "settings.json", "", ignored)
        if managed is not None else None]
    config.trusted, config.trust_note = _trust(root, home, trusted, trust_settings)
    admin_dir = None
    system_settings = None
    if managed is not None:
        admin_dir = managed / "policies" if (managed / "policies").is_dir() else managed
        system_settings = managed / "settings.json"
        if admin_dir.is_dir() and read_policy_files(admin_dir):
            secure, reason = is_directory_secure(admin_dir)
            if not secure:
                config.problems.append(Problem(
                    _shown(admin_dir, root, home), None,
                    f"Security Warning: Skipping system policies from {admin_dir}: {reason} "
                    "(Gemini CLI skips them on a machine where this holds; toolkit loads them "
                    "and only reports it)", "warning"))
    user_dir = home / ".gemini" / "policies" if home is not None else None
    workspace_dir = root / ".gemini" / "policies"
    if home is not None and workspace_dir.resolve() == (home / ".gemini" / "policies").resolve():
        workspace_dir = Path("/nonexistent-workspace-policies")  # isWorkspaceHomeDir
    config.workspace_files = read_policy_files(workspace_dir) if workspace_dir.is_dir() else []
    if config.workspace_files and not workspace_policies:
        config.problems.append(Problem(
            _shown(workspace_dir, root, home), None,
            f"{len(config.workspace_files)} workspace policy file(s) not loaded: Gemini CLI "
            "disables workspace policies (disableWorkspacePolicies = true in "
            "packages/cli/src/config/policy.ts; docs: Workspace tier '(Disabled)')", "warning"))
    tiers: list[tuple[Path, int]] = []
    if admin_dir is not None:
        tiers.append((admin_dir, ADMIN_TIER))
    if user_dir is not None:
        tiers.append((user_dir, USER_TIER))
    if workspace_policies and config.trusted and config.workspace_files:
        tiers.append((workspace_dir, WORKSPACE_TIER))
    if builtin:
        tiers.append((BUILTIN_POLICIES, DEFAULT_TIER))
    tier_of = dict(tiers)
    loaded = load_policies([p for p, _ in tiers], lambda p: tier_of[p],
                           lambda p: _shown(p, root, home))
    config.rules, config.checkers, config.errors = loaded.rules, loaded.checkers, loaded.errors

    files = []
    if home is not None:
        files.append(_read_settings("user", home / ".gemini" / "settings.json",
                                    "~/.gemini/settings.json", config.problems))
    workspace = _read_settings("workspace", root / ".gemini" / "settings.json",
                               ".gemini/settings.json", config.problems)
    if workspace is not None and not config.trusted:
        config.problems.append(Problem(workspace.shown, None, "the folder is not trusted: Gemini "
                                                              "CLI ignores workspace settings",
                                       "warning"))
        workspace = None
    files.append(workspace)
    if system_settings is not None:
        files.append(_read_settings("system", system_settings,
                                    _shown(system_settings, root, home), config.problems))
    config.settings = [f for f in files if f is not None]
    config.rules += settings_rules(config.settings, config)
    return config


def _rule(tool: str, decision: str, priority: float, source: str, file: SettingsFile | None,
          keys: tuple[Any, ...], text: str, **extra: Any) -> PolicyRule:
    return PolicyRule(tool_name=tool, decision=decision, priority=priority, source=source,
                      file=file.shown if file else None,
                      line=file.line(*keys) if file else None, tier="user",
                      written=text, **extra)


def settings_rules(files: list[SettingsFile], config: GeminiConfig,  # noqa: C901 (a port kept in upstream's shape)
                   interactive: bool | None = None) -> list[PolicyRule]:
    """``createPolicyEngineConfig``'s settings-derived rules, each at its band.
    ``interactive`` None: one rule set for both interactive and non-interactive checks."""
    rules: list[PolicyRule] = []
    excluded, src = _merged(files, "mcp", "excluded")
    for i, server in enumerate(excluded or []):
        tool = f"{MCP_TOOL_PREFIX}*" if server == "*" else f"{MCP_TOOL_PREFIX}{server}_*"
        rules.append(_rule(tool, DENY, MCP_EXCLUDED_PRIORITY, "Settings (MCP Excluded)", src,
                           ("mcp", "excluded", i), f"mcp.excluded: {server}", mcp_name=server))
    exclude, _ = _merged(files, "tools", "exclude", union=True)
    for tool in exclude or []:
        where = next((f for f in reversed(files) if tool in (f.data.get("tools") or {}).get(
            "exclude", [])), None)
        index = ((where.data.get("tools") or {}).get("exclude", []).index(tool)
                 if where else 0)
        rules.append(_rule(tool, DENY, EXCLUDE_TOOLS_FLAG_PRIORITY, "Settings (Tools Excluded)",
                           where, ("tools", "exclude", index), f"tools.exclude: {tool}"))

    def map_tools(tools: list[Any], key: str, priority: float, source: str,
                  file: SettingsFile | None, modes: tuple[str, ...] | None,
                  narrowing: bool) -> None:
        narrowed = set()
        for i, entry in enumerate(tools):
            if not isinstance(entry, str):
                continue
            keys = ("tools", key, i)
            text = f"tools.{key}: {entry}"
            match = _LEGACY_TOOL.match(entry)
            if match:
                raw, args = match.group(1), match.group(2)
                tool = "run_shell_command" if raw in SHELL_TOOL_NAMES else raw
                if tool == "run_shell_command":
                    narrowed.add(tool)
                    for pattern in build_args_patterns(None, args):
                        if pattern:
                            rules.append(_rule(tool, ALLOW, priority, source, file, keys, text,
                                               args_pattern=pattern, modes=modes))
                else:
                    rules.append(_rule(tool, ALLOW, priority, source, file, keys, text,
                                       modes=modes))
            else:
                tool = "run_shell_command" if entry in SHELL_TOOL_NAMES else entry
                rules.append(_rule(tool, ALLOW, priority, source, file, keys, text, modes=modes))
        if narrowing:
            for tool in sorted(narrowed):
                rules.append(_rule(tool, DENY, priority - 0.01,
                                   f"{source} (Narrowing Enforcement)", file, ("tools", key),
                                   f"tools.{key} narrows {tool} (deny other commands)",
                                   modes=modes))

    allowed, src = _merged(files, "tools", "allowed")
    if isinstance(allowed, list):
        map_tools(allowed, "allowed", ALLOWED_TOOLS_FLAG_PRIORITY, "Settings (Tools Allowed)",
                  src, None, True)
    confirm, src = _merged(files, "tools", "confirmationRequired")
    for i, tool in enumerate(confirm or []):
        rules.append(_rule("run_shell_command" if tool in SHELL_TOOL_NAMES else tool, ASK_USER,
                           CONFIRMATION_REQUIRED_PRIORITY, "Settings (Confirmation Required)",
                           src, ("tools", "confirmationRequired", i),
                           f"tools.confirmationRequired: {tool}"))
    core, src = _merged(files, "tools", "core")
    if isinstance(core, list):
        map_tools(core, "core", CORE_TOOLS_FLAG_PRIORITY, "Settings (Core Tools)", src,
                  NON_PLAN_MODES, False)
        rules.append(_rule("*", DENY, CORE_TOOLS_FLAG_PRIORITY - 0.01,
                           "Settings (Core Tools Allowlist Enforcement)", src, ("tools", "core"),
                           "tools.core allowlist (deny every other tool)",
                           modes=NON_PLAN_MODES))
    servers, _ = _merged(files, "mcpServers")
    for file in files:  # mcpServers merge shallowly: the last layer naming a server wins
        for name, server in (file.data.get("mcpServers") or {}).items():
            if not isinstance(server, dict):
                continue
            include = server.get("includeTools")
            exclude_tools = server.get("excludeTools") or []
            if include is not None or exclude_tools:
                config.mcp_filters[name] = (include if isinstance(include, list) else None,
                                            list(exclude_tools), file.shown,
                                            file.line("mcpServers", name))
    for name, server in (servers or {}).items():
        if isinstance(server, dict) and server.get("trust"):
            holder = next((f for f in reversed(files)
                           if name in (f.data.get("mcpServers") or {})), None)
            rules.append(_rule(f"{MCP_TOOL_PREFIX}{name}_*", ALLOW, TRUSTED_MCP_SERVER_PRIORITY,
                               "Settings (MCP Trusted)", holder, ("mcpServers", name, "trust"),
                               f"mcpServers.{name}.trust: true", mcp_name=name,
                               modes=NON_PLAN_MODES))
    mcp_allowed, src = _merged(files, "mcp", "allowed")
    for i, server in enumerate(mcp_allowed or []):
        tool = f"{MCP_TOOL_PREFIX}*" if server == "*" else f"{MCP_TOOL_PREFIX}{server}_*"
        rules.append(_rule(tool, ALLOW, ALLOWED_MCP_SERVER_PRIORITY, "Settings (MCP Allowed)",
                           src, ("mcp", "allowed", i), f"mcp.allowed: {server}",
                           mcp_name=server, modes=NON_PLAN_MODES))
    headless, _ = _merged(files, "mcp", "autoAllowInHeadless")
    if headless and interactive is not True and isinstance(servers, dict):
        # only when non-interactive; one rule set serving every mode (interactive=None) tags
        # the rules interactive=false, so they match only a non-interactive check
        allowed_servers = mcp_allowed if isinstance(mcp_allowed, list) else []
        for name, server in servers.items():
            if (name in allowed_servers or "*" in allowed_servers
                    or (isinstance(server, dict) and server.get("trust"))):
                continue
            holder = next((f for f in reversed(files)
                           if name in (f.data.get("mcpServers") or {})), None)
            tool = f"{MCP_TOOL_PREFIX}*" if name == "*" else f"{MCP_TOOL_PREFIX}{name}_*"
            rules.append(_rule(tool, ALLOW, ALLOWED_MCP_SERVER_PRIORITY,
                               "Settings (Headless MCP Auto-Allow)", holder,
                               ("mcpServers", name), f"mcp.autoAllowInHeadless: {name}",
                               mcp_name=name, modes=NON_PLAN_MODES,
                               interactive=False if interactive is None else None))
    disable, _ = _merged(files, "security", "disableAlwaysAllow")
    secure, _ = _merged(files, "admin", "secureModeEnabled")
    config.disable_always_allow = bool(disable or secure)
    return rules


# -- createPolicyEngineConfig (policy/config.ts), as upstream's tests call it -----------------

SYSTEM_POLICIES_DIR = str(SYSTEM_DIR / "policies")


@dataclass(frozen=True)
class Storage:
    """The two folders ``Storage.getSystemPoliciesDir`` / ``getUserPoliciesDir`` give (Linux:
    ``/etc/gemini-cli/policies`` and ``~/.gemini/policies``)."""

    system_policies_dir: str = SYSTEM_POLICIES_DIR
    user_policies_dir: str = str(Path("~/.gemini/policies").expanduser())


@dataclass
class PolicyEngineConfig:
    """``PolicyEngineConfig`` (types.ts) as ``createPolicyEngineConfig`` returns it, plus what
    it reported on the way (``coreEvents.emitFeedback``: (severity, message))."""

    rules: list[PolicyRule]
    checkers: list[SafetyCheckerRule]
    default_decision: str
    non_interactive: bool
    approval_mode: str
    disable_always_allow: bool | None = None
    errors: list[PolicyFileError] = field(default_factory=list)
    feedback: list[tuple[str, str]] = field(default_factory=list)


#: ``emittedWarnings``: a warning is emitted once per process
_EMITTED_WARNINGS: set[str] = set()


def clear_emitted_policy_warnings() -> None:
    """``clearEmittedPolicyWarnings``."""
    _EMITTED_WARNINGS.clear()


def get_policy_directories(default_policies_dir: str | None = None,
                           policy_paths: Sequence[str] | None = None,
                           workspace_policies_dir: str | None = None,
                           admin_policy_paths: Sequence[str] | None = None, *,
                           storage: Storage | None = None) -> list[str]:
    """``getPolicyDirectories``: Admin (the system folder, then ``--admin-policy``), User
    (``--policy`` paths replace ``~/.gemini/policies``), Workspace, Default."""
    storage = storage or Storage()
    dirs = [storage.system_policies_dir, *(admin_policy_paths or ()),
            *(policy_paths if policy_paths else [storage.user_policies_dir]),
            workspace_policies_dir, default_policies_dir or str(BUILTIN_POLICIES)]
    return [d for d in dirs if d]


def get_policy_tier(directory: str, *, default_policies_dir: str | None,
                    workspace_policies_dir: str | None, admin_policy_paths: set[str] | None,
                    system_policies_dir: str, user_policies_dir: str) -> int:
    """``getPolicyTier``: the tier of a policy folder (Default when unknown)."""
    here = os.path.abspath(directory)
    if here == system_policies_dir or (admin_policy_paths and here in admin_policy_paths):
        return ADMIN_TIER
    if here == user_policies_dir:
        return USER_TIER
    if workspace_policies_dir and here == os.path.abspath(workspace_policies_dir):
        return WORKSPACE_TIER
    return DEFAULT_TIER


def create_policy_engine_config(  # noqa: C901 (a port kept in upstream's shape)
        settings: Mapping[str, Any], approval_mode: str,
        default_policies_dir: str | None = None, interactive: bool = True, *,
        storage: Storage | None = None,
        is_secure: Callable[[str], tuple[bool, str | None]] = is_directory_secure,
        emitted: set[str] | None = None) -> PolicyEngineConfig:
    """``createPolicyEngineConfig``: the policy folders' rules and checkers (system folder
    skipped when insecure, ``adminPolicyPaths`` ignored when it holds any ``.toml``), then the
    settings bands (``PolicySettings``: ``mcp``, ``tools``, ``mcpServers``, ``policyPaths``,
    ``adminPolicyPaths``, ``workspacePoliciesDir``, ``disableAlwaysAllow``). ``emitted`` is the
    once-per-process warning set (upstream's module-level one by default)."""
    storage = storage or Storage()
    emitted = _EMITTED_WARNINGS if emitted is None else emitted
    feedback: list[tuple[str, str]] = []

    def warn_once(message: str) -> None:
        if message not in emitted:
            feedback.append(("warning", message))
            emitted.add(message)

    system_dir = os.path.abspath(storage.system_policies_dir)
    user_dir = os.path.abspath(storage.user_policies_dir)
    admin_paths = settings.get("adminPolicyPaths")
    if admin_paths:
        try:
            names = os.listdir(system_dir)
        except FileNotFoundError:
            names = []
        except OSError as exc:
            feedback.append(("debug", f"Failed to check system policies in {system_dir}: {exc}"))
            names = []
        if any(n.endswith(".toml") for n in names):
            warn_once("Security Warning: Ignoring --admin-policy because system policies are "
                      f"already defined in {system_dir}")
            admin_paths = None
    policy_paths = settings.get("policyPaths")
    workspace_dir = settings.get("workspacePoliciesDir")
    dirs = get_policy_directories(default_policies_dir, policy_paths, workspace_dir,
                                  admin_paths, storage=storage)
    secure_dirs = []
    for directory in dirs:
        if os.path.abspath(directory) == system_dir:
            secure, reason = is_secure(directory)
            if not secure:
                warn_once(f"Security Warning: Skipping system policies from {directory}: "
                          f"{reason}")
                continue
        secure_dirs.append(directory)
    admin_set = {os.path.abspath(p) for p in admin_paths} if admin_paths else None
    user_given = {os.path.abspath(p) for p in policy_paths or ()}

    def tier_of(path: Path) -> int:
        here = os.path.abspath(path)
        tier = get_policy_tier(here, default_policies_dir=default_policies_dir,
                               workspace_policies_dir=workspace_dir,
                               admin_policy_paths=admin_set, system_policies_dir=system_dir,
                               user_policies_dir=user_dir)
        return USER_TIER if here in user_given and tier != ADMIN_TIER else tier

    loaded = load_policies([Path(d) for d in secure_dirs], tier_of)
    feedback += [(e.severity, e.formatted()) for e in loaded.errors]
    holder = GeminiConfig(Path())
    file = SettingsFile("user", Path(), "", dict(settings))
    rules = [*loaded.rules, *settings_rules([file], holder, interactive)]
    return PolicyEngineConfig(rules=rules, checkers=list(loaded.checkers),
                              default_decision=ASK_USER if interactive else DENY,
                              non_interactive=not interactive, approval_mode=approval_mode,
                              disable_always_allow=settings.get("disableAlwaysAllow"),
                              errors=list(loaded.errors), feedback=feedback)
