"""How Claude Code reads a subagent file's front matter (``frontmatterParser.ts``) and its
tool lists (``parseToolListFromCLI``, ``permissionRuleValueFromString``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import DefinitionError
from ..base.source import Located, parse_yaml

__all__ = ["FRONT_MATTER", "FrontMatter", "parse_tool_entry", "quote_problematic_values",
           "read_front_matter", "split_tool_list"]

#: ``FRONTMATTER_REGEX`` of Claude Code: ``---`` at the very start, up to the first ``---``.
FRONT_MATTER = re.compile(r"---\s*\n([\s\S]*?)---\s*\n?")
#: ``YAML_SPECIAL_CHARS``: a value with one of these is quoted on the retry.
_SPECIAL = re.compile(r"[{}[\]*&#!|>%@`]|: ")
#: A top-level ``key: value`` line (JavaScript's ``.`` stops at line terminators).
_SIMPLE_LINE = re.compile(r"([a-zA-Z_-]+):\s+([^\n\r\u2028\u2029]+)")

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
