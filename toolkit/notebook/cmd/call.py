"""``%tk call TOOL [JSON]``: call a tool as the current session (``{}`` when no JSON).

The session answers a blocked tool exactly like a missing one (``tool not
found``), so an agent learns nothing about tools it may not use. The person
at the notebook may: the cell fails with the same words, followed by why the
tool is blocked (the deciding step of ``explain``) or, for a name the project
does not have, the nearest names.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ...errors import ServerUnavailableError, ToolNotFoundError, nearest_names
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    from ...core.explain import Decision
    from ...runtime.builtins import CallResult
    from ...runtime.project import Project
    from ...runtime.session import Session

HELP = ("%tk call TOOL [JSON object of arguments]   e.g. "
        "%tk call knowledge-query {\"query\": \"Acme\"}")


@subcommand("call", "call TOOL [JSON]")
def run(magics: MagicState, rest: str, cell: str | None) -> CallResult:
    """``session.call(tool, args)``; a blocked or unknown tool fails the cell saying why."""
    tool, _, raw = rest.partition(" ")
    if not tool or tool in ("-h", "--help"):
        raise UsageError(HELP)
    arguments = _arguments(raw)
    session = magics.require_session()
    try:
        return session.call(tool, arguments)
    except ServerUnavailableError as exc:  # the tool is the session's; its server is down
        raise UsageError(f"{exc.name}: MCP server {exc.server!r} is not connected "
                         f"({exc.reason}); %tk connect {exc.server} restarts it") from None
    except ToolNotFoundError as exc:
        raise UsageError(not_found_message(magics.require_project(), session, exc)) from None


def _arguments(raw: str) -> dict[str, Any]:
    """The call's arguments: a JSON object, ``{}`` when there is no text."""
    if not raw.strip():
        return {}
    try:
        arguments = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"%tk call: arguments must be a JSON object: {exc}") from None
    if not isinstance(arguments, dict):
        raise UsageError("%tk call: arguments must be a JSON object, not "
                         f"{type(arguments).__name__}")
    return arguments


def not_found_message(project: Project, session: Session, exc: ToolNotFoundError) -> str:
    """The agent-facing ``tool not found: X`` plus, for the person, why (or what was meant).

    For example (tested in ``tests/notebook/test_magics.py``)::

        tool not found: reset-workflow — blocked for this session: not available in this
          state: state 'results' is not in available_in_states ['undefined'] (tools.yaml:31) —
          %tk explain react-agent reset-workflow --groups '*' --state results
    """
    # The child's lineage as it was at spawn time, so the answer is the session's own.
    decision = project.explain(session.agent, exc.name, groups=session.groups,
                               state=session.state, parent=session.grant.lineage)
    if decision.canonical is None:
        return f"{exc} — {_nearest(project, session, exc.name)}"
    return f"{exc} — {_blocked(session, decision)}"


def _blocked(session: Session, decision: Decision) -> str:
    """Why the session may not call a tool the project has."""
    if decision.allowed:  # allowed now, but not in the pool snapshot the session started with
        return ("it joined the project after this session started; a session keeps the tools "
                "it started with: %tk start a new session")
    from ...core.decision import reason_words  # not at import: %load_ext stays cheap

    where = f" ({decision.rule.where})" if decision.rule.file else ""
    why = (f"blocked for this session: {reason_words(decision.effect, decision.reason)}: "
           f"{decision.message}{where}")
    if session.parent is not None:  # %tk explain cannot name a child's lineage; `why` does
        return why
    groups = ",".join(decision.groups) or "none"
    return (f"{why} — %tk explain {session.agent} {decision.tool} --groups '{groups}' "
            f"--state {decision.state}")


def _nearest(project: Project, session: Session, name: str) -> str:
    """The nearest names among the session's tools, then the project's; or what it may call."""
    allowed = sorted(session.allowed)
    others = [t for t in project.tools if t not in session.allowed]
    hint = nearest_names(name, allowed + others)
    if hint:
        return f"no such tool in the project{hint}"
    return (f"no such tool in the project; this session may call: "
            f"{', '.join(allowed) or '(nothing)'}")
