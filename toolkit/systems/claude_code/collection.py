"""Claude Code subagent files recognised by their content, wherever they lie.

The most used subagent collections (contains-studio/agents, lst97/claude-code-sub-agents,
davila7/claude-code-templates ``cli-tool/components/agents``, vanzan01's
``templates/agents``) are folders of Claude Code subagent files meant to be copied into
``.claude/agents/``. Such a folder, loaded as cloned, is read the way Claude Code reads
those files once copied: :func:`collection` says whether a folder is one, and why.

A file *looks like* a Claude Code subagent (:func:`subagent_evidence`) when its front
matter (read as Claude Code reads it, with its quoting retry) has a ``name`` and a
``description`` and shows Claude Code by at least one of: a ``tools`` /
``disallowedTools`` entry naming one of Claude Code's tools (built-in, legacy or
``mcp__...``), ``model:`` one of Claude Code's model aliases (``sonnet``, ``opus``,
``haiku``, ``inherit``) or a ``claude-`` model id, or a field only Claude Code's subagent
files have (``color``, ``permissionMode``, ``maxTurns``, ...; sub-agents documentation,
"Supported frontmatter fields").

A folder is a collection when at least one of its markdown files looks like a Claude Code
subagent and at least half of those with a ``name`` do. In a Claude Code project, files
that look like subagents but lie where Claude Code does not read them are counted
(:func:`note_unread`) and reported in one warning (:func:`report_unread`).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.definitions import Definitions
from .front import FRONT_MATTER, parse_tool_entry, read_front_matter, split_tool_list
from .tools import LEGACY_NAMES, TOOLS

__all__ = ["Collection", "collection", "note_unread", "report_unread", "subagent_evidence"]

#: Claude Code's model aliases (sub-agents documentation, ``model`` field).
MODEL_ALIASES = frozenset({"sonnet", "opus", "haiku", "inherit", "opusplan", "default"})
#: Front-matter fields only Claude Code subagent files have (sub-agents documentation,
#: "Supported frontmatter fields"; ``color`` is what ``/agents`` writes).
OWN_FIELDS = ("color", "permissionMode", "disallowedTools", "maxTurns", "skills", "memory",
              "isolation", "background", "effort", "initialPrompt")
#: Tool names a subagent file may carry: the current built-ins, their legacy names and
#: names Claude Code had in earlier versions (``LS``, ``MultiEdit``, ...).
TOOL_NAMES = frozenset({*TOOLS, *LEGACY_NAMES, "LS", "MultiEdit", "NotebookRead", "BashOutput",
                        "TodoRead", "exit_plan_mode"})
#: Folders whose markdown Claude Code reads as something else (commands, skills, rules).
_OTHER_KINDS = frozenset({"commands", "skills", "rules", "output-styles", "hooks"})
_SKIP_DIRS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist"})
#: At most this many markdown files are examined to tell whether a folder is a collection.
_MAX_FILES = 5000
_HEAD = 16384  # the front matter is at the top of the file


@dataclass(frozen=True)
class Collection:
    """A folder of Claude Code subagent files that is not a ``.claude/agents`` folder."""

    root: Path
    #: markdown files whose front matter has a ``name``
    named: int
    #: of those, files that look like Claude Code subagents
    matching: int
    #: one of them, relative to the root (shown in the reason)
    example: str
    #: the evidence most files show (``tools``, ``model``, ``color``, ...)
    evidence: tuple[str, ...]

    @property
    def reason(self) -> str:
        """Why the folder is read the Claude Code way (``proj.preset_reason``)."""
        shown = ", ".join(self.evidence)
        return (f"the folder's markdown files are Claude Code subagents by their content "
                f"({self.matching} of {self.named} files with a name: name, description and "
                f"{shown}; e.g. {self.example}), read as Claude Code reads them in "
                ".claude/agents/ (the claude-code layout)")


def subagent_evidence(text: str) -> tuple[str, ...]:
    """What in ``text``'s front matter shows a Claude Code subagent: field names such as
    ``tools``, ``model``, ``color``; empty when it does not look like one.

    >>> subagent_evidence("---\\nname: a\\ndescription: b\\ntools: Read, Grep\\n---\\n")
    ('tools',)
    >>> subagent_evidence("---\\nname: a\\ndescription: b\\nmodel: gemini-pro\\n---\\n")
    ()
    """
    if not text.startswith("---"):
        return ()
    front = read_front_matter(text, "<collection>")
    data = front.data
    if front.error is not None:  # Claude Code skips it, but it was meant as a subagent
        data = _top_level_lines(text)
    if not _text(data.get("name")) or not _text(data.get("description")):
        return ()
    found = []
    if any(_names_tool(data.get(key)) for key in ("tools", "disallowedTools")):
        found.append("tools")
    model = data.get("model")
    if isinstance(model, str) and (model.strip().lower() in MODEL_ALIASES
                                   or model.strip().lower().startswith("claude-")):
        found.append("model")
    found.extend(key for key in OWN_FIELDS if key in data and key != "disallowedTools")
    return tuple(found)


def _top_level_lines(text: str) -> dict[str, str]:
    """The first value of each top-level ``key: value`` line of front matter that does not
    parse (what its author meant, for telling a subagent file when YAML cannot)."""
    found = FRONT_MATTER.match(text)
    out: dict[str, str] = {}
    for line in (found.group(1) if found else "").split("\n"):
        key, sep, value = line.partition(":")
        if sep and key and not key[0].isspace() and key.replace("-", "").replace("_", "") \
                .isalnum() and value.strip():
            out.setdefault(key, value.strip())
    return out


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _names_tool(value: Any) -> bool:
    """Whether a ``tools`` value names one of Claude Code's tools."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    for item in items:
        if not isinstance(item, str):
            continue
        for entry in split_tool_list(item):
            tool = parse_tool_entry(entry)[0]
            if tool in TOOL_NAMES or tool.startswith("mcp__"):
                return True
    return False


def _markdown(root: Path) -> list[Path]:
    """The markdown files under ``root`` Claude Code could read, in a stable order."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")
                             and not _own_project(Path(dirpath) / d))
        found.extend(Path(dirpath) / n for n in sorted(filenames) if n.endswith(".md"))
        if len(found) >= _MAX_FILES:
            break
    return found[:_MAX_FILES]


def _own_project(folder: Path) -> bool:
    """A Claude Code project or plugin of its own inside the folder: its files are read as
    its layout says, and say nothing about the folder around it."""
    return (folder / ".claude").is_dir() or (folder / ".claude-plugin").is_dir()


def _head(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(_HEAD)
    except OSError:
        return ""


_cache: dict[tuple[str, tuple[int, ...]], Collection | None] = {}


def collection(root: str | os.PathLike[str]) -> Collection | None:
    """The folder ``root`` as a collection of Claude Code subagent files, or None.

    Remembered per folder until a folder under it changes (a file added, removed or renamed).
    """
    folder = Path(os.path.normpath(Path(root).absolute()))
    if not folder.is_dir():
        return None
    stamps = _stamps(folder)
    key = (str(folder), stamps)
    if key not in _cache:
        if len(_cache) > 64:
            _cache.clear()
        _cache[key] = _examine(folder)
    return _cache[key]


def _stamps(folder: Path) -> tuple[int, ...]:
    """The modification times of the folder and its sub-folders (what adding a file moves)."""
    out = []
    for dirpath, dirnames, _ in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        try:
            out.append(os.stat(dirpath).st_mtime_ns)
        except OSError:
            out.append(0)
        if len(out) > 2000:
            break
    return tuple(out)


def _examine(folder: Path) -> Collection | None:
    named = matching = 0
    example = ""
    evidence: Counter[str] = Counter()
    for path in _markdown(folder):
        head = _head(path)
        if not head.startswith("---") or "name" not in head:
            continue
        found = subagent_evidence(head if "\n---" in head[3:] else "")
        if not found:
            front = read_front_matter(head, "<collection>")
            data = front.data if front.error is None else _top_level_lines(head)
            if _text(data.get("name")):
                named += 1
            continue
        named += 1
        matching += 1
        evidence.update(found)
        example = example or path.relative_to(folder).as_posix()
    if matching == 0 or matching * 2 < named:
        return None
    shown = tuple(k for k, _ in evidence.most_common(3))
    return Collection(folder, named, matching, example, shown)


# -- files Claude Code does not read ------------------------------------------------------------

#: Definitions -> the subagent-like files met where Claude Code does not read them.
_UNREAD = "claude-code:unread-subagents"


def note_unread(place: str, text: str, defs: Definitions) -> None:
    """Remember a markdown file of a Claude Code project that Claude Code does not read as a
    subagent although it looks like one (not under ``commands/``, ``skills/``, ...)."""
    parts = place.split("/")
    if any(p in _OTHER_KINDS for p in parts[:-1]) or parts[-1] == "SKILL.md":
        return
    if ".claude" in parts[:-1]:
        return  # Claude Code's own folders (output styles, ...): not subagents
    if not subagent_evidence(text):
        return
    defs.notes.setdefault(_UNREAD, []).append(place)


def report_unread(defs: Definitions) -> None:
    """One warning for every subagent-like file Claude Code does not read: how many, where."""
    places = defs.notes.pop(_UNREAD, None)
    if not places:
        return
    folders = Counter(p.rsplit("/", 1)[0] + "/" if "/" in p else "./" for p in places)
    where = ", ".join(f"{folder} ({n})" for folder, n in folders.most_common())
    count = len(places)
    files = "file looks" if count == 1 else "files look"
    defs.warn(places[0], 1, f"{count} markdown {files} like Claude Code subagents (name, "
                            f"description, Claude Code's tools or fields) in {where}, where "
                            "Claude Code does not read them: Claude Code reads subagents only "
                            "from .claude/agents/ and a plugin's agents/ folder; move them "
                            "there to use them")
