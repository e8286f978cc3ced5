"""Name-level answers for replay: may this agent hold this tool in this request, and why?

The verdict of a root session's call is a cell of the project's own matrix
(``proj.effects()`` / ``proj.reasons()``, computed once, vectorised, for the
agents, group sets and states the log uses); a spawned session's comes from
``proj.resolve()`` under its parent's lineage. The rule behind a verdict is
what ``explain`` names, asked once per (agent, tool, verdict): the deciding
rule of an agent-level step does not depend on the request, and a group or
state rule is the tool's own.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..core.decision import Effect, Reason, Verdict, decide, effect_of_label
from ..core.explain import explain
from ..core.matrix import matrix_columns
from ..core.models import DEFAULT_GROUPS, DEFAULT_STATE, Rule, groups_label
from ..errors import UnknownAgentError

if TYPE_CHECKING:
    from ..core.resolve import Grant, Lineage, Resolution
    from ..policy import Policy

__all__ = ["Answer", "Coded", "NameLevel"]

#: (verdict, deciding rule, canonical name); a None verdict: the agent is not the project's.
Answer = tuple[Verdict | None, Rule | None, str | None]
_NOT_IN_POOL, _NO_AGENT, _NO_CELL = -1, -2, -3


class Coded:
    """A column as integer codes into its distinct values (``values = uniques[codes]``).

    Built once per column (``pandas.factorize``); conversions run once per distinct
    value, and every later step reuses the codes instead of hashing a million cells
    again. The last unique is the missing value's slot.
    """

    def __init__(self, codes: Any, uniques: Any) -> None:
        self.codes = codes
        self.uniques = uniques

    @classmethod
    def of(cls, values: Any, convert: Any = None) -> Coded:
        """Code an object array; ``convert`` (if given) maps each distinct value."""
        import numpy as np
        import pandas as pd

        try:
            codes, found = pd.factorize(values, use_na_sentinel=True)
        except TypeError:  # unhashable cells (lists): each its own value
            codes, found = np.arange(len(values)), values
        uniques = np.empty(len(found) + 1, dtype=object)
        for i, value in enumerate(found):  # one by one: a tuple must stay one cell
            uniques[i] = value if convert is None else convert(value)
        uniques[-1] = None if convert is None else convert(None)
        return cls(np.where(codes < 0, len(found), codes), uniques)

    def map(self, convert: Any) -> Coded:
        """The same codes over converted distinct values."""
        import numpy as np

        uniques = np.empty(len(self.uniques), dtype=object)
        for i, value in enumerate(self.uniques):
            uniques[i] = convert(value)
        return Coded(self.codes, uniques)

    @property
    def values(self) -> Any:
        """The column itself (an object array)."""
        return self.uniques[self.codes]

    def categorical(self) -> Any:
        """The column as a pandas Categorical, from the codes (no hashing of the rows)."""
        import pandas as pd

        merged, categories = pd.factorize(self.uniques, use_na_sentinel=True)
        return pd.Categorical.from_codes(merged[self.codes],
                                         categories=pd.Index(list(categories)))

    def take(self, index: Any) -> Coded:
        """The rows at ``index``."""
        return Coded(self.codes[index], self.uniques)

    def __len__(self) -> int:
        return len(self.codes)


class NameLevel:
    """The project's answers about tool names, for the agents and contexts of one log."""

    def __init__(self, proj: Policy, preset: str | None, agents: Sequence[str],
                 group_sets: Sequence[tuple[str, ...]], states: Sequence[str],
                 asked_groups: Iterable[str] | None = None) -> None:
        """``asked_groups``: the group names the log itself requests (None: every name of
        ``group_sets``); only those are warned about when no tool has them — the default
        request stands in for calls that log none, and nobody asked for it by name."""
        self.proj = proj
        self.asked_groups = None if asked_groups is None else frozenset(asked_groups)
        self.preset = preset
        self.agents = [a for a in dict.fromkeys(agents) if _known(proj, a)]
        self.group_sets = list(dict.fromkeys(group_sets)) or [DEFAULT_GROUPS]
        self.states = list(dict.fromkeys(states)) or [DEFAULT_STATE]
        self.notes: dict[str, None] = {}
        self._effects: Any = None
        self._labels: Any = None
        self._rows: dict[str, int] = {}
        self._columns: dict[tuple[str, str, str], int] = {}
        self._grants: dict[tuple[str, str], Grant] = {}
        self._resolutions: dict[tuple[Any, ...], Resolution] = {}
        self._rules: dict[tuple[Any, ...], tuple[Rule, Reason]] = {}

    def answer(self, agent: str, tool: str, groups: tuple[str, ...] | None, state: str,
               parent: str = "", lineage: Lineage | None = None
               ) -> tuple[Verdict, Rule, str | None]:
        """(verdict, deciding rule, canonical name) of ``agent`` calling ``tool``."""
        group_set = DEFAULT_GROUPS if groups is None else groups
        state = state or DEFAULT_STATE
        grant = self._grant(agent, parent, lineage)
        canonical = grant.canonical(tool)
        if canonical is None:
            verdict = decide({Reason.POOL})
        elif lineage is None:
            verdict = self._cell(agent, canonical, group_set, state)
        else:
            verdict = self._resolution(agent, group_set, state, parent, lineage).verdict(
                canonical)
        rule, reason = self._rule(grant, parent, tool, canonical, verdict, group_set, state)
        if verdict.effect is Effect.CONDITIONAL:  # the label does not say allow or approval
            verdict = Verdict(verdict.effect, reason)
        return verdict, rule, canonical

    def _grant(self, agent: str, parent: str, lineage: Lineage | None) -> Grant:
        key = (agent, parent)
        if key not in self._grants:
            self._grants[key] = self.proj.grant(agent, self.preset, lineage)
        return self._grants[key]

    def _resolution(self, agent: str, groups: tuple[str, ...], state: str, parent: str,
                    lineage: Lineage) -> Resolution:
        key = (agent, groups, state, parent)
        if key not in self._resolutions:
            found = self.proj.resolve(agent, groups=groups, state=state, parent=lineage,
                                      preset=self.preset)
            self.notes.update(dict.fromkeys(p.message for p in found.warnings
                                            if p.severity == "warning" and p.file is None))
            self._resolutions[key] = found
        return self._resolutions[key]

    def _cell(self, agent: str, canonical: str, groups: tuple[str, ...], state: str
              ) -> Verdict:
        if self._effects is None:
            self._tabulate()
        column = self._columns.get((agent, groups_label(groups), state))
        row = self._rows.get(canonical)
        if column is None or row is None:  # a context outside the table: ask resolve
            return self.proj.resolve(agent, groups=groups, state=state,
                                     preset=self.preset).verdict(canonical)
        return _verdict(str(self._labels[row, column]))

    def _asked(self, warning: str) -> bool:
        """False for an unknown-group warning about a group the log never requested."""
        if self.asked_groups is None:
            return True
        return not any(warning.startswith(f"requested group {g!r} ")
                       for gs in self.group_sets for g in gs if g not in self.asked_groups)

    def _tabulate(self) -> None:
        """The matrix of every agent × group set × state the log uses, as two arrays."""
        import pandas as pd

        presets = [self.preset] if self.preset is not None else None
        with warnings.catch_warnings(record=True) as caught:  # unknown group / state names
            warnings.simplefilter("always", UserWarning)
            effects = self.proj.effects(agents=self.agents, groups=self.group_sets,
                                        states=self.states, presets=presets)
            labels = self.proj.reasons(agents=self.agents, groups=self.group_sets,
                                       states=self.states, presets=presets)
        self.notes.update(dict.fromkeys(str(w.message) for w in caught
                                        if self._asked(str(w.message))))
        self._rows = {str(t): i for i, t in enumerate(effects.index)}
        triples = matrix_columns(effects, self.agents, self.group_sets, self.states)
        self._columns = {t: i for i, t in enumerate(triples)}
        self._effects = effects.to_numpy(dtype=object)
        self._labels = labels.to_numpy(dtype=object)
        codes, found = pd.factorize(self._labels.ravel())
        self._label_codes = codes.reshape(self._labels.shape)
        self._label_names = [str(v) for v in found]

    def _rule(self, grant: Grant, parent: str, tool: str, canonical: str | None,
              verdict: Verdict, groups: tuple[str, ...], state: str) -> tuple[Rule, Reason]:
        """The rule ``explain`` names for this verdict (once per agent, tool and verdict).

        A group or state step's rule is the tool's own (its ``groups`` or
        ``available_in_states`` line), whichever agent asks: explained once per tool.
        """
        if verdict.reason in (Reason.GROUP, Reason.STATE) and canonical is not None:
            key: tuple[Any, ...] = (canonical, verdict)
        else:
            key = (grant.agent.name, parent, canonical or tool, verdict)
        if key not in self._rules:
            d = explain(grant, tool, groups, state)
            self._rules[key] = (d.rule, d.reason)
        return self._rules[key]

    # -- every root call at once ----------------------------------------------------------------

    def classify(self, agents: Coded, tools: Coded, groups: Coded, states: Coded,
                 group_of: Any) -> tuple[Any, list[tuple[Any, ...]], list[Answer]]:
        """Root calls, vectorised: (row -> class, each class's (agent, tool, groups, state),
        each class's answer).

        A class is (agent, tool, matrix label): every call in it has the same
        verdict and the same deciding rule, so ``explain`` runs once per class,
        never per row. ``groups`` holds keys that ``group_of`` turns into group
        sets (None: the default request).
        """
        import numpy as np
        import pandas as pd

        if self._effects is None:
            self._tabulate()
        a_codes, a_names = agents.codes, agents.uniques
        t_codes, t_names = tools.codes, tools.uniques
        g_codes, g_keys = groups.codes, groups.uniques
        s_codes, s_names = states.codes, states.uniques
        pair = a_codes.astype(np.int64) * max(len(t_names), 1) + t_codes
        p_codes, p_values = pd.factorize(pair)
        rows, canonical = self._pairs(p_values, a_names, t_names)
        columns = np.full((len(a_names), len(g_keys), len(s_names)), _NO_CELL, dtype=np.int64)
        for a, agent in enumerate(a_names):
            for g, key in enumerate(g_keys):
                label = groups_label(group_of(key) or DEFAULT_GROUPS)
                for i, state in enumerate(s_names):
                    columns[a, g, i] = self._columns.get(
                        (str(agent), label, state or DEFAULT_STATE), _NO_CELL)
        row, column = rows[p_codes], columns[a_codes, g_codes, s_codes]
        found = (row >= 0) & (column >= 0)
        looked = (self._label_codes[np.maximum(row, 0), np.maximum(column, 0)]
                  if self._label_codes.size else np.full(len(row), _NO_CELL))
        cell = np.where(found, looked, np.where(row < 0, row, _NO_CELL))
        offset = -_NO_CELL
        klass, _ = pd.factorize(p_codes.astype(np.int64) * (len(self._label_names) + offset)
                                     + cell + offset)
        # factorize numbers classes in order of first appearance: a row opens a class when
        # its code exceeds every code before it (one pass, no sort)
        earlier = np.maximum.accumulate(np.concatenate(([-1], klass[:-1])))
        first_row = np.flatnonzero(klass > earlier)
        keys, answers = [], []
        for r in first_row.tolist():
            agent, tool = str(a_names[a_codes[r]]), str(t_names[t_codes[r]])
            key = (agent, tool, group_of(g_keys[g_codes[r]]), s_names[s_codes[r]])
            keys.append(key)
            answers.append(self._class_answer(key, int(cell[r]), canonical[p_codes[r]]))
        return klass, keys, answers

    def _pairs(self, pairs: Any, agents: Any, tools: Any) -> tuple[Any, list[str | None]]:
        """Each distinct (agent, tool): its matrix row (or why it has none), canonical name."""
        import numpy as np

        rows = np.empty(len(pairs), dtype=np.int64)
        canonical: list[str | None] = []
        width = max(len(tools), 1)
        for i, value in enumerate(pairs.tolist()):
            agent, tool = str(agents[value // width]), str(tools[value % width])
            if not _known(self.proj, agent):
                rows[i] = _NO_AGENT
                canonical.append(None)
                continue
            name = self._grant(agent, "", None).canonical(tool)
            canonical.append(name)
            rows[i] = self._rows.get(name, _NOT_IN_POOL) if name is not None else _NOT_IN_POOL
        return rows, canonical

    def _class_answer(self, key: tuple[Any, ...], cell: int, canonical: str | None) -> Answer:
        agent, tool, groups, state = key
        if cell == _NO_AGENT:
            return None, None, None
        if cell == _NO_CELL:  # a context or tool the table lacks: ask one by one
            verdict, rule, canonical = self.answer(agent, tool, groups, state)
            return verdict, rule, canonical
        verdict = decide({Reason.POOL}) if cell == _NOT_IN_POOL else _verdict(
            self._label_names[cell])
        grant = self._grant(agent, "", None)
        rule, reason = self._rule(grant, "", tool, canonical, verdict,
                                  groups or DEFAULT_GROUPS, state or DEFAULT_STATE)
        if verdict.effect is Effect.CONDITIONAL:
            verdict = Verdict(verdict.effect, reason)
        return verdict, rule, canonical


def _verdict(label: str) -> Verdict:
    """The verdict a matrix label stands for (``conditional``'s step is refined by explain)."""
    effect = effect_of_label(label)
    if label in ("implicit", "conditional"):
        return Verdict(effect, Reason.ALLOW)
    return Verdict(effect, Reason(label))


def _known(proj: Policy, name: str) -> bool:
    """Whether the project answers for agent ``name``: one of its own, or one its system
    defines for every project (Claude Code's built-in subagents), asked by name."""
    try:
        proj.agent(name)
    except UnknownAgentError:
        return False
    return True
