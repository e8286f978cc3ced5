"""OpenCode sessions: the tool calls a session and its subagent sessions made, with their outcome.

Where OpenCode keeps them (anomalyco/opencode, ``packages/opencode/src/session/session.sql.ts``,
``message-v2.ts``, ``storage/json-migration.ts``):

- current versions: the SQLite database ``~/.local/share/opencode/opencode.db``, tables
  ``session`` (``id``, ``parent_id``: a subagent's session names its parent, ``directory``),
  ``message`` (``id``, ``session_id``, ``time_created``, ``data``: the message as JSON
  without its ids: ``role``, ``agent``, ``path.cwd`` ...) and ``part`` (``id``,
  ``message_id``, ``session_id``, ``data``). Read with the standard library, read-only.
- earlier versions: JSON files under ``~/.local/share/opencode/storage/``:
  ``session/<projectID>/<sessionID>.json``, ``message/<sessionID>/<messageID>.json``,
  ``part/<messageID>/<partID>.json`` (the layout ``json-migration.ts`` moves into the
  database).

A call is a part of ``type: "tool"`` (``callID``, ``tool``, ``state``: ``status`` pending /
running / completed / error, ``input``, ``output`` or ``error``, ``time.start``). Its
agent is its message's ``agent`` (``mode`` in older messages). ``completed`` ran; ``error``
is a denial when it is OpenCode's permission error (``permission/index.ts``: "The user
rejected permission to use this specific tool call", "The user has specified a rule which
prevents you from using this specific tool call"), an error otherwise; a call still
pending or running says nothing.

The session's ``directory`` is not used as the working folder: the project folder given to
replay stands in for it (paths recorded on another machine would all be external).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..base.calllog import CallLog

__all__ = ["TranscriptReader"]

_DENIALS = ("The user rejected permission to use this specific tool call",
            "The user has specified a rule which prevents you from using this specific tool "
            "call")
_SQLITE = b"SQLite format 3\x00"
_TABLES = {"session", "message", "part"}


class TranscriptReader:
    """OpenCode's sessions, from its database or its JSON storage (no JSON Lines)."""

    suffixes = (".db", ".json")

    def __init__(self, log: CallLog) -> None:
        self.log = log

    @staticmethod
    def claims(data: Mapping[str, Any]) -> bool:
        """OpenCode writes no JSON Lines."""
        return False

    def file(self, path: Path, display: str) -> None:
        """Not called: no JSON Lines file is OpenCode's."""

    def line(self, display: str, number: int, data: dict[str, Any]) -> None:
        """Not called: no JSON Lines file is OpenCode's."""

    def finish(self) -> None:
        """Calls were added as each file was read."""

    # -- which files -----------------------------------------------------------------------

    def owns(self, path: Path) -> bool:
        """``opencode.db`` (an SQLite database with OpenCode's session, message and part
        tables), or a session file of the JSON storage (``session/<project>/<id>.json`` beside
        ``message/<id>/``)."""
        if path.suffix == ".db":
            tables, error = _tables(path)
            return error is not None or tables >= _TABLES
        storage = path.parent.parent.parent
        return (path.parent.parent.name == "session" and path.suffix == ".json"
                and (storage / "message" / path.stem).is_dir())

    def read_file(self, path: Path, display: str) -> None:
        """Every call of the database, or of the storage session ``path``."""
        if path.suffix == ".db":
            self._read_database(path, display)
        else:
            self._read_storage(path, display)

    # -- the database ----------------------------------------------------------------------

    def _read_database(self, path: Path, display: str) -> None:
        _, error = _tables(path)
        if error is not None:
            self.log.problem(display, None, f"an SQLite database toolkit cannot read: {error}; "
                                            "copy the file again (it may be truncated or was "
                                            "being written)")
            return
        try:
            with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
                sessions = dict(db.execute("SELECT id, parent_id FROM session").fetchall())
                messages = dict(db.execute("SELECT id, data FROM message").fetchall())
                parts = db.execute("SELECT id, message_id, session_id, data FROM part "
                                   "ORDER BY time_created, id").fetchall()
        except sqlite3.Error as exc:
            self.log.problem(display, None, f"cannot read the OpenCode database: {exc}")
            return
        infos: dict[str, dict[str, Any]] = {}
        for message_id, data in messages.items():
            info = self._json(display, f"message {message_id}", data)
            infos[message_id] = info if info is not None else {}
        for part_id, message_id, session_id, data in parts:
            part = self._json(display, f"part {part_id}", data)
            if part is not None:
                self._part(part, part_id, session_id, sessions.get(session_id),
                           infos.get(message_id, {}), f"{display}#{part_id}")

    # -- the JSON storage ------------------------------------------------------------------

    def _read_storage(self, path: Path, display: str) -> None:
        session = self._load(path, display)
        if session is None:
            return
        storage = path.parent.parent.parent
        session_id = str(session["id"]) if isinstance(session.get("id"), str) else path.stem
        parent = session.get("parentID") if isinstance(session.get("parentID"), str) else None
        base = Path(display).parent.parent.parent
        for message_file in sorted((storage / "message" / path.stem).glob("*.json")):
            shown = (base / "message" / path.stem / message_file.name).as_posix()
            info = self._load(message_file, shown) or {}
            folder = storage / "part" / message_file.stem
            for part_file in sorted(folder.glob("*.json")):
                part_shown = (base / "part" / message_file.stem / part_file.name).as_posix()
                part = self._load(part_file, part_shown)
                if part is not None:
                    self._part(part, part_file.stem, session_id, parent, info, part_shown)

    def _load(self, path: Path, display: str) -> dict[str, Any] | None:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            self.log.problem(display, None, f"cannot read file: {exc.strerror or exc}")
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.log.problem(display, raw.count(b"\n", 0, exc.start) + 1,
                             f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                             f"{exc.start}); file skipped")
            return None
        return self._json(display, None, text)

    def _json(self, display: str, what: str | None, text: Any) -> dict[str, Any] | None:
        """A JSON object (a row's ``data`` or a storage file); anything else is a problem."""
        where = f"{what}: " if what else ""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            # a storage file's line; a database row's data has none that helps
            self.log.problem(display, None if what else _line(exc), f"{where}not JSON: {exc}")
            return None
        if not isinstance(data, dict):
            self.log.problem(display, None, f"{where}not a JSON object")
            return None
        return data

    # -- one call --------------------------------------------------------------------------

    def _part(self, part: Mapping[str, Any], part_id: str, session: str, parent: str | None,
              info: Mapping[str, Any], source: str) -> None:
        if part.get("type") != "tool":
            return
        tool = part.get("tool")
        if not isinstance(tool, str) or not tool:
            self.log.problem(source.split("#")[0], None,
                             f"tool part {part_id} without a tool name; call skipped")
            return
        state: dict[str, Any] = part["state"] if isinstance(part.get("state"), dict) else {}
        args = state.get("input")
        agent = info.get("agent") or info.get("mode")
        self.log.add(time=_time(state, info), session=f"{parent}/{session}" if parent else session,
                     agent=agent if isinstance(agent, str) and agent else None, tool=tool,
                     args=args if isinstance(args, dict) else {}, observed=_observed(state),
                     source=source)


def _tables(path: Path) -> tuple[set[str], str | None]:
    """The tables of an SQLite file (none when it is not one), and why an SQLite file (it
    starts with SQLite's header) cannot be read (None: it can, or it is no SQLite file)."""
    try:
        with path.open("rb") as handle:
            if handle.read(len(_SQLITE)) != _SQLITE:
                return set(), None
    except OSError:
        return set(), None  # unreadable and unknown: read_calls reports the file
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
            return {name for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}, None
    except sqlite3.Error as exc:
        return set(), str(exc)


def _observed(state: Mapping[str, Any]) -> str | None:
    status = state.get("status")
    if status == "completed":
        return "ran"
    if status == "error":
        error = state.get("error")
        # older versions stored the error's toString() ("Error: The user rejected ...")
        return "denied" if isinstance(error, str) and any(d in error for d in _DENIALS) \
            else "error"
    return None


def _time(state: Mapping[str, Any], info: Mapping[str, Any]) -> str | None:
    """When the call started (``state.time.start``, else its message's ``time.created``;
    milliseconds since the epoch), as ISO 8601."""
    for holder, key in ((state.get("time"), "start"), (info.get("time"), "created")):
        value = holder.get(key) if isinstance(holder, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            moment = datetime.fromtimestamp(value / 1000, tz=UTC)
            return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return None


def _line(exc: Exception) -> int | None:
    return getattr(exc, "lineno", None)
