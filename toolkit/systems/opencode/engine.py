"""One OpenCode project's permissions, as ``Policy`` asks about them (the PermissionEngine).

A tool call in OpenCode (``session/prompt.ts`` -> the tool's ``execute``) asks one or more
permissions through ``ctx.ask({permission, patterns})`` with the ruleset
``merge(agent.permission, session.permission)``; ``Permission.ask`` (``permission/index.ts``)
evaluates each pattern: the last matching rule decides, ``deny`` fails the call at once,
``allow`` passes, anything else (``ask``, or no rule) prompts the user. Before that, a tool
``Permission.disabled`` removes is never offered to the model. What each tool asks (read from
``packages/opencode/src/tool/*.ts``):

- ``bash``: every ``command`` node tree-sitter-bash finds (those inside pipelines, lists,
  substitutions and subshells too) is one pattern, written as in the command (with its
  redirections); ``cd`` adds none. ``cd``/``rm``/``cp``/``mv``/``mkdir``/``touch``/``chmod``/
  ``chown``/``cat`` arguments (not flags) and a ``workdir`` outside the project ask
  ``external_directory`` for ``<their folder>/*`` first;
- ``read``: ``external_directory`` for a file outside the project, then ``read`` with the
  absolute path; ``edit``/``write``: the same, then ``edit`` with the path relative to the
  project; ``apply_patch``: ``edit`` with each file of the patch;
- ``glob`` / ``grep``: the pattern; ``list``: the folder; ``webfetch``: the URL;
  ``websearch`` / ``codesearch``: the query; ``task``: the subagent type; ``skill``: its name;
- any other tool (``todowrite``, ``lsp``, MCP tools named ``<server>_<tool>``, plugins): ``*``.

A subagent (``mode: subagent``) runs in the session the ``task`` tool creates, whose rules
deny ``todowrite`` and ``task`` unless the agent's own ruleset names them (tool/task.ts).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.decision import CallFacts, Decision, Effect, Reason, decide_call
from ...core.models import AgentDefinition, Rule, ServerConfig
from ...errors import Problem
from ..base.engine import EngineDefaults
from ..base.paths import home_folder
from . import wildcard
from .agents import (
    Agent,
    PermissionRule,
    build_agents,
    default_agent,
    disabled,
    evaluate,
    permission_of,
)
from .config import OpenCodeConfig, load_config
from .tools import BUILTIN_TOOLS, MAIN_FIELD, opencode_name

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MODES", "OpenCodePermissions", "Request", "empty_engine", "open_engine",
           "to_rule"]

#: ``default``: asks prompt; ``auto`` (``opencode --auto``): what would ask is approved,
#: explicit deny rules still deny (opencode.ai/docs/permissions)
MODES = ("default", "auto")
_PATH_COMMANDS = ("cd", "rm", "cp", "mv", "mkdir", "touch", "chmod", "chown", "cat")
_WORD_TYPES = ("command_name", "word", "string", "raw_string", "concatenation")
_KIND = {"allow": "allow", "ask": "ask", "deny": "deny"}


@dataclass(frozen=True)
class Request:
    """One ``ctx.ask``: a permission and the patterns it is asked for."""

    permission: str
    patterns: tuple[str, ...]


def to_rule(rule: PermissionRule, agent: str | None = None) -> Rule:
    """An OpenCode rule as a toolkit :class:`Rule`: ``bash(git *)``, its layer and place."""
    return Rule(kind=_KIND[rule.action], pattern=rule.permission,
                spec=None if rule.pattern == "*" else rule.pattern, file=rule.file,
                line=rule.line, layer=rule.layer, agent=agent)


def _bash_parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def bash_commands(command: str) -> list[tuple[str, list[str]]]:
    """(pattern text, words) of every ``command`` node of ``command``, in tree order
    (``tool/bash.ts``: ``descendantsOfType("command")``, the parent ``redirected_statement``'s
    text when there is one, the words of types command_name/word/string/raw_string/
    concatenation as written)."""
    tree = _bash_parser().parse(command.encode())
    found: list[tuple[str, list[str]]] = []

    def walk(node: Any) -> None:
        if node.type == "command":
            target = node.parent if node.parent is not None and \
                node.parent.type == "redirected_statement" else node
            words = [c.text.decode() for c in node.children if c.type in _WORD_TYPES]
            found.append((target.text.decode(), words))
        for child in node.children:
            walk(child)

    walk(tree.root_node)
    return found


@dataclass(frozen=True)
class _Args:
    """A call's arguments, read as text (a non-string value as its JSON)."""

    values: Mapping[str, Any]

    def text(self, key: str) -> str:
        value = self.values.get(key, "")
        return value if isinstance(value, str) else json.dumps(value)


class OpenCodePermissions(EngineDefaults):
    """The configuration and agents of one OpenCode project, and the questions asked of them."""

    #: check_call applies an agent's own tools / permissions itself (Policy.check_call
    #: applies the agent's tool list first for engines that do not)
    applies_agent_tools = True

    system = "opencode"

    def __init__(self, config: OpenCodeConfig) -> None:
        self.config = config
        self.root = config.root

    @cached_property
    def agents(self) -> dict[str, Agent]:
        """``Agent.list()``: every agent with its merged ruleset, by config key."""
        return build_agents(self.config)

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Config errors (OpenCode's words, file:line; OpenCode refuses to start on them) and
        warnings (ignored keys)."""
        return (*self.config.errors, *self.config.problems)

    # -- which agent ----------------------------------------------------------------------------

    def agent(self, definition: AgentDefinition | None) -> Agent:
        """The agent a call is made by: the definition's, else the default agent."""
        name = definition.name if definition is not None else default_agent(self.config,
                                                                            self.agents)
        found = self.agents.get(name) or next(
            (a for a in self.agents.values() if a.name == name), None)
        if found is None:
            raise ValueError(f"OpenCode has no agent {name!r}; its agents: "
                             f"{', '.join(self.agents)}")
        return found

    def ruleset(self, agent: Agent) -> list[PermissionRule]:
        """The rules a call is checked against: the agent's, then (for a subagent, run by the
        ``task`` tool) the session's ``todowrite`` / ``task`` denials (tool/task.ts)."""
        rules = list(agent.permission)
        if agent.mode == "subagent":
            for name in ("todowrite", "task"):
                if not any(r.permission == name for r in agent.permission):
                    rules.append(PermissionRule(name, "*", "deny", "<opencode tool/task.ts>",
                                                None, "session"))
        return rules

    # -- per call -------------------------------------------------------------------------------

    def _inside(self, path: str) -> bool:
        """``Instance.containsPath``: the path is in the project folder."""
        root = os.path.realpath(self.root)
        return os.path.commonpath([root, path]) == root

    def _resolve(self, path: str, cwd: str) -> str:
        path = os.path.expanduser(path) if path.startswith("~") else path
        return os.path.realpath(os.path.join(cwd, path))

    def _external(self, target: str, kind: str = "file") -> Request | None:
        """``assertExternalDirectory``: ``<folder>/*`` of a path outside the project."""
        if self._inside(target):
            return None
        folder = target if kind == "directory" else os.path.dirname(target)
        return Request("external_directory", (os.path.join(folder, "*"),))

    def requests(self, tool: str, args: Mapping[str, Any], cwd: str) -> list[Request]:
        """The permissions a call of ``tool`` asks, in order."""
        name = opencode_name(tool)
        asks = {"bash": self._bash, "read": self._file, "edit": self._file,
                "write": self._file, "apply_patch": self._patch, "glob": self._search,
                "grep": self._search, "list": self._search}.get(name)
        if asks is not None:
            found = asks(name, _Args(args), cwd)
        elif name in MAIN_FIELD:
            found = [Request(name, (_Args(args).text(MAIN_FIELD[name]),))]
        else:
            found = [Request(name, ("*",))]
        return [r for r in found if r is not None]

    def _bash(self, name: str, args: _Args, cwd: str) -> list[Request | None]:
        """tool/bash.ts: external folders of path arguments, then one pattern per command."""
        workdir = self._resolve(args.text("workdir") or cwd, cwd)
        folders: list[str] = [] if self._inside(workdir) else [workdir]
        patterns: list[str] = []
        for command_text, words in bash_commands(args.text("command")):
            if words and words[0] in _PATH_COMMANDS:
                for arg in words[1:]:
                    if arg.startswith("-") or (words[0] == "chmod" and arg.startswith("+")):
                        continue
                    resolved = self._resolve(arg.strip("'\""), workdir)
                    if not self._inside(resolved):
                        folders.append(resolved if os.path.isdir(resolved)
                                       else os.path.dirname(resolved))
            if words and words[0] != "cd" and command_text not in patterns:
                patterns.append(command_text)
        globs = tuple(dict.fromkeys(f"{f.rstrip('/')}/*" for f in folders))
        return [Request("external_directory", globs) if globs else None,
                Request("bash", tuple(patterns)) if patterns else None]

    def _file(self, name: str, args: _Args, cwd: str) -> list[Request | None]:
        """tool/read.ts, edit.ts, write.ts: the external folder, then the path."""
        target = self._resolve(args.text("filePath") or args.text("file_path")
                               or args.text("path"), cwd)
        kind = "directory" if os.path.isdir(target) else "file"
        shown = target if name == "read" else os.path.relpath(target, self.root)
        return [self._external(target, kind),
                Request("read" if name == "read" else "edit", (shown,))]

    def _patch(self, name: str, args: _Args, cwd: str) -> list[Request | None]:
        """tool/apply_patch.ts: every file the patch adds, updates, deletes or moves to."""
        files = re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$",
                           args.text("patchText"), re.M)
        targets = [self._resolve((a or b).strip(), cwd) for a, b in files]
        found: list[Request | None] = [self._external(t) for t in targets]
        if targets:
            found.append(Request("edit", tuple(os.path.relpath(t, self.root) for t in targets)))
        return found

    def _search(self, name: str, args: _Args, cwd: str) -> list[Request | None]:
        """tool/glob.ts, grep.ts, ls.ts: the folder searched, then the pattern (the folder)."""
        folder = self._resolve(args.text("path") or cwd, cwd)
        return [self._external(folder, "directory"),
                Request(name, (args.text("pattern") if name != "list" else folder,))]

    def check_call(self, tool: str, args: Mapping[str, Any] | None,
                   definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                   hook: Any, known: Callable[[str], bool]) -> Decision:
        """What OpenCode does with this call (see ``Policy.check_call``)."""
        mode = mode or "default"
        if mode not in MODES:
            raise ValueError(f"unknown OpenCode mode {mode!r}; known: {', '.join(MODES)} "
                             "(auto: opencode --auto approves whatever is not denied)")
        agent = self.agent(definition)
        rules = self.ruleset(agent)
        where = cwd or str(self.root)
        base = {"agent": agent.name, "tool": tool, "canonical": tool, "question": "call",
                "mode": mode, "cwd": where}
        name = opencode_name(tool)
        warnings = () if known(tool) or name in BUILTIN_TOOLS else (
            f"{tool} is not a tool of this project (the rules are evaluated anyway)",)
        off = disabled([name], rules).get(name)
        if off is not None:
            return Decision(effect=Effect.DENY, reason=Reason.DENY_RULE,
                            message=f"{name} is not offered to agent {agent.name}: the last "
                                    f"rule for the {permission_of(name)} permission is "
                                    f"{off.text} (Permission.disabled)",
                            rule=to_rule(off, agent.name), warnings=warnings,
                            **base)  # type: ignore[arg-type]
        parts = []
        for request in self.requests(tool, dict(args or {}), where):
            for pattern in request.patterns:
                parts.append(self._part(request.permission, pattern, rules, mode,
                                        {**base, "tool": f"{request.permission} {pattern}"}))
        return self._combine(parts, tool, base, warnings)

    def _part(self, permission: str, pattern: str, rules: list[PermissionRule], mode: str,
              base: dict[str, Any]) -> Decision:
        rule = evaluate(permission, pattern, rules)
        what = f"{permission} `{pattern}`"
        if rule is None:
            if mode == "auto":
                return Decision(effect=Effect.ALLOW, reason=Reason.MODE,
                                message=f"no rule matches {what}; auto mode approves it", **base)
            return Decision(effect=Effect.ASK, reason=Reason.MODE,
                            message=f"no rule matches {what}; OpenCode asks (evaluate's "
                                    "default)", **base)
        shown = to_rule(rule)
        facts = CallFacts(**{rule.action: shown}, what=what)  # type: ignore[arg-type]
        verdict = decide_call(facts, "default")
        message = f"{verdict.message} (the last matching rule: {rule.text})"
        if verdict.effect is Effect.ASK and mode == "auto":
            return Decision(effect=Effect.ALLOW, reason=Reason.MODE, rule=shown,
                            message=f"{message}; auto mode approves it", **base)
        return Decision(effect=verdict.effect, reason=verdict.reason, rule=shown,
                        message=message, **base)

    @staticmethod
    def _combine(parts: list[Decision], tool: str, base: dict[str, Any],
                 warnings: tuple[str, ...]) -> Decision:
        """``Permission.ask`` over every pattern: a deny fails the call, any ask prompts."""
        if not parts:
            return Decision(effect=Effect.ALLOW, reason=Reason.NO_PROMPT, warnings=warnings,
                            message=f"{tool} asks no permission (no command to check)", **base)
        # (a Decision is truthy only when allowed: pick by effect, never with ``or``)
        order = {Effect.DENY: 0, Effect.ASK: 1}
        deciding = min(parts, key=lambda p: order.get(p.effect, 2))
        message = deciding.message
        if len(parts) > 1:
            message += f"; {len(parts)} patterns asked, {deciding.tool!r} decides"
        return Decision(effect=deciding.effect, reason=deciding.reason, rule=deciding.rule,
                        message=message, parts=tuple(parts) if len(parts) > 1 else (),
                        warnings=warnings, **base)

    @staticmethod
    def call_arguments(tool: str, text: str) -> dict[str, Any]:
        """JSON arguments, or the tool's main field (``command`` of bash, ``filePath`` of read)."""
        stripped = text.strip()
        if stripped.startswith("{"):
            try:
                value = json.loads(stripped)
            except ValueError as exc:
                raise ValueError(f"arguments of {tool} are not a JSON object: {exc}") from None
            if isinstance(value, dict):
                return value
        name = opencode_name(tool)
        field = {"bash": "command", "read": "filePath", "edit": "filePath",
                 "write": "filePath", "apply_patch": "patchText", "glob": "pattern",
                 "grep": "pattern", "list": "path"}.get(name) or MAIN_FIELD.get(name, "input")
        return {field: text}

    # -- name level -------------------------------------------------------------------------------

    def name_rules(self, kind: str, known: Callable[[str], bool],
                   servers: Mapping[str, ServerConfig] | Iterable[str]) -> tuple[Rule, ...]:
        """No project-wide rules: every OpenCode rule is in an agent's ruleset (its definition)."""
        return ()

    def name_level(self, agent: Agent, tool: str) -> tuple[str, PermissionRule | None,
                                                           tuple[PermissionRule, ...]]:
        """(OpenCode action, deciding rule, argument rules) of ``tool`` for ``agent`` when the
        arguments are not known: the last ``*`` rule's action (``ask``, OpenCode's default,
        when none matches), and the rules with other patterns after it, which decide each
        call by its arguments (none: the action holds for every call)."""
        rules = self.ruleset(agent)
        permission = permission_of(opencode_name(tool))
        matching = [r for r in rules if wildcard.match(permission, r.permission)]
        base = max((i for i, r in enumerate(matching) if r.pattern == "*"), default=-1)
        if base < 0:
            return "ask", None, tuple(matching)
        return matching[base].action, matching[base], tuple(matching[base + 1:])

    def argument_rules(self, definition: AgentDefinition | None,
                       lookup: Callable[[str], str | None]) -> dict[str, tuple[Rule, ...]]:
        """Pool tool -> the rules after its last ``*`` rule, which decide its calls."""
        if definition is None or definition.name not in self.agents:
            return {}
        agent = self.agents[definition.name]
        out: dict[str, tuple[Rule, ...]] = {}
        for tool in definition.metadata.get("opencode_tools", ()):
            canonical = lookup(tool)
            _, _, later = self.name_level(agent, tool)
            if canonical is not None and later:
                out[canonical] = tuple(to_rule(r, agent.name) for r in later)
        return out

    # -- tables ---------------------------------------------------------------------------------

    def rule_languages(self, tools: Iterable[str], servers: Iterable[str] = ()
                       ) -> list[dict[str, Any]]:
        """The default agent's rules as regular languages, ranked (the last match decides),
        for ``proj.lint()`` (:mod:`.languages`)."""
        from .languages import rule_languages

        return rule_languages(self.ruleset(self.agent(None)), tools, to_rule)

    def frame(self, agents: Iterable[AgentDefinition]) -> pd.DataFrame:
        """Every agent's ruleset in evaluation order (the last matching row decides)."""
        import pandas as pd

        rows = [{"text": r.text, "kind": r.action, "tool": r.permission,
                 "spec": r.pattern, "layer": r.layer, "file": r.file, "line": r.line,
                 "agent": agent.name, "status": "active", "warnings": "", "position": i}
                for agent in self.agents.values() for i, r in enumerate(self.ruleset(agent))]
        columns = ["text", "kind", "tool", "spec", "layer", "file", "line", "agent", "status",
                   "warnings", "position"]
        return pd.DataFrame(rows, columns=columns).astype({"line": "Int64"})


def is_project(root: Path) -> bool:
    """A folder OpenCode reads settings from: ``opencode.json(c)`` or ``.opencode/``."""
    return root.is_dir() and (any((root / n).is_file() for n in ("opencode.json",
                                                                  "opencode.jsonc"))
                              or (root / ".opencode").is_dir())


def open_engine(path: str | os.PathLike[str], *, home: Any = None, managed: Any = None,
                **_: Any) -> OpenCodePermissions | None:
    """The configuration of the OpenCode project at ``path`` (holding ``opencode.json(c)`` or
    ``.opencode/``), or None. ``home`` stands for ``~`` (``~/.config/opencode``; False: no
    global layer); ``managed`` is the managed folder (default ``/etc/opencode``; False: none)."""
    root = Path(path)
    if not is_project(root):
        return None
    return OpenCodePermissions(load_config(root, home=home_folder(home, Path.home()),
                                           managed=home_folder(managed, Path("/etc/opencode"))))


def empty_engine(root: str) -> OpenCodePermissions:
    """OpenCode with no configuration (its built-in agents and defaults only)."""
    return OpenCodePermissions(load_config(Path(root), home=None, managed=None))

