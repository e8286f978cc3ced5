"""A small, real MCP server over an in-memory knowledge graph.

It serves the tools the shipped examples talk about, with real behaviour:

* TrustGraph: ``knowledge-query``, ``graph-update``, ``text-completion``,
  ``complex-analysis``, ``reset-workflow``;
* Emergent: ``entities_create``, ``entities_get``, ``entities_update``,
  ``entities_delete``, ``search_hybrid``, ``graph_traverse``;
* plumbing: ``echo`` (for benchmarks) and ``read_file`` (inside ``DEMO_ROOT``).

The graph (companies, people and the relationships between them) is seeded
deterministically, so every start, and every ``reset-workflow``, sees the same
data. Nothing here calls a model or the network: ``text-completion`` writes its
text from the graph's facts or by extracting sentences from the prompt.

Tools are written with the SDK's high-level ``MCPServer`` (``FastMCP`` in mcp 1.x).
Transports: stdio, SSE and Streamable HTTP are the SDK's own; WebSocket (one
JSON-RPC message per text frame, subprotocol ``mcp``) and TCP (newline-delimited
JSON-RPC) are bridged here to the SDK's low-level ``Server.run``, since mcp 2.x
ships neither. Logs go to stderr only.

Run::

    python -m toolkit.examples.demo_server                      # stdio
    python -m toolkit.examples.demo_server --transport streamable-http --port 8000
    python -m toolkit.examples.demo_server --transport tcp --port 0 --page-size 4
    python -m toolkit.examples.demo_server --tools echo,knowledge-query
"""

import argparse
import base64
import binascii
import contextlib
import difflib
import json
import logging
import math
import os
import random
import re
import sys
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import mcp.types as types
from anyio.abc import ByteReceiveStream, SocketAttribute, SocketStream
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import Field

__all__ = [
    "TOOL_NAMES",
    "Entity",
    "KnowledgeGraph",
    "Relationship",
    "build_server",
    "main",
    "seed_graph",
]

logger = logging.getLogger("toolkit.demo_server")

SERVER_NAME = "toolkit-demo"
SERVER_VERSION = "0.1.0"
TRANSPORTS = ("stdio", "sse", "streamable-http", "ws", "tcp")
#: Largest single JSON-RPC message accepted over TCP or WebSocket.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024

JSONScalar = str | int | float | bool | None
Properties = dict[str, JSONScalar]


# --------------------------------------------------------------------------- the graph


@dataclass
class Entity:
    """A node: a company, a person, a product..."""

    id: str
    name: str
    type: str
    properties: Properties = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"id": self.id, "name": self.name, "type": self.type,
                "properties": dict(self.properties)}


@dataclass
class Relationship:
    """A directed, typed edge ``source -[relation]-> target``."""

    id: str
    source: str
    target: str
    relation: str
    properties: Properties = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"id": self.id, "source": self.source, "target": self.target,
                "relation": self.relation, "properties": dict(self.properties)}


#: How a relation reads in a sentence ("Alice Chen works at Acme Robotics").
RELATION_PHRASES = {
    "works_at": "works at",
    "founded": "founded",
    "ceo_of": "is the CEO of",
    "cto_of": "is the CTO of",
    "advises": "advises",
    "knows": "knows",
    "acquired": "acquired",
    "partners_with": "partners with",
    "invests_in": "invests in",
    "supplies": "supplies",
    "competes_with": "competes with",
}


def slugify(text: str) -> str:
    """``"Acme Robotics"`` -> ``"acme-robotics"``."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "entity"


def tokens(text: str) -> list[str]:
    """Lower-case alphanumeric words."""
    return re.findall(r"[a-z0-9]+", text.lower())


class KnowledgeGraph:
    """An in-memory property graph with stable ids and a resettable seed."""

    def __init__(self, seed: Callable[["KnowledgeGraph"], None] | None = None) -> None:
        self._seed = seed
        self.entities: dict[str, Entity] = {}
        self.relationships: dict[str, Relationship] = {}
        self._next_rel = 1
        self.reset()

    # ---- lifecycle

    def reset(self) -> None:
        """Drop everything and load the seed again."""
        self.entities.clear()
        self.relationships.clear()
        self._next_rel = 1
        if self._seed is not None:
            self._seed(self)

    def stats(self) -> dict[str, int]:
        """Entity and relationship counts."""
        return {"entities": len(self.entities), "relationships": len(self.relationships)}

    # ---- lookups

    def find(self, ref: str) -> Entity | None:
        """An entity by id, else by case-insensitive name."""
        if ref in self.entities:
            return self.entities[ref]
        wanted = ref.strip().lower()
        for entity in self.entities.values():
            if entity.name.lower() == wanted or entity.id == slugify(ref):
                return entity
        return None

    def resolve(self, ref: str) -> Entity:
        """Like :meth:`find`, but a miss is a :class:`ToolError` with suggestions."""
        entity = self.find(ref)
        if entity is not None:
            return entity
        names = [e.name for e in self.entities.values()] + list(self.entities)
        close = difflib.get_close_matches(ref, names, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ToolError(f"unknown entity {ref!r}{hint}")

    def edges_of(self, entity_id: str) -> list[Relationship]:
        """Relationships that touch the entity, in id order."""
        return [r for r in self.relationships.values() if entity_id in (r.source, r.target)]

    def neighbours(self, entity_id: str) -> set[str]:
        """Ids joined to the entity by any relationship, either direction."""
        out: set[str] = set()
        for rel in self.edges_of(entity_id):
            out.add(rel.target if rel.source == entity_id else rel.source)
        out.discard(entity_id)
        return out

    # ---- mutations

    def add_entity(self, name: str, type_: str, properties: Properties | None = None,
                   entity_id: str | None = None) -> Entity:
        """Create an entity; the id defaults to a unique slug of the name."""
        if not name.strip():
            raise ToolError("an entity needs a non-empty name")
        if entity_id is not None:
            if entity_id in self.entities:
                raise ToolError(f"entity id {entity_id!r} already exists")
        else:
            base = slugify(name)
            entity_id, n = base, 2
            while entity_id in self.entities:
                entity_id, n = f"{base}-{n}", n + 1
        entity = Entity(entity_id, name.strip(), type_.strip() or "thing", dict(properties or {}))
        self.entities[entity_id] = entity
        return entity

    def remove_entity(self, entity_id: str) -> tuple[Entity, list[Relationship]]:
        """Delete an entity and every relationship that touches it."""
        entity = self.entities.pop(entity_id)
        gone = self.edges_of(entity_id)
        for rel in gone:
            del self.relationships[rel.id]
        return entity, gone

    def add_relationship(self, source: str, target: str, relation: str,
                         properties: Properties | None = None) -> Relationship:
        """Create ``source -[relation]-> target`` (both must exist)."""
        for end in (source, target):
            if end not in self.entities:
                raise ToolError(f"unknown entity {end!r}")
        rel_id = f"rel-{self._next_rel:03d}"
        self._next_rel += 1
        rel = Relationship(rel_id, source, target, relation, dict(properties or {}))
        self.relationships[rel_id] = rel
        return rel

    def find_relationship(self, source: str, target: str, relation: str) -> Relationship | None:
        """The edge with exactly these ends and relation, if any."""
        for rel in self.relationships.values():
            if (rel.source, rel.target, rel.relation) == (source, target, relation):
                return rel
        return None

    # ---- text

    def describe_edge(self, rel: Relationship) -> str:
        """``"Alice Chen works at Acme Robotics (role: engineer)."``"""
        source = self.entities[rel.source].name
        target = self.entities[rel.target].name
        phrase = RELATION_PHRASES.get(rel.relation, rel.relation.replace("_", " "))
        extra = ", ".join(f"{k}: {v}" for k, v in sorted(rel.properties.items()))
        return f"{source} {phrase} {target}" + (f" ({extra})" if extra else "") + "."

    def describe(self, entity: Entity) -> list[str]:
        """Sentences stating what the graph knows about the entity."""
        article = "an" if entity.type[:1].lower() in "aeiou" else "a"
        facts = [f"{entity.name} is {article} {entity.type}."]
        if entity.properties:
            props = "; ".join(f"{k.replace('_', ' ')}: {v}"
                              for k, v in sorted(entity.properties.items()))
            facts.append(f"{entity.name} has {props}.")
        facts.extend(self.describe_edge(rel) for rel in self.edges_of(entity.id))
        return facts

    def document(self, entity: Entity) -> str:
        """Everything searchable about an entity, as one text."""
        parts = [entity.name, entity.name, entity.name, entity.type, entity.id]
        parts += [f"{k} {v}" for k, v in entity.properties.items()]
        for rel in self.edges_of(entity.id):
            other = rel.target if rel.source == entity.id else rel.source
            parts += [rel.relation.replace("_", " "), self.entities[other].name]
        return " ".join(parts)


def _seed_small(graph: KnowledgeGraph) -> None:
    """Seven companies, nine people, one small island of two."""
    companies: list[tuple[str, Properties]] = [
        ("Acme Robotics", {"industry": "robotics", "founded": 2009, "hq": "Boston"}),
        ("Globex Analytics", {"industry": "data analytics", "founded": 2012, "hq": "Austin"}),
        ("Initech Software", {"industry": "enterprise software", "founded": 1998,
                              "hq": "Dallas"}),
        ("Northwind Traders", {"industry": "logistics", "founded": 1994, "hq": "Seattle"}),
        ("Contoso Energy", {"industry": "renewable energy", "founded": 2015, "hq": "Denver"}),
        ("Umbrella Labs", {"industry": "biotech", "founded": 2004, "hq": "Raleigh"}),
        ("Hermit Holdings", {"industry": "real estate", "founded": 1987, "hq": "Reno"}),
    ]
    people: list[tuple[str, Properties]] = [
        ("Alice Chen", {"role": "CEO", "expertise": "robot perception"}),
        ("Bob Okafor", {"role": "CTO", "expertise": "distributed systems"}),
        ("Carla Mendes", {"role": "data scientist", "expertise": "graph analytics"}),
        ("Dmitri Volkov", {"role": "founder", "expertise": "supply chains"}),
        ("Eve Tanaka", {"role": "investor", "expertise": "climate tech"}),
        ("Farah Haddad", {"role": "research lead", "expertise": "protein design"}),
        ("George Liu", {"role": "engineer", "expertise": "embedded systems"}),
        ("Hana Novak", {"role": "advisor", "expertise": "enterprise sales"}),
        ("Ivan Petrov", {"role": "owner", "expertise": "property"}),
    ]
    for name, props in companies:
        graph.add_entity(name, "company", props)
    for name, props in people:
        graph.add_entity(name, "person", props)
    edges: list[tuple[str, str, str, Properties]] = [
        ("alice-chen", "acme-robotics", "ceo_of", {"since": 2016}),
        ("alice-chen", "acme-robotics", "founded", {"year": 2009}),
        ("george-liu", "acme-robotics", "works_at", {"role": "engineer"}),
        ("bob-okafor", "globex-analytics", "cto_of", {"since": 2018}),
        ("carla-mendes", "globex-analytics", "works_at", {"role": "data scientist"}),
        ("dmitri-volkov", "northwind-traders", "founded", {"year": 1994}),
        ("eve-tanaka", "contoso-energy", "invests_in", {"stake_pct": 12}),
        ("eve-tanaka", "acme-robotics", "invests_in", {"stake_pct": 5}),
        ("farah-haddad", "umbrella-labs", "works_at", {"role": "research lead"}),
        ("hana-novak", "initech-software", "advises", {}),
        ("hana-novak", "globex-analytics", "advises", {}),
        ("alice-chen", "bob-okafor", "knows", {}),
        ("carla-mendes", "farah-haddad", "knows", {}),
        ("globex-analytics", "initech-software", "acquired", {"year": 2021,
                                                              "price_musd": 340}),
        ("acme-robotics", "globex-analytics", "partners_with", {"topic": "fleet analytics"}),
        ("northwind-traders", "acme-robotics", "supplies", {"goods": "actuators"}),
        ("northwind-traders", "contoso-energy", "partners_with", {"topic": "green freight"}),
        ("initech-software", "umbrella-labs", "supplies", {"goods": "lab software"}),
        ("ivan-petrov", "hermit-holdings", "founded", {"year": 1987}),
    ]
    for source, target, relation, props in edges:
        graph.add_relationship(source, target, relation, props)


def _seed_large(graph: KnowledgeGraph) -> None:
    """The small seed plus a deterministic synthetic economy (seeded PRNG)."""
    _seed_small(graph)
    rng = random.Random(20240601)
    industries = ["fintech", "retail", "aerospace", "health", "mining", "media", "agritech"]
    roles = ["engineer", "analyst", "manager", "designer", "researcher", "sales lead"]
    companies = [graph.add_entity(f"Company {i:03d}", "company",
                                  {"industry": rng.choice(industries),
                                   "founded": rng.randint(1960, 2023)}).id
                 for i in range(1, 61)]
    people = [graph.add_entity(f"Person {i:03d}", "person",
                               {"role": rng.choice(roles)}).id for i in range(1, 181)]
    for person in people:
        graph.add_relationship(person, rng.choice(companies), "works_at", {})
        if rng.random() < 0.4:
            graph.add_relationship(person, rng.choice([*people, "alice-chen", "bob-okafor"]),
                                   "knows", {})
    for company in companies:
        other = rng.choice([*companies, "acme-robotics", "globex-analytics"])
        if other != company:
            graph.add_relationship(company, other,
                                   rng.choice(["supplies", "partners_with", "competes_with"]), {})


SEEDS: dict[str, Callable[[KnowledgeGraph], None]] = {"small": _seed_small, "large": _seed_large}


def seed_graph(size: str = "small") -> KnowledgeGraph:
    """A fresh graph loaded with the named seed (``small`` or ``large``)."""
    try:
        return KnowledgeGraph(SEEDS[size])
    except KeyError:
        raise ValueError(f"unknown graph seed {size!r}; known: {', '.join(SEEDS)}") from None


# --------------------------------------------------------------------------- algorithms


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


# --------------------------------------------------------------------------- tools

#: Tool annotations: read-only tools, additive writes, destructive writes.
READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                  idempotent_hint=True, open_world_hint=False)
ADDITIVE = types.ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                 idempotent_hint=False, open_world_hint=False)
DESTRUCTIVE = types.ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                    idempotent_hint=False, open_world_hint=False)

EntityRef = Annotated[str, Field(description="Entity id (e.g. 'acme-robotics') or exact name")]


@dataclass(frozen=True)
class ToolSpec:
    """One tool as registered with ``MCPServer.add_tool``."""

    name: str
    title: str
    description: str
    fn: Callable[..., Any]
    annotations: types.ToolAnnotations
    #: Plain-text tools (``echo``, ``read_file``) send their text once, without
    #: a ``structuredContent`` copy; the others return JSON objects as both.
    structured: bool = True


def make_tools(graph: KnowledgeGraph, root: Path) -> list[ToolSpec]:
    """The server's tools, bound to one graph and one ``read_file`` root."""

    # ---- TrustGraph

    def knowledge_query(
        query: Annotated[str, Field(description="Words to look for in entity names, ids, types "
                                                "and property values; '*' matches everything")],
        entity_type: Annotated[str | None, Field(description="Only entities of this type, "
                                                             "e.g. 'company' or 'person'")] = None,
        relation: Annotated[str | None, Field(description="Only relationships of this type, "
                                                          "e.g. 'works_at'")] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="Most entities to return")] = 10,
    ) -> dict[str, Any]:
        """Query the knowledge graph for entities and relationships.

        Returns the matching entities and every relationship that touches one of them.
        """
        words = tokens(query)
        found: list[Entity] = []
        for entity in graph.entities.values():
            if entity_type and entity.type != entity_type:
                continue
            haystack = " ".join([entity.name, entity.id, entity.type,
                                 *(f"{k} {v}" for k, v in entity.properties.items())]).lower()
            if query.strip() == "*" or (words and all(w in haystack for w in words)):
                found.append(entity)
        found = found[:limit]
        ids = {e.id for e in found}
        rels = [r for r in graph.relationships.values()
                if (r.source in ids or r.target in ids)
                and (not relation or r.relation == relation)]
        return {"query": query, "entities": [e.to_dict() for e in found],
                "relationships": [r.to_dict() for r in rels],
                "facts": [graph.describe_edge(r) for r in rels]}

    def graph_update(
        kind: Annotated[Literal["entity", "relationship"],
                        Field(description="What to add or modify")],
        name: Annotated[str | None, Field(description="entity: id or name of the entity to "
                                                      "modify, or the name of a new one")] = None,
        entity_type: Annotated[str | None, Field(description="entity: its type (required when "
                                                             "creating)")] = None,
        properties: Annotated[Properties | None,
                              Field(description="Properties to set (merged; null deletes "
                                                "a key)")] = None,
        source: Annotated[str | None, Field(description="relationship: source entity")] = None,
        target: Annotated[str | None, Field(description="relationship: target entity")] = None,
        relation: Annotated[str | None, Field(description="relationship: its type, e.g. "
                                                          "'works_at'")] = None,
    ) -> dict[str, Any]:
        """Add or modify entities (or relationships) in the knowledge graph.

        An existing entity (matched by id or name) or relationship (same source,
        relation and target) is updated; otherwise a new one is created.
        """
        props = properties or {}
        if kind == "entity":
            if not name:
                raise ToolError("kind 'entity' needs 'name'")
            entity = graph.find(name)
            if entity is None:
                if not entity_type:
                    raise ToolError(f"{name!r} is a new entity: give its 'entity_type'")
                clean: Properties = {k: v for k, v in props.items() if v is not None}
                entity = graph.add_entity(name, entity_type, clean)
                return {"action": "created", "entity": entity.to_dict()}
            if entity_type:
                entity.type = entity_type
            _merge(entity.properties, props)
            return {"action": "updated", "entity": entity.to_dict()}
        if not (source and target and relation):
            raise ToolError("kind 'relationship' needs 'source', 'target' and 'relation'")
        src, dst = graph.resolve(source), graph.resolve(target)
        existing = graph.find_relationship(src.id, dst.id, relation)
        if existing is not None:
            _merge(existing.properties, props)
            return {"action": "updated", "relationship": existing.to_dict(),
                    "fact": graph.describe_edge(existing)}
        rel = graph.add_relationship(src.id, dst.id, relation,
                                     {k: v for k, v in props.items() if v is not None})
        return {"action": "created", "relationship": rel.to_dict(),
                "fact": graph.describe_edge(rel)}

    def text_completion(
        prompt: Annotated[str, Field(description="Text to summarise, or a question or prompt "
                                                 "naming entities to write about")],
        mode: Annotated[Literal["auto", "summarize", "describe"],
                        Field(description="'summarize': extract the key sentences of the "
                                          "prompt; 'describe': write up the graph's facts "
                                          "about the entities named in it; 'auto': describe "
                                          "if any entity is named, else summarise")] = "auto",
        max_sentences: Annotated[int, Field(ge=1, le=50,
                                            description="Most sentences to write")] = 5,
    ) -> dict[str, Any]:
        """Generate text deterministically from the prompt and the graph (no model, offline)."""
        named = mentioned_entities(graph, prompt)
        used = mode if mode != "auto" else ("describe" if named else "summarize")
        if used == "describe":
            if not named:
                hits = hybrid_scores(graph, prompt)[:1]
                named = [graph.entities[h["entity"]["id"]] for h in hits]
            if not named:
                raise ToolError("no entity of the graph is named in the prompt")
            sentences = [s for entity in named for s in graph.describe(entity)][:max_sentences]
        else:
            sentences = extractive_summary(prompt, max_sentences)
        return {"mode": used, "completion": " ".join(sentences),
                "entities": [e.id for e in named] if used == "describe" else [],
                "sentences": len(sentences)}

    def complex_analysis(
        analysis: Annotated[Literal["summary", "degree_centrality", "connected_components",
                                    "shortest_path"],
                            Field(description="Which analysis to run")] = "summary",
        top_k: Annotated[int, Field(ge=1, le=1000, description="How many top entities or "
                                                               "components to list")] = 5,
        source: Annotated[str | None, Field(description="shortest_path: from this "
                                                        "entity")] = None,
        target: Annotated[str | None, Field(description="shortest_path: to this entity")] = None,
    ) -> dict[str, Any]:
        """Perform graph analysis: degree centrality, connected components, shortest paths."""
        n, m = len(graph.entities), len(graph.relationships)
        if analysis == "shortest_path":
            if not (source and target):
                raise ToolError("shortest_path needs 'source' and 'target'")
            src, dst = graph.resolve(source), graph.resolve(target)
            path = shortest_path(graph, src.id, dst.id)
            return {"analysis": analysis, "source": src.id, "target": dst.id,
                    "path": path, "hops": None if path is None else len(path) - 1}
        centrality = degree_centrality(graph)
        ranked = sorted(centrality.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]
        central = [{"id": eid, "name": graph.entities[eid].name,
                    "degree": len(graph.neighbours(eid)), "centrality": round(c, 4)}
                   for eid, c in ranked]
        components = connected_components(graph)
        if analysis == "degree_centrality":
            return {"analysis": analysis, "entities": n, "top": central}
        if analysis == "connected_components":
            return {"analysis": analysis, "count": len(components),
                    "sizes": [len(c) for c in components], "components": components[:top_k]}
        return {"analysis": "summary", "entities": n, "relationships": m,
                "density": round(m / (n * (n - 1)), 4) if n > 1 else 0.0,
                "types": dict(sorted(Counter(e.type for e in graph.entities.values()).items())),
                "relations": dict(sorted(Counter(r.relation
                                                 for r in graph.relationships.values()).items())),
                "components": len(components), "largest_component": len(components[0])
                if components else 0, "most_central": central}

    def reset_workflow() -> dict[str, Any]:
        """Reset to initial state: the knowledge graph goes back to its seed."""
        before = graph.stats()
        graph.reset()
        return {"reset": True, "before": before, "after": graph.stats()}

    # ---- Emergent

    def entities_create(
        name: Annotated[str, Field(description="Display name")],
        type: Annotated[str, Field(description="Entity type, e.g. 'company' or 'person'")],
        properties: Annotated[Properties | None, Field(description="Initial properties")] = None,
        id: Annotated[str | None, Field(description="Explicit id (default: a slug of the "
                                                    "name)")] = None,
    ) -> dict[str, Any]:
        """Create an entity."""
        entity = graph.add_entity(name, type, {k: v for k, v in (properties or {}).items()
                                               if v is not None}, id)
        return {"created": entity.to_dict()}

    def entities_get(
        id: EntityRef,
        include_relationships: Annotated[bool, Field(description="Also return the entity's "
                                                                 "relationships")] = True,
    ) -> dict[str, Any]:
        """Fetch an entity by id."""
        entity = graph.resolve(id)
        out: dict[str, Any] = {"entity": entity.to_dict()}
        if include_relationships:
            out["relationships"] = [r.to_dict() for r in graph.edges_of(entity.id)]
        return out

    def entities_update(
        id: EntityRef,
        name: Annotated[str | None, Field(description="New display name")] = None,
        type: Annotated[str | None, Field(description="New type")] = None,
        properties: Annotated[Properties | None,
                              Field(description="Properties to set (merged; null deletes "
                                                "a key)")] = None,
        remove_properties: Annotated[list[str] | None,
                                     Field(description="Property keys to delete")] = None,
    ) -> dict[str, Any]:
        """Update an entity (its id never changes)."""
        entity = graph.resolve(id)
        if name is not None:
            if not name.strip():
                raise ToolError("'name' cannot be empty")
            entity.name = name.strip()
        if type is not None:
            entity.type = type
        _merge(entity.properties, properties or {})
        for key in remove_properties or []:
            entity.properties.pop(key, None)
        return {"updated": entity.to_dict()}

    def entities_delete(id: EntityRef) -> dict[str, Any]:
        """Delete an entity and every relationship that touches it."""
        entity, gone = graph.remove_entity(graph.resolve(id).id)
        return {"deleted": entity.to_dict(), "relationships_removed": [r.id for r in gone]}

    def search_hybrid(
        query: Annotated[str, Field(min_length=1, description="Search text")],
        limit: Annotated[int, Field(ge=1, le=100, description="Most results")] = 5,
        types: Annotated[list[str] | None,
                         Field(description="Only entities of these types")] = None,
    ) -> dict[str, Any]:
        """Hybrid lexical + fuzzy search over the graph.

        Score = 0.7 x BM25 (normalised; names, types, properties, relations and
        neighbour names) + 0.3 x character-trigram similarity to the entity name.
        """
        rows = [r for r in hybrid_scores(graph, query)
                if not types or r["entity"]["type"] in types]
        return {"query": query, "total": len(rows), "results": rows[:limit]}

    def graph_traverse(
        start: EntityRef,
        depth: Annotated[int, Field(ge=0, le=6, description="How many hops to walk")] = 2,
        direction: Annotated[Literal["out", "in", "both"],
                             Field(description="Follow edges out of, into, or both ways "
                                               "through each node")] = "both",
        relation: Annotated[str | None,
                            Field(description="Only follow relationships of this type")] = None,
        max_nodes: Annotated[int, Field(ge=1, le=10000,
                                        description="Stop after this many nodes")] = 100,
    ) -> dict[str, Any]:
        """Walk relationships from an entity, breadth first, up to a depth."""
        origin = graph.resolve(start)
        levels = {origin.id: 0}
        edges: dict[str, Relationship] = {}
        queue = deque([origin.id])
        truncated = False
        while queue:
            node = queue.popleft()
            if levels[node] >= depth:
                continue
            for rel in graph.edges_of(node):
                if relation and rel.relation != relation:
                    continue
                if rel.source == node and direction in ("out", "both"):
                    nxt = rel.target
                elif rel.target == node and direction in ("in", "both"):
                    nxt = rel.source
                else:
                    continue
                if nxt not in levels:
                    if len(levels) >= max_nodes:
                        truncated = True
                        continue
                    levels[nxt] = levels[node] + 1
                    queue.append(nxt)
                edges[rel.id] = rel
        nodes = [{**graph.entities[eid].to_dict(), "depth": d} for eid, d in levels.items()]
        return {"start": origin.id, "depth": depth, "direction": direction,
                "nodes": nodes, "edges": [edges[k].to_dict() for k in sorted(edges)],
                "truncated": truncated}

    # ---- plumbing

    def echo(text: Annotated[str, Field(description="Text to send back")]) -> str:
        """Return the text unchanged (for benchmarks and smoke tests)."""
        return text

    def read_file(
        path: Annotated[str, Field(description="File path relative to the server's root "
                                               "directory (DEMO_ROOT)")],
        max_bytes: Annotated[int, Field(ge=1, le=MAX_MESSAGE_BYTES // 2,
                                        description="Read at most this many bytes")] = 65536,
    ) -> str:
        """Read a text file under the server's root directory (DEMO_ROOT, default: cwd).

        Paths that leave the root, directly or through a symlink, are refused.
        """
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            raise ToolError(f"{path!r} is outside the server's root directory")
        if not target.is_file():
            raise ToolError(f"{path!r} is not a file under the root")
        with target.open("rb") as handle:
            data = handle.read(max_bytes)
        return data.decode("utf-8", errors="replace")

    return [
        ToolSpec("knowledge-query", "Knowledge Graph Query",
                 _doc(knowledge_query), knowledge_query, READ_ONLY),
        ToolSpec("graph-update", "Graph Update", _doc(graph_update), graph_update, DESTRUCTIVE),
        ToolSpec("text-completion", "Text Completion",
                 _doc(text_completion), text_completion, READ_ONLY),
        ToolSpec("complex-analysis", "Complex Analysis Tool",
                 _doc(complex_analysis), complex_analysis, READ_ONLY),
        ToolSpec("reset-workflow", "Reset Workflow", _doc(reset_workflow), reset_workflow,
                 DESTRUCTIVE.model_copy(update={"idempotent_hint": True})),
        ToolSpec("entities_create", "Create entity",
                 _doc(entities_create), entities_create, ADDITIVE),
        ToolSpec("entities_get", "Get entity", _doc(entities_get), entities_get, READ_ONLY),
        ToolSpec("entities_update", "Update entity",
                 _doc(entities_update), entities_update,
                 ADDITIVE.model_copy(update={"idempotent_hint": True})),
        ToolSpec("entities_delete", "Delete entity", _doc(entities_delete), entities_delete,
                 DESTRUCTIVE.model_copy(update={"idempotent_hint": True})),
        ToolSpec("search_hybrid", "Hybrid search", _doc(search_hybrid), search_hybrid, READ_ONLY),
        ToolSpec("graph_traverse", "Traverse graph",
                 _doc(graph_traverse), graph_traverse, READ_ONLY),
        ToolSpec("echo", "Echo", _doc(echo), echo, READ_ONLY, structured=False),
        ToolSpec("read_file", "Read file", _doc(read_file), read_file, READ_ONLY,
                 structured=False),
    ]


def _doc(fn: Callable[..., Any]) -> str:
    """A function's docstring, dedented, as a tool description."""
    lines = (fn.__doc__ or "").strip().splitlines()
    return "\n".join(line.strip() for line in lines)


def _merge(target: Properties, updates: Properties) -> None:
    """Set each key; a ``None`` value deletes the key."""
    for key, value in updates.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value


#: Every tool name, in listing order (``register_tool`` adds tools at run time).
TOOL_NAMES: tuple[str, ...] = (*(spec.name for spec in make_tools(KnowledgeGraph(), Path.cwd())),
                               "register_tool")


# --------------------------------------------------------------------------- the server


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def _decode_cursor(cursor: str) -> int:
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        offset = None
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise MCPError(code=types.INVALID_PARAMS, message=f"invalid cursor {cursor!r}")
    return offset


def build_server(graph: KnowledgeGraph | None = None, *, tools: Iterable[str] | None = None,
                 page_size: int = 0, root: Path | None = None,
                 log_level: str = "WARNING") -> MCPServer:
    """The demo ``MCPServer``.

    Args:
        graph: The graph to serve (default: the small seed).
        tools: Names of the tools to expose (default: all of :data:`TOOL_NAMES`).
        page_size: Tools per ``tools/list`` page; 0 lists them all at once.
        root: ``read_file``'s root (default: ``$DEMO_ROOT`` or the working directory).
        log_level: Level of the SDK's own logging (to stderr).
    """
    graph = graph if graph is not None else seed_graph()
    root = (root if root is not None else Path(os.environ.get("DEMO_ROOT") or os.getcwd()))
    root = root.resolve()
    specs = make_tools(graph, root)
    wanted = list(TOOL_NAMES if tools is None else tools)
    unknown = sorted(set(wanted) - set(TOOL_NAMES))
    if unknown:
        raise ValueError(f"unknown tool(s) {', '.join(unknown)}; known: {', '.join(TOOL_NAMES)}")
    server: MCPServer = MCPServer(
        SERVER_NAME,
        version=SERVER_VERSION,
        instructions="A demo knowledge graph of companies and people. Query it with "
                     "knowledge-query or search_hybrid, walk it with graph_traverse.",
        log_level=log_level,  # type: ignore[arg-type]
    )
    for spec in specs:
        if spec.name in wanted:
            server.add_tool(spec.fn, name=spec.name, title=spec.title,
                            description=spec.description, annotations=spec.annotations,
                            structured_output=spec.structured)
    if "register_tool" in wanted:
        _add_register_tool(server)
    if page_size > 0:
        _paginate_tools(server, page_size)
    return server


MAX_DYNAMIC_TOOLS = 32


def _add_register_tool(server: MCPServer) -> None:
    """``register_tool``: add an echo tool at run time and send ``tools/list_changed``."""
    added: list[str] = []

    async def register_tool(
        name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$",
                                   description="Name of the new echo tool")],
        ctx: Context,
    ) -> str:
        """Add an echo tool called ``name`` and tell the client the tool list changed."""
        if name in TOOL_NAMES or name in added:
            raise ToolError(f"tool {name!r} already exists")
        if len(added) >= MAX_DYNAMIC_TOOLS:
            raise ToolError(f"at most {MAX_DYNAMIC_TOOLS} tools can be registered")

        def dynamic(text: str) -> str:
            return text

        server.add_tool(dynamic, name=name, description=f"Echo tool {name}, added at run time",
                        annotations=READ_ONLY, structured_output=False)
        added.append(name)
        # Clients that initialized (protocol 2025-11-25) get the notification on the session;
        # clients of protocol 2026-07-28 subscribe to it and get it through the bus.
        await ctx.session.send_tool_list_changed()
        await ctx.notify_tools_changed()
        return f"registered {name}"

    server.add_tool(register_tool, name="register_tool", title="Register tool",
                    description=_doc(register_tool), annotations=ADDITIVE,
                    structured_output=False)


def lowlevel(server: MCPServer) -> Server[Any]:
    """The low-level ``Server`` under an ``MCPServer``.

    mcp 2.3 has no public accessor; the SDK's own ``Client`` and in-memory
    transport read the same private attribute.
    """
    return server._lowlevel_server


def _paginate_tools(server: MCPServer, page_size: int) -> None:
    """Replace ``tools/list`` with one that pages ``page_size`` tools at a time.

    ``MCPServer`` lists every tool in one page and ignores the cursor; the
    low-level server passes the request's ``PaginatedRequestParams`` through and
    sends whatever ``next_cursor`` the handler sets, so paging is a handler swap.
    """

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams) -> types.ListToolsResult:
        every = await server.list_tools()
        start = _decode_cursor(params.cursor) if params.cursor else 0
        if start > len(every):
            raise MCPError(code=types.INVALID_PARAMS, message="cursor is past the last page")
        end = start + page_size
        return types.ListToolsResult(tools=every[start:end],
                                     next_cursor=_encode_cursor(end) if end < len(every) else None)

    lowlevel(server).add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)


# --------------------------------------------------------------------------- transports


def _parse(text: str) -> SessionMessage | Exception:
    """One JSON-RPC message, or the parse error as a value (the SDK's transports do the same)."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        return exc


def _dump(message: SessionMessage) -> str:
    return message.message.model_dump_json(by_alias=True, exclude_unset=True)


async def serve_connection(server: Server[Any], incoming: AsyncIterator[str],
                           send_text: Callable[[str], Awaitable[None]]) -> None:
    """Serve one MCP connection whose messages arrive and leave as JSON texts.

    Bridges a framed byte transport to ``Server.run`` through two anyio memory
    streams of ``SessionMessage`` (what the SDK's own stdio transport yields);
    returns when the peer goes away.
    """
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](16)

    async def pump_in() -> None:
        async with read_writer:
            try:
                async for text in incoming:
                    if text.strip():
                        await read_writer.send(_parse(text))
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                logger.info("connection dropped: %r", exc)

    async def pump_out() -> None:
        async with write_reader:
            try:
                async for message in write_reader:
                    await send_text(_dump(message))
            except Exception as exc:  # the peer is gone: stop reading too
                logger.info("cannot write to the peer: %r", exc)
                await read_writer.aclose()

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump_in)
        tg.start_soon(pump_out)
        await server.run(read_stream, write_stream, server.create_initialization_options())
        tg.cancel_scope.cancel()


async def _lines(stream: ByteReceiveStream) -> AsyncIterator[str]:
    """Newline-delimited texts from a byte stream, until EOF or an oversized line."""
    buffer = b""
    try:
        async for chunk in stream:
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for line in complete:
                yield line.decode("utf-8", errors="replace")
            if len(buffer) > MAX_MESSAGE_BYTES:
                logger.warning("dropping a TCP peer: line over %d bytes", MAX_MESSAGE_BYTES)
                return
    except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass
    if buffer.strip():
        yield buffer.decode("utf-8", errors="replace")


async def serve_tcp(server: Server[Any], host: str, port: int) -> None:
    """Newline-delimited JSON-RPC over TCP, one MCP connection per socket."""
    listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
    bound = listener.extra(SocketAttribute.local_port)
    logger.warning("demo server: tcp listening on %s:%d", host, bound)

    async def handle(stream: SocketStream) -> None:
        async with stream:
            async def send(text: str) -> None:
                await stream.send((text + "\n").encode())

            await serve_connection(server, _lines(stream), send)

    async with listener:
        await listener.serve(handle)


async def serve_ws(server: Server[Any], host: str, port: int) -> None:
    """One JSON-RPC message per WebSocket text frame (subprotocol ``mcp``), any path."""
    from websockets.asyncio.server import ServerConnection, serve
    from websockets.exceptions import ConnectionClosed
    from websockets.typing import Subprotocol

    def pick(_: ServerConnection, offered: Any) -> Subprotocol | None:
        # Unlike websockets' default, a client that offers no subprotocol is let in too.
        return Subprotocol("mcp") if "mcp" in offered else None

    async def handle(ws: ServerConnection) -> None:
        async def frames() -> AsyncIterator[str]:
            try:
                async for frame in ws:
                    yield frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
            except ConnectionClosed:
                return

        await serve_connection(server, frames(), ws.send)

    async with serve(handle, host, port, select_subprotocol=pick,
                     max_size=MAX_MESSAGE_BYTES) as ws_server:
        bound = ws_server.sockets[0].getsockname()[1]
        logger.warning("demo server: ws listening on ws://%s:%d/", host, bound)
        await ws_server.serve_forever()


async def serve_http(server: MCPServer, transport: str, host: str, port: int,
                     log_level: str) -> None:
    """The SDK's SSE (``/sse`` + ``/messages/``) or Streamable HTTP (``/mcp``) app, on uvicorn.

    Not ``MCPServer.run_*_async``: those keep uvicorn's default logging, whose
    access log goes to stdout. Here uvicorn logs through the root logger (stderr).
    """
    import uvicorn

    app = (server.sse_app(host=host) if transport == "sse"
           else server.streamable_http_app(host=host))
    path = "/sse" if transport == "sse" else "/mcp"
    logger.warning("demo server: %s on http://%s:%d%s", transport, host, port, path)
    config = uvicorn.Config(app, host=host, port=port, log_config=None,
                            log_level=log_level.lower(), lifespan="on")
    await uvicorn.Server(config).serve()


# --------------------------------------------------------------------------- command line


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m toolkit.examples.demo_server",
        description="Demo MCP server over an in-memory knowledge graph.")
    parser.add_argument("--transport", choices=TRANSPORTS, default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default %(default)s)")
    parser.add_argument("--port", type=int, default=8000,
                        help="port for the network transports; 0 picks a free one for tcp and "
                             "ws (default %(default)s)")
    parser.add_argument("--page-size", type=int, default=0, metavar="N",
                        help="tools per tools/list page (0: one page)")
    parser.add_argument("--tools", default=None, metavar="A,B,C",
                        help=f"expose only these tools; known: {', '.join(TOOL_NAMES)}")
    parser.add_argument("--graph", choices=sorted(SEEDS),
                        default=os.environ.get("DEMO_GRAPH") or "small",
                        help="seed graph (default: $DEMO_GRAPH or small)")
    parser.add_argument("--log-level", default="WARNING",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])
    args = parser.parse_args(argv)
    if args.page_size < 0:
        parser.error("--page-size must be 0 or more")
    if args.tools is not None:
        args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
        unknown = sorted(set(args.tools) - set(TOOL_NAMES))
        if unknown:
            parser.error(f"unknown tool(s): {', '.join(unknown)}; "
                         f"known: {', '.join(TOOL_NAMES)}")
    return args


async def run(args: argparse.Namespace) -> None:
    """Build the server and serve it over the chosen transport until stopped."""
    server = build_server(seed_graph(args.graph), tools=args.tools, page_size=args.page_size,
                          log_level=args.log_level)
    match args.transport:
        case "stdio":
            logger.info("demo server: stdio, graph %s, %s", args.graph,
                        "tools " + ",".join(args.tools) if args.tools else "all tools")
            await server.run_stdio_async()
        case "sse" | "streamable-http":
            await serve_http(server, args.transport, args.host, args.port, args.log_level)
        case "tcp":
            await serve_tcp(lowlevel(server), args.host, args.port)
        case "ws":
            await serve_ws(lowlevel(server), args.host, args.port)


def main(argv: list[str] | None = None) -> int:
    """Entry point; logs go to stderr, never stdout (stdout is the stdio transport's wire)."""
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(run, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
