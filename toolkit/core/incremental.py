"""Incremental re-resolution: bring grants up to date when a server's tools are added.

A full resolve recompiles every grant over the whole pool. When tools are only
added (a server connected, ``notifications/tools/list_changed``), most of what a
root grant decided cannot change: :func:`added_grant` decides the added tools
alone, :func:`merge_grant` joins that delta to the old grant, and the matrix
gets rows for the added tools only (:func:`~toolkit.core.matrix.insert_rows`).
A hypothesis test checks the result equals a cold recompute.
"""

from __future__ import annotations

from typing import Any

from .pool import ToolPool
from .resolve import Grant, ProjectRules, compile_grant, glob_warnings

__all__ = ["added_grant", "merge_grant"]


def added_grant(grant: Grant, added: ToolPool, project: ProjectRules) -> Grant | None:
    """What a root ``grant`` decides about the ``added`` tools alone, or None.

    Adding tools changes nothing a root grant decided about the tools it
    already saw when (a) no added spelling collides with an existing one (so no
    name changes owner or becomes ambiguous) and (b) every exact name the agent
    and the project write was found in the old pool (so no unknown or pending
    name can become a tool). Then only the added tools need deciding: the same
    steps run over ``added`` alone. Otherwise (or for a child's grant) the
    answer is None and the caller recompiles.
    """
    agent = grant.agent
    if grant.lineage is not None or grant.exact_missing or not added.extends_cleanly(
            grant.pool):
        return None
    if agent.use_servers and any(t.server in agent.use_servers for t in added.values()):
        return None
    index = added.index
    project_globs = (str(r.pattern) for r in (*project.deny, *project.ask) if r.is_glob)
    if not agent.allow or any(index.glob(p) for p in (*project_globs, *agent.glob_patterns)):
        return compile_grant(agent, added, grant.preset, project,
                             max_depth=grant.preset.max_depth, added_only=True)
    # no rule reaches an added tool: the agent holds none of them
    return Grant(agent=agent, preset=grant.preset, pool=added, depth=0,
                 max_depth=grant.max_depth, lineage=None, added_only=True)


def merge_grant(grant: Grant, pool: ToolPool, delta: Grant) -> Grant:
    """``grant`` (over ``grant.pool``) and its :func:`added_grant` ``delta`` as one grant."""
    # Grants are not changed once compiled, so what the added tools leave alone is shared.
    merged = Grant(
        agent=grant.agent, preset=grant.preset, pool=pool, depth=0, max_depth=grant.max_depth,
        lineage=None, aliases=grant.aliases, denied=_merged(grant.denied, delta.denied),
        self_denied=_union(grant.self_denied, delta.self_denied),
        in_range=None if grant.in_range is None else _union(grant.in_range, delta.in_range),
        allowed=_merged(grant.allowed, delta.allowed), allow_note=grant.allow_note,
        exact_allowed=grant.exact_allowed, ask=_merged(grant.ask, delta.ask),
        unavailable=grant.unavailable, warnings=grant.warnings, added=delta,
        glob_hits=grant.glob_hits if not any(delta.glob_hits.values()) else {
            r: hit or delta.glob_hits.get(r, False) for r, hit in grant.glob_hits.items()})
    if merged.glob_hits is not grant.glob_hits or (
            pool.pending_servers != grant.pool.pending_servers):
        stale = set(glob_warnings(grant))
        merged.warnings = [w for w in grant.warnings if w not in stale] + glob_warnings(merged)
    return merged


def _merged(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return {**old, **new} if new else old


def _union(old: frozenset[str], new: frozenset[str] | None) -> frozenset[str]:
    return old | new if new else old
