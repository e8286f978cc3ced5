"""Claude Code subagent files, read as Claude Code reads them.

Which files are agents (code.claude.com/docs/en/sub-agents, plugins reference, and
Claude Code's loaders ``loadAgentsDir.ts`` / ``loadPluginAgents.ts``):

- every ``.md`` file under a ``.claude/agents/`` folder, at any depth;
- a plugin's agents: the plugin root is the folder holding ``.claude-plugin/plugin.json``
  (or a folder ``plugins/<name>/``); its agents are the ``.md`` files under ``agents/``,
  or, when ``plugin.json`` lists ``agents`` (a path or a list of paths, files or
  folders), those instead. A plugin agent is called ``<plugin>:<subfolders>:<name>``;
- anything else in a Claude Code project (``commands/``, ``skills/``, ``rules/``,
  ``CLAUDE.md``, READMEs) is not an agent, and is skipped without a warning.

How a file is read (``frontmatterParser.ts``): the front matter runs from a leading
``---`` line to the next ``---``; it is parsed as YAML, and when that fails, once more
after :func:`quote_problematic_values` (so an unquoted ``description:`` holding ``: `` or
``#`` is a plain string). What Claude Code then accepts, toolkit loads; what it skips,
toolkit skips with a warning at the file and line (a ``DefinitionError`` when the file
was loaded on its own): front matter that still does not parse, a ``name`` starting with
``-`` or containing ``:``, a missing ``description``. A file without ``name`` is
documentation kept beside the agents. Plugin agents always load: without a usable
front matter, under their file name with every tool.

``tools`` and ``disallowedTools`` (``markdownConfigLoader.ts``, ``permissionSetup.ts``):
omitted = every tool; ``tools:`` with no value, ``""`` or ``[]`` = no tools; ``*`` =
every tool; entries are split at commas and spaces outside parentheses, so
``Bash(npm test:*)`` and ``Agent(worker, researcher)`` stay whole. An entry grants its
tool and keeps its argument pattern (``Rule.spec``) for the permission engine;
``Agent(a, b)`` / ``Task(a, b)`` also sets :attr:`AgentDefinition.spawnable`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

from ...core.models import AgentDefinition, Rule
from ...errors import DefinitionError
from ..base.definitions import Definitions
from ..base.frontmatter import ALLOW_KEYS, ASK_KEYS, DENY_KEYS, parse_guidelines
from ..base.source import Located, SourceFile
from . import collection as _collections
from .builtin_agents import WithBuiltinAgents
from .front import (
    FRONT_MATTER,
    FrontMatter,
    parse_tool_entry,
    quote_problematic_values,
    read_front_matter,
    split_tool_list,
)
from .tools import alias_rules, pool_tools

__all__ = ["FRONT_MATTER", "FrontMatter", "Place", "add_builtins", "agent_place",
           "enclosing_layout", "ignore", "is_agent_file", "is_project_markdown", "load",
           "parse_tool_entry", "quote_problematic_values", "read_front_matter",
           "split_tool_list"]

#: Fields plugin agents may not set ("ignored for plugin agents", loadPluginAgents.ts).
_PLUGIN_IGNORED = ("permissionMode", "hooks", "mcpServers")
#: The documented tool-name patterns Claude Code expands in ``tools`` / ``disallowedTools``.
_MCP_SERVER = re.compile(r"mcp__([^_*?\[]|_(?!_))+")
_MCP_GLOB = re.compile(r"mcp__(?:[^_*?\[]|_(?!_))+__.*")


@dataclass(frozen=True)
class Place:
    """Where Claude Code finds an agent file: ``.claude/agents`` or a plugin."""

    #: ``collection``: a folder of subagent files recognised by their content
    #: (:mod:`.collection`), read as if copied into ``.claude/agents``
    kind: Literal["project", "plugin", "collection"]
    plugin: str | None = None
    namespace: tuple[str, ...] = ()
    #: why the plugin's ``plugin.json`` could not be read (its agents load by default)
    problem: tuple[str, str] | None = None


# -- which files --------------------------------------------------------------------------------

def agent_place(file: SourceFile) -> Place | None:
    """Whether Claude Code reads ``file`` as a subagent, and from where."""
    if file.suffix != ".md":
        return None
    path = Path(os.path.normpath(file.path.absolute()))
    parts = path.parts
    if any(a == ".claude" and b == "agents" for a, b in pairwise(parts[:-1])):
        return Place("project")
    project = _project_root(file)
    plugin = _plugin_place(path, project)
    if plugin is not None or _in_plugin(path, project):
        return plugin
    if project is None:  # a file on its own: a subagent by its content
        return Place("collection") if _collections.subagent_evidence(file.text) else None
    return Place("collection") if _is_collection(project) else None


def _is_collection(project: Path) -> bool:
    """Whether the folder being loaded is a collection of subagent files: no Claude Code
    layout of its own (``.claude/``, ``.claude-plugin/``, plugins), and its markdown files
    are subagents by their content."""
    folder = Path(os.path.normpath(project.absolute()))
    if (folder / ".claude").is_dir() or (folder / ".claude-plugin").is_dir():
        return False
    if enclosing_layout(folder, collections=False) is not None:
        return False
    return _collections.collection(folder) is not None


def _in_plugin(path: Path, project: Path | None) -> bool:
    """Whether ``path`` lies inside a plugin (its agents are what the plugin says)."""
    return any(_plugin(root, project) is not None for root in path.parents)


def _project_root(file: SourceFile) -> Path | None:
    """The folder being loaded, or None for a file loaded on its own."""
    if _alone(file):
        return None
    parents = Path(os.path.normpath(file.path.absolute())).parents
    return parents[min(file.place.count("/"), len(parents) - 1)]


def _plugin_place(path: Path, project: Path | None) -> Place | None:
    """The plugin whose agent ``path`` is, if any (the nearest plugin root above it)."""
    for root in path.parents:
        plugin = _plugin(root, project)
        if plugin is None:
            continue
        name, listed, problem = plugin
        folders = listed if listed is not None else (root / "agents",)
        for entry in folders:
            if path == entry:
                return Place("plugin", name, (), problem)
            if entry in path.parents:
                namespace = path.parent.relative_to(entry).parts
                return Place("plugin", name, namespace, problem)
        return None  # inside a plugin, but not one of its agents
    return None


def _plugin(root: Path, project: Path | None
            ) -> tuple[str, tuple[Path, ...] | None, tuple[str, str] | None] | None:
    """(name, the agent paths its manifest lists or None, a manifest problem) when ``root``
    is a plugin root: it holds ``.claude-plugin/plugin.json``, or it is ``plugins/<name>/``
    with an ``agents/`` folder inside the ``project`` folder being loaded (Claude Code makes
    a default manifest for a plugin without one, named after its folder)."""
    manifest = root / ".claude-plugin" / "plugin.json"
    if not manifest.is_file():
        inside = project is not None and (root == project or project in root.parents)
        if inside and root.parent.name == "plugins" and (root / "agents").is_dir():
            return root.name, None, None
        return None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return root.name, None, (str(manifest), f"cannot read plugin.json ({exc}); its "
                                                "agents/ folder is read, named after the folder")
    if not isinstance(data, dict):
        return root.name, None, None
    name = data.get("name") if isinstance(data.get("name"), str) and data["name"] else root.name
    listed = data.get("agents")
    paths = [listed] if isinstance(listed, str) else listed if isinstance(listed, list) else None
    if not paths:  # "agents" absent or empty: the default agents/ folder
        return str(name), None, None
    return str(name), tuple(Path(os.path.normpath(root / p)) for p in paths
                            if isinstance(p, str)), None


def is_agent_file(file: SourceFile) -> bool:
    """A markdown file Claude Code reads as a subagent (``.claude/agents`` or a plugin's)."""
    return agent_place(file) is not None


def is_project_markdown(file: SourceFile) -> bool:
    """Other markdown of a Claude Code project (commands, skills, rules, ``CLAUDE.md``,
    READMEs): a file inside a folder that is, or holds, ``.claude/`` or ``.claude-plugin/``,
    up to the project folder. Claude Code does not read these as agents."""
    project = _project_root(file)
    if file.suffix != ".md" or project is None:
        return False
    path = Path(os.path.normpath(file.path.absolute()))
    return any(_claude_folder(f, project) for f in path.parents[:file.place.count("/") + 1])


def _claude_folder(root: Path, project: Path) -> bool:
    return (root.name == ".claude" or (root / ".claude").is_dir()
            or (root / ".claude-plugin").is_dir() or _plugin(root, project) is not None)


def _alone(file: SourceFile) -> bool:
    """Whether the file was loaded on its own (its place is absolute, see ``SourceFile``)."""
    return file.place.startswith("/") or os.path.isabs(file.place)


def ignore(file: SourceFile, defs: Definitions) -> None:
    """Markdown of a Claude Code project that is not an agent: read as Claude Code reads it,
    that is, not at all; one that looks like a subagent is counted for one warning
    (:func:`.collection.report_unread`)."""
    try:
        text = file.text
    except DefinitionError:
        return
    _collections.note_unread(file.display, text, defs)


# -- reading ------------------------------------------------------------------------------------

# -- loading ------------------------------------------------------------------------------------

def load(file: SourceFile, defs: Definitions) -> None:
    """Read one Claude Code agent file into ``defs`` (or skip it as Claude Code would)."""
    place = agent_place(file)
    if place is None:
        return
    if place.problem is not None:
        defs.warn(place.problem[0], None, place.problem[1])
    alone = _alone(file)
    try:
        text = file.text
    except DefinitionError as exc:
        if alone:
            raise
        defs.warn(file.display, exc.line, f"{exc.problems[0].message}; skipped")
        return
    front = read_front_matter(text, file.display)
    agent = (_plugin_agent(file.path.stem, place, front) if place.kind == "plugin"
             else _project_agent(front, defs, alone=alone,
                                 quiet_docs=place.kind == "collection"))
    for line, message in front.warnings:
        defs.warn(file.display, line, message)
    if agent is not None:
        _add(defs, agent)


def read_agent(text: str, file: str = "<cell>") -> AgentDefinition:
    """One subagent from the text of a ``.claude/agents`` file, as Claude Code reads it; a
    file Claude Code would skip is a ``DefinitionError`` saying why (``%%tk agent`` and
    ``proj.add_agent`` in a Claude Code project)."""
    front = read_front_matter(text, file)
    agent = _project_agent(front, None, alone=True)
    assert agent is not None  # alone: a skip raises
    return agent


def _skip(front: FrontMatter, defs: Definitions | None, line: int | None, message: str) -> None:
    """A file Claude Code skips: a warning in a folder, an error when read on its own."""
    if defs is None:
        raise DefinitionError(message, file=front.located.file, line=line)
    defs.warn(front.located.file, line, message)


def _project_agent(front: FrontMatter, defs: Definitions | None, *, alone: bool,
                   quiet_docs: bool = False) -> AgentDefinition | None:
    """``parseAgentFromMarkdown``: what ``.claude/agents`` accepts, else why it is skipped.
    ``quiet_docs``: a file without ``name`` is skipped without a word (a collection's
    READMEs and docs, which nobody copies into ``.claude/agents``)."""
    src, data = front.located, front.data
    report = None if alone else defs
    if front.error is not None:
        why = front.error.problems[0].message
        _skip(front, report, front.error.line, "Claude Code skips this subagent: its front "
                                               "matter does not parse, even after quoting "
                                               "values with special characters (\"Failed to "
                                               f"parse YAML frontmatter\": {why}); fix the YAML "
                                               "or quote the value")
        return None
    name = data.get("name")
    if not name or not isinstance(name, str):
        if (front.present and data and not quiet_docs) or alone:
            _skip(front, report, src.line(("name",)) or 1,
                  "no name: Claude Code treats this file as documentation kept beside the "
                  "agents, not as a subagent; add name: (and description:) to make it one")
        return None
    if name.startswith("-") or ":" in name:
        _skip(front, report, src.line(("name",)), f"Claude Code does not load a subagent "
                                                  f"whose name starts with '-' or contains ':' "
                                                  f"({name!r}); rename it")
        return None
    description = data.get("description")
    if not description or not isinstance(description, str):
        _skip(front, report, src.line(("description",)) or src.line(("name",)),
              f"Claude Code skips subagent {name!r}: it \"is missing required 'description' "
              "in frontmatter\"; add a description: line (a string saying when to use it) "
              "to the front matter to load it")
        return None
    return _definition(front, name, description.replace("\\n", "\n"), plugin=None)


def _plugin_agent(stem: str, place: Place, front: FrontMatter) -> AgentDefinition:
    """``loadAgentFromFile`` of a plugin: it always loads, under its file name if need be."""
    plugin = str(place.plugin)
    data = front.data
    if front.error is not None:
        front.warnings.append((front.error.line, (
            "front matter does not parse, even after quoting values with special characters "
            f"(\"Failed to parse YAML frontmatter\": {front.error.problems[0].message}): "
            "Claude Code loads this plugin agent under its file name with no fields, so with "
            "every tool")))
    elif not front.present:
        front.warnings.append((1, "no front matter: Claude Code loads this plugin agent under "
                                  "its file name with no fields, so with every tool"))
    name = data.get("name")
    base = name if isinstance(name, str) and name else stem
    description = (_text(data.get("description")) or _text(data.get("when-to-use"))
                   or f"Agent from {plugin} plugin")
    for key in _PLUGIN_IGNORED:
        if key in data:
            front.warnings.append((front.located.line((key,)), (
                f"{key} is ignored for plugin agents (Claude Code reads it only in "
                ".claude/agents/)")))
    return _definition(front, ":".join((plugin, *place.namespace, base)), description,
                       plugin=plugin)


def _text(value: Any) -> str | None:
    """``coerceDescriptionToString``: a non-blank string, or a number or boolean as text."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return None


def _definition(front: FrontMatter, name: str, description: str, plugin: str | None
                ) -> AgentDefinition:
    """The agent definition of an accepted file."""
    src, data = front.located, front.data
    allow, spawnable = _tools(front, name, "tools", "allow")
    deny, _ = _tools(front, name, "disallowedTools", "deny")
    _foreign_spellings(front)
    guidelines, guideline_lines = parse_guidelines(front.body, front.body_line)
    model = data.get("model")
    model = model.strip() if isinstance(model, str) and model.strip() else None
    if model is not None and model.lower() == "inherit":
        model = "inherit"
    ignored = {"name", "description", "tools", "disallowedTools", "model"}
    if plugin is not None:
        ignored.update(_PLUGIN_IGNORED)
    metadata = {str(k): v for k, v in data.items() if k not in ignored}
    if plugin is not None:
        metadata["plugin"] = plugin
    return AgentDefinition(
        name=name, description=description.strip(), model=model, format="claude-code",
        file=src.file, line=src.line(("name",)) if "name" in data else 1,
        allow=allow, allow_line=src.line(("tools",)) if "tools" in data else None,
        deny=deny or (), system_prompt=front.body.strip(), guidelines=guidelines,
        guideline_lines=guideline_lines, spawnable=spawnable, metadata=metadata)


def _foreign_spellings(front: FrontMatter) -> None:
    """Other systems' spellings of the tool lists: Claude Code does not read them."""
    own = {"tools": "tools", "disallowedTools": "disallowedTools"}
    for key in (*ALLOW_KEYS, *DENY_KEYS, *ASK_KEYS):
        if key in front.data and key not in own:
            field_name = "tools" if key in ALLOW_KEYS else "disallowedTools" if (
                key in DENY_KEYS) else "no such field"
            front.warnings.append((front.located.line((key,)), (
                f"Claude Code does not read {key!r} (its field is {field_name}); ignored")))


def _tools(front: FrontMatter, agent: str, key: str, kind: Literal["allow", "deny"]
           ) -> tuple[tuple[Rule, ...] | None, tuple[str, ...] | None]:
    """``parseAgentToolsFromFrontmatter`` of ``tools`` (allow) or ``disallowedTools`` (deny):
    (rules, the ``Agent(a, b)`` spawn list). None rules: every tool (allow) / none (deny)."""
    if key not in front.data:
        return None, None
    value, src = front.data[key], front.located
    pieces = _pieces(src, key, value)
    if pieces is None or not pieces:
        if kind == "allow":
            shown = "with no value" if value is None else repr(value)
            front.warnings.append((src.line((key,)), (
                f"tools: {shown} gives {agent!r} no tools: Claude Code launches it with none "
                "(omit tools: to give it every tool)")))
        return (), None
    if any(entry == "*" for entry, _ in pieces):
        if kind == "deny":
            front.warnings.append((src.line((key,)), "Claude Code reads disallowedTools '*' "
                                                     "as no list: it removes nothing"))
            return (), None
        return None, None
    rules, spawnable = [], None
    for entry, line in pieces:
        rule = _rule(front, agent, kind, entry, line)
        if rule is None:
            continue
        if rule.pattern in ("Agent", "Task") and rule.spec not in (None, "", "*"):
            spawnable = tuple(s.strip() for s in _unescape(rule.spec).split(","))
        rules.append(rule)
    return tuple(rules), spawnable


def _pieces(src: Located, key: str, value: Any) -> list[tuple[str, int | None]] | None:
    """The entries of a tool list with their lines; None when Claude Code reads no list."""
    if value is None or not value:
        return None
    if isinstance(value, str):
        return [(e, src.line((key,))) for e in split_tool_list(value)]
    if isinstance(value, list):
        return [(e, src.line((key, i))) for i, item in enumerate(value)
                if isinstance(item, str) for e in split_tool_list(item)]
    return None


def _rule(front: FrontMatter, agent: str, kind: Literal["allow", "deny"], entry: str,
          line: int | None) -> Rule | None:
    """One entry as a rule: the tool it names, its argument pattern kept in ``spec``.

    Claude Code matches tool names exactly; the documented patterns are ``mcp__<server>``
    and ``mcp__<server>__*`` (every tool of the server) and, in ``disallowedTools`` only,
    ``mcp__*``. Any other wildcard is a literal name no tool has: ignored, with a warning.
    """
    tool, spec = parse_tool_entry(entry)
    pattern = tool
    if spec is None and _MCP_SERVER.fullmatch(tool):
        pattern = f"{tool}__*"
    elif any(c in tool for c in "*?[") and not (
            _MCP_GLOB.fullmatch(tool) or (kind == "deny" and tool == "mcp__*")):
        front.warnings.append((line, f"{entry!r}: Claude Code reads this as an exact tool name "
                                     "(wildcards work only as mcp__<server>__*), which no tool "
                                     "has; ignored"))
        return None
    return Rule(kind=kind, pattern=pattern, spec=spec, agent=agent, file=front.located.file,
                line=line)


def _unescape(content: str) -> str:
    """``unescapeRuleContent``: ``\\(`` and ``\\)`` are parentheses, ``\\\\`` a backslash."""
    return content.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\")


def _add(defs: Definitions, agent: AgentDefinition) -> None:
    """Add an agent; a second one of the same name is a warning, not an error: Claude Code
    loads one of them ("chosen by filesystem read order"), toolkit the first in path order."""
    first = defs.agents.get(agent.name)
    if first is None or first.format != "claude-code":
        defs.add_agent(agent)  # a clash with another format's agent stays an error
        return
    defs.warn(agent.file, agent.line, f"a second subagent named {agent.name!r} (the first is "
                                      f"{first.file}:{first.line}); Claude Code loads only "
                                      "one of them, toolkit the first")


# -- the project as a whole ---------------------------------------------------------------------

def enclosing_layout(path: str | os.PathLike[str], *, collections: bool = True
                     ) -> tuple[str, str] | None:
    """("claude-code", why) when the layout of ``path`` (a folder or a file) shows Claude Code
    beyond a ``.claude/`` or ``.claude-plugin/`` folder of its own: it lies inside a
    ``.claude/`` folder or a plugin (a folder holding ``.claude-plugin/plugin.json``), so a
    folder of agent files given explicitly (``tk.load("repo/.claude/agents")``) is Claude
    Code's; or it holds plugins (``plugins/<name>/.claude-plugin/plugin.json``)."""
    target = Path(os.path.normpath(Path(path).absolute()))
    for folder in target.parents:
        if folder.name == ".claude":
            return "claude-code", f"the project is inside {folder} (the claude-code layout)"
        if (folder / ".claude-plugin" / "plugin.json").is_file():
            return "claude-code", f"the project is inside the plugin {folder} (the claude-code " \
                                  "layout)"
    if target.is_dir():
        plugin = next(target.glob("plugins/*/.claude-plugin/plugin.json"), None)
        if plugin is not None:
            shown = plugin.relative_to(target).as_posix()
            return "claude-code", f"the project folder holds {shown} (the claude-code layout)"
        found = _collections.collection(target) if collections else None
        return ("claude-code", found.reason) if found is not None else None
    if collections and target.suffix == ".md" and target.is_file():
        try:
            text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        evidence = _collections.subagent_evidence(text)
        if evidence:
            return "claude-code", (f"the file is a Claude Code subagent by its content (name, "
                                   f"description and {', '.join(evidence)}), read as Claude "
                                   "Code reads .claude/agents/ files (the claude-code layout)")
    return None


def add_builtins(defs: Definitions) -> None:
    """Claude Code's built-in tools (:mod:`toolkit.systems.claude_code.tools`) join the pool of a
    Claude Code project, with ``Task`` and the other legacy names as aliases; a tool the
    project declares itself keeps its declaration. Its built-in subagents
    (:mod:`.builtin_agents`) answer by name (``proj.agent("Explore")``, ``check_call(...,
    agent="general-purpose")``, replay) unless the project defines one of that name."""
    declared = dict(defs.tools)
    named = {r.pattern for r in defs.aliases}
    for tool in pool_tools(declared):
        defs.tools[tool.name] = tool
    defs.aliases.extend(r for r in alias_rules(declared) if r.pattern not in named)
    if not isinstance(defs.agents, WithBuiltinAgents):
        defs.agents = WithBuiltinAgents(defs.agents)
    _collections.report_unread(defs)
