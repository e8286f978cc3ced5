"""Gemini CLI session logs: the tool calls a session and its subagents made, with their outcome.

Where and how Gemini CLI writes them (``packages/core/src/services/chatRecordingService.ts``
and ``chatRecordingTypes.ts`` at 5411f11):

- ``~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl``: JSON Lines,
  appended to. The first line is the session's metadata (``sessionId``, ``projectHash``,
  ``startTime``, ``lastUpdated``, ``kind``); then each message record (``id``, ``timestamp``,
  ``type`` user / gemini / info / error / warning, ``content``; a ``gemini`` message holds
  ``toolCalls``) written again every time it changes (the last write of an ``id`` wins,
  in the place of its first: ``loadConversationRecord`` keeps a ``Map``); ``{"$set": {...}}``
  updates the metadata (with ``messages``: replaces them all); ``{"$rewindTo": id}`` drops
  that message and every later one.
- A subagent's session: ``chats/<parent sessionId>/<agentId>.jsonl`` (``kind: "subagent"``,
  ``sessionId`` = the agent id); the parent's call that ran it names the ``agentId`` and
  bears the subagent's name (``recordCompletedToolCalls`` in ``core/geminiChat.ts``).
- Before JSON Lines: ``session-*.json``, one pretty-printed ``ConversationRecord``
  (``parseLegacyRecordFallback``), read too.

A tool call record (``ToolCallRecord``): ``id``, ``name``, ``args``, ``status`` (success /
error / cancelled, ``CoreToolCallStatus``), ``timestamp``, ``result`` (the
``functionResponse`` parts), ``agentId``. Its outcome: ``success`` ran; ``error`` is a
denial when the policy denied it (``scheduler/policy.ts`` ``getPolicyDenialError``: "Tool
execution denied by policy.", or in a non-interactive run "... requires user confirmation,
which is not supported in non-interactive mode.") and an error otherwise; ``cancelled``
with "User denied execution." (``scheduler.ts``: the user said no) is a denial, any other
cancellation did not run and says no more (outcome unknown).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.calllog import CallLog

__all__ = ["TranscriptReader"]

_POLICY_DENIAL = "Tool execution denied by policy."
_NON_INTERACTIVE = "which is not supported in non-interactive mode"
_USER_DENIAL = "User denied execution."


@dataclass
class _Session:
    """One session file as Gemini CLI would load it: metadata and messages by id."""

    display: str
    path: Path
    meta: dict[str, Any] = field(default_factory=dict)
    messages: dict[str, tuple[int | None, dict[str, Any]]] = field(default_factory=dict)
    text: str | None = None  # a legacy .json file's text (to locate its tool calls)


class TranscriptReader:
    """Gemini CLI sessions: each file is replayed as ``loadConversationRecord`` loads it
    (rewinds and rewrites applied); subagents are named once every file was read."""

    #: legacy sessions: one JSON document each
    suffixes = (".json",)

    def __init__(self, log: CallLog) -> None:
        self.log = log
        self.sessions: list[_Session] = []
        self.current: _Session | None = None
        self.launched: dict[str, str] = {}  # agentId -> the subagent's name (its tool call)
        self.legacy: dict[Path, dict[str, Any]] = {}  # owned .json files, parsed

    # -- JSON Lines ------------------------------------------------------------------------

    @staticmethod
    def claims(data: Mapping[str, Any]) -> bool:
        """A Gemini CLI session: its first line is the metadata record (``sessionId`` and
        ``projectHash``, as ``isPartialMetadataRecord`` tells it)."""
        return isinstance(data.get("sessionId"), str) and isinstance(data.get("projectHash"), str)

    def file(self, path: Path, display: str) -> None:
        """Start reading ``path``."""
        self.current = _Session(display, path)
        self.sessions.append(self.current)

    def line(self, display: str, number: int, data: dict[str, Any]) -> None:
        """One record: metadata, a message, a ``$set`` or a ``$rewindTo``."""
        session = self.current
        if session is None:
            return
        if isinstance(data.get("$rewindTo"), str):
            _rewind(session.messages, data["$rewindTo"])
        elif isinstance(data.get("id"), str):
            session.messages[data["id"]] = (number, data)
        elif isinstance(data.get("$set"), dict):
            update = data["$set"]
            if isinstance(update.get("messages"), list):
                session.messages.clear()
            self._metadata(session, update, number)
        elif self.claims(data):
            self._metadata(session, data, number)
        else:
            self.log.problem(display, number, "not a Gemini CLI session record (no 'id', "
                                              "'$set', '$rewindTo' or session metadata); "
                                              "line skipped")

    # -- legacy .json sessions -------------------------------------------------------------

    def owns(self, path: Path) -> bool:
        """A legacy session: ``session-*.json`` holding a ``ConversationRecord``
        (``sessionId`` and a ``messages`` list)."""
        if path in self.legacy:
            return True
        if not path.name.startswith("session-"):
            return False
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False  # not ours to judge: read_calls says what it is not
        if not (isinstance(data, dict) and isinstance(data.get("sessionId"), str)
                and isinstance(data.get("messages"), list)):
            return False
        self.legacy[path] = data
        return True

    def read_file(self, path: Path, display: str) -> None:
        """A legacy session, read whole (its calls are located by their ``id`` in the text)."""
        if not self.owns(path):
            self.log.problem(display, None, "not a Gemini CLI session file; skipped")
            return
        data = self.legacy.pop(path)
        session = _Session(display, path, text=path.read_text(encoding="utf-8"))
        self._metadata(session, data, None)
        self.sessions.append(session)
        self.current = None

    def _metadata(self, session: _Session, record: Mapping[str, Any],
                  number: int | None) -> None:
        """A metadata record (or ``$set``): its fields, and the messages it holds (a rewritten
        message keeps the place of its first write, as in the ``Map`` Gemini CLI loads into);
        a message that is not an object with an ``id`` is a problem."""
        session.meta.update({k: v for k, v in record.items() if k != "messages"})
        messages = record.get("messages")
        if "messages" in record and not isinstance(messages, list):
            self.log.problem(session.display, number, "'messages' is not a list but "
                                                      f"{type(messages).__name__}; skipped")
        for index, message in enumerate(messages if isinstance(messages, list) else ()):
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                session.messages[message["id"]] = (number, message)
            else:
                what = "has no 'id'" if isinstance(message, dict) else \
                    f"is not an object but {type(message).__name__}"
                self.log.problem(session.display, number,
                                 f"messages[{index}] {what}; message skipped")

    # -- the calls -------------------------------------------------------------------------

    def finish(self) -> None:
        """Every session's calls, a subagent's attributed to the call that ran it."""
        for session in self.sessions:
            for _, message in session.messages.values():
                for call in _tool_calls(message):
                    if isinstance(call.get("agentId"), str) and isinstance(call.get("name"), str):
                        self.launched[call["agentId"]] = call["name"]
        for session in self.sessions:
            self._add_calls(session)
        self.sessions.clear()
        self.current = None

    def _add_calls(self, session: _Session) -> None:
        session_id = session.meta.get("sessionId")
        session_id = session_id if isinstance(session_id, str) else session.path.stem
        agent: str | None = None
        shown = session_id
        if session.meta.get("kind") == "subagent":
            agent = self.launched.get(session_id) or f"subagent-{session_id}"
            parent = session.path.parent.name
            shown = f"{parent}/{session_id}" if parent != "chats" else session_id
        for number, message in session.messages.values():
            line = _line_of(session, number, message)
            calls = message.get("toolCalls") if message.get("type") == "gemini" else None
            if calls is not None and not isinstance(calls, list):
                self.log.problem(session.display, line, "toolCalls is not a list but "
                                 f"{type(calls).__name__}; the message's calls skipped")
            for index, call in enumerate(calls if isinstance(calls, list) else ()):
                if not isinstance(call, dict):
                    self.log.problem(session.display, line, f"toolCalls[{index}] is not an "
                                     f"object but {type(call).__name__}; call skipped")
            for call in _tool_calls(message):
                name = call.get("name")
                if not isinstance(name, str) or not name:
                    what = "without a name" if name in (None, "") else \
                        f"whose name is not a string but {json.dumps(name)}"
                    self.log.problem(session.display, _line_of(session, number, call) or line,
                                     f"tool call {what}; call skipped")
                    continue
                args = call.get("args")
                self.log.add(time=call.get("timestamp") or message.get("timestamp"),
                             session=shown, agent=agent, tool=name,
                             args=args if isinstance(args, dict) else {},
                             observed=_observed(call),
                             source=f"{session.display}:{_line_of(session, number, call) or '?'}")




def _rewind(messages: dict[str, tuple[int | None, dict[str, Any]]], target: str) -> None:
    """``$rewindTo``: drop ``target`` and every later message (all of them when it is gone)."""
    if target not in messages:
        messages.clear()
        return
    keys = list(messages)
    for key in keys[keys.index(target):]:
        del messages[key]


def _tool_calls(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    calls = message.get("toolCalls") if message.get("type") == "gemini" else None
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _line_of(session: _Session, number: int | None, record: Mapping[str, Any]) -> int | None:
    """Where a call (or message) is: the line of its message's last write, or in a legacy
    file the line of its ``id`` (None: unknown)."""
    if number is not None:
        return number
    if session.text is not None and isinstance(record.get("id"), str):
        at = session.text.find(json.dumps(record["id"]))
        if at >= 0:
            return session.text.count("\n", 0, at) + 1
    return None


def _observed(call: Mapping[str, Any]) -> str | None:
    """What happened to the call (see the module docstring)."""
    status = call.get("status")
    error = _error_text(call.get("result"))
    if status == "success":
        return "ran"
    if status == "error":
        return "denied" if (error.startswith(_POLICY_DENIAL)
                            or _NON_INTERACTIVE in error) else "error"
    if status == "cancelled" and _USER_DENIAL in error:
        return "denied"
    return None


def _error_text(result: Any) -> str:
    """The ``error`` of a result's ``functionResponse`` parts."""
    parts = result if isinstance(result, list) else [result]
    texts = []
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            texts.append(body["error"])
    return "\n".join(texts)
