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
from typing import TYPE_CHECKING, Any

from .models import Tool, groups_label
from .resolve import Grant, group_ok, state_ok

if TYPE_CHECKING:
    import pandas as pd

#: Reason codes, in the order of SPEC section 4; 0 and 1 are the allowed ones.
CODES = ("allow", "approval", "pool", "deny", "implicit", "ceiling", "coordination", "group",
         "state")
_ALLOW, _ASK, _POOL, _DENY, _IMPLICIT, _CEILING, _COORD, _GROUP, _STATE = range(len(CODES))


def build(tool_names: Sequence[str], tools: dict[str, Tool],
          grants: Sequence[Sequence[Grant]], presets: Sequence[str], agents: Sequence[str],
          contexts: Sequence[tuple[tuple[str, ...], str]]) -> Any:
    """Reason codes as an int8 array [tool, agent, context, preset] (``grants[preset][agent]``)."""
    import numpy as np

    n = len(tool_names)
    position = {name: i for i, name in enumerate(tool_names)}
    n_presets, n_agents, n_contexts = len(presets), len(agents), len(contexts)
    agent_codes = np.full((n, n_presets, n_agents), _IMPLICIT, dtype=np.int8)
    asks = np.zeros((n, n_presets, n_agents), dtype=bool)

    def idx(names: Any) -> Any:
        return np.fromiter((position[t] for t in names if t in position), dtype=np.intp)

    for p, row in enumerate(grants):
        for a, grant in enumerate(row):
            column = agent_codes[:, p, a]
            for names, value in ((grant.allowed, _ALLOW), (grant.outside_ceiling, _CEILING),
                                 (grant.stripped, _COORD), (grant.denied, _DENY)):
                if names:  # most are empty (and a grant of added tools often is)
                    column[idx(names)] = value
            if grant.ask:
                asks[idx(grant.ask), p, a] = True

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
    code = np.int8
    ok = (agent_codes == _ALLOW)[:, :, :, None]  # tool, preset, agent, context
    request = np.where(~group_pass, code(_GROUP), np.where(~state_pass, code(_STATE),
                                                           code(_ALLOW)))
    per_agent = np.where(asks, code(_ASK), code(_ALLOW))[:, :, :, None]
    allowed_code = np.where((request == _ALLOW)[:, None, None, :], per_agent,
                            request[:, None, None, :])
    codes = np.where(ok, allowed_code, agent_codes[:, :, :, None])
    return codes.transpose(0, 2, 3, 1)


def insert_rows(codes: Any, tool_names: Sequence[str], added: Sequence[str],
                tools: dict[str, Tool], grants: Sequence[Sequence[Grant | None]],
                presets: Sequence[str], agents: Sequence[str],
                contexts: Sequence[tuple[tuple[str, ...], str]]) -> Any:
    """``codes`` (rows ``tool_names``, sorted) with rows for the ``added`` tools merged in.

    ``grants`` hold each agent's decisions about the added tools only (what
    :func:`~toolkit.core.resolve.added_grant` computed); the result's rows are
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
          *, reasons: bool) -> pd.DataFrame:
    """The codes as a DataFrame: rows tools; columns agents (+ groups/state/preset levels)."""
    import numpy as np
    import pandas as pd

    n = len(tool_names)
    flat = codes.reshape(n, math.prod(codes.shape[1:]))  # not -1: a pool may be empty
    # a copy: names set on one frame's columns must not change the next frame's
    columns = _columns(tuple(agents), tuple(contexts), tuple(presets)).copy()
    index = pd.Index(list(tool_names), name="tool")
    if reasons:
        labels_array = np.asarray(CODES, dtype=object)[flat]
        return pd.DataFrame(labels_array, index=index, columns=columns, copy=False)
    # A fresh array, owned by the frame: no copy (a copy is most of a large frame's cost).
    return pd.DataFrame(flat <= _ASK, index=index, columns=columns, copy=False)


@functools.lru_cache(maxsize=16)
def _columns(agents: tuple[str, ...], contexts: tuple[tuple[tuple[str, ...], str], ...],
             presets: tuple[str, ...]) -> pd.Index:
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
    if len(keep) == 1:
        columns = pd.Index([lab[0] for lab in labels], name="agent")
    else:
        columns = pd.MultiIndex.from_tuples(labels, names=[names[i] for i in keep])
    return columns
