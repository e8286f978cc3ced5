"""Claude Code transcripts: the calls a session and its subagents made, with their outcome.

``~/.claude/projects/<project>/<session>.jsonl``: a call is a ``tool_use`` block (``id``,
``name``, ``input``) of an ``assistant`` line; its result is the ``tool_result`` block
with the same ``tool_use_id`` in a later ``user`` line (``is_error`` for failures; a
permission denial's text starts "Permission to use", or says the user "doesn't want to
proceed", or "haven't granted it yet"). Subagents write
``<session>/subagents/agent-<id>.jsonl`` (every line ``isSidechain: true`` with an
``agentId``); older versions wrote sidechain lines into the session file. A subagent's
calls are attributed to its type: the ``subagent_type`` of the Agent (or Task) call
whose result names its ``agentId``, else its ``agent-<id>.meta.json`` ``agentType``,
else ``agent-<id>``. Claude Code 1.x wrote a subagent's lines into the session file with
``isSidechain: true`` and no ``agentId``: its first line (``parentUuid`` null) is the
prompt of the Task call that launched it, so its calls are attributed to that call's
``subagent_type`` (following ``parentUuid`` back to that line), else to ``sidechain``.
Only ``type``, ``message.content[].type``, ``tool_use_id``,
``is_error``, ``isSidechain`` and ``agentId`` are relied on; other fields vary by
Claude Code version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.calllog import CallLog

__all__ = ["TranscriptReader"]

# How a permission denial reads in a Claude Code tool_result (SPEC section 12).
_DENIAL_PREFIXES = ("Permission to use",)
_DENIAL_PHRASES = ("doesn't want to proceed", "haven't granted it yet")
# The trailer of an Agent (Task) tool's result: "agentId: a1b2c3d (...)".
_AGENT_ID = re.compile(r"\bagentId:\s*([A-Za-z0-9_@.-]+)")
_CLAUDE_TYPES = frozenset({"user", "assistant", "system", "summary", "queue-operation",
                           "file-history-snapshot"})
_LAUNCHERS = frozenset({"Agent", "Task"})
@dataclass
class _ClaudeCall:
    time: Any
    session: str
    agent_id: str | None  # None: the main conversation; "" a sidechain without an id
    tool: str
    args: dict[str, Any]
    tool_use_id: str | None
    source: str
    cwd: str | None = None
    uuid: str | None = None  # the line's, to follow an inline sidechain to its start


class TranscriptReader:
    """Claude Code transcripts: calls are matched with results and subagents after all
    files are read (a subagent's file and its launching call are in different files)."""

    def __init__(self, log: CallLog) -> None:
        self.log = log
        self.calls: list[_ClaudeCall] = []
        self.seen: set[str] = set()  # tool_use ids (a message may be written twice)
        self.results: dict[str, str] = {}  # tool_use_id -> observed
        self.launches: dict[str, str] = {}  # Agent tool_use_id -> subagent_type
        self.agent_types: dict[str, str] = {}  # agentId -> subagent type
        self.meta_types: dict[str, str] = {}  # agentId -> agentType of its .meta.json
        self.file_agent: str | None = None
        self.file_stem = ""
        # Claude Code 1.x writes a subagent's lines into the session file (``isSidechain``,
        # no ``agentId``): each line's parent, and the prompt a sidechain starts with, lead
        # back to the Task call whose ``prompt`` it is
        self.parents: dict[str, str | None] = {}  # sidechain line uuid -> parentUuid
        self.starts: dict[str, str] = {}  # first sidechain line's uuid -> its prompt
        self.prompts: dict[str, str] = {}  # a launch's prompt -> subagent_type

    @staticmethod
    def claims(data: Mapping[str, Any]) -> bool:
        """A Claude Code transcript line: a ``type`` of its own and no ``tool`` key."""
        return data.get("type") in _CLAUDE_TYPES and "tool" not in data

    def file(self, path: Path, display: str) -> None:
        """Start reading ``path`` (a subagent's file names its agent id)."""
        self.file_stem = path.stem
        self.file_agent = None
        if path.parent.name == "subagents" and path.stem.startswith("agent-"):
            self.file_agent = path.stem.removeprefix("agent-")
            self._read_meta(path.with_name(path.stem + ".meta.json"), display)

    def _read_meta(self, meta: Path, display: str) -> None:
        if not meta.exists() or self.file_agent is None:
            return
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            self.log.problem(str(Path(display).with_name(meta.name)), None,
                             f"unreadable subagent metadata: {exc}")
            return
        kind = data.get("agentType") if isinstance(data, dict) else None
        if isinstance(kind, str) and kind:
            self.meta_types[self.file_agent] = kind

    def line(self, display: str, number: int, data: dict[str, Any]) -> None:
        """One transcript line: its tool_use blocks (assistant) or tool_result blocks (user)."""
        kind = data.get("type")
        if kind not in ("assistant", "user"):
            return
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if data.get("isSidechain") is True and self.file_agent is None:
            self._sidechain_line(data, kind, content)
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict):
                continue
            if kind == "assistant" and block.get("type") == "tool_use":
                self._tool_use(display, number, data, block)
            elif kind == "user" and block.get("type") == "tool_result":
                self._tool_result(data, block)

    def _sidechain_line(self, data: Mapping[str, Any], kind: str, content: Any) -> None:
        uuid, parent = data.get("uuid"), data.get("parentUuid")
        if not isinstance(uuid, str):
            return
        self.parents[uuid] = parent if isinstance(parent, str) else None
        if kind == "user" and parent is None:
            self.starts[uuid] = _text_of(content).strip()

    def _agent_of(self, data: Mapping[str, Any]) -> str | None:
        if self.file_agent is not None:
            return self.file_agent
        if data.get("isSidechain") is True:
            agent = data.get("agentId")
            return agent if isinstance(agent, str) else ""
        return None

    def _tool_use(self, display: str, number: int, data: Mapping[str, Any],
                  block: Mapping[str, Any]) -> None:
        name = block.get("name")
        if not isinstance(name, str) or not name:
            self.log.problem(display, number, "tool_use block without a name; call skipped")
            return
        use_id = block.get("id") if isinstance(block.get("id"), str) else None
        if use_id is not None:
            if use_id in self.seen:
                return
            self.seen.add(use_id)
        args = block.get("input")
        args = args if isinstance(args, dict) else {}
        if name in _LAUNCHERS and use_id is not None and isinstance(args.get("subagent_type"),
                                                                    str):
            self.launches[use_id] = args["subagent_type"]
            if isinstance(args.get("prompt"), str):
                self.prompts.setdefault(args["prompt"].strip(), args["subagent_type"])
        session = data.get("sessionId")
        session = session if isinstance(session, str) and session else self.file_stem
        cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else None
        uuid = data.get("uuid") if isinstance(data.get("uuid"), str) else None
        self.calls.append(_ClaudeCall(data.get("timestamp"), session, self._agent_of(data),
                                      name, args, use_id, f"{display}:{number}", cwd, uuid))

    def _tool_result(self, data: Mapping[str, Any], block: Mapping[str, Any]) -> None:
        use_id = block.get("tool_use_id")
        if not isinstance(use_id, str):
            return
        text = _text_of(block.get("content"))
        if block.get("is_error") is True:
            self.results[use_id] = "denied" if _is_denial(text) else "error"
        else:
            self.results.setdefault(use_id, "ran")
        if use_id in self.launches:
            found = _launched_agent(text, data.get("toolUseResult"))
            if found is not None:
                self.agent_types[found] = self.launches[use_id]

    def finish(self) -> None:
        """Attribute every call to its agent, with what happened to it, into the log."""
        for call in self.calls:
            agent_id = call.agent_id
            if agent_id is None:
                agent = None
                session = call.session
            elif agent_id == "":
                start = self._start_of(call.uuid)
                kind = self.prompts.get(self.starts.get(start, "")) if start else None
                agent = kind or "sidechain"
                session = (f"{call.session}/sidechain-{start}" if kind and start
                           else f"{call.session}/sidechain")
            else:
                agent = (self.agent_types.get(agent_id) or self.meta_types.get(agent_id)
                         or f"agent-{agent_id}")
                session = f"{call.session}/agent-{agent_id}"
            observed = self.results.get(call.tool_use_id) if call.tool_use_id else None
            self.log.add(time=call.time, session=session, agent=agent, tool=call.tool,
                         args=call.args, observed=observed, cwd=call.cwd, source=call.source)
        self.calls.clear()

    def _start_of(self, uuid: str | None) -> str | None:
        """The first line of the inline sidechain ``uuid`` belongs to (1.x transcripts)."""
        seen: set[str] = set()
        while uuid is not None and uuid in self.parents and uuid not in seen:
            seen.add(uuid)
            parent = self.parents[uuid]
            if parent is None or parent not in self.parents:
                return uuid if uuid in self.starts else None
            uuid = parent
        return None


def _text_of(content: Any) -> str:
    """A tool_result's text: a string, or the text blocks of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _is_denial(text: str) -> bool:
    stripped = text.lstrip()
    return stripped.startswith(_DENIAL_PREFIXES) or any(p in text for p in _DENIAL_PHRASES)


def _launched_agent(text: str, result: Any) -> str | None:
    """The agentId an Agent (Task) call's result names (its toolUseResult, or its text)."""
    if isinstance(result, dict) and isinstance(result.get("agentId"), str):
        return str(result["agentId"])
    found = _AGENT_ID.search(text)
    return found.group(1) if found else None


