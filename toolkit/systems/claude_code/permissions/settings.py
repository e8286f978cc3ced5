"""Claude Code's settings files: where they are, their layers, and what the permission engine
takes from them.

Layers, highest precedence first (code.claude.com/docs/en/settings#settings-precedence):
managed (``managed-settings.json``, then ``managed-settings.d/*.json`` merged alphabetically),
command-line flags (``--allowedTools``, ``--disallowedTools``, ``--permission-mode``,
``--settings``, ``--add-dir``), ``.claude/settings.local.json``, ``.claude/settings.json``,
``~/.claude/settings.json``. A scalar comes from the highest layer that sets it; the rule
arrays and ``additionalDirectories`` are concatenated ("Lists merge instead of overriding").
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from ....core.models import Rule, ServerConfig
from ....errors import DefinitionError, Problem
from ...base.layers import Layer, Layers, read_layer
from ...base.source import Located, parse_json
from .rules import Anchors, Kind, PermissionRule, parse_rule

__all__ = ["CLI_FILE", "MODES", "Hook", "McpApproval", "Settings", "managed_default",
           "parse_cli", "project_settings", "read_settings", "split_tool_list"]

#: Claude Code's permission modes (permission-modes#available-modes); ``manual`` = ``default``.
MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")
#: How rules given as command-line flags are located in messages (``<cli>:2`` = argument 2).
CLI_FILE = "<cli>"
KINDS: tuple[Kind, ...] = ("deny", "ask", "allow")
#: managed-settings#delivery-mechanisms, the managed-settings.json file per platform.
_MANAGED = {"linux": "/etc/claude-code/managed-settings.json",
            "darwin": "/Library/Application Support/ClaudeCode/managed-settings.json",
            "win32": "C:\\Program Files\\ClaudeCode\\managed-settings.json"}
_FLAG_KEYS = {"--allowedTools": "allow", "--allowed-tools": "allow",
              "--disallowedTools": "deny", "--disallowed-tools": "deny",
              "--add-dir": "additionalDirectories"}


@dataclass(frozen=True)
class Hook:
    """A PreToolUse hook configured in a settings file (listed, never executed)."""

    matcher: str
    command: str
    layer: str
    file: str
    line: int | None

    def applies_to(self, tool: str) -> bool:
        """Whether the hook's matcher selects ``tool`` (``""`` / ``*`` = every tool)."""
        if self.matcher in ("", "*"):
            return True
        try:
            return re.fullmatch(self.matcher, tool) is not None
        except re.error:
            return self.matcher == tool


@dataclass(frozen=True)
class McpApproval:
    """Whether Claude Code connects a project ``.mcp.json`` server (settings-reference,
    ``enableAllProjectMcpServers`` / ``enabledMcpjsonServers`` / ``disabledMcpjsonServers``)."""

    server: str
    status: Literal["approved", "rejected", "pending"]
    rule: Rule  # the deciding setting, located (kind "none" when nothing decides)
    detail: str


@dataclass(frozen=True)
class Settings:
    """The permission-relevant settings of one Claude Code project, every layer read."""

    root: str
    home: str | None
    layers: Layers
    rules: tuple[PermissionRule, ...]  # every rule, highest layer first (skipped ones too)
    problems: tuple[Problem, ...] = ()
    hooks: tuple[Hook, ...] = ()
    #: (directory as written, layer, file, line) for permissions.additionalDirectories, --add-dir
    additional_dirs: tuple[tuple[str, str, str, int | None], ...] = ()
    #: the defaultMode in force and where it was set (None: no layer sets a usable one)
    default_mode: tuple[str, Rule] | None = None
    disabled_modes: frozenset[str] = frozenset()
    managed_only: bool = False
    _by_kind: dict[str, tuple[PermissionRule, ...]] = field(default_factory=dict, compare=False,
                                                            repr=False)

    def active(self, kind: str) -> tuple[PermissionRule, ...]:
        """The rules of ``kind`` that take part in decisions (skipped ones left out)."""
        found = self._by_kind.get(kind)
        if found is None:
            found = tuple(r for r in self.rules if r.kind == kind and r.skipped is None)
            self._by_kind[kind] = found
        return found

    @cached_property
    def argument_tools(self) -> frozenset[str]:
        """Tools some active rule constrains by argument (``Bash(npm test *)``, ``Read(x)``)."""
        return frozenset(r.tool for r in self.rules if r.skipped is None and r.spec is not None)

    def approvals(self, servers: Mapping[str, ServerConfig]) -> list[McpApproval]:
        """Which project ``.mcp.json`` servers connect: rejected (any layer's
        ``disabledMcpjsonServers``), approved (``enabledMcpjsonServers`` or
        ``enableAllProjectMcpServers``), else pending (interactive Claude Code asks; ``claude
        -p`` and the SDK connect it without asking)."""
        out = []
        for name, config in servers.items():
            if Path(str(config.file or "")).name != ".mcp.json":
                continue
            out.append(self._approval(name))
        return out

    def _approval(self, name: str) -> McpApproval:
        for key, status in (("disabledMcpjsonServers", "rejected"),
                            ("enabledMcpjsonServers", "approved")):
            for value, layer, line in self.layers.listed(key):
                if value == name:
                    rule = Rule(kind="deny" if status == "rejected" else "allow", pattern=name,
                                layer=layer.name, file=layer.file, line=line)
                    return McpApproval(name, status, rule,  # type: ignore[arg-type]
                                       f"{key} in {layer.file}")
        found = self.layers.scalar("enableAllProjectMcpServers")
        if found is not None and found[0] is True:
            layer = found[1]
            rule = Rule(kind="allow", pattern="enableAllProjectMcpServers", layer=layer.name,
                        file=layer.file, line=layer.line("enableAllProjectMcpServers"))
            return McpApproval(name, "approved", rule,
                               f"enableAllProjectMcpServers in {layer.file}")
        return McpApproval(name, "pending", Rule(kind="none", pattern=name),
                           "no setting approves or rejects it: interactive Claude Code asks "
                           "before connecting it; claude -p and the SDK connect it")


PathArg = str | os.PathLike[str] | bool | None


def project_settings(path: str | os.PathLike[str], *, home: PathArg = None,
                     managed: PathArg = None,
                     cli: Sequence[str] | None = None) -> Settings | None:
    """The settings layers of the project at ``path`` when it is a Claude Code project (a
    folder holding ``.claude/``) or some layer was given explicitly and holds Claude Code
    settings (``home``'s ``.claude/settings.json``, a ``managed`` file or folder, ``cli``
    flags); else None. (A ``home`` given for another runtime's sake opens no Claude Code
    engine.)"""
    folder = Path(path)
    given = (home not in (None, False)
             and (Path(str(home)) / ".claude" / "settings.json").is_file()) or (
        managed not in (None, False) and Path(str(managed)).exists()) or bool(cli)
    if not folder.is_dir() or not ((folder / ".claude").is_dir() or given):
        return None
    return read_settings(folder, home=home, managed=managed, cli=cli)


def managed_default() -> Path:
    """This platform's managed-settings.json (managed-settings#delivery-mechanisms)."""
    return Path(_MANAGED.get(sys.platform, _MANAGED["linux"]))


def read_settings(root: str | os.PathLike[str], *, home: PathArg = None,
                  managed: PathArg = None,
                  cli: Sequence[str] | None = None) -> Settings:
    """Read every settings layer of the project at ``root``.

    ``home``: the folder standing for ``~`` (None: the real home; False: no user layer).
    ``managed``: a managed-settings file or folder (None: the platform's; False: none).
    ``cli``: Claude Code's command-line arguments (``["--allowedTools", "Bash(git *)"]``).
    A malformed settings file is a ``DefinitionError`` naming file and line; a malformed
    rule is a warning (in ``problems``) and is skipped, as Claude Code skips it.
    """
    root_path = Path(root).absolute()
    home_path = None if home is False else Path.home() if home in (None, True) else Path(
        str(home)).absolute()
    problems: list[Problem] = []
    layers: list[Layer] = []
    layers += _managed_layers(managed, problems)
    layers += _cli_layers(list(cli or ()), root_path, problems)
    claude = root_path / ".claude"
    for name, path, anchor in (("local", claude / "settings.local.json", ""),
                               ("project", claude / "settings.json", root_path.as_posix())):
        if path.is_file():
            layers.append(read_layer(path, name, f".claude/{path.name}", anchor))
    if home_path is not None:
        user = home_path / ".claude" / "settings.json"
        if user.is_file() and user.resolve() != (claude / "settings.json").resolve():
            layers.append(read_layer(user, "user", str(user),
                                     (home_path / ".claude").as_posix()))
    stack = Layers(tuple(layers))
    for layer in stack:
        _check_shapes(layer)
    managed_only = _managed_only(stack)
    home_text = home_path.as_posix() if home_path is not None else None
    rules = _rules(stack, home_text, managed_only)
    problems += [Problem(r.rule.file, r.rule.line, f"{r.kind} rule {r.text!r} skipped: "
                                                   f"{r.skipped}", "warning")
                 for r in rules if r.skipped is not None]
    problems += [Problem(r.rule.file, r.rule.line, f"{r.kind} rule {r.text!r}: {r.warning}",
                         "warning") for r in rules if r.warning is not None]
    mode = _default_mode(stack, problems)
    return Settings(root_path.as_posix(), home_text, stack, tuple(rules), tuple(problems),
                    _hooks(stack), _additional_dirs(stack), mode, _disabled_modes(stack),
                    managed_only)


# -- layers ---------------------------------------------------------------------------------

def _managed_layers(managed: PathArg, problems: list[Problem]) -> list[Layer]:
    """managed-settings.json and its managed-settings.d/ drop-ins ("Claude Code merges
    managed-settings.json first, then every *.json file in the directory in alphabetical
    order ... ignores hidden files and files that don't end in .json"). The last file merged
    wins a scalar, so drop-ins come first in precedence order, last one first."""
    if managed is False:
        return []
    given = managed_default() if managed in (None, True) else Path(str(managed))
    base = given if given.is_dir() else given.parent
    main = given / "managed-settings.json" if given.is_dir() else given
    dropins = base / "managed-settings.d"
    files = [main] if main.is_file() else []
    if dropins.is_dir():
        files += sorted(p for p in dropins.iterdir()
                        if p.suffix == ".json" and not p.name.startswith(".") and p.is_file())
    if managed not in (None, True) and not files:
        problems.append(Problem(str(given), None, "no managed-settings.json or "
                                                  "managed-settings.d/*.json here", "warning"))
    return [read_layer(f, "managed", str(f), base.as_posix()) for f in reversed(files)]


def split_tool_list(value: str) -> list[str]:
    """Claude Code's tool-list splitting: commas and spaces outside parentheses separate.

    >>> split_tool_list("Bash(git log:*),Edit Read")
    ['Bash(git log:*)', 'Edit', 'Read']
    """
    out, depth, current = [], 0, ""
    for c in value:
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(depth - 1, 0)
        if depth == 0 and (c == "," or c.isspace()):
            if current.strip():
                out.append(current.strip())
            current = ""
            continue
        current += c
    if current.strip():
        out.append(current.strip())
    return out


def parse_cli(argv: Sequence[str], problems: list[Problem]
              ) -> tuple[dict[str, Any], dict[tuple[Any, ...], int], list[tuple[str, int]]]:
    """(permissions data, line of each value, --settings values) from command-line arguments;
    each value's "line" is its argument's 1-based position. Unknown flags are warnings."""
    perms: dict[str, Any] = {}
    lines: dict[tuple[Any, ...], int] = {}
    settings: list[tuple[str, int]] = []
    i = 0
    while i < len(argv):
        flag, _, inline = argv[i].partition("=")
        values, j = ([inline], i + 1) if inline else _values(argv, i + 1)
        if flag in _FLAG_KEYS:
            key = _FLAG_KEYS[flag]
            items = perms.setdefault(key, [])
            for offset, value in enumerate(values):
                pieces = [value] if key == "additionalDirectories" else split_tool_list(value)
                for piece in pieces:
                    lines[("permissions", key, len(items))] = i + 1 if inline else i + 2 + offset
                    items.append(piece)
        elif flag in ("--permission-mode", "--dangerously-skip-permissions"):
            mode = "bypassPermissions" if flag.startswith("--danger") else (values or [""])[0]
            j = i + 1 if flag.startswith("--danger") else i + 2
            perms["defaultMode"] = mode
            lines[("permissions", "defaultMode")] = i + 1
        elif flag == "--settings" and values:
            settings.append((values[0], i + 2))
            j = i + 2
        else:
            problems.append(Problem(CLI_FILE, i + 1, f"command-line argument {argv[i]!r} is not "
                                                     "a permission flag; ignored", "warning"))
        i = j
    return {"permissions": perms}, lines, settings


def _values(argv: Sequence[str], start: int) -> tuple[list[str], int]:
    j = start
    while j < len(argv) and not argv[j].startswith("--"):
        j += 1
    return list(argv[start:j]), j


def _cli_layers(argv: list[str], root: Path, problems: list[Problem]) -> list[Layer]:
    """The flags as one layer, then each ``--settings`` file (anchored at its folder)."""
    if not argv:
        return []
    data, lines, settings = parse_cli(argv, problems)
    located = Located(data, CLI_FILE, {k: v for k, v in lines.items()})
    out = [Layer("cli", CLI_FILE, data, located, "")]
    for value, line in settings:
        if value.lstrip().startswith("{"):
            inline = parse_json(value, f"{CLI_FILE}:{line} --settings")
            if not isinstance(inline.data, dict):
                raise DefinitionError("--settings JSON must be an object", file=CLI_FILE,
                                      line=line)
            out.append(Layer("cli", f"{CLI_FILE}:{line} --settings", inline.data, inline, ""))
            continue
        path = Path(value) if Path(value).is_absolute() else root / value
        if not path.is_file():
            raise DefinitionError(f"--settings {value!r}: no such file", file=CLI_FILE, line=line)
        out.append(read_layer(path, "cli", str(path), path.parent.absolute().as_posix()))
    return out


def _check_shapes(layer: Layer) -> None:
    """Wrong types for the permission keys are definition errors, located."""
    perms = layer.get("permissions")
    if perms is None:
        return
    if not isinstance(perms, dict):
        raise DefinitionError(f"permissions must be an object, not {type(perms).__name__}",
                              file=layer.file, line=layer.line("permissions"))
    for key in (*KINDS, "additionalDirectories"):
        value = perms.get(key)
        if value is not None and not isinstance(value, list):
            raise DefinitionError(f"permissions.{key} must be a list of strings, not "
                                  f"{type(value).__name__}", file=layer.file,
                                  line=layer.line("permissions", key))


def _managed_only(stack: Layers) -> bool:
    """settings-reference#allowmanagedpermissionrulesonly (scope: managed only)."""
    return any(layer.get("allowManagedPermissionRulesOnly") is True
               for layer in stack if layer.name == "managed")


def _anchors(layer: Layer, home: str | None) -> Anchors:
    return Anchors(layer.anchor, home)


def _rules(stack: Layers, home: str | None, managed_only: bool) -> list[PermissionRule]:
    out: list[PermissionRule] = []
    for kind in KINDS:
        for value, layer, line in stack.listed("permissions", kind):
            anchors = _anchors(layer, home)
            rule = parse_rule(value, kind, layer=layer.name, file=layer.file, line=line,
                              anchors=anchors)
            if managed_only and not _counts_under_managed_only(layer, kind):
                rule = PermissionRule(rule.rule, rule.tool, "skipped", anchors,
                                      skipped="allowManagedPermissionRulesOnly: only managed "
                                              "rules (and --disallowedTools) count")
            out.append(rule)
    return out


def _counts_under_managed_only(layer: Layer, kind: str) -> bool:
    """Managed rules count; so do ``--disallowedTools`` (SPEC section 11: "flags'
    --disallowedTools still count")."""
    return layer.name == "managed" or (layer.file == CLI_FILE and kind == "deny")


def _default_mode(stack: Layers, problems: list[Problem]) -> tuple[str, Rule] | None:
    """permissions.defaultMode from the highest layer allowed to set it: ``auto`` and
    ``bypassPermissions`` in project or local settings are ignored (settings-reference
    #permissions-defaultmode: "auto doesn't take effect from project or local settings";
    SPEC section 11 extends it to bypassPermissions, which a cloned repository must not set)."""

    def refused(layer: Layer, value: Any) -> bool:
        where = layer.line("permissions", "defaultMode")
        mode = "default" if value == "manual" else value
        if mode not in MODES:
            problems.append(Problem(layer.file, where, f"defaultMode {value!r} is not a "
                                                       f"permission mode ({', '.join(MODES)}); "
                                                       "ignored", "warning"))
            return True
        if layer.name in ("project", "local") and mode in ("auto", "bypassPermissions"):
            problems.append(Problem(layer.file, where, f"defaultMode {mode!r} is ignored in "
                                                       f"{layer.name} settings", "warning"))
            return True
        return False

    found = stack.scalar("permissions", "defaultMode", skip=refused)
    if found is None:
        return None
    value, layer = found
    mode = "default" if value == "manual" else str(value)
    return mode, Rule(kind="none", pattern="defaultMode", spec=mode, layer=layer.name,
                      file=layer.file, line=layer.line("permissions", "defaultMode"))


def _disabled_modes(stack: Layers) -> frozenset[str]:
    """permissions.disableBypassPermissionsMode / disableAutoMode: "disable" in any file."""
    out = set()
    for key, mode in (("disableBypassPermissionsMode", "bypassPermissions"),
                      ("disableAutoMode", "auto")):
        if any(layer.get("permissions", key) == "disable" for layer in stack):
            out.add(mode)
    return frozenset(out)


def _additional_dirs(stack: Layers) -> tuple[tuple[str, str, str, int | None], ...]:
    return tuple((str(value), layer.name, layer.file, line)
                 for value, layer, line in stack.listed("permissions", "additionalDirectories")
                 if isinstance(value, str))


def _hooks(stack: Layers) -> tuple[Hook, ...]:
    """Every PreToolUse hook (hooks.PreToolUse[].hooks[].command) with its matcher."""
    managed_hooks_only = any(layer.get("allowManagedHooksOnly") is True
                             for layer in stack if layer.name == "managed")
    out = []
    for layer in stack:
        if managed_hooks_only and layer.name != "managed":
            continue
        entries = layer.get("hooks", "PreToolUse")
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(entry, dict):
                continue
            matcher = str(entry.get("matcher", ""))
            for j, hook in enumerate(_list(entry.get("hooks"))):
                if isinstance(hook, dict):
                    out.append(Hook(matcher, str(hook.get("command", hook.get("type", ""))),
                                    layer.name, layer.file,
                                    layer.line("hooks", "PreToolUse", i, "hooks", j)))
    return tuple(out)


def _list(value: Any) -> Iterable[Any]:
    return value if isinstance(value, list) else ()
