"""Codex session rollouts: the tool calls a session made, with their outcome.

Where and how Codex writes them (``codex-rs/core/src/rollout/recorder.rs`` and
``policy.rs``, ``codex-rs/protocol/src/protocol.rs`` ``RolloutLine`` / ``RolloutItem`` /
``SessionMeta``, ``codex-rs/protocol/src/models.rs`` ``ResponseItem``):

- ``~/.codex/sessions/YYYY/MM/DD/rollout-<timestamp>-<uuid>.jsonl``: every line is
  ``{"timestamp", "type", "payload"}``: ``session_meta`` first (``id``, ``cwd``,
  ``source``: ``"cli"``, ``"vscode"``, ``"exec"`` ... or ``{"subagent": ...}`` for a
  subagent's thread, with ``agent_role`` / ``agent_nickname``), then ``response_item``,
  ``event_msg``, ``turn_context`` (``cwd``, ``approval_policy``) and ``compacted`` lines.
- Rollouts written before the ``{"type", "payload"}`` envelope start with the bare
  ``SessionMeta`` (``id``, ``timestamp``, ``instructions``) and hold bare response items
  (and ``{"record_type": "state"}`` lines): read too.

A call is a response item ``function_call`` (``name``, ``arguments`` as JSON text,
``call_id``; the shell tools ``shell`` / ``shell_command`` / ``exec_command``, MCP tools,
``update_plan`` ...), ``custom_tool_call`` (``name``, raw ``input``: ``apply_patch``),
``local_shell_call`` (``action.command``, read as the ``local_shell`` tool) or
``web_search_call``. Its outcome is the ``function_call_output`` /
``custom_tool_call_output`` with the same ``call_id``: a refusal is Codex's own text
(``exec command rejected by user`` / ``patch rejected by user`` when the user declined,
``This action was rejected due to unacceptable risk`` from the guardian reviewer, an exec
policy's "`cmd` rejected: ..." and the ``approval required by policy, but ...`` reasons,
``codex-rs/core/src/tools/orchestrator.rs`` and ``exec_policy.rs``); an exit code other than
0 (``Exit code: N`` or the JSON ``metadata.exit_code`` of the shell tool's output) is an
error; any other output ran.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.calllog import CallLog
from .approval import (
    PROMPT_CONFLICT_REASON,
    REJECT_RULES_APPROVAL_REASON,
    REJECT_SANDBOX_APPROVAL_REASON,
)

__all__ = ["TranscriptReader"]

_REFUSALS = ("exec command rejected by user", "patch rejected by user",
             "This action was rejected due to unacceptable risk",
             PROMPT_CONFLICT_REASON, REJECT_RULES_APPROVAL_REASON,
             REJECT_SANDBOX_APPROVAL_REASON)
# derive_forbidden_reason (exec_policy.rs): "`<command>` rejected: <why>"
_FORBIDDEN = re.compile(r"^`[^`]*` rejected: ")
# format_exec_output_structured: "Exit code: N\nWall time: ...\nOutput:\n..."; unified exec
# (exec_command): "... Process exited with code N ... Output:"
_EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)$", re.MULTILINE)
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})


@dataclass
class _Call:
    time: Any
    session: str
    agent: str | None
    tool: str
    args: dict[str, Any]
    call_id: str | None
    cwd: str | None
    source: str
    observed: str | None = None


class TranscriptReader:
    """Codex rollouts: calls are matched with their outputs by ``call_id`` once every file was
    read."""

    def __init__(self, log: CallLog) -> None:
        self.log = log
        self.calls: list[_Call] = []
        self.results: dict[str, str | None] = {}  # call_id -> observed
        self.session = ""
        self.agent: str | None = None
        self.cwd: str | None = None

    @staticmethod
    def claims(data: Mapping[str, Any]) -> bool:
        """A rollout: its first line is the ``session_meta`` line (or, before the envelope,
        a bare ``SessionMeta``: ``id``, ``timestamp`` and ``instructions``)."""
        if data.get("type") == "session_meta":
            return isinstance(data.get("payload"), dict)
        return ("type" not in data and isinstance(data.get("id"), str)
                and "timestamp" in data and "instructions" in data)

    def file(self, path: Path, display: str) -> None:
        """Start reading ``path`` (its session is the file's until its meta line names it)."""
        self.session = path.stem
        self.agent = None
        self.cwd = None

    def line(self, display: str, number: int, data: dict[str, Any]) -> None:
        """One rollout line."""
        kind = data.get("type")
        payload = data.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            self._meta(payload)
        elif kind == "turn_context" and isinstance(payload, dict):
            if isinstance(payload.get("cwd"), str):
                self.cwd = payload["cwd"]
        elif kind == "response_item" and isinstance(payload, dict):
            self._item(display, number, payload, data.get("timestamp"))
        elif kind in _ENVELOPES:  # payload not an object
            what = "no payload" if payload is None else \
                f"a payload that is not an object but {type(payload).__name__}"
            self.log.problem(display, number, f"a {kind} line with {what}; line skipped")
        elif kind in _CALLS or kind in _OUTPUTS:  # a rollout from before the envelope
            self._item(display, number, data, data.get("timestamp"))
        elif kind is None and "instructions" in data and isinstance(data.get("id"), str):
            self._meta(data)

    def _meta(self, meta: Mapping[str, Any]) -> None:
        if isinstance(meta.get("id"), str) and meta["id"]:
            self.session = meta["id"]
        if isinstance(meta.get("cwd"), str):
            self.cwd = meta["cwd"]
        self.agent = _subagent(meta)

    def _item(self, display: str, number: int, item: Mapping[str, Any], time: Any) -> None:
        kind = item.get("type")
        if kind in _OUTPUTS:
            if isinstance(item.get("call_id"), str):
                self.results[item["call_id"]] = _observed(item.get("output"))
            return
        if kind not in _CALLS:
            return
        call_id = item.get("call_id") if isinstance(item.get("call_id"), str) else None
        source = f"{display}:{number}"
        if kind == "local_shell_call":
            action = _object(item.get("action"))
            args = {"command": action.get("command")}
            if isinstance(action.get("working_directory"), str):
                args["workdir"] = action["working_directory"]
            call_id = call_id or (item.get("id") if isinstance(item.get("id"), str) else None)
            self._add(time, "local_shell", args, call_id, source)
            return
        if kind == "web_search_call":
            action = _object(item.get("action"))
            call = self._add(time, "web_search", dict(action), call_id, source)
            call.observed = "ran" if item.get("status") == "completed" else None
            return
        name = item.get("name")
        if not isinstance(name, str) or not name:
            what = "without a name" if name in (None, "") else \
                f"whose name is not a string but {json.dumps(name)}"
            self.log.problem(display, number, f"{kind} {what}; call skipped")
            return
        if kind == "custom_tool_call":
            self._add(time, name, {"input": item.get("input")}, call_id, source)
            return
        self._add(time, name, self._arguments(display, number, name, item.get("arguments")),
                  call_id, source)

    def _arguments(self, display: str, number: int, name: str, text: Any) -> dict[str, Any]:
        """A function call's ``arguments``: JSON text of an object."""
        if isinstance(text, dict):
            return text
        try:
            args = json.loads(text) if isinstance(text, str) and text.strip() else {}
        except ValueError as exc:
            self.log.problem(display, number, f"the arguments of this {name} call are not "
                                              f"JSON ({exc}); call kept without arguments")
            return {}
        if not isinstance(args, dict):
            self.log.problem(display, number, f"the arguments of this {name} call are not a "
                                              "JSON object; call kept without arguments")
            return {}
        return args

    def _add(self, time: Any, tool: str, args: dict[str, Any], call_id: str | None,
             source: str) -> _Call:
        call = _Call(time, self.session, self.agent, tool, args, call_id, self.cwd, source)
        self.calls.append(call)
        return call

    def finish(self) -> None:
        """Every call, with the outcome its output tells."""
        for call in self.calls:
            observed = call.observed
            if observed is None and call.call_id is not None:
                observed = self.results.get(call.call_id)
            self.log.add(time=call.time, session=call.session, agent=call.agent,
                         tool=call.tool, args=call.args, observed=observed, cwd=call.cwd,
                         source=call.source)
        self.calls.clear()
        self.results.clear()


#: the envelope lines whose ``payload`` toolkit reads (an object in every Codex version)
_ENVELOPES = ("session_meta", "turn_context", "response_item")


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _subagent(meta: Mapping[str, Any]) -> str | None:
    """The agent of a subagent's thread (``SessionSource::SubAgent``): its role, else its
    nickname, else the kind (``review``, ``compact``); None for a user's session."""
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    if sub is None:
        return None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    for holder in (spawn, meta):
        if isinstance(holder, dict):
            for key in ("agent_role", "agent_type", "agent_nickname"):
                if isinstance(holder.get(key), str) and holder[key]:
                    return str(holder[key])
    if isinstance(sub, str):
        return sub
    if isinstance(sub, dict) and isinstance(sub.get("other"), str):
        return str(sub["other"])
    return "subagent"


def _observed(output: Any) -> str | None:
    """What a call's output says happened (see the module docstring)."""
    if isinstance(output, dict):  # the payload with ``success`` some versions wrote
        if output.get("success") is False and not _refused(str(output.get("content", ""))):
            return "error"
        output = output.get("content", "")
    if isinstance(output, list):  # content items
        output = "\n".join(str(i.get("text", "")) for i in output if isinstance(i, dict))
    if not isinstance(output, str):
        return None
    if _refused(output):
        return "denied"
    code = _exit_code(output)
    return "error" if code not in (None, 0) else "ran"


def _refused(text: str) -> bool:
    stripped = text.strip()
    return stripped.startswith(_REFUSALS) or bool(_FORBIDDEN.match(stripped))


def _exit_code(text: str) -> int | None:
    """The exit code of a shell tool's output: the JSON ``metadata.exit_code``, or the
    ``Exit code: N`` (``Process exited with code N``) line of the text formats' header."""
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        metadata = data.get("metadata") if isinstance(data, dict) else None
        if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
            return int(metadata["exit_code"])
    found = _EXIT_CODE.search(text.split("\nOutput:", 1)[0])  # the header, not the output
    return int(found.group(1)) if found else None
