"""The tool matrix: every tool × agent × group set × state × preset at once.

Built from grants (each agent's compiled rules, computed once per preset) and
per-context masks, combined with numpy broadcasting, never a per-pair
``fnmatch`` loop. pandas and numpy are imported here, lazily, not by
``import toolkit``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from .decision import LABELS, STEPS, VERDICTS, Reason, decide
from .models import Tool, groups_label
from .resolve import Grant, group_ok, state_ok

if TYPE_CHECKING:
    import pandas as pd

#: The cells' int8 codes index :data:`~toolkit.core.decision.VERDICTS`: 0 allow, 1 ask, then
#: one code per failing step. The precedence among steps is decide()'s, applied below in
#: STEPS order, and a test checks every combination against decide() itself.
_CODE = {v: i for i, v in enumerate(VERDICTS)}
_ALLOW, _ASK = _CODE[decide()], _CODE[decide(asks=True)]
_FAIL: dict[Reason, int] = {s: _CODE[decide({s})] for s in STEPS if s is not Reason.APPROVAL}
_GRANT_STEPS = (Reason.DENY, Reason.ALLOW, Reason.CEILING, Reason.COORDINATION)
_REQUEST_STEPS = (Reason.GROUP, Reason.STATE)
# The vectorised code below applies the agent-level steps before the request's; that is
# only right while STEPS orders them so.
assert max(map(STEPS.index, _GRANT_STEPS)) < min(map(STEPS.index, _REQUEST_STEPS))


def first_failure(fails: dict[Reason, Any], passed: Any) -> Any:
    """Vectorised :func:`decide`: ``fails[step]`` boolean arrays -> the code of the first
    failing step in STEPS order, else ``passed`` (the allowed code, same shape)."""
    import numpy as np

    codes = passed
    for step in reversed(STEPS):
        if step in fails:  # int8 operands keep the result int8 (1 byte per cell)
            codes = np.where(fails[step], np.int8(_FAIL[step]), codes)
    return codes


def _grant_failures(grant: Grant, idx: Any, n: int) -> dict[Reason, Any]:
    """Boolean arrays over the tools: which agent-level steps each tool fails."""
    import numpy as np

    def mask(names: Any) -> Any:
        out = np.zeros(n, dtype=bool)
        if names:  # most are empty (and a grant of added tools often is)
            out[idx(names)] = True
        return out

    return {Reason.DENY: mask(grant.denied), Reason.ALLOW: ~mask(grant.allowed),
            Reason.CEILING: mask(grant.outside_ceiling),
            Reason.COORDINATION: mask(grant.stripped)}


def build(tool_names: Sequence[str], tools: dict[str, Tool],
          grants: Sequence[Sequence[Grant]], presets: Sequence[str], agents: Sequence[str],
          contexts: Sequence[tuple[tuple[str, ...], str]]) -> Any:
    """Verdict codes as an int8 array [tool, agent, context, preset] (``grants[preset][agent]``)."""
    import numpy as np

    n = len(tool_names)
    position = {name: i for i, name in enumerate(tool_names)}
    n_presets, n_agents, n_contexts = len(presets), len(agents), len(contexts)
    agent_codes = np.empty((n, n_presets, n_agents), dtype=np.int8)

    def idx(names: Any) -> Any:
        return np.fromiter((position[t] for t in names if t in position), dtype=np.intp)

    for p, row in enumerate(grants):
        for a, grant in enumerate(row):
            asks = np.zeros(n, dtype=bool)
            if grant.ask:
                asks[idx(grant.ask)] = True
            passed = np.where(asks, np.int8(_ASK), np.int8(_ALLOW))
            agent_codes[:, p, a] = first_failure(_grant_failures(grant, idx, n), passed)

    group_pass = np.ones((n, n_contexts), dtype=bool)
    state_pass = np.ones((n, n_contexts), dtype=bool)
    by_groups: dict[tuple[str, ...], list[bool]] = {}  # contexts repeat group sets and states
    by_state: dict[str, list[bool]] = {}
    for c, (groups, state) in enumerate(contexts):
        if groups not in by_groups:
            by_groups[groups] = [group_ok(tools[t], groups) for t in tool_names]
        if state not in by_state:
            by_state[state] = [state_ok(tools[t], state) for t in tool_names]
        group_pass[:, c] = by_groups[groups]
        state_pass[:, c] = by_state[state]

    # Every operand is int8 (numpy scalars, not Python ints), so no temporary is widened
    # to int64: the full array is 1 byte per cell and the peak stays a few times that.
    granted = (agent_codes <= _ASK)[:, :, :, None]  # tool, preset, agent, context
    request = first_failure({Reason.GROUP: ~group_pass, Reason.STATE: ~state_pass},
                            np.full((n, n_contexts), _ALLOW, dtype=np.int8))
    allowed_code = np.where((request == _ALLOW)[:, None, None, :], agent_codes[:, :, :, None],
                            request[:, None, None, :])
    codes = np.where(granted, allowed_code, agent_codes[:, :, :, None])
    return codes.transpose(0, 2, 3, 1)


def not_in_pool(codes: Any, rows: Sequence[int], variant: int) -> None:
    """Set ``rows`` of one variant (the last axis of :func:`build`'s codes) to the pool step's
    failure, in place: tools that variant does not have (another runtime's built-ins)."""
    if rows:
        codes[list(rows), :, :, variant] = _FAIL[Reason.POOL]


def insert_rows(codes: Any, tool_names: Sequence[str], added: Sequence[str],
                tools: dict[str, Tool], grants: Sequence[Sequence[Grant | None]],
                presets: Sequence[str], agents: Sequence[str],
                contexts: Sequence[tuple[tuple[str, ...], str]]) -> Any:
    """``codes`` (rows ``tool_names``, sorted) with rows for the ``added`` tools merged in.

    ``grants`` hold each agent's decisions about the added tools only (what
    :func:`~toolkit.core.incremental.added_grant` computed); the result's rows are
    ``sorted([*tool_names, *added])``, as :func:`build` would have made them.
    """
    import bisect

    import numpy as np

    if not added:
        return codes
    if any(g is None for row in grants for g in row):
        raise ValueError("insert_rows needs the added-tools grant of every agent")
    new = build(added, tools, grants, presets, agents, contexts)  # type: ignore[arg-type]
    out = np.empty((len(tool_names) + len(added), *codes.shape[1:]), dtype=codes.dtype)
    start = 0  # copy runs of old rows between the insertion points (np.insert is 10x slower)
    for i, name in enumerate(added):
        stop = bisect.bisect_left(tool_names, name)
        out[start + i:stop + i] = codes[start:stop]
        out[stop + i] = new[i]
        start = stop
    out[start + len(added):] = codes[start:]
    return out


def frame(codes: Any, tool_names: Sequence[str], agents: Sequence[str],
          contexts: Sequence[tuple[tuple[str, ...], str]], presets: Sequence[str],
          *, cells: Literal["bool", "label", "effect"] = "bool",
          runtimes: Sequence[str] | None = None) -> pd.DataFrame:
    """The codes as a DataFrame: rows tools; columns agents (+ groups/state/preset levels).

    ``runtimes``: the codes' last axis is runtime × preset (runtime-major), and the columns
    gain a first level ``runtime`` (kept even when only one runtime is shown).
    """
    import numpy as np
    import pandas as pd

    n = len(tool_names)
    if runtimes is not None:  # [tool, agent, context, runtime, preset] -> runtime first
        shape = (n, len(agents), len(contexts), len(runtimes), len(presets))
        codes = codes.reshape(shape).transpose(0, 3, 1, 2, 4)
    flat = codes.reshape(n, math.prod(codes.shape[1:]))  # not -1: a pool may be empty
    # a copy: names set on one frame's columns must not change the next frame's
    columns = _columns(tuple(agents), tuple(contexts), tuple(presets),
                       None if runtimes is None else tuple(runtimes)).copy()
    index = pd.Index(list(tool_names), name="tool")
    if cells != "bool":
        names = LABELS if cells == "label" else tuple(str(v.effect) for v in VERDICTS)
        labels_array = np.asarray(names, dtype=object)[flat]
        return pd.DataFrame(labels_array, index=index, columns=columns, copy=False)
    # A fresh array, owned by the frame: no copy (a copy is most of a large frame's cost).
    return pd.DataFrame(flat <= _ASK, index=index, columns=columns, copy=False)


@functools.lru_cache(maxsize=16)
def _columns(agents: tuple[str, ...], contexts: tuple[tuple[tuple[str, ...], str], ...],
             presets: tuple[str, ...], runtimes: tuple[str, ...] | None = None) -> pd.Index:
    """The column index (pandas indexes are immutable, so frames can share one)."""
    import pandas as pd

    group_labels = [groups_label(g) for g, _ in contexts]
    states = [s for _, s in contexts]
    tuples = [(agent, group_labels[c], states[c], preset)
              for agent in agents for c in range(len(contexts)) for preset in presets]
    names = ["agent", "groups", "state", "preset"]
    keep = [0] + [i for i, values in ((1, group_labels), (2, states), (3, list(presets)))
                  if len(set(values)) > 1]
    labels = [tuple(t[i] for i in keep) for t in tuples]
    if runtimes is not None:
        return pd.MultiIndex.from_tuples([(r, *lab) for r in runtimes for lab in labels],
                                         names=["runtime", *(names[i] for i in keep)])
    if len(keep) == 1:
        columns = pd.Index([lab[0] for lab in labels], name="agent")
    else:
        columns = pd.MultiIndex.from_tuples(labels, names=[names[i] for i in keep])
    return columns


def matrix_columns(frame: Any, agents: Sequence[str], group_sets: Sequence[tuple[str, ...]],
                   states: Sequence[str]) -> list[tuple[str, str, str]]:
    """A matrix frame's columns as full (agent, groups label, state) triples.

    The matrix drops column levels that have a single value; they are put back here.
    """
    labels = [groups_label(g) for g in group_sets]
    names = list(frame.columns.names)
    out = []
    for column in frame.columns:
        values = column if isinstance(column, tuple) else (column,)
        level = dict(zip(names, values, strict=True))
        out.append((str(level.get("agent", agents[0])), str(level.get("groups", labels[0])),
                    str(level.get("state", states[0]))))
    return out
