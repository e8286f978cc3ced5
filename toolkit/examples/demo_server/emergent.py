"""The Emergent tools: ``entities_create``, ``entities_get``, ``entities_update``,
``entities_delete``, ``search_hybrid`` and ``graph_traverse``."""

from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .analysis import Direction, hybrid_scores, traverse
from .graph import KnowledgeGraph, Properties, merge_properties, without_nulls
from .tools import ADDITIVE, DESTRUCTIVE, READ_ONLY, EntityRef, ToolSpec, docstring_of

__all__ = ["EmergentTools"]


class EmergentTools:
    """Emergent's entity, search and traversal tools over one graph.

    Every public method but ``specs`` is a tool. The parameters ``id`` and ``type``
    shadow builtins on purpose: they are the argument names clients send.
    """

    def __init__(self, graph: KnowledgeGraph) -> None:
        self.graph = graph

    def specs(self) -> list[ToolSpec]:
        """How each tool is registered, in listing order."""
        idempotent_write = ADDITIVE.model_copy(update={"idempotent_hint": True})
        idempotent_delete = DESTRUCTIVE.model_copy(update={"idempotent_hint": True})
        return [
            ToolSpec("entities_create", "Create entity",
                     docstring_of(self.entities_create), self.entities_create, ADDITIVE),
            ToolSpec("entities_get", "Get entity", docstring_of(self.entities_get),
                     self.entities_get, READ_ONLY),
            ToolSpec("entities_update", "Update entity",
                     docstring_of(self.entities_update), self.entities_update,
                     idempotent_write),
            ToolSpec("entities_delete", "Delete entity", docstring_of(self.entities_delete),
                     self.entities_delete, idempotent_delete),
            ToolSpec("search_hybrid", "Hybrid search", docstring_of(self.search_hybrid),
                     self.search_hybrid, READ_ONLY),
            ToolSpec("graph_traverse", "Traverse graph",
                     docstring_of(self.graph_traverse), self.graph_traverse, READ_ONLY),
        ]

    def entities_create(
        self,
        name: Annotated[str, Field(description="Display name")],
        type: Annotated[str, Field(description="Entity type, e.g. 'company' or 'person'")],
        properties: Annotated[Properties | None, Field(description="Initial properties")] = None,
        id: Annotated[str | None, Field(description="Explicit id (default: a slug of the "
                                                    "name)")] = None,
    ) -> dict[str, Any]:
        """Create an entity."""
        entity = self.graph.add_entity(name, type, without_nulls(properties), id)
        return {"created": entity.to_dict()}

    def entities_get(
        self,
        id: EntityRef,
        include_relationships: Annotated[bool, Field(description="Also return the entity's "
                                                                 "relationships")] = True,
    ) -> dict[str, Any]:
        """Fetch an entity by id."""
        entity = self.graph.resolve(id)
        out: dict[str, Any] = {"entity": entity.to_dict()}
        if include_relationships:
            out["relationships"] = [r.to_dict() for r in self.graph.edges_of(entity.id)]
        return out

    def entities_update(
        self,
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
        entity = self.graph.resolve(id)
        if name is not None:
            if not name.strip():
                raise ToolError("'name' cannot be empty")
            entity.name = name.strip()
        if type is not None:
            entity.type = type
        merge_properties(entity.properties, properties or {})
        for key in remove_properties or []:
            entity.properties.pop(key, None)
        return {"updated": entity.to_dict()}

    def entities_delete(self, id: EntityRef) -> dict[str, Any]:
        """Delete an entity and every relationship that touches it."""
        entity, gone = self.graph.remove_entity(self.graph.resolve(id).id)
        return {"deleted": entity.to_dict(), "relationships_removed": [r.id for r in gone]}

    def search_hybrid(
        self,
        query: Annotated[str, Field(min_length=1, description="Search text")],
        limit: Annotated[int, Field(ge=1, le=100, description="Most results")] = 5,
        types: Annotated[list[str] | None,
                         Field(description="Only entities of these types")] = None,
    ) -> dict[str, Any]:
        """Hybrid lexical + fuzzy search over the graph.

        Score = 0.7 x BM25 (normalised; names, types, properties, relations and
        neighbour names) + 0.3 x character-trigram similarity to the entity name.
        """
        rows = [r for r in hybrid_scores(self.graph, query)
                if not types or r["entity"]["type"] in types]
        return {"query": query, "total": len(rows), "results": rows[:limit]}

    def graph_traverse(
        self,
        start: EntityRef,
        depth: Annotated[int, Field(ge=0, le=6, description="How many hops to walk")] = 2,
        direction: Annotated[Direction,
                             Field(description="Follow edges out of, into, or both ways "
                                               "through each node")] = "both",
        relation: Annotated[str | None,
                            Field(description="Only follow relationships of this type")] = None,
        max_nodes: Annotated[int, Field(ge=1, le=10000,
                                        description="Stop after this many nodes")] = 100,
    ) -> dict[str, Any]:
        """Walk relationships from an entity, breadth first, up to a depth."""
        origin = self.graph.resolve(start)
        walk = traverse(self.graph, origin.id, depth, direction, relation, max_nodes)
        nodes = [{**self.graph.entities[eid].to_dict(), "depth": d}
                 for eid, d in walk.levels.items()]
        return {"start": origin.id, "depth": depth, "direction": direction,
                "nodes": nodes, "edges": [walk.edges[k].to_dict() for k in sorted(walk.edges)],
                "truncated": walk.truncated}
