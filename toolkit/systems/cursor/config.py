"""Cursor's permission files, read with the line of every entry.

CLI (cursor.com/docs/cli/reference/configuration): the global ``~/.cursor/cli-config.json``
(``home=``) and the project's ``<project>/.cursor/cli.json``; "Only permissions can be
configured at the project level. All other CLI settings must be set globally"; "Pure JSON
format (no comments)". Both files' ``permissions.allow`` / ``permissions.deny`` apply (the docs
say permissions are set in either; how two files combine is not documented: toolkit applies
both, and a deny in either wins, the documented precedence). ``approvalMode`` (``allowlist``,
``auto-review``, ``unrestricted``) is read from the global file only.

IDE (cursor.com/docs/reference/permissions): ``~/.cursor/permissions.json`` and
``<workspace>/.cursor/permissions.json``, JSON with comments; "When both exist, Cursor
concatenates the arrays inside every field"; "Non-string entries inside either array are
silently dropped"; "If a key is present in either file but evaluates to an empty array (after
concatenation), the effective allowlist for that type is empty"; a key in neither file leaves
that allowlist to the IDE's settings UI, which toolkit cannot read (it is then taken as empty,
with a warning).

Bad JSON is a :class:`~toolkit.errors.DefinitionError` at ``file:line``; a wrong shape or an
entry Cursor would not read is a located warning.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ...errors import DefinitionError, Problem
from ..base.mcpconfig import strip_jsonc
from ..base.source import Located, parse_json, read_text
from .tokens import Token, TokenError, parse_token

__all__ = [
    "APPROVAL_MODES",
    "CLI_PROJECT",
    "CLI_USER",
    "IDE_FILE",
    "CursorConfig",
    "Entry",
    "read_config",
]

CLI_PROJECT = ".cursor/cli.json"
CLI_USER = ".cursor/cli-config.json"
IDE_FILE = ".cursor/permissions.json"
#: ``approvalMode`` of ``cli-config.json`` (cursor.com/docs/cli/reference/configuration)
APPROVAL_MODES = ("allowlist", "auto-review", "unrestricted")
_KINDS: tuple[Literal["allow", "deny"], ...] = ("allow", "deny")


@dataclass(frozen=True)
class Entry:
    """One rule as written: a CLI token or an IDE allowlist entry, and where it is."""

    kind: Literal["allow", "deny"]
    text: str
    layer: str  # "user" / "project" (CLI), "ide-user" / "ide-workspace" (permissions.json)
    file: str
    line: int | None
    token: Token | None = None  # CLI entries only


@dataclass
class CursorConfig:
    """Every permission file of one project, as Cursor reads them."""

    root: Path
    home: Path | None = None
    #: CLI ``permissions.allow`` / ``deny`` entries of both files (user first)
    cli: list[Entry] = field(default_factory=list)
    #: IDE ``terminalAllowlist`` / ``mcpAllowlist`` (None: no file defines the key)
    terminal: list[Entry] | None = None
    mcp: list[Entry] | None = None
    approval_mode: str | None = None
    approval_where: tuple[str, int | None] | None = None
    has_cli: bool = False
    has_ide: bool = False
    problems: list[Problem] = field(default_factory=list)

    def rules(self, kind: str, token_kind: str) -> list[Entry]:
        """The CLI entries of ``kind`` (allow / deny) whose token is of ``token_kind``."""
        return [e for e in self.cli if e.kind == kind and e.token is not None
                and e.token.kind == token_kind]


def _read(path: Path, shown: str, *, comments: bool) -> Located:
    text = read_text(path, shown)
    if not text.strip():
        raise DefinitionError("the file is empty; Cursor expects a JSON object ({...})",
                              file=shown, line=1)
    try:
        located = parse_json(strip_jsonc(text) if comments else text, shown)
    except DefinitionError as exc:
        if comments or ("//" not in text and "/*" not in text):
            raise
        raise DefinitionError(f"{exc.problems[0].message}; Cursor's CLI config is pure JSON "
                              "(no comments): remove them", file=shown,
                              line=exc.line) from None
    if not isinstance(located.data, Mapping):
        raise DefinitionError("a Cursor config must be a JSON object ({...})", file=shown,
                              line=1)
    return located


def _project_keys(src: Located, config: CursorConfig) -> None:
    for key in src.data:
        if key not in ("permissions", "version"):
            config.problems.append(src.problem((key,), (
                f"{key!r} is ignored in the project's {CLI_PROJECT}: only permissions can be "
                "configured at the project level (set it in ~/.cursor/cli-config.json)"),
                "warning"))


def _token_list(src: Located, kind: Literal["allow", "deny"], value: object, layer: str,
                config: CursorConfig) -> None:
    if not isinstance(value, list):
        config.problems.append(src.problem(("permissions", kind), (
            f"permissions.{kind} must be a list of tokens such as \"Shell(git)\"; ignored"),
            "warning"))
        return
    for i, item in enumerate(value):
        where = ("permissions", kind, i)
        if not isinstance(item, str):
            config.problems.append(src.problem(where, (
                f"permissions.{kind}[{i}] is not a string; ignored"), "warning"))
            continue
        try:
            token = parse_token(item)
        except TokenError as exc:
            config.problems.append(src.problem(where, f"{exc}; ignored", "warning"))
            continue
        config.cli.append(Entry(kind, item, layer, src.file, src.line(where), token))


def _cli_entries(src: Located, layer: str, config: CursorConfig, *, project: bool) -> None:
    if project:
        _project_keys(src, config)
    permissions = src.data.get("permissions")
    if permissions is None:
        return
    if not isinstance(permissions, Mapping):
        config.problems.append(src.problem(("permissions",), (
            "permissions must be an object with allow and deny lists; Cursor reads no rule "
            "from it"), "warning"))
        return
    for key in permissions:
        if key not in _KINDS:
            config.problems.append(src.problem(("permissions", key), (
                f"permissions.{key} is not a list Cursor reads (only allow and deny); its "
                "entries are ignored"), "warning"))
    for kind in _KINDS:
        if permissions.get(kind) is not None:
            _token_list(src, kind, permissions[kind], layer, config)


def _ide_entries(src: Located, layer: str, config: CursorConfig) -> None:
    data = src.data
    known = ("mcpAllowlist", "terminalAllowlist", "autoRun", "autoReview")
    if not any(k in data for k in known):
        config.problems.append(src.problem((), (
            "no mcpAllowlist or terminalAllowlist: Cursor's IDE ignores this file's keys "
            f"({', '.join(map(str, data)) or 'none'}); the CLI reads permissions from "
            f"{CLI_PROJECT}"), "warning"))
    for key, attr in (("terminalAllowlist", "terminal"), ("mcpAllowlist", "mcp")):
        if key not in data:
            continue
        value = data[key]
        entries: list[Entry] = getattr(config, attr) or []
        if not isinstance(value, list):
            config.problems.append(src.problem((key,), (
                f"{key} must be a list of strings; Cursor reads none from it"), "warning"))
        else:
            for i, item in enumerate(value):
                if not isinstance(item, str):
                    config.problems.append(src.problem((key, i), (
                        f"{key}[{i}] is not a string: Cursor drops it"), "warning"))
                elif key == "mcpAllowlist" and ":" not in item:
                    config.problems.append(src.problem((key, i), (
                        f"{item!r} has no ':' (server:tool): Cursor ignores it"), "warning"))
                else:
                    entries.append(Entry("allow", item, layer, src.file, src.line((key, i))))
        setattr(config, attr, entries)


def _approval(src: Located, config: CursorConfig) -> None:
    value = src.data.get("approvalMode")
    if value is None:
        return
    if value not in APPROVAL_MODES:
        config.problems.append(src.problem(("approvalMode",), (
            f"approvalMode {value!r} is not one of {', '.join(APPROVAL_MODES)}; ignored"),
            "warning"))
        return
    config.approval_mode = value
    config.approval_where = (src.file, src.line(("approvalMode",)))


def is_project(root: Path) -> bool:
    """Whether ``root`` holds a Cursor permission file (``.cursor/cli.json`` or
    ``.cursor/permissions.json``)."""
    return (root / CLI_PROJECT).is_file() or (root / IDE_FILE).is_file()


def read_config(root: str | os.PathLike[str], *, home: Path | None) -> CursorConfig:
    """The Cursor permission files of the project at ``root`` and of ``home`` (None: no user
    files)."""
    config = CursorConfig(root=Path(root), home=home)
    if home is not None:
        user_cli = home / CLI_USER
        if user_cli.is_file():
            src = _read(user_cli, "~/" + CLI_USER, comments=False)
            config.has_cli = True
            _cli_entries(src, "user", config, project=False)
            _approval(src, config)
    project_cli = config.root / CLI_PROJECT
    if project_cli.is_file():
        config.has_cli = True
        _cli_entries(_read(project_cli, CLI_PROJECT, comments=False), "project", config,
                     project=True)
    places: list[tuple[Path, str, str]] = [(config.root / IDE_FILE, IDE_FILE, "ide-workspace")]
    if home is not None:
        places.insert(0, (home / IDE_FILE, "~/" + IDE_FILE, "ide-user"))
    for path, shown, layer in places:
        if path.is_file():
            config.has_ide = True
            _ide_entries(_read(path, shown, comments=True), layer, config)
    return config
