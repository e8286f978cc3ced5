"""Pure graph algorithms and text scoring behind the tools (no MCP, no I/O)."""

import math
import re
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Literal

from .graph import Entity, KnowledgeGraph, Relationship, tokens

__all__ = [
    "STOPWORDS",
    "Direction",
    "Walk",
    "connected_components",
    "degree_centrality",
    "extractive_summary",
    "hybrid_scores",
    "mentioned_entities",
    "shortest_path",
    "traverse",
]

#: Which way a walk follows a relationship: out of a node, into it, or either.
Direction = Literal["out", "in", "both"]


def _undirected(graph: KnowledgeGraph) -> dict[str, set[str]]:
    adjacency: dict[str, set[str]] = {eid: set() for eid in graph.entities}
    for rel in graph.relationships.values():
        if rel.source != rel.target:
            adjacency[rel.source].add(rel.target)
            adjacency[rel.target].add(rel.source)
    return adjacency


def degree_centrality(graph: KnowledgeGraph) -> dict[str, float]:
    """Distinct neighbours / (n - 1), ignoring direction."""
    adjacency = _undirected(graph)
    scale = max(len(adjacency) - 1, 1)
    return {eid: len(nbrs) / scale for eid, nbrs in adjacency.items()}


def connected_components(graph: KnowledgeGraph) -> list[list[str]]:
    """Weakly connected components, largest first, members sorted."""
    adjacency = _undirected(graph)
    seen: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(adjacency):
        if start in seen:
            continue
        seen.add(start)
        queue, members = deque([start]), []
        while queue:
            node = queue.popleft()
            members.append(node)
            for nxt in adjacency[node] - seen:
                seen.add(nxt)
                queue.append(nxt)
        components.append(sorted(members))
    components.sort(key=lambda c: (-len(c), c[0]))
    return components


def shortest_path(graph: KnowledgeGraph, source: str, target: str) -> list[str] | None:
    """Entity ids of one shortest undirected path, or ``None``."""
    adjacency = _undirected(graph)
    parents: dict[str, str | None] = {source: None}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        if node == target:
            path: list[str] = []
            cursor: str | None = node
            while cursor is not None:
                path.append(cursor)
                cursor = parents[cursor]
            return path[::-1]
        for nxt in sorted(adjacency[node]):
            if nxt not in parents:
                parents[nxt] = node
                queue.append(nxt)
    return None


def _trigrams(text: str) -> set[str]:
    padded = f"  {text.lower()} "
    return {padded[i:i + 3] for i in range(len(padded) - 2)}


def hybrid_scores(graph: KnowledgeGraph, query: str) -> list[dict[str, Any]]:
    """BM25 over each entity's document, blended with trigram similarity to its name.

    The trigram part stands in for the vector half of a hybrid search: it
    rewards near-misses and partial words ("robotic", "globx") that share no
    whole token with the document.
    """
    terms = tokens(query)
    docs = {eid: Counter(tokens(graph.document(e))) for eid, e in graph.entities.items()}
    if not docs:
        return []
    avg_len = sum(sum(c.values()) for c in docs.values()) / len(docs)
    k1, b = 1.2, 0.75
    lexical: dict[str, float] = {}
    matched: dict[str, list[str]] = {}
    for eid, counts in docs.items():
        length = sum(counts.values())
        score = 0.0
        for term in set(terms):
            tf = counts.get(term, 0)
            if not tf:
                continue
            df = sum(1 for c in docs.values() if term in c)
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg_len))
            matched.setdefault(eid, []).append(term)
        lexical[eid] = score
    top = max(lexical.values()) or 1.0
    query_grams = _trigrams(query)
    rows: list[dict[str, Any]] = []
    for eid, entity in graph.entities.items():
        name_grams = _trigrams(entity.name)
        fuzzy = len(query_grams & name_grams) / len(query_grams | name_grams)
        lex = lexical[eid] / top
        score = 0.7 * lex + 0.3 * fuzzy
        if lex > 0 or fuzzy >= 0.2:
            rows.append({"entity": entity.to_dict(), "score": round(score, 4),
                         "lexical": round(lex, 4), "fuzzy": round(fuzzy, 4),
                         "matched_terms": sorted(matched.get(eid, []))})
    rows.sort(key=lambda r: (-r["score"], r["entity"]["id"]))
    return rows


STOPWORDS = frozenset(re.findall(
    r"\w+",
    "a an and are as at be been but by for from has have he her his in into is it its of on "
    "or our she that the their them they this to was we were which who will with you your"))


def extractive_summary(text: str, max_sentences: int) -> list[str]:
    """The highest-scoring sentences (by content-word frequency), in their original order."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]
    if len(sentences) <= max_sentences:
        return sentences
    freq = Counter(t for t in tokens(text) if t not in STOPWORDS)
    peak = max(freq.values(), default=1)

    def score(sentence: str) -> float:
        words = [t for t in tokens(sentence) if t not in STOPWORDS]
        return sum(freq[w] / peak for w in words) / (len(words) ** 0.5 or 1.0)

    ranked = sorted(range(len(sentences)), key=lambda i: (-score(sentences[i]), i))
    return [sentences[i] for i in sorted(ranked[:max_sentences])]


def mentioned_entities(graph: KnowledgeGraph, text: str) -> list[Entity]:
    """Entities named (by name or id) in the text, in order of first mention."""
    lowered = text.lower()
    hits: list[tuple[int, str, Entity]] = []
    for entity in graph.entities.values():
        positions = [p for p in (lowered.find(entity.name.lower()), lowered.find(entity.id))
                     if p >= 0]
        if positions:
            hits.append((min(positions), entity.id, entity))
    return [entity for _, _, entity in sorted(hits, key=lambda h: (h[0], h[1]))]


@dataclass
class Walk:
    """What a breadth-first walk reached: each node's depth, the edges it followed."""

    #: Entity id -> hops from the start, in the order the walk reached them.
    levels: dict[str, int]
    #: Relationship id -> relationship, for every edge followed.
    edges: dict[str, Relationship] = field(default_factory=dict)
    #: Whether ``max_nodes`` stopped the walk before it reached every node in range.
    truncated: bool = False


def _far_end(rel: Relationship, node: str, direction: Direction) -> str | None:
    """The entity a walk standing on ``node`` reaches along ``rel``; ``None`` if it may not."""
    if rel.source == node and direction in ("out", "both"):
        return rel.target
    if rel.target == node and direction in ("in", "both"):
        return rel.source
    return None


def traverse(graph: KnowledgeGraph, start: str, depth: int, direction: Direction,
             relation: str | None, max_nodes: int) -> Walk:
    """Walk relationships from the entity ``start``, breadth first, up to ``depth`` hops.

    Only relationships of type ``relation`` are followed, if one is given; no
    more than ``max_nodes`` nodes (the start included) are visited.

    >>> from toolkit.examples.demo_server import seed_graph
    >>> walk = traverse(seed_graph(), "ivan-petrov", 2, "both", None, 10)
    >>> walk.levels, sorted(walk.edges), walk.truncated
    ({'ivan-petrov': 0, 'hermit-holdings': 1}, ['rel-019'], False)
    """
    walk = Walk({start: 0})
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if walk.levels[node] >= depth:
            continue
        for rel in graph.edges_of(node):
            if relation and rel.relation != relation:
                continue
            nxt = _far_end(rel, node, direction)
            if nxt is None:
                continue
            if nxt not in walk.levels:
                if len(walk.levels) >= max_nodes:
                    walk.truncated = True
                    continue
                walk.levels[nxt] = walk.levels[node] + 1
                queue.append(nxt)
            walk.edges[rel.id] = rel
    return walk
