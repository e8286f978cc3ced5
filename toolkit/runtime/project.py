"""``Project``: a loaded policy plus the sessions running under it.

``tk.load`` returns one. The pure questions (``resolve``, ``explain``,
``matrix``) come from :class:`toolkit.core.policy.Policy`; this class adds
sessions (``start``, ``switch``, ``close``).
"""

from __future__ import annotations

import os
from typing import Any

from ..core.loaders import load_definitions
from ..core.models import Request, User, normalize_groups
from ..core.policy import Policy
from ..core.presets import Preset
from ..errors import AccessDeniedError
from .session import Session, check_user

__all__ = ["Project", "load"]


class Project(Policy):
    """A project: agents, tools, servers, and the sessions started under it."""

    def __init__(self, defs: Any, preset: str | Preset | None = None) -> None:
        super().__init__(defs, preset)
        self.sessions: dict[str, Session] = {}
        self.active: Session | None = None

    def user(self, name: str) -> User:
        """The manifest's user ``name`` with its permitted groups."""
        if name not in self.users:
            known = ", ".join(sorted(self.users)) or "(none)"
            raise AccessDeniedError(f"unknown user {name!r}; users in the manifest: {known}")
        return User(name, groups=self.users[name])

    def start(self, agent: str, groups: Any = None, state: str | None = None,
              user: User | str | None = None) -> Session:
        """Start a root session of ``agent`` for a request; its id is the agent's name."""
        if isinstance(user, str):
            user = self.user(user)
        group_set = normalize_groups(groups)
        try:
            check_user(user, group_set)
        except AccessDeniedError as exc:
            self._refuse(None, str(exc), escalation=True, error=exc)
        request = Request(groups=group_set, state=state or "undefined", user=user)
        grant = self.grant(agent)
        session_id = agent
        count = 1
        while session_id in self.sessions and not self.sessions[session_id].closed:
            count += 1
            session_id = f"{agent}.{count}"
        session = Session(self, agent, request, grant, session_id)
        self._opened(session)
        self.active = session
        return session

    def switch(self, agent: str, groups: Any = None, state: str | None = None,
               user: User | str | None = None) -> Session:
        """Close the active session (and its children) and start ``agent``."""
        if self.active is not None:
            self.active.close()
        return self.start(agent, groups, state, user)

    def close(self) -> None:
        """End every session of the project."""
        for session in list(self.sessions.values()):
            if session.parent is None:
                session.close()
        self.active = None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<Project {self.root!r} preset={self.preset.name} agents={len(self.agents)} "
                f"tools={len(self.tools)} servers={len(self.server_configs)}>")

    # -- bookkeeping, used by sessions --------------------------------------------------------

    def _opened(self, session: Session) -> None:
        self.sessions[session.id] = session

    def _closed(self, session: Session) -> None:
        if self.active is session:
            self.active = None

    def _refuse(self, session: Session | None, message: str, *, escalation: bool = False,
                error: AccessDeniedError | None = None) -> None:
        raise error or AccessDeniedError(message)


def load(path: str | os.PathLike[str], preset: str | Preset | None = None) -> Project:
    """Load a project folder or a single definition file.

    >>> # proj = tk.load("toolkit/examples/trustgraph")
    >>> # proj.resolve("react-agent", groups=["read-only", "knowledge"]).allowed

    ``preset=None`` means the manifest's preset, else ``strict``. Bad input
    raises ``DefinitionError`` naming every file and line to fix.
    """
    return Project(load_definitions(path), preset)
