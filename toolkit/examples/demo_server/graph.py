"""The in-memory knowledge graph: entities, relationships and how they read as text."""

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

__all__ = [
    "RELATION_PHRASES",
    "Entity",
    "JSONScalar",
    "KnowledgeGraph",
    "Properties",
    "Relationship",
    "merge_properties",
    "slugify",
    "tokens",
    "without_nulls",
]

JSONScalar = str | int | float | bool | None
Properties = dict[str, JSONScalar]


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


def merge_properties(target: Properties, updates: Properties) -> None:
    """Set each key; a ``None`` value deletes the key.

    >>> props: Properties = {"hq": "Boston", "founded": 2009}
    >>> merge_properties(props, {"hq": None, "staff": 40})
    >>> props
    {'founded': 2009, 'staff': 40}
    """
    for key, value in updates.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value


def without_nulls(properties: Properties | None) -> Properties:
    """The properties whose value is not ``None`` (a new entity has nothing to delete)."""
    return {k: v for k, v in (properties or {}).items() if v is not None}


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
        if entity_id is None:
            entity_id = self._free_id(slugify(name))
        elif entity_id in self.entities:
            raise ToolError(f"entity id {entity_id!r} already exists")
        entity = Entity(entity_id, name.strip(), type_.strip() or "thing", dict(properties or {}))
        self.entities[entity_id] = entity
        return entity

    def _free_id(self, base: str) -> str:
        """``base``, or ``base-2``, ``base-3``... whichever is not taken yet."""
        entity_id, n = base, 2
        while entity_id in self.entities:
            entity_id, n = f"{base}-{n}", n + 1
        return entity_id

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
