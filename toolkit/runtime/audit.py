"""The audit trail: every decision and call as one JSON object.

Events are kept in memory and, when a path is given, appended to a JSON Lines
file, one line each, under a lock, so concurrent calls never lose or
interleave a line (SPEC section 5, TrustGraph section 8.2).
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("toolkit")

__all__ = ["AuditLog", "new_request_id"]

#: The columns every event has (others are event-specific).
COLUMNS = ("time", "event", "request_id", "agent_id", "tool", "requested_groups",
           "granted_groups", "state", "outcome", "reason")


def new_request_id() -> str:
    """A short unique request id (``req-`` + 12 hex digits)."""
    return f"req-{uuid.uuid4().hex[:12]}"


class AuditLog:
    """Thread-safe, append-only list of audit events; optionally mirrored to a JSONL file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self._lock = threading.Lock()
        self._events: list[dict[str, Any]] = []
        self.path = Path(path) if path is not None else None
        self._file = self.path.open("a", encoding="utf-8") if self.path is not None else None
        self._listeners: list[Callable[[dict[str, Any] | None], object]] = []

    def subscribe(self, listener: Callable[[dict[str, Any] | None], object]
                  ) -> Callable[[], None]:
        """Call ``listener(event)`` after every event, and ``listener(None)`` when the log
        closes (its project closed). Returns the function that unsubscribes it.

        Listeners run in the recording thread and must be quick (a notebook view
        marks itself stale); one that raises is logged and dropped, never the call's
        problem. A listener returning ``False`` is dropped too.
        """
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _notify(self, entry: dict[str, Any] | None) -> None:
        for listener in list(self._listeners):
            try:
                keep = listener(entry)
            except Exception:  # a listener (a widget) must not stop auditing: logged, dropped
                log.exception("audit listener failed; dropped")
                keep = False
            if keep is False:
                with self._lock:
                    if listener in self._listeners:
                        self._listeners.remove(listener)

    def record(self, event: str, **fields: Any) -> dict[str, Any]:
        """Append one event; returns it (with ``time`` in ISO 8601 UTC)."""
        entry: dict[str, Any] = {
            "time": datetime.now(UTC).isoformat(timespec="microseconds"),
            "event": event,
        }
        for column in COLUMNS[2:]:
            entry[column] = fields.pop(column, None)
        entry.update(fields)
        if self._file is None:  # in memory only: no serialisation on the hot path
            with self._lock:
                self._events.append(entry)
            if self._listeners:
                self._notify(entry)
            return entry
        line = json.dumps(entry, default=_jsonable, ensure_ascii=False) + "\n"
        with self._lock:
            self._events.append(entry)
            if self._file is not None:
                self._file.write(line)
                self._file.flush()
        if self._listeners:
            self._notify(entry)
        return entry

    def write_to(self, path: str | Path) -> None:
        """Mirror future events to a JSON Lines file (appending)."""
        with self._lock:
            if self._file is not None:
                self._file.close()
            self.path = Path(path)
            self._file = self.path.open("a", encoding="utf-8")

    @property
    def events(self) -> list[dict[str, Any]]:
        """A copy of the events so far."""
        with self._lock:
            return list(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def frame(self, **match: Any) -> pd.DataFrame:
        """The events as a DataFrame, optionally only those whose fields equal ``match``."""
        import pandas as pd

        rows = [e for e in self.events if all(e.get(k) == v for k, v in match.items())]
        frame = pd.DataFrame(rows, columns=None if rows else list(COLUMNS))
        return frame

    def close(self) -> None:
        """Close the mirror file (the in-memory events stay readable); tell the listeners."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
        self._notify(None)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return str(value)


def monotonic() -> float:
    """Monotonic seconds (for durations)."""
    return time.monotonic()
