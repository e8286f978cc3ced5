"""VS Code (Copilot agent mode) chat sessions: the tool calls a session made, with their outcome.

Where and how VS Code keeps them (microsoft/vscode, ``src/vs/workbench/contrib/chat/common/``:
``chatModel.ts`` ``ISerializableChatData``, ``chatService/chatService.ts``
``IChatToolInvocationSerialized`` and ``ConfirmedReason``, read in the stored index):

- ``<user data>/User/workspaceStorage/<hash>/chatSessions/<sessionId>.json`` (and
  ``globalStorage/emptyWindowChatSessions/`` for windows without a folder): one JSON document
  per session, ``ChatModel.toJSON()``: ``version`` (3; 2 and unversioned older ones),
  ``sessionId``, ``creationDate``, ``requests``. Each request has ``requestId``,
  ``timestamp`` (ms since the epoch), ``message`` and ``response``: the response parts.
- A tool call is a response part of ``kind: "toolInvocationSerialized"`` (``toolId`` as VS
  Code names the tool: ``run_in_terminal``, ``fetch_webpage``, an MCP tool's id ...,
  ``toolCallId``, ``isConfirmed``, ``isComplete``, ``toolSpecificData``). Its arguments
  are not serialised as such (``IChatToolInvocation.getParameters`` returns undefined for a
  serialised call); what is kept: for the terminal tool ``toolSpecificData`` ``kind:
  "terminal"`` with ``commandLine`` ``original`` / ``toolEdited`` / ``userEdited``, and the
  command that ran is ``userEdited ?? toolEdited ?? original`` (``runInTerminalTool.ts``
  ``invoke``; the legacy shape has ``command``); for other tools ``kind: "input"`` with
  ``rawInput`` (the call's input).
- The outcome is ``isConfirmed``: a ``ConfirmedReason`` ``{"type": n}`` since 1.104
  (``ToolConfirmKind``: 0 Denied, 1 ConfirmationNotNeeded, 2 Setting, 3 LmServicePerTool,
  4 UserAction, 5 Skipped), a boolean before (``true``: confirmed, ``false``: denied, as
  ``executionConfirmedOrDenied`` reads it). Denied and Skipped did not run (``denied``); the
  others ran (``ran``: auto-approved without a confirmation, by a setting, by an earlier
  "always allow", or by the user's click); no ``isConfirmed``: outcome unknown.

Newer VS Code versions also write ``chatSessions/<id>.jsonl`` (a log of changes to the same
document); those are not read here (not claimed: a JSON Lines file toolkit does not know is
reported as such, never skipped silently).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..base.calllog import CallLog

__all__ = ["TERMINAL_TOOL", "TranscriptReader"]

#: ``TerminalToolId.RunInTerminal``: its arguments are rebuilt as ``{"command": ...}``
TERMINAL_TOOL = "run_in_terminal"
#: ``ToolConfirmKind`` values whose call did not run: Denied (0) and Skipped (5)
_NOT_RUN = (0, 5)
#: ``ToolConfirmKind`` values whose call ran: ConfirmationNotNeeded, Setting,
#: LmServicePerTool, UserAction
_RAN = (1, 2, 3, 4)
_PART = "toolInvocationSerialized"
#: the folders VS Code keeps session files in (``ChatSessionStore``'s storage roots)
_FOLDERS = ("chatSessions", "emptyWindowChatSessions")


def is_chat_session(data: Any) -> bool:
    """Whether ``data`` is a serialised VS Code chat session (``ISerializableChatData``: a
    ``sessionId``, a ``requests`` list and a ``creationDate``, as ``isSerializableSessionData``
    checks; ``version`` 2 or 3 when present)."""
    return (isinstance(data, dict) and isinstance(data.get("sessionId"), str)
            and isinstance(data.get("requests"), list)
            and isinstance(data.get("creationDate"), int | float)
            and data.get("version", 3) in (2, 3))


class TranscriptReader:
    """VS Code's chat session files (one JSON document each, no JSON Lines)."""

    suffixes = (".json",)

    def __init__(self, log: CallLog) -> None:
        self.log = log
        self.parsed: dict[Path, tuple[str, dict[str, Any]]] = {}  # owned files: text, data

    @staticmethod
    def claims(data: Mapping[str, Any]) -> bool:
        """No JSON Lines file is read as VS Code's (see the module docstring)."""
        return False

    def file(self, path: Path, display: str) -> None:
        """Not called: no JSON Lines file is VS Code's."""

    def line(self, display: str, number: int, data: dict[str, Any]) -> None:
        """Not called: no JSON Lines file is VS Code's."""

    def finish(self) -> None:
        """Calls were added as each file was read."""

    # -- which files -----------------------------------------------------------------------

    def owns(self, path: Path) -> bool:
        """A ``.json`` file holding a chat session (:func:`is_chat_session`), whatever its
        name or folder (sessions are often copied out of ``workspaceStorage``)."""
        if path in self.parsed:
            return True
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, UnicodeDecodeError, ValueError):
            # a broken file in VS Code's own folder is a session to report, any other not ours
            return path.parent.name in _FOLDERS
        if not is_chat_session(data):
            return False
        self.parsed[path] = (text, data)
        return True

    def read_file(self, path: Path, display: str) -> None:
        """Every tool call of the session ``path``, in request and part order."""
        found = self.parsed.pop(path, None)
        if found is None:
            self._unreadable(path, display)
            return
        text, data = found
        session = data["sessionId"]
        for i, request in enumerate(data["requests"]):
            where = f"requests[{i}]"
            if not isinstance(request, dict):
                self.log.problem(display, None, f"{where} is not an object but "
                                                f"{type(request).__name__}; request skipped")
                continue
            response = request.get("response")
            if response is None:
                continue  # a request without a response yet (or cancelled before one)
            if not isinstance(response, list):
                self.log.problem(display, _line_of(text, request.get("requestId")),
                                 f"{where}.response is not a list but "
                                 f"{type(response).__name__}; the request's calls skipped")
                continue
            for j, part in enumerate(response):
                if isinstance(part, dict) and part.get("kind") == _PART:
                    self._call(text, display, session, request, part,
                               f"{where}.response[{j}]")

    def _unreadable(self, path: Path, display: str) -> None:
        """Why ``path`` is not a session VS Code could load (a located problem)."""
        try:
            raw = path.read_bytes()
        except OSError as exc:
            self.log.problem(display, None, f"cannot read file: {exc.strerror or exc}")
            return
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            self.log.problem(display, raw.count(b"\n", 0, exc.start) + 1,
                             f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                             f"{exc.start}); file skipped")
            return
        except ValueError as exc:
            self.log.problem(display, getattr(exc, "lineno", None),
                             f"not JSON: {exc}; the session file is damaged (truncated while "
                             "VS Code wrote it?); file skipped")
            return
        if not is_chat_session(data):
            self.log.problem(display, None, "not a VS Code chat session (no 'sessionId', "
                                            "'creationDate' and 'requests' list); skipped")

    # -- one call --------------------------------------------------------------------------

    def _call(self, text: str, display: str, session: str, request: Mapping[str, Any],
              part: Mapping[str, Any], where: str) -> None:
        line = _line_of(text, part.get("toolCallId")) or _line_of(text, request.get("requestId"))
        tool = part.get("toolId")
        if not isinstance(tool, str) or not tool:
            what = "without a toolId" if tool in (None, "") else \
                f"whose toolId is not a string but {json.dumps(tool)}"
            self.log.problem(display, line, f"{where}: tool invocation {what}; call skipped")
            return
        args, error = _arguments(tool, part.get("toolSpecificData"))
        if error is not None:
            self.log.problem(display, line, f"{where}.toolSpecificData: {error}; call skipped")
            return
        observed, error = _observed(part.get("isConfirmed"))
        if error is not None:
            self.log.problem(display, line, f"{where}.isConfirmed: {error}; outcome unknown")
        self.log.add(time=_time(request.get("timestamp")), session=session, agent=None,
                     tool=tool, args=args, observed=observed,
                     source=f"{display}:{line}" if line else f"{display}#{where}")


def _arguments(tool: str, data: Any) -> tuple[dict[str, Any], str | None]:
    """The call's arguments from its ``toolSpecificData`` (an error: what is wrong)."""
    if data is None:
        if tool == TERMINAL_TOOL:
            return {}, "missing: the terminal call's command line is not recorded"
        return {}, None
    if not isinstance(data, dict):
        return {}, f"not an object but {type(data).__name__}"
    kind = data.get("kind")
    if kind == "terminal":
        return _terminal(data)
    if kind == "input":
        raw = data.get("rawInput")
        return (raw if isinstance(raw, dict) else {}), None
    if tool == TERMINAL_TOOL:
        return {}, f"kind {json.dumps(kind)} where a terminal call has 'terminal'"
    return {}, None


def _terminal(data: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """``{"command": ...}``: the command line that ran (``userEdited ?? toolEdited ??
    original``), or the legacy shape's ``command``."""
    line = data.get("commandLine")
    if isinstance(line, dict):
        for key in ("userEdited", "toolEdited", "original"):
            if isinstance(line.get(key), str):
                return {"command": line[key]}, None
        return {}, "commandLine has no 'original' string"
    if isinstance(data.get("command"), str):  # ILegacyChatTerminalToolInvocationData
        return {"command": data["command"]}, None
    return {}, "a terminal call without 'commandLine' or 'command'"


def _observed(confirmed: Any) -> tuple[str | None, str | None]:
    """``ran`` / ``denied`` / None from ``isConfirmed`` (an error: what is wrong)."""
    if confirmed is None:
        return None, None
    if isinstance(confirmed, bool):
        return ("ran" if confirmed else "denied"), None
    kind = confirmed.get("type") if isinstance(confirmed, dict) else None
    if isinstance(kind, int) and not isinstance(kind, bool):
        if kind in _RAN:
            return "ran", None
        if kind in _NOT_RUN:
            return "denied", None
    return None, f"{json.dumps(confirmed)} is not a boolean or a ConfirmedReason " \
                 "({\"type\": 0..5})"


def _time(value: Any) -> str | None:
    """A request's ``timestamp`` (ms since the epoch) as ISO 8601."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        moment = datetime.fromtimestamp(value / 1000, tz=UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return None


def _line_of(text: str, key: Any) -> int | None:
    """The line where the string ``key`` (a ``toolCallId``, a ``requestId``) first appears."""
    if not isinstance(key, str) or not key:
        return None
    at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else None
