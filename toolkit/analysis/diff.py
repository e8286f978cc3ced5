"""Policy diff: what would change, cell by cell, between two versions of a project.

``tk.diff(old, new)`` tabulates both versions over the same agents × tools ×
contexts (each version under its own preset) with each project's own
``effects()`` — the matrix every other view shows — and keeps the cells whose
effect differs, with the rule that decided each side (``explain``). ``new_access``
is the counterexample list a CI gate wants: every (agent, tool, context) that
is more permissive now than before, each with a ``witness`` call where argument
rules decide it. ``arguments`` compares the argument rules themselves, exactly
(:mod:`toolkit.analysis.witness`): a tool whose cell reads ``conditional`` before
and after may still let through calls it did not; those calls are new access too,
one row for the main conversation (``(main)``) and one per agent holding the tool.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.decision import Effect, Reason, decide
from ..core.matrix import matrix_columns
from ..core.models import DEFAULT_GROUPS, groups_label, rule_label
from .transcripts import MAIN

if TYPE_CHECKING:
    import pandas as pd

    from ..policy import Policy

__all__ = ["PolicyDiff", "diff", "more_permissive"]

#: How permissive each effect is: a change upwards is new access.
_RANK = {Effect.DENY.value: 0, Effect.IMPLICIT_DENY.value: 0, Effect.ASK.value: 1,
         Effect.CONDITIONAL.value: 2, Effect.ALLOW.value: 3}
#: A tool a version's pool does not hold: what ``explain`` says of any such name.
_NOT_IN_POOL = decide({Reason.POOL}).effect.value
NO_AGENT = "(no agent)"
COLUMNS = ["agent", "tool", "context", "before", "after", "rule_before", "rule_after",
           "reason_before", "reason_after", "groups", "state", "witness", "runtime"]
#: The context of a row about calls rather than a matrix cell (argument rules).
CALL_CONTEXT = "calls"


def more_permissive(before: str | None, after: str | None) -> bool:
    """Whether ``after`` grants more than ``before``: a denied tool now granted (allow,
    ask or conditional), or an ask / conditional tool that now runs unasked.

    >>> more_permissive(Effect.IMPLICIT_DENY, Effect.ASK), more_permissive(Effect.ALLOW, Effect.ASK)
    (True, False)
    """
    return _RANK.get(after or "", 0) > _RANK.get(before or "", 0)


def _as_policy(value: Any) -> Policy:
    """A project given as a path is loaded (a Claude Code project with its settings layers)."""
    if isinstance(value, (str, os.PathLike)):
        from ..policy import load_policy

        return load_policy(value)
    return value  # type: ignore[no-any-return]


def diff(old: Any, new: Any, *, groups: Any = None, states: Sequence[str] | None = None,
         agents: Sequence[str] | None = None, runtime: str | None = None) -> PolicyDiff:
    """Every agent × tool × context whose effect differs between ``old`` and ``new``.

    ``old`` / ``new``: a Project (or Policy) or a path to load. Contexts are
    group sets × states: by default the default request, each group alone and
    ``*``, in every state either version knows. Each version is evaluated under
    its own preset (a preset change is a policy change). ``runtime``: both versions under
    that runtime's settings (``explain(..., runtime=)``); None: each version's default
    runtime, or, when both hold several runtimes, each runtime they share in turn (the
    ``runtime`` column says which; it is None for a default-runtime comparison).

    >>> import toolkit as tk
    >>> old, new = tk.load("toolkit/examples/claude-code"), tk.load("toolkit/examples/claude-code")
    >>> _ = new.add_agent("---\\nname: helper\\ndescription: Reads and fetches.\\n"
    ...                   "tools: Read, WebFetch\\n---\\nHelps.")
    >>> d = tk.diff(old, new)
    >>> sorted(set(zip(d.new_access.agent, d.new_access.tool, d.new_access.after)))
    [('helper', 'Read', 'allow'), ('helper', 'WebFetch', 'allow')]
    """
    before, after = _as_policy(old), _as_policy(new)
    agent_names = list(agents) if agents is not None else list(dict.fromkeys(
        [*before.agents, *after.agents]))
    group_sets = _group_sets(groups, before, after)
    state_list = list(states) if states is not None else sorted(
        set(before.states) | set(after.states))
    return PolicyDiff(before, after, agent_names, group_sets, state_list,
                      _runtimes(before, after, runtime))


def _runtimes(before: Policy, after: Policy, runtime: str | None) -> list[str | None]:
    """The runtimes to compare under: the one named, each one two multi-runtime versions
    share, else [None] (each version's default)."""
    if runtime is not None:
        for policy in (before, after):
            policy.runtime_names([runtime])  # ValueError: a runtime without an engine
        return [runtime]
    if len(before.runtimes) > 1 and len(after.runtimes) > 1:
        shared = [r for r in before.runtimes if r in after.runtimes]
        if shared:
            return list(shared)
    return [None]


def _group_sets(groups: Any, *policies: Policy) -> list[tuple[str, ...]]:
    if groups is not None:
        from ..core.models import normalize_groups

        items = [groups] if isinstance(groups, str) else list(groups)
        if items and all(isinstance(g, (list, tuple)) for g in items):
            return [tuple(g) for g in items]
        return [normalize_groups(items)]
    names = sorted({g for p in policies for g in p.groups} - set(DEFAULT_GROUPS))
    return list(dict.fromkeys([DEFAULT_GROUPS, *((g,) for g in names), ("*",)]))


class PolicyDiff:
    """Two versions of a policy compared cell by cell (``tk.diff``).

    - ``changes``: one row per (agent, tool, context) whose effect differs:
      before, after, the deciding rule of each side (``rule (file:line)``) and its step;
    - ``new_access``: the rows of ``changes`` that grant more than before
      (see :func:`more_permissive`) — what ``toolmatrix diff --fail-on-new-access``
      fails on;
    - ``agents_added`` / ``agents_removed``, ``tools_added`` / ``tools_removed``.
    """

    def __init__(self, old: Policy, new: Policy, agents: list[str],
                 groups: list[tuple[str, ...]], states: list[str],
                 runtimes: Sequence[str | None] = (None,)) -> None:
        self.old, self.new = old, new
        #: the runtimes compared under (None: each version's default runtime)
        self.runtimes = list(runtimes)
        self.agents, self.groups, self.states = agents, groups, states
        self.agents_added = [a for a in agents if a in new.agents and a not in old.agents]
        self.agents_removed = [a for a in agents if a in old.agents and a not in new.agents]
        self.tools_added = sorted(set(new.tools) - set(old.tools))
        self.tools_removed = sorted(set(old.tools) - set(new.tools))
        self.changes = self._changes()
        self._arguments: list[Any] | None = None
        self._new_access: pd.DataFrame | None = None

    @property
    def comparisons(self) -> list[Any]:
        """The argument rules compared tool by tool (:class:`~toolkit.analysis.witness.
        Comparison` each), worked out once."""
        if self._arguments is None:
            from .witness import compare_arguments

            self._arguments = compare_arguments(self.old, self.new)
        return self._arguments

    @property
    def arguments(self) -> pd.DataFrame:
        """One row per tool argument whose rules differ: ``relation`` (equal, narrower, broader,
        incomparable, unknown), a verified ``witness`` call NEW decides more permissively,
        both effects and deciding rules, ``exact`` and a ``note``."""
        import pandas as pd

        from .witness import ARGUMENT_COLUMNS

        return pd.DataFrame([c.row() for c in self.comparisons], columns=list(ARGUMENT_COLUMNS))

    @property
    def implies(self) -> bool | None:
        """Whether NEW is at most as permissive as OLD in its argument rules (NEW implies OLD,
        as Cedar's analyzer says of policy sets): False when a verified witness shows a call
        NEW lets through, True when every comparison is exact and none grows, else None."""
        found = self.comparisons
        if any(c.witness is not None for c in found):
            return False
        if all(c.exact and c.relation in ("equal", "narrower") for c in found):
            return True
        return None

    @property
    def new_access(self) -> pd.DataFrame:
        """Cells more permissive now than before, and calls argument rules now let through
        that they did not (context ``calls``): the counterexamples to "no new access", each
        with a ``witness`` call where argument rules decide it."""
        if self._new_access is None:
            import pandas as pd

            rows = [more_permissive(b, a) for b, a in zip(self.changes["before"],
                                                          self.changes["after"], strict=True)]
            cells = self.changes.loc[[bool(r) for r in rows] or slice(0, 0)].copy()
            cells["witness"] = pd.Series([self._witness(a, t) for a, t in zip(
                cells["agent"], cells["tool"], strict=True)], index=cells.index, dtype=object)
            calls = pd.DataFrame(self._call_rows(), columns=COLUMNS)
            frames = [f for f in (cells, calls) if len(f)]
            self._new_access = (pd.concat(frames, ignore_index=True) if frames
                                else cells.reset_index(drop=True))
        return self._new_access

    def _witness(self, agent: str, tool: str) -> dict[str, Any] | None:
        """A call ``agent`` may now make of ``tool`` and could not before, where argument rules
        decide it (None for a tool no argument rule speaks of)."""
        from .witness import find_witness, granted_regions

        key = (agent, tool)
        cache = self.__dict__.setdefault("_witnesses", {})
        if key not in cache:
            cache[key] = None
            name = None if agent == MAIN else agent
            known = name is None or name in self.old.agents
            for runtime, field, regions in self._regions(tool, granted_regions):
                call, *_ = find_witness(self.old, self.new, regions, tool, field,
                                        runtime=runtime, agent=name, old_agent=known)
                if call is not None:
                    cache[key] = call
                    break
        found: dict[str, Any] | None = cache[key]
        return found

    def _regions(self, tool: str, granted: Any) -> list[tuple[str, str | None, list[Any]]]:
        """Where to look for a witness of ``tool``: what NEW's argument rules let through and
        OLD's do not, then whatever NEW's rules grant."""
        out = [(c.runtime, c.field, c.region) for c in self.comparisons
               if c.tool == tool and c.region]
        found: list[tuple[str, str | None, list[Any]]] = granted(self.new, tool)
        return out + found

    def _call_rows(self) -> list[dict[str, Any]]:
        """New access by argument rules alone: for each tool with a verified witness, the main
        conversation and every agent holding the tool before and after (a cell already in
        ``changes`` is not repeated)."""
        from .witness import verify_call

        rows = []
        changed = set(zip(self.changes["agent"], self.changes["tool"], strict=True))
        for c in self.comparisons:
            if c.witness is None:
                continue
            rows.append(_call_row(MAIN, c.tool, c.witness, (c.before, c.rule_before,
                                                             c.reason_before),
                                  (c.after, c.rule_after, c.reason_after)))
            for agent in self.agents:
                if (agent, c.tool) in changed or not _holds(self.old, agent, c.tool) or \
                        not _holds(self.new, agent, c.tool):
                    continue
                call = self._witness(agent, c.tool)
                if call is None:
                    continue
                _, before, after = verify_call(self.old, self.new, call, runtime=c.runtime,
                                               agent=agent)
                rows.append(_call_row(agent, c.tool, call, _side_of(before), _side_of(after)))
        return rows

    def _grid(self, policy: Policy, tools: list[str], columns: list[tuple[str, str, str]],
              runtime: str | None = None) -> Any:
        """Effects as an object array [tool, (agent, groups, state)] over the union's axes."""
        import numpy as np
        import pandas as pd

        present = [a for a in self.agents if a in policy.agents]
        index = pd.MultiIndex.from_tuples(columns, names=["agent", "groups", "state"])
        grid = pd.DataFrame(_NOT_IN_POOL, index=pd.Index(tools), columns=index, dtype=object)
        if present and len(policy.tools):
            with warnings.catch_warnings():  # a group or state only the other version knows
                warnings.simplefilter("ignore", UserWarning)
                frame = policy.effects(agents=present, groups=self.groups, states=self.states,
                                       runtimes=None if runtime is None else [runtime])
            frame.columns = pd.MultiIndex.from_tuples(
                matrix_columns(frame, present, self.groups, self.states))
            grid.update(frame.reindex(index=grid.index, columns=index))
        values = grid.to_numpy(dtype=object, copy=True)
        missing = np.array([a not in policy.agents for a, _, _ in columns], dtype=bool)
        values[:, missing] = NO_AGENT
        return values

    def _changes(self) -> pd.DataFrame:
        import numpy as np
        import pandas as pd

        tools = sorted(set(self.old.tools) | set(self.new.tools))
        labels = {groups_label(g): g for g in self.groups}
        columns = [(a, label, s) for a in self.agents for label in labels for s in self.states]
        if not tools or not columns:
            return pd.DataFrame(columns=COLUMNS)
        rows = []
        for runtime in self.runtimes:
            before = self._grid(self.old, tools, columns, runtime)
            after = self._grid(self.new, tools, columns, runtime)
            cache: dict[tuple[int, str, str, str], tuple[str, str]] = {}
            shown = "" if runtime is None else f"runtime {runtime} / "
            for t, c in zip(*np.nonzero(before != after), strict=True):
                agent, label, state = columns[c]
                tool = tools[t]
                rb, sb = self._rule(0, self.old, agent, tool, labels[label], state, cache,
                                    runtime)
                ra, sa = self._rule(1, self.new, agent, tool, labels[label], state, cache,
                                    runtime)
                rows.append({"agent": agent, "tool": tool,
                             "context": f"{shown}groups {label} / state {state}",
                             "before": before[t, c], "after": after[t, c], "rule_before": rb,
                             "rule_after": ra, "reason_before": sb, "reason_after": sa,
                             "groups": label, "state": state, "witness": None,
                             "runtime": runtime})
        return pd.DataFrame(rows, columns=COLUMNS)

    @staticmethod
    def _rule(side: int, policy: Policy, agent: str, tool: str, groups: tuple[str, ...],
              state: str, cache: dict[tuple[int, str, str, str], tuple[str, str]],
              runtime: str | None = None) -> tuple[str, str]:
        """(deciding rule with its location, deciding step) of one side of a cell."""
        if agent not in policy.agents:
            return "", "agent"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            d = policy.explain(agent, tool, groups=groups, state=state, runtime=runtime)
        # agent-level steps do not depend on the context: explain once per step
        key = (side, agent, tool, d.reason.value)
        if key not in cache:
            label = rule_label(d.rule)
            cache[key] = ((f"{label} ({d.rule.where})" if d.rule.file else label) or
                          d.message, d.reason.value)
        return cache[key]

    def summary(self) -> str:
        """One paragraph: how many cells changed, how many grant new access (calls argument
        rules now let through included), what was added."""
        calls = int((self.new_access["context"] == CALL_CONTEXT).sum())
        parts = [f"{len(self.changes)} cell(s) changed, {len(self.new_access) - calls} grant "
                 "new access"]
        if calls:
            parts.append(f"argument rules let through new calls: {calls} row(s)")
        for what, names in (("agents added", self.agents_added),
                            ("agents removed", self.agents_removed),
                            ("tools added", self.tools_added),
                            ("tools removed", self.tools_removed)):
            if names:
                parts.append(f"{what}: {', '.join(names)}")
        return "; ".join(parts)

    def implication(self) -> str:
        """One line: whether NEW implies OLD in its argument rules, with a witness if not."""
        from .witness import describe_call

        verdict = self.implies
        if verdict is True:
            return ("NEW implies OLD: its argument rules let through no call OLD's do not "
                    "(decided exactly on the rule languages)")
        if verdict is False:
            c = next(c for c in self.comparisons if c.witness is not None)
            return (f"NEW does not imply OLD: {describe_call(c.witness)} is {c.after} under NEW "
                    f"({c.rule_after}) and {c.before} under OLD ({c.rule_before})")
        unknown = [c for c in self.comparisons if c.relation == "unknown" or not c.exact]
        why = unknown[0].note if unknown else next(
            (c.note for c in self.comparisons if c.relation in ("broader", "incomparable")), "")
        return f"whether NEW implies OLD is not decided exactly: {why}"

    def __repr__(self) -> str:
        return f"<PolicyDiff {self.summary()}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from ..core.display import html

        text = self.summary()
        if len(self.changes):
            text += "\n" + self.changes[["agent", "tool", "context", "before", "after"]
                                        ].to_string(index=False)
        return {"text/plain": text, "text/html": html(self)}


def _holds(policy: Policy, agent: str, tool: str) -> bool:
    """Whether ``agent`` holds ``tool`` in ``policy`` (its default request)."""
    if agent not in policy.agents or tool not in policy.tools:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return policy.explain(agent, tool).effect.granted


def _side_of(decision: Any) -> tuple[str, str, str]:
    """(effect, deciding rule, deciding step) of one side's decision of a witness call."""
    from .witness import decision_rule

    return decision.effect.value, decision_rule(decision), decision.reason.value


def _call_row(agent: str, tool: str, call: dict[str, Any], before: tuple[Any, str, str],
              after: tuple[Any, str, str]) -> dict[str, Any]:
    """A row of ``new_access`` about calls (context ``calls``): the witness and both sides."""
    return {"agent": agent, "tool": tool, "context": CALL_CONTEXT, "before": before[0],
            "after": after[0], "rule_before": before[1], "rule_after": after[1],
            "reason_before": before[2], "reason_after": after[2], "groups": "", "state": "",
            "witness": call}
