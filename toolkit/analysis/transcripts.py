"""Logged tool calls, read from what agents leave behind: the input of ``tk.replay``.

Three kinds of log are read, each recognised by its content, not its name:

- **agent systems' transcripts**, each read by its system's reader (the registry's
  ``transcript_readers``): Claude Code's ``~/.claude/projects/<project>/<session>.jsonl``
  with its subagents' files (``toolkit.systems.claude_code.transcript``), and the other
  runtimes' session logs (Gemini CLI, Codex, OpenCode). A reader that is also a
  :class:`~toolkit.systems.base.calllog.SessionFileReader` reads whole the session files
  it owns that are not JSON Lines (a JSON document, an SQLite database).
- **toolkit's own audit log** (``proj.audit_log.write_to(path)``): ``call`` events,
  denied approvals, and the ``resolve`` / ``spawn`` / ``transition`` events that say
  which session was whose child, in which state.
- **call tables**: JSON Lines, CSV or a DataFrame with ``agent``, ``tool`` and
  optionally ``args``, ``groups``, ``state``, ``time``, ``session``, ``observed``.

A line that cannot be read is a :class:`~toolkit.errors.Problem` with
its file and line, never an exception: everything else in the file is kept.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..core.models import parse_groups
from ..systems import registry
from ..systems.base.calllog import (
    COLUMNS,
    CallLog,
    SessionFileReader,
    SessionInfo,
    TranscriptReader,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "EXECUTED", "MAIN", "CallLog", "SessionInfo", "executed", "read_calls"]

#: How a call of the main conversation (not a subagent) is labelled when no ``main=`` is given.
MAIN = "(main)"

#: The observed outcomes of a call that executed: it ran, or it ran and failed (``error``:
#: an error that is not a denial). ``denied`` did not run; None (outcome lost) is neither.
EXECUTED = ("ran", "error")


def executed(observed: pd.Series) -> pd.Series:
    """Which logged calls executed, from their ``observed`` column (see :data:`EXECUTED`):
    what ``regressions`` and ``suggest()`` both count as "ran".

    >>> import pandas as pd
    >>> executed(pd.Series(["ran", "error", "denied", None])).tolist()
    [True, True, False, False]
    """
    return observed.astype(object).isin(EXECUTED)


#: How problems name a DataFrame given as the log (its calls' ``source`` is the row number).
FRAME = "<DataFrame>"
#: What the log says happened to a call.
OBSERVED = ("ran", "denied", "error")

_OUTCOMES = {"ran": "ran", "allowed": "ran", "ok": "ran", "success": "ran",
             "denied": "denied", "blocked": "denied", "refused": "denied",
             "error": "error", "failed": "error"}


def read_calls(source: Any, *, base: str | os.PathLike[str] | None = None) -> CallLog:
    """Read logged calls from a file, a folder (searched recursively), or a DataFrame.

    ``source``: a Claude Code transcript ``.jsonl`` (with the files of its own ``<id>/``
    folder: its subagents), a folder of them (a project
    folder, or the whole ``~/.claude/projects`` tree, subagents included), a
    toolkit audit ``.jsonl``, a call table (``.jsonl`` / ``.csv``), or a pandas
    DataFrame with ``agent`` and ``tool`` columns. ``base``: file names in
    problems are shown relative to it (default: the folder given, or the file's).

    A source that does not exist raises ``FileNotFoundError``; a line that
    cannot be read is a problem in :attr:`CallLog.problems`.
    """
    log = CallLog()
    if _is_frame(source):
        _read_frame(source, FRAME, log)
        log.kinds.add("calls")
        return log
    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {str(path)!r}")
    systems = {name: reader(log) for name, reader in registry.transcript_readers().items()}
    owners = {name: r for name, r in systems.items() if isinstance(r, SessionFileReader)}
    files = sorted(_log_files(path, owners), key=_session_first) if path.is_dir() else [
        path, *_companions(path)]
    shown = Path(base) if base is not None else (path if path.is_dir() else path.parent)
    for file in files:
        display = _display(file, shown)
        log.files.append(display)
        if file.suffix == ".csv":
            _read_csv(file, display, log)
            continue
        owner = None if file.suffix == ".jsonl" else _owner(file, owners)
        if owner is not None:
            log.kinds.add(owner)
            owners[owner].read_file(file, display)
            continue
        _read_jsonl(file, display, log, systems)
    for reader in systems.values():
        reader.finish()
    return log


def _is_frame(source: Any) -> bool:
    return hasattr(source, "columns") and hasattr(source, "itertuples")


def _log_files(folder: Path, owners: Mapping[str, SessionFileReader] | None = None
               ) -> Iterator[Path]:
    """Every ``.jsonl`` (and ``.csv``) file below ``folder``, and every session file a system
    owns (``owners``); hidden folders other than the systems' own (``.claude``) are skipped."""
    hidden = registry.hidden_folders()
    suffixes = tuple(dict.fromkeys(s for r in (owners or {}).values() for s in r.suffixes))
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") or d in hidden]
        for name in names:
            file = Path(root) / name
            if name.endswith((".jsonl", ".csv")) or (
                    suffixes and name.endswith(suffixes) and _owner(file, owners)):
                yield file


def _owner(file: Path, owners: Mapping[str, SessionFileReader] | None) -> str | None:
    """The system whose reader owns ``file`` (a session file that is not JSON Lines)."""
    return next((name for name, reader in (owners or {}).items()
                 if file.name.endswith(reader.suffixes) and reader.owns(file)), None)


def _companions(file: Path) -> list[Path]:
    """The log files in a session file's own folder (``<id>.jsonl`` beside ``<id>/``, where
    Claude Code 2.x keeps its subagents' transcripts): one session given alone brings them."""
    folder = file.with_suffix("")
    if file.suffix != ".jsonl" or not folder.is_dir():
        return []
    return sorted(_log_files(folder), key=_session_first)


def _session_first(file: Path) -> tuple[str, ...]:
    """Sort key: a session's file (``<id>.jsonl``) before its folder (``<id>/subagents``)."""
    return (*file.parts[:-1], file.stem)


def _display(file: Path, base: Path) -> str:
    try:
        return file.relative_to(base).as_posix()
    except ValueError:
        return str(file)


# -- JSON Lines -----------------------------------------------------------------------------------

def _lines(file: Path, display: str, log: CallLog) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every line that is a JSON object; the rest are problems."""
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        log.problem(display, None, f"cannot read file: {exc.strerror or exc}")
        return
    lines = text.split("\n")
    truncated = not text.endswith("\n") and text != ""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            last = truncated and number == len(lines)
            log.problem(display, number, "truncated line: the file ends in the middle of a "
                                         "record" if last else f"not JSON: {exc}")
            continue
        if not isinstance(data, dict):
            log.problem(display, number, f"not a JSON object but {type(data).__name__}")
            continue
        yield number, data


class _LineReader(Protocol):
    def line(self, display: str, number: int, data: dict[str, Any]) -> None: ...


def _read_jsonl(file: Path, display: str, log: CallLog,
                systems: Mapping[str, TranscriptReader]) -> None:
    lines = _lines(file, display, log)
    reader: _LineReader | None = None
    for number, data in lines:
        if reader is None:
            kind = _kind(data, systems)
            if kind is None:
                names = [registry.by_name(n).title for n in systems]
                titles = (", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1
                          else names[0] if names else "an agent")
                log.problem(display, number, f"not a {titles} transcript, toolkit audit log "
                                             "or call log (no 'type' + 'message', 'event' or "
                                             "'tool' key); file skipped")
                return
            log.kinds.add(kind)
            if kind in systems:
                reader = systems[kind]
                systems[kind].file(file, display)
            else:
                reader = _AuditReader(log) if kind == "audit" else _CallLineReader(log)
        reader.line(display, number, data)


def _kind(data: Mapping[str, Any], systems: Mapping[str, TranscriptReader]) -> str | None:
    """Which kind of log a line belongs to: audit, a system's name, calls (None: none)."""
    if "event" in data and ("agent_id" in data or "request_id" in data):
        return "audit"
    found = next((name for name, reader in systems.items() if reader.claims(data)), None)
    if found is not None:
        return found
    if "tool" in data:
        return "calls"
    return None


# -- toolkit audit logs ---------------------------------------------------------------------------

class _AuditReader:
    """toolkit's audit JSON Lines: calls, denied approvals, and the spawn tree."""

    def __init__(self, log: CallLog) -> None:
        self.log = log
        self.state: dict[str, str | None] = {}  # session id -> its current state

    def line(self, display: str, number: int, data: dict[str, Any]) -> None:
        """One audit event."""
        event = data.get("event")
        session = data.get("agent_id")
        if not isinstance(session, str):
            return
        if event in ("resolve", "spawn"):
            self._session(data, session, event == "spawn")
        elif event == "transition":
            self.state[session] = data.get("to")
        elif event == "call":
            self._call(display, number, data, session,
                       _OUTCOMES.get(str(data.get("outcome"))))
        elif event == "approval" and data.get("outcome") == "denied":
            self._call(display, number, data, session, "denied")

    def _session(self, data: Mapping[str, Any], session: str, spawned: bool) -> None:
        parent = data.get("parent_id") if spawned else None
        parent = parent if isinstance(parent, str) else None
        agent = data.get("agent")
        if not isinstance(agent, str) or not agent:
            agent = _agent_of_session(session, parent)
        groups = data.get("requested_groups")
        self.log.sessions[session] = SessionInfo(
            agent=agent, groups=tuple(groups) if isinstance(groups, list) else None,
            state=data.get("state"), parent=parent,
            parent_state=self.state.get(parent) if parent else None)
        self.state[session] = data.get("state")

    def _call(self, display: str, number: int, data: Mapping[str, Any], session: str,
              observed: str | None) -> None:
        tool = data.get("requested_tool") or data.get("tool")
        if not isinstance(tool, str) or not tool:
            self.log.problem(display, number, f"{data.get('event')} event without a tool; "
                                              "skipped")
            return
        info = self.log.sessions.get(session)
        agent = data.get("agent")
        if not isinstance(agent, str) or not agent:
            agent = info.agent if info else _agent_of_session(session, None)
        groups = data.get("requested_groups")
        args = data.get("args")
        self.log.add(time=data.get("time"), session=session, agent=agent, tool=tool,
                     args=args if isinstance(args, dict) else {}, observed=observed,
                     groups=tuple(groups) if isinstance(groups, list) else None,
                     state=data.get("state"), source=f"{display}:{number}")


def _agent_of_session(session: str, parent: str | None) -> str:
    """The agent of a session id: ``parent.child[.2]`` -> ``child``; ``root[.2]`` -> ``root``."""
    name = session[len(parent) + 1:] if parent and session.startswith(parent + ".") else session
    head, _, tail = name.rpartition(".")
    return head if head and tail.isdigit() else name


# -- call tables ------------------------------------------------------------------------------

class _CallLineReader:
    """JSON Lines of ``{"agent": ..., "tool": ..., "args": {...}, ...}`` objects."""

    def __init__(self, log: CallLog) -> None:
        self.log = log

    def line(self, display: str, number: int, data: dict[str, Any]) -> None:
        """One call object."""
        _add_row(self.log, data, display, number)


def _add_row(log: CallLog, data: Mapping[str, Any], display: str, number: int) -> None:
    """One call of a JSON Lines table; no tool or bad args is a located problem."""
    tool, agent = data.get("tool"), data.get("agent")
    if not isinstance(tool, str) or not tool.strip():
        log.problem(display, number, "call without a tool name; skipped")
        return
    args = data.get("args")
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError as exc:
            log.problem(display, number, f"args is not JSON ({exc}); call kept without args")
            args = {}
    log.add(time=_plain(data.get("time", data.get("timestamp", data.get("seq")))),
            session=_plain(data.get("session")), tool=tool.strip(),
            agent=str(agent).strip() if _present(agent) else None,
            args=args if isinstance(args, dict) else {},
            observed=_observed(data.get("observed", data.get("outcome"))),
            groups=_groups(data.get("groups")), state=_plain(data.get("state")),
            cwd=_plain(data.get("cwd")), source=f"{display}:{number}")


def _present(value: Any) -> bool:
    """Not None, not NaN, not an empty string."""
    if value is None or (isinstance(value, float) and value != value):
        return False
    return not (isinstance(value, str) and not value.strip())


def _plain(value: Any) -> Any:
    return value if _present(value) else None


def _read_frame(frame: Any, display: str, log: CallLog, first_line: int = 0) -> None:
    """A call table, column by column: conversions run once per distinct value, not per row
    (only JSON ``args`` text is parsed row by row)."""
    import numpy as np
    import pandas as pd

    if "tool" not in frame.columns:
        log.problem(display, None, "a call table needs a 'tool' column (and 'agent', 'args')")
        return
    n = len(frame)
    tools = _by_value(frame["tool"], lambda t: t.strip() if isinstance(t, str) and t.strip()
                      else None)
    keep = ~pd.isna(tools)
    for i in np.flatnonzero(~keep).tolist():
        log.problem(display, first_line + i + 1, "call without a tool name; skipped")

    def column(*names: str, convert: Any = None) -> Any:
        found = next((name for name in names if name in frame.columns), None)
        if found is None:
            return np.full(n, None, dtype=object)
        if convert is None:  # as it is, missing values as None (vectorised: no per-row work)
            series = frame[found]
            if series.dtype.kind in "iub":  # numbers stay numbers (no object per row)
                return series.to_numpy()
            values = series.to_numpy(dtype=object, copy=True)
            values[pd.isna(values)] = None
            return values
        return _by_value(frame[found], convert)

    table = pd.DataFrame({
        "time": column("time", "timestamp", "seq"),
        "session": column("session"),
        "agent": column("agent", convert=lambda v: str(v).strip() if _present(v) else None),
        "tool": tools,
        "args": _args_column(frame, display, log, first_line) if "args" in frame.columns
        else [{} for _ in range(n)],
        "observed": column("observed", "outcome", convert=_observed),
        "groups": column("groups", convert=_groups),
        "state": column("state"),
        "cwd": column("cwd"),
        # where the call is: file:line, or for a DataFrame its row number (no string per row)
        "source": np.arange(1, n + 1) if display == FRAME else [
            f"{display}:{first_line + i + 1}" for i in range(n)],
    }, columns=list(COLUMNS))
    log.tables.append(table if keep.all() else table[keep].reset_index(drop=True))


def _by_value(series: Any, convert: Any) -> Any:
    """``convert`` applied to each distinct value of ``series`` (an object array back)."""
    import numpy as np
    import pandas as pd

    values = series.astype(object).to_numpy()
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists): one by one
        out = np.empty(len(values), dtype=object)
        for i, value in enumerate(values):
            out[i] = convert(value)
        return out
    converted = np.empty(len(uniques) + 1, dtype=object)
    for i, value in enumerate(uniques):  # one by one: a tuple must stay one cell
        converted[i] = convert(value)
    converted[-1] = convert(None)  # factorize's -1: a missing value
    return converted[codes]


def _observed(value: Any) -> str | None:
    return _OUTCOMES.get(str(value).strip().lower()) if _present(value) else None


def _groups(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return parse_groups(value) if value.strip() else None
    if isinstance(value, (list, tuple)):
        return tuple(str(g) for g in value)
    return None


def _args_column(frame: Any, display: str, log: CallLog, first_line: int) -> Any:
    """The ``args`` column: dicts as they are, JSON text parsed (a bad one is a problem)."""
    import numpy as np

    values = frame["args"].to_numpy(dtype=object, copy=True)
    is_dict = np.fromiter((type(v) is dict for v in values), dtype=bool, count=len(values))
    for i in np.flatnonzero(~is_dict).tolist():  # only the cells that are not dicts yet
        values[i] = _args_of(values[i], display, log, first_line + i + 1)
    return values


def _args_of(value: Any, display: str, log: CallLog, line: int) -> dict[str, Any]:
    if not isinstance(value, str) or not value.strip():
        return {}
    try:
        parsed = json.loads(value)
    except ValueError as exc:
        log.problem(display, line, f"args is not JSON ({exc}); call kept without args")
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _read_csv(file: Path, display: str, log: CallLog) -> None:
    import pandas as pd

    try:
        frame = pd.read_csv(file, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        log.problem(display, None, f"cannot read CSV: {exc}")
        return
    log.kinds.add("calls")
    _read_frame(frame, display, log, first_line=1)  # line 1 is the header
