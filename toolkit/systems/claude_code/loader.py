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
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

from ...core.models import AgentDefinition, Rule
from ...errors import DefinitionError
from ..base.definitions import Definitions
from ..base.frontmatter import ALLOW_KEYS, ASK_KEYS, DENY_KEYS, parse_guidelines
from ..base.source import Located, SourceFile, parse_yaml
from .tools import alias_rules, pool_tools

__all__ = ["FRONT_MATTER", "FrontMatter", "Place", "add_builtins", "agent_place",
           "enclosing_layout", "ignore", "is_agent_file", "is_project_markdown", "load",
           "parse_tool_entry", "quote_problematic_values", "read_front_matter",
           "split_tool_list"]

#: ``FRONTMATTER_REGEX`` of Claude Code: ``---`` at the very start, up to the first ``---``.
FRONT_MATTER = re.compile(r"---\s*\n([\s\S]*?)---\s*\n?")
#: ``YAML_SPECIAL_CHARS``: a value with one of these is quoted on the retry.
_SPECIAL = re.compile(r"[{}[\]*&#!|>%@`]|: ")
#: A top-level ``key: value`` line (JavaScript's ``.`` stops at line terminators).
_SIMPLE_LINE = re.compile(r"([a-zA-Z_-]+):\s+([^\n\r\u2028\u2029]+)")
#: Fields plugin agents may not set ("ignored for plugin agents", loadPluginAgents.ts).
_PLUGIN_IGNORED = ("permissionMode", "hooks", "mcpServers")
#: The documented tool-name patterns Claude Code expands in ``tools`` / ``disallowedTools``.
_MCP_SERVER = re.compile(r"mcp__([^_*?\[]|_(?!_))+")
_MCP_GLOB = re.compile(r"mcp__(?:[^_*?\[]|_(?!_))+__.*")


@dataclass(frozen=True)
class Place:
    """Where Claude Code finds an agent file: ``.claude/agents`` or a plugin."""

    kind: Literal["project", "plugin"]
    plugin: str | None = None
    namespace: tuple[str, ...] = ()
    #: why the plugin's ``plugin.json`` could not be read (its agents load by default)
    problem: tuple[str, str] | None = None


@dataclass
class FrontMatter:
    """A file's front matter as Claude Code reads it."""

    data: dict[Any, Any]
    located: Located
    body: str
    body_line: int
    present: bool  # the file starts with a front-matter block
    error: DefinitionError | None = None  # still unparseable after the retry
    retried: bool = False  # parsed only after quoting problematic values
    warnings: list[tuple[int | None, str]] = field(default_factory=list)


# -- which files --------------------------------------------------------------------------------

def agent_place(file: SourceFile) -> Place | None:
    """Whether Claude Code reads ``file`` as a subagent, and from where."""
    if file.suffix != ".md":
        return None
    path = Path(os.path.normpath(file.path.absolute()))
    parts = path.parts
    if any(a == ".claude" and b == "agents" for a, b in pairwise(parts[:-1])):
        return Place("project")
    return _plugin_place(path, _project_root(file))


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
    that is, not at all."""


# -- reading ------------------------------------------------------------------------------------

def quote_problematic_values(text: str) -> str:
    """Claude Code's retry (``quoteProblematicValues``): double-quote the value of every
    top-level ``key: value`` line holding a YAML special character, unless it is quoted.

    >>> quote_problematic_values("description: Use when: asked\\ntools: Read")
    'description: "Use when: asked"\\ntools: Read'
    """
    out = []
    for line in text.split("\n"):
        m = _SIMPLE_LINE.fullmatch(line)
        if m is not None:
            key, value = m.group(1), m.group(2)
            quoted = (value.startswith('"') and value.endswith('"')) or (
                value.startswith("'") and value.endswith("'"))
            if not quoted and _SPECIAL.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
        out.append(line)
    return "\n".join(out)


def read_front_matter(text: str, file: str) -> FrontMatter:
    """The front matter of a markdown file as Claude Code's ``parseFrontmatter`` reads it:
    parsed, else parsed after :func:`quote_problematic_values`, else none (``error`` set).
    A value that is not a mapping reads as an empty one."""
    m = FRONT_MATTER.match(text)
    if m is None:
        return FrontMatter({}, Located({}, file), text, 1, present=False)
    first = text.count("\n", 0, m.start(1)) + 1
    body, body_line = text[m.end():], text.count("\n", 0, m.end()) + 1
    retried = False
    try:
        located = parse_yaml(m.group(1), file, first_line=first)
    except DefinitionError:
        retried = True
        try:
            located = parse_yaml(quote_problematic_values(m.group(1)), file, first_line=first)
        except DefinitionError as exc:
            return FrontMatter({}, Located({}, file), body, body_line, True, error=exc)
    data = located.data if isinstance(located.data, dict) else {}
    front = FrontMatter(data, located, body, body_line, True, retried=retried)
    if not retried:
        _comment_warnings(front, m.group(1))
    return front


def _comment_warnings(front: FrontMatter, text: str) -> None:
    """An unquoted ``name:`` / ``description:`` with `` #`` parses (YAML reads the rest of the
    line as a comment), so Claude Code keeps only what comes before it: say so."""
    for line in text.split("\n"):
        m = _SIMPLE_LINE.fullmatch(line)
        if m is None or m.group(1) not in ("name", "description"):
            continue
        value = m.group(2)
        if value[0] in "\"'" or not (value.startswith("#") or " #" in value):
            continue
        front.warnings.append((front.located.line((m.group(1),)), (
            f"{m.group(1)} is cut at '#': YAML reads the rest of the line as a comment, and "
            f"so does Claude Code (it reads {front.data.get(m.group(1))!r}); quote the value "
            "to keep it whole")))


def split_tool_list(value: str) -> list[str]:
    """``parseToolListFromCLI``: split at commas and spaces outside parentheses.

    >>> split_tool_list("Read Grep, Bash(npm test:*), Agent(worker, researcher)")
    ['Read', 'Grep', 'Bash(npm test:*)', 'Agent(worker, researcher)']
    """
    out: list[str] = []
    current, in_parens = "", False
    for char in value:
        if char in "()":
            in_parens = char == "("
        elif char in ", " and not in_parens:
            if current.strip():
                out.append(current.strip())
            current = ""
            continue
        current += char
    if current.strip():
        out.append(current.strip())
    return out


def parse_tool_entry(entry: str) -> tuple[str, str | None]:
    """``permissionRuleValueFromString``: ``Tool(content)`` -> (``Tool``, ``content`` as
    written); a bare or malformed entry is all tool name.

    >>> parse_tool_entry("Bash(npm test:*)"), parse_tool_entry("Read"), parse_tool_entry("x(")
    (('Bash', 'npm test:*'), ('Read', None), ('x(', None))
    """
    opening = _unescaped(entry, "(", reverse=False)
    closing = _unescaped(entry, ")", reverse=True)
    if opening < 0 or closing <= opening or closing != len(entry) - 1 or opening == 0:
        return entry, None
    return entry[:opening], entry[opening + 1:closing]


def _unescaped(text: str, char: str, *, reverse: bool) -> int:
    """The first (or last) ``char`` not escaped by an odd run of backslashes; -1 if none."""
    order = range(len(text) - 1, -1, -1) if reverse else range(len(text))
    for i in order:
        if text[i] == char:
            run = len(text[:i]) - len(text[:i].rstrip("\\"))
            if run % 2 == 0:
                return i
    return -1


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
             else _project_agent(front, defs, alone=alone))
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


def _project_agent(front: FrontMatter, defs: Definitions | None, *, alone: bool
                   ) -> AgentDefinition | None:
    """``parseAgentFromMarkdown``: what ``.claude/agents`` accepts, else why it is skipped."""
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
        if (front.present and data) or alone:
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
              "in frontmatter\" (a string saying when to use it)")
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

def enclosing_layout(path: str | os.PathLike[str]) -> tuple[str, str] | None:
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
    return None


def add_builtins(defs: Definitions) -> None:
    """Claude Code's built-in tools (:mod:`toolkit.systems.claude_code.tools`) join the pool of a
    Claude Code project, with ``Task`` and the other legacy names as aliases; a tool the
    project declares itself keeps its declaration."""
    declared = dict(defs.tools)
    named = {r.pattern for r in defs.aliases}
    for tool in pool_tools(declared):
        defs.tools[tool.name] = tool
    defs.aliases.extend(r for r in alias_rules(declared) if r.pattern not in named)
