"""VS Code's settings as the Copilot agent's approvals read them: default, user, workspace.

- user settings: ``<home>/.config/Code/User/settings.json`` (Linux) or
  ``<home>/Library/Application Support/Code/User/settings.json`` (macOS);
- workspace settings: ``<project>/.vscode/settings.json``.

Both are JSON with comments. An object setting (``chat.tools.terminal.autoApprove``) is merged
key by key over the layers, the workspace's keys over the user's over VS Code's default
(:data:`DEFAULT_AUTO_APPROVE`); a ``null`` entry unsets a key set lower down. A scalar comes
from the most specific layer that sets it, except ``chat.tools.global.autoApprove`` (``scope:
APPLICATION_MACHINE`` in ``chat.contribution.ts``: a workspace cannot set it; its value there is
ignored with a warning).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import DefinitionError, Problem
from ..base.mcpconfig import strip_jsonc
from ..base.source import Located, parse_json, read_text
from .autoapprove import AutoApproveRules, RuleSource, parse_rules, regex_error
from .urls import DEFAULT_APPROVED_URLS

__all__ = ["AUTO_APPROVE", "DEFAULT_AUTO_APPROVE", "GLOBAL_AUTO_APPROVE", "VSCodeSettings",
           "read_settings", "user_settings_file"]

AUTO_APPROVE = "chat.tools.terminal.autoApprove"
#: ``DeprecatedAutoApproveCompatible``: merged over ``AUTO_APPROVE`` when both are objects
DEPRECATED_AUTO_APPROVE = "chat.agent.terminal.autoApprove"
IGNORE_DEFAULTS = "chat.tools.terminal.ignoreDefaultAutoApproveRules"
ENABLE_AUTO_APPROVE = "chat.tools.terminal.enableAutoApprove"
#: ``ChatConfiguration.GlobalAutoApprove`` ("YOLO mode"); ``chat.tools.autoApprove`` of old
GLOBAL_AUTO_APPROVE = ("chat.tools.global.autoApprove", "chat.tools.autoApprove")
ELIGIBLE = "chat.tools.eligibleForAutoApproval"
URLS = "chat.tools.urls.autoApprove"
#: keys that make a ``.vscode/settings.json`` the agent's (else the folder is not VS Code's)
MARKS = ("chat.tools.", "chat.agent.terminal.", "github.copilot.chat.agent.terminal.")

#: VS Code's default value of ``chat.tools.terminal.autoApprove`` (microsoft/vscode
#: ``src/vs/workbench/contrib/terminalContrib/chatAgentTools/common/
#: terminalChatAgentToolsConfiguration.ts`` at 3bd5689): read-only commands approved, a few
#: dangerous ones (deleting, killing, web requests, permissions, eval) always asked.
DEFAULT_AUTO_APPROVE: Mapping[str, bool] = {
    "cd": True, "echo": True, "ls": True, "pwd": True, "cat": True, "head": True,
    "tail": True, "grep": True, "findstr": True, "wc": True, "sort": True, "uniq": True,
    "tr": True, "cut": True, "cmp": True, "tree": True, "column": True, "which": True,
    "date": True, "time": True, "env": True, "printenv": True, "uname": True,
    "hostname": True, "ps": True, "whoami": True, "basename": True, "dirname": True,
    "realpath": True, "readlink": True, "stat": True, "file": True, "du": True, "df": True,
    "jq": True, "sleep": True, "Start-Sleep": True,
    "/Get-[a-z0-9]/i": True, "/Select-[a-z0-9]/i": True, "/Measure-[a-z0-9]/i": True,
    "/Compare-[a-z0-9]/i": True, "/Format-[a-z0-9]/i": True, "/Sort-[a-z0-9]/i": True,
    "Write-Host": True, "Write-Output": True, "Split-Path": True, "Join-Path": True,
    "find": True, "/find\\b.*-exec(dir)?\\b/": False,
    "top": True, "/top\\b.*-(k|r)\\b/": False,
    "rm": False, "rmdir": False, "del": False, "Remove-Item": False, "ri": False, "rd": False,
    "erase": False, "kill": False, "Stop-Process": False, "spps": False, "taskkill": False,
    "taskkill.exe": False, "curl": False, "wget": False, "Invoke-RestMethod": False,
    "Invoke-WebRequest": False, "irm": False, "iwr": False, "chmod": False, "chown": False,
    "Set-ItemProperty": False, "sp": False, "Set-Acl": False, "eval": False,
    "Invoke-Expression": False, "iex": False,
}


@dataclass
class SettingsFile:
    """One settings file as read: its layer, shown name, data and lines."""

    target: str  # "user" | "workspace"
    file: str
    located: Located

    @property
    def data(self) -> Mapping[str, Any]:
        """The file's top-level object."""
        return self.located.data if isinstance(self.located.data, Mapping) else {}

    def line(self, *path: Any) -> int | None:
        """The line of the value at ``path``."""
        return self.located.line(path)


@dataclass
class VSCodeSettings:
    """The settings of one project, the layers most specific first (workspace, user)."""

    root: Path
    files: list[SettingsFile] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def scalar(self, key: str, *, workspace: bool = True) -> tuple[Any, SettingsFile | None]:
        """The value of ``key`` from the most specific layer setting it (``workspace=False``:
        a machine-scoped setting, which only the user layer may set)."""
        for f in self.files:
            if key in f.data and (workspace or f.target != "workspace"):
                return f.data[key], f
        return None, None

    def merged(self, key: str, default: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """An object setting merged key by key: default, then user, then workspace."""
        out: dict[str, Any] = dict(default or {})
        for f in reversed(self.files):
            value = f.data.get(key)
            if isinstance(value, Mapping):
                out.update(value)
        return out

    def layer_values(self, key: str) -> list[tuple[RuleSource, Mapping[str, Any]]]:
        """Each layer's own value of an object setting, most specific first, with where each
        of its keys is written."""
        out = []
        for f in self.files:
            value = f.data.get(key)
            if isinstance(value, Mapping):
                out.append((RuleSource(f.target, f.file, f.line(key)), value))
        return out

    def line_of(self, target: str, key: str, entry: str) -> int | None:
        """The line of ``entry`` inside ``key`` in the ``target`` layer's file."""
        for f in self.files:
            if f.target == target:
                return f.line(key, entry)
        return None

    @property
    def auto_approve(self) -> dict[str, Any]:
        """``chat.tools.terminal.autoApprove`` as VS Code's ``getValue`` gives it (with the
        deprecated ``chat.agent.terminal.autoApprove`` spread over it)."""
        value = self.merged(AUTO_APPROVE, DEFAULT_AUTO_APPROVE)
        deprecated = self.merged(DEPRECATED_AUTO_APPROVE)
        return {**value, **deprecated} if deprecated else value

    def rules(self) -> AutoApproveRules:
        """The auto-approve rules, each knowing its layer, file and line."""
        layers = []
        for source, value in self.layer_values(AUTO_APPROVE) + self.layer_values(
                DEPRECATED_AUTO_APPROVE):
            layers.append((source, value))
        ignore, _ = self.scalar(IGNORE_DEFAULTS)
        return parse_rules(self.auto_approve, default=DEFAULT_AUTO_APPROVE, layers=layers,
                           ignore_defaults=ignore is True)

    @property
    def approved_urls(self) -> dict[str, Any]:
        """``chat.tools.urls.autoApprove`` merged key by key over VS Code's default (a ``null``
        entry unsets a key set lower down, as in the terminal's object)."""
        merged = self.merged(URLS, DEFAULT_APPROVED_URLS)
        return {k: v for k, v in merged.items() if v is not None}

    def url_source(self, pattern: str) -> tuple[str, str, int | None]:
        """(layer, file, line) of the most specific layer writing ``pattern`` in the URL
        setting (VS Code's default when none does)."""
        for f in self.files:
            value = f.data.get(URLS)
            if isinstance(value, Mapping) and pattern in value:
                return f.target, f.file, f.line(URLS, pattern)
        return "default", "<VS Code default>", None

    @property
    def enable_auto_approve(self) -> bool:
        """``chat.tools.terminal.enableAutoApprove`` (true unless set to false)."""
        value, _ = self.scalar(ENABLE_AUTO_APPROVE)
        return value is not False

    @property
    def global_auto_approve(self) -> tuple[bool, SettingsFile | None]:
        """YOLO mode: ``chat.tools.global.autoApprove`` (or its old name) in the user layer."""
        for key in GLOBAL_AUTO_APPROVE:
            value, where = self.scalar(key, workspace=False)
            if value is not None:
                return value is True, where
        return False, None

    def not_eligible(self) -> dict[str, SettingsFile]:
        """Tools ``chat.tools.eligibleForAutoApproval`` sets to false: always confirmed."""
        out: dict[str, SettingsFile] = {}
        for f in reversed(self.files):
            value = f.data.get(ELIGIBLE)
            if isinstance(value, Mapping):
                for tool, eligible in value.items():
                    if eligible is False:
                        out[str(tool)] = f
                    else:
                        out.pop(str(tool), None)
        return out


def user_settings_file(home: Path) -> Path | None:
    """VS Code's user ``settings.json`` under ``home`` (Linux, then macOS), if there is one."""
    for place in (home / ".config" / "Code" / "User" / "settings.json",
                  home / "Library" / "Application Support" / "Code" / "User" / "settings.json"):
        if place.is_file():
            return place
    return None


def _read(path: Path, shown: str, target: str) -> SettingsFile:
    located = parse_json(strip_jsonc(read_text(path, shown)), shown)
    if not isinstance(located.data, Mapping):
        raise DefinitionError("VS Code settings must be a JSON object ({...}); fix the file",
                              file=shown, line=1)
    return SettingsFile(target, shown, located)


def _check(f: SettingsFile, problems: list[Problem]) -> None:
    """Wrong shapes VS Code would ignore, and regexes toolkit cannot read, named with their
    place (never a traceback)."""
    for key in (AUTO_APPROVE, DEPRECATED_AUTO_APPROVE):
        _check_auto_approve(f, key, problems)
    _check_object(f, URLS, problems, "URL pattern -> true / false / {approveRequest, "
                  "approveResponse}", _url_entry_ok)
    _check_object(f, ELIGIBLE, problems, "tool name -> true / false",
                  lambda entry: isinstance(entry, bool))
    if f.target == "workspace":
        for key in GLOBAL_AUTO_APPROVE:
            if key in f.data:
                problems.append(Problem(f.file, f.line(key),
                                        f"{key} is a machine-wide setting: VS Code ignores it "
                                        "in workspace settings (set it in user settings)",
                                        "warning"))


def _url_entry_ok(entry: Any) -> bool:
    """``true`` / ``false`` / ``null`` or ``{approveRequest?, approveResponse?}`` of booleans."""
    if entry is None or isinstance(entry, bool):
        return True
    return isinstance(entry, Mapping) and all(
        k in ("approveRequest", "approveResponse") and isinstance(v, bool)
        for k, v in entry.items())


def _check_object(f: SettingsFile, key: str, problems: list[Problem], shape: str,
                  entry_ok: Any) -> None:
    """``key`` must be an object whose every value ``entry_ok`` accepts."""
    if key not in f.data:
        return
    value = f.data[key]
    if not isinstance(value, Mapping):
        problems.append(Problem(f.file, f.line(key),
                                f"{key} must be an object of {shape}; VS Code ignores this value",
                                "warning"))
        return
    for name, entry in value.items():
        if not entry_ok(entry):
            problems.append(Problem(f.file, f.line(key, name),
                                    f"{key} entry {name!r} is not one of {shape}: "
                                    f"{json.dumps(entry)}; VS Code ignores it", "warning"))


def _check_auto_approve(f: SettingsFile, setting: str, problems: list[Problem]) -> None:
    value = f.data.get(setting)
    if value is not None and not isinstance(value, Mapping):
        problems.append(Problem(f.file, f.line(setting),
                                f"{setting} must be an object of command -> true / false "
                                f"/ {{approve, matchCommandLine}}; VS Code ignores this value",
                                "warning"))
    for key, entry in (value or {}).items() if isinstance(value, Mapping) else ():
        shape_ok = entry is None or isinstance(entry, bool) or (
            isinstance(entry, Mapping) and isinstance(entry.get("approve"), bool))
        if not shape_ok:
            problems.append(Problem(f.file, f.line(setting, key),
                                    f"{setting} entry {key!r} is neither true, false, null "
                                    "nor {\"approve\": true|false}; VS Code ignores it",
                                    "warning"))
            continue
        error = regex_error(str(key)) if entry is not None else None
        if error is not None:
            problems.append(Problem(f.file, f.line(setting, key),
                                    f"{setting} entry {key!r} is a JavaScript regex toolkit "
                                    f"cannot read ({error}); toolkit takes a false entry to "
                                    "match every command (VS Code asks) and a true entry to "
                                    "match none; rewrite it in syntax Python's re also reads "
                                    "(say [ \\t] for \\p{Zs})", "warning"))


def has_agent_settings(path: Path) -> bool:
    """Whether ``path`` (a settings file) sets any of the agent's keys (text check)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(mark in text for mark in MARKS)


def read_settings(root: str | os.PathLike[str], *, home: Path | None) -> VSCodeSettings:
    """The workspace and user settings of the project at ``root`` (``home=None``: no user
    layer). Bad JSON is a :class:`~toolkit.errors.DefinitionError` naming file and line."""
    settings = VSCodeSettings(root=Path(root))
    workspace = Path(root) / ".vscode" / "settings.json"
    if workspace.is_file():
        settings.files.append(_read(workspace, ".vscode/settings.json", "workspace"))
    user = user_settings_file(home) if home is not None else None
    if user is not None and home is not None:
        shown = "~/" + user.relative_to(home).as_posix()
        settings.files.append(_read(user, shown, "user"))
    for f in settings.files:
        _check(f, settings.problems)
    return settings
