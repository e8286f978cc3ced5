"""Sessions: one agent running one request, at a depth in a spawn tree.

A session fixes its pool snapshot when it is built; tools that appear later
join only the next session (SPEC section 4 step 1). Its tool set follows its
state: after a successful call the tool's ``state`` becomes the session's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.models import Request, User, groups_label, normalize_groups
from ..core.resolve import Grant, Lineage, Resolution, resolve_request
from ..errors import AccessDeniedError, ToolkitError

if TYPE_CHECKING:
    from .project import Project

__all__ = ["Session"]


class Session:
    """An agent context: ``id``, ``depth``, ``state``, ``allowed``; ``spawn`` children.

    >>> # s = proj.start("orchestrator", groups=["knowledge"])
    >>> # child = s.spawn("researcher"); child.id  -> "orchestrator.researcher"
    """

    def __init__(self, project: Project, agent: str, request: Request, grant: Grant,
                 session_id: str, parent: Session | None = None) -> None:
        self.project = project
        self.agent = agent
        self.request = request
        self.grant = grant
        self.id = session_id
        self.parent = parent
        self.depth = grant.depth
        self.pool = grant.pool  # the snapshot, fixed for the session's life
        self.children: list[Session] = []
        self.history: list[dict[str, Any]] = []
        self.closed = False
        self._state = request.state
        self._resolution: Resolution | None = None
        self._child_names: dict[str, int] = {}
        self.approval: Callable[[str, dict[str, Any]], bool] | None = None

    # -- what the session may do now ----------------------------------------------------------

    @property
    def groups(self) -> tuple[str, ...]:
        """The request's groups."""
        return self.request.groups

    @property
    def user(self) -> User | None:
        """The user the request is made for, if any."""
        return self.request.user

    @property
    def state(self) -> str:
        """The current workflow state."""
        return self._state

    @property
    def resolution(self) -> Resolution:
        """The tool set for the current state (recomputed after each transition)."""
        if self._resolution is None or self._resolution.state != self._state:
            self._resolution = resolve_request(self.grant, self.request.groups, self._state)
        return self._resolution

    @property
    def allowed(self) -> frozenset[str]:
        """Canonical names of the tools the session may call now (``ask`` tools included)."""
        return self.resolution.allowed

    def child_lineage(self) -> Lineage:
        """What a child of this session inherits (used by ``proj.resolve(parent=...)``)."""
        ancestors = (*(self.grant.lineage.ancestors if self.grant.lineage else ()),
                     self.grant.agent)
        return Lineage(id=self.id, depth=self.depth, ancestors=ancestors,
                       ceiling=self.allowed, groups=self.request.groups, state=self._state,
                       max_depth=self.grant.max_depth)

    def transition(self, to: str | None, tool: str) -> None:
        """Move to ``to`` after a successful call of ``tool`` (no-op when ``to`` is None)."""
        if to is None or to == self._state:
            return
        self.history.append({"event": "transition", "tool": tool, "from": self._state, "to": to})
        self._state = to

    # -- the spawn tree -----------------------------------------------------------------------

    def spawn(self, name: str, groups: Any = None, state: str | None = None) -> Session:
        """Start agent ``name`` as a child: depth + 1, the rules of SPEC section 4.

        The child inherits this session's request; it may narrow the groups,
        never widen them (``AccessDeniedError``).
        """
        self._check_open()
        child_groups = self.request.groups if groups is None else normalize_groups(groups)
        if "*" not in self.request.groups:
            extra = [g for g in child_groups if g not in self.request.groups]
            if extra:
                self.project._refuse(self, f"spawn of {name!r} asks for groups {extra} beyond "
                                           f"its parent's {list(self.request.groups)}",
                                     escalation=True)
        request = Request(groups=child_groups, state=state or self._state,
                          user=self.request.user)
        count = self._child_names.get(name, 0) + 1
        self._child_names[name] = count
        child_id = f"{self.id}.{name}" + (f".{count}" if count > 1 else "")
        grant = self.project.child_grant(name, self.child_lineage(), pool=self.pool)
        child = Session(self.project, name, request, grant, child_id, parent=self)
        self.children.append(child)
        self.project._opened(child)
        return child

    def close(self) -> None:
        """End this session and its children (their records stay readable)."""
        if self.closed:
            return
        for child in self.children:
            child.close()
        self.closed = True
        self.project._closed(self)

    def _check_open(self) -> None:
        if self.closed:
            raise ToolkitError(f"session {self.id!r} is closed; start a new one")

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<Session {self.id} depth={self.depth} groups={groups_label(self.groups)} "
                f"state={self.state} tools={len(self.allowed)}>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        bundle = self.resolution._repr_mimebundle_()
        bundle["text/plain"] = f"{self!r}\n{bundle['text/plain']}"
        return bundle


def check_user(user: User | None, groups: tuple[str, ...]) -> None:
    """Refuse a request whose groups exceed the user's permitted groups."""
    if user is not None and not user.permits(groups):
        extra = [g for g in groups if g not in user.groups]
        raise AccessDeniedError(f"user {user.name!r} may not request groups {extra}: permitted "
                                f"groups are {list(user.groups)}")
