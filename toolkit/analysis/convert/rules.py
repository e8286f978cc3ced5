"""The rules of a policy in one neutral form, read from the source runtime's own engine.

A converter reads each source rule once into a :class:`SourceRule` (what it acts on, how it
matches a shell command or a path, its effect, its file:line) and each target writer spells
those in its runtime's files. Only what a rule *says* is kept here; how a runtime decides
(precedence, wrappers, defaults) stays in the runtime's engine, which the comparison
(:mod:`.compare`) asks, never this module.

Shell patterns (Claude Code's ``Bash(...)`` grammar, the richest of the runtimes):

``any``     ``Bash`` / ``Bash(*)``: every command
``prefix``  ``Bash(git push:*)`` / ``Bash(git push *)``: the words, then a space or the end
            (``boundary``); ``Bash(npm run test*)``: the text, then anything (no boundary)
``exact``   ``Bash(git status)``: that command only
``glob``    ``Bash(git * main)``: ``*`` anywhere, matching any run of characters
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.decision import Effect

__all__ = ["FAMILIES", "SOURCES", "ShellPattern", "SourceRule", "path_probes", "read_rules", "seed",
           "shell_path"]

#: rule kind as a settings file spells it -> the effect it gives
KIND_EFFECT: Mapping[str, Effect] = {"allow": Effect.ALLOW, "ask": Effect.ASK,
                                     "deny": Effect.DENY}

#: Claude Code tool -> the family of tools a rule on it acts on (Read covers Grep, Glob, LS;
#: Edit covers Write, MultiEdit, NotebookEdit: SPEC section 11)
FAMILIES: Mapping[str, str] = {
    "Bash": "shell", "Read": "read", "Grep": "read", "Glob": "read", "LS": "read",
    "Edit": "edit", "Write": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
    "WebFetch": "webfetch", "WebSearch": "websearch",
}
#: the runtimes a policy can be read from (:mod:`.sources` has a reader for each)
SOURCES = ("claude-code", "gemini-cli", "codex", "opencode")


@dataclass(frozen=True)
class ShellPattern:
    """How a shell rule matches a command (see the module docstring)."""

    kind: str  # any | prefix | exact | glob
    text: str = ""
    boundary: bool = True

    @classmethod
    def parse(cls, spec: str | None) -> ShellPattern:
        """Claude Code's ``Bash(spec)`` as a pattern."""
        if spec is None or spec.strip() in ("", "*"):
            return cls("any")
        if spec.endswith(":*") and "*" not in spec[:-2]:
            return cls("prefix", spec[:-2].rstrip(), True)
        if spec.endswith(" *") and "*" not in spec[:-2]:
            return cls("prefix", spec[:-2].rstrip(), True)
        if "*" not in spec:
            return cls("exact", spec)
        if spec.endswith("*") and "*" not in spec[:-1]:
            return cls("prefix", spec[:-1], False)
        return cls("glob", spec[:-2] + " *" if spec.endswith(":*") else spec)

    @property
    def literal(self) -> str:
        """The text before the first wildcard (``git`` of ``git * main``)."""
        return self.text.split("*", 1)[0] if self.kind == "glob" else self.text


@dataclass(frozen=True)
class SourceRule:
    """One source rule: its text, effect, the tool family it acts on and where it is."""

    text: str
    effect: Effect
    tool: str  # the source runtime's tool name (Bash, Read, mcp__github__create_issue)
    family: str  # shell | read | edit | webfetch | websearch | mcp | tool
    spec: str | None
    file: str | None
    line: int | None
    layer: str | None = None
    #: the rule in the neutral (Claude Code) grammar, when the source spells it otherwise
    #: (``Bash(git push:*)`` for Gemini CLI's ``commandPrefix="git push"``)
    written: str | None = None

    @property
    def neutral(self) -> str:
        """The rule in the neutral grammar (what a Claude Code settings file holds)."""
        return self.written or self.text

    @property
    def where(self) -> str:
        """``file:line`` (or the file alone, or ``?``)."""
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or "?"

    @property
    def shell(self) -> ShellPattern:
        """The rule's command pattern (a shell rule only)."""
        return ShellPattern.parse(self.spec)

    @property
    def mcp(self) -> tuple[str, str | None]:
        """(server, tool or None for all) of an MCP rule (``mcp__github`` / ``mcp__github__*``)."""
        rest = self.tool[len("mcp__"):]
        server, _, name = rest.partition("__")
        return server, (name if name and name != "*" else None)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def read_rules(frame: Any) -> list[SourceRule]:
    """The active rules of a Claude Code engine's ``frame`` (``proj.permissions``), in order:
    settings layers first; a subagent's front-matter rules are not policy rules and are left
    to the caller (they are listed as losses)."""
    out = []
    for row in frame.to_dict("records"):
        kind = row.get("kind")
        if kind not in KIND_EFFECT or row.get("status", "active") not in ("active", None):
            continue
        tool = str(row.get("tool") or "")
        family = ("mcp" if tool.startswith("mcp__") else FAMILIES.get(tool, "tool"))
        line = row.get("line")
        out.append(SourceRule(
            text=str(row.get("text")), effect=KIND_EFFECT[kind], tool=tool, family=family,
            spec=_text(row.get("spec")), file=_text(row.get("file")),
            line=int(line) if line is not None and line == line else None,
            layer=_text(row.get("layer"))))
    return out


def seed(rule: SourceRule) -> str | None:
    """The command a shell rule speaks of, wildcards filled (``git push`` of
    ``Bash(git push:*)``, ``git x main`` of ``Bash(git * main)``); None for ``Bash``."""
    pattern = rule.shell
    if pattern.kind == "any":
        return None
    text = pattern.text.replace("*", "x").strip()
    return text or None


def by_family(rules: Iterable[SourceRule], family: str) -> list[SourceRule]:
    """The rules acting on ``family``, in order."""
    return [r for r in rules if r.family == family]


def shell_path(spec: str) -> str:
    """The path of a Read / Edit rule's gitignore-style ``spec`` as a shell argument, its
    wildcards filled (``./.env`` -> ``.env``, ``./.env.*`` -> ``.env.x``, ``**/secrets/**`` ->
    ``a/secrets/a``, ``//tmp/**`` -> ``/tmp/a``, ``~/.ssh/*`` -> ``~/.ssh/x``)."""
    if spec.startswith("//"):
        text = spec[1:]
    elif spec.startswith("~/"):
        text = spec
    else:
        text = spec.removeprefix("./").lstrip("/")
    text = text.replace("**", "a").replace("*", "x").replace("?", "x").rstrip("/")
    return text or "."


def path_probes(rules: Sequence[SourceRule], commands: Sequence[tuple[str, str]]
                ) -> list[tuple[SourceRule, str]]:
    """(path rule, command) for each Read / Edit deny or ask rule with a path and each of
    ``commands`` its paths meet: a Read rule meets the lines reading a path, a Read deny the
    lines writing one too, an Edit rule the lines writing one (Claude Code's
    ``touched_paths`` / ``_file_command_facts``)."""
    out: list[tuple[SourceRule, str]] = []
    for rule in rules:
        if rule.family not in ("read", "edit") or not rule.spec or rule.effect is Effect.ALLOW:
            continue
        kinds = ({"read", "edit"} if rule.effect is Effect.DENY else {"read"}) \
            if rule.family == "read" else {"edit"}
        path = shell_path(rule.spec)
        quoted = path if path.startswith("~/") else shlex.quote(path)
        out += [(rule, line.replace("{path}", quoted)) for kind, line in commands
                if kind in kinds]
    return out
