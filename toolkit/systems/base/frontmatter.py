"""Markdown agent files with YAML front matter: adh-cli ``agent.md``, Claude Code
``.claude/agents/*.md`` and Emergent-style whitelists share one field set.

``tools`` (allow) and ``disallowedTools`` (deny) each take a list or a
comma-separated string; every spelling below is accepted whatever the file's origin.
"""

from __future__ import annotations

import re
from typing import Any

from ...core.models import AgentDefinition, Rule
from ...errors import DefinitionError
from .definitions import Definitions, alias_rules, check_rule_names, first_key, name_list, rules
from .source import Located, SourceFile, parse_yaml

ALLOW_KEYS = ("tools", "allowed_tools", "allowedTools", "AllowedTools")
DENY_KEYS = ("disallowedTools", "disallowed_tools", "denied_tools", "deniedTools", "DeniedTools")
ASK_KEYS = ("ask", "askTools", "ask_tools", "approval_required", "approvalRequired")
DEPTH_KEYS = ("max_depth", "maxDepth")

_FENCE = re.compile(r"^---[ \t]*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BOLD = re.compile(r"\*\*`?([^*`]+?)`?\*\*")


def has_front_matter(text: str) -> bool:
    """Whether the text starts with a ``---`` fence."""
    first = text.split("\n", 1)[0].rstrip("\r")
    return bool(_FENCE.match(first))


def split_front_matter(text: str, file: str) -> tuple[str, str, int]:
    """(front matter, body, line where the body starts)."""
    lines = text.split("\n")
    for i in range(1, len(lines)):
        if _FENCE.match(lines[i].rstrip("\r")):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:]), i + 2
    raise DefinitionError("front matter opened with '---' on line 1 is never closed; "
                          "add a closing '---' line", file=file, line=1)


def format_of(file: str) -> str:
    """adh-cli for ``agent.md``, claude-code under ``.claude/agents``, else markdown."""
    norm = file.replace("\\", "/")
    if "/.claude/agents/" in f"/{norm}":
        return "claude-code"
    if norm.endswith("/agent.md") or norm == "agent.md":
        return "adh-cli"
    return "markdown"


#: A top-level front-matter key only an agent definition has (documentation pages have
#: ``title``, ``layout``, ``sidebar_position``... but no name or tool list).
_AGENT_KEY = re.compile(r"^(name|tools|disallowedTools|disallowed_tools|allowed_tools|"
                        r"allowedTools|model)\s*:", re.MULTILINE)


def is_agent_file(file: SourceFile) -> bool:
    """An adh-cli ``agent.md`` (an agent with or without front matter), or a markdown file
    with front matter that is given on its own, lies in an ``agents/`` folder, or names
    an agent's fields; a docs page's front matter (title, layout, ...) is not an agent."""
    if file.name == "agent.md":
        return True
    if not has_front_matter(file.text):
        return False
    folders = file.place.split("/")[:-1]
    if file.place.startswith("/") or "agents" in folders:  # alone, or in an agents folder
        return True
    head = file.text.split("\n---", 1)[0]
    return _AGENT_KEY.search(head) is not None


def load(file: SourceFile, defs: Definitions) -> None:
    """Read one front-matter agent file into ``defs``."""
    if not has_front_matter(file.text):
        defs.add_agent(plain_agent(file))
        return
    _read(file.text, file.display, defs, file.agent_name)


def plain_agent(file: SourceFile) -> AgentDefinition:
    """An adh-cli ``agent.md`` without front matter, as adh-cli's ``AgentLoader`` reads it
    (``adh_cli/agents/agent_loader.py``): named after its folder, no description, no tools.
    The whole file is its prompt."""
    body = file.text
    guidelines, guideline_lines = parse_guidelines(body, 1)
    return AgentDefinition(name=file.agent_name, format=format_of(file.display),
                           file=file.display, line=1, allow=(), system_prompt=body.strip(),
                           guidelines=guidelines, guideline_lines=guideline_lines)


def _read(text: str, file: str, defs: Definitions, default_name: str) -> None:
    yaml_text, body, body_line = split_front_matter(text, file)
    src = parse_yaml(yaml_text, file, first_line=2)
    if src.data is None:
        src.data = {}
    if not isinstance(src.data, dict):
        raise DefinitionError("front matter must be a YAML mapping (key: value lines), not "
                              f"{type(src.data).__name__}", file=file, line=2)
    defs.add_agent(parse_agent(src, src.data, (), default_name, format_of(file), body, body_line))


def read_agent(text: str, file: str = "<cell>") -> AgentDefinition:
    """One agent from the text of a markdown agent file (front matter, then its prompt)."""
    if not has_front_matter(text):
        raise DefinitionError("an agent definition must start with YAML front matter ('---' on "
                              "line 1, then name: and tools: lines, then '---')", file=file, line=1)
    defs = Definitions(root=file)
    _read(text, file, defs, default_name="")
    defs.raise_errors()
    return next(iter(defs.agents.values()))


def parse_agent(src: Located, data: dict[str, Any], base: tuple[Any, ...], default_name: str,
                fmt: str, body: str = "", body_line: int = 1) -> AgentDefinition:
    """An agent definition from the shared front-matter field set."""
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise src.error((*base, "name"), f"name must be a non-empty string, not {name!r}")
    name = name.strip()
    for key in ("description", "model"):
        if key in data and data[key] is not None and not isinstance(data[key], str):
            raise src.error((*base, key), f"{key} must be a string, not "
                                           f"{type(data[key]).__name__}")

    allow_key, allow_value = first_key(data, *ALLOW_KEYS)
    allow: tuple[Rule, ...] | None = None
    descriptions: dict[str, str] = {}
    if allow_key is not None and allow_value is not None:
        entries = _tool_entries(src, (*base, allow_key), allow_value, descriptions)
        allow = rules("allow", name, src, entries)
    deny_key, deny_value = first_key(data, *DENY_KEYS)
    deny = rules("deny", name, src, name_list(src, (*base, str(deny_key)), deny_value,
                                              str(deny_key))) if deny_key else ()
    ask_key, ask_value = first_key(data, *ASK_KEYS)
    ask = rules("ask", name, src, name_list(src, (*base, str(ask_key)), ask_value,
                                            str(ask_key))) if ask_key else ()
    for written, rule_set in ((allow_key, allow or ()), (deny_key, deny), (ask_key, ask)):
        check_rule_names(src, str(written), rule_set)

    depth_key, depth = first_key(data, *DEPTH_KEYS)
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 0):
        raise src.error((*base, str(depth_key)), f"{depth_key} must be a whole number >= 0, "
                                                  f"not {depth!r}")
    variables = data.get("variables") or []
    if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables):
        raise src.error((*base, "variables"), "variables must be a list of names")

    known = set(ALLOW_KEYS + DENY_KEYS + ASK_KEYS + DEPTH_KEYS) | {
        "name", "description", "model", "variables", "aliases"}
    guidelines, guideline_lines = parse_guidelines(body, body_line)
    return AgentDefinition(
        name=name,
        description=(data.get("description") or "").strip(),
        model=data.get("model"),
        format=fmt,
        file=src.file,
        line=src.line((*base, "name")) if "name" in data else src.line(base),
        allow=allow,
        allow_line=src.line((*base, allow_key)) if allow_key else None,
        deny=deny,
        ask=ask,
        aliases=alias_rules(name, src, (*base, "aliases"), data.get("aliases")),
        descriptions=descriptions,
        system_prompt=body.strip(),
        guidelines=guidelines,
        guideline_lines=guideline_lines,
        max_depth=depth,
        variables=tuple(variables),
        metadata={k: v for k, v in data.items() if k not in known},
    )


def _tool_entries(src: Located, path: tuple[Any, ...], value: Any,
                  descriptions: dict[str, str]) -> list[tuple[str, int | None]]:
    """Names from ``tools:``; ``{name, description}`` items override the description."""
    if isinstance(value, list):
        plain: list[Any] = []
        for i, item in enumerate(value):
            if isinstance(item, dict):
                extra = [k for k in item if k not in ("name", "description")]
                if extra:
                    raise src.error((*path, i, extra[0]), f"tools[{i}] has unknown keys "
                                                           f"{sorted(map(str, extra))}; a tool "
                                                           "entry takes only 'name' and "
                                                           "'description'")
                tname, desc = item.get("name"), item.get("description")
                if not isinstance(tname, str) or not tname.strip():
                    raise src.error((*path, i), f"tools[{i}] needs a 'name' string")
                if desc is not None and not isinstance(desc, str):
                    raise src.error((*path, i, "description"),
                                    f"tools[{i}].description must be a string")
                if desc:
                    descriptions[tname.strip()] = desc.strip()
                plain.append(tname)
            else:
                plain.append(item)
        entries = name_list(src, path, plain, "tools")
        return entries
    return name_list(src, path, value, "tools")


def parse_guidelines(body: str, body_line: int) -> tuple[dict[str, str], dict[str, int]]:
    """Per-tool text of the body's "Tool Usage Guidelines" section (ADR 021 option C).

    Each paragraph that starts with ``**tool**`` (or ``**a** and **b**``) is
    the guideline of the tools named in bold before its first colon.
    """
    lines = body.split("\n")
    section = _guidelines_section(lines)
    if section is None:
        return {}, {}
    start, end = section
    guidelines: dict[str, str] = {}
    where: dict[str, int] = {}
    current: list[str] = []
    buffer: list[str] = []
    for i in range(start, end):
        names = _bold_names(lines[i])
        if names:
            _keep(guidelines, current, buffer)
            current, buffer = names, [lines[i]]
            for n in names:
                where.setdefault(n, body_line + i)
        elif current:
            buffer.append(lines[i])
    _keep(guidelines, current, buffer)
    return guidelines, where


def _guidelines_section(lines: list[str]) -> tuple[int, int] | None:
    """The lines under the "Tool Usage Guidelines" heading, up to the next heading of its level."""
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m and m.group(2).strip().lower() == "tool usage guidelines":
            level = len(m.group(1))
            end = next((j for j in range(i + 1, len(lines))
                        if (h := _HEADING.match(lines[j])) and len(h.group(1)) <= level),
                       len(lines))
            return i + 1, end
    return None


def _bold_names(line: str) -> list[str]:
    """The tools a guideline paragraph names in bold before its first colon."""
    if not line.startswith("**"):
        return []
    return [n.strip() for n in _BOLD.findall(line.split(":", 1)[0])]


def _keep(guidelines: dict[str, str], tools: list[str], paragraph: list[str]) -> None:
    text = "\n".join(paragraph).strip()
    for tool in tools:
        guidelines[tool] = text
