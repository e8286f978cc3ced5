"""The TrustGraph tools: ``knowledge-query``, ``graph-update``, ``text-completion``,
``complex-analysis`` and ``reset-workflow``."""

from collections import Counter
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .analysis import (
    connected_components,
    degree_centrality,
    extractive_summary,
    hybrid_scores,
    mentioned_entities,
    shortest_path,
)
from .graph import (
    Entity,
    KnowledgeGraph,
    Properties,
    merge_properties,
    tokens,
    without_nulls,
)
from .tools import DESTRUCTIVE, READ_ONLY, ToolSpec, docstring_of

__all__ = ["TrustGraphTools"]

#: What ``complex-analysis`` can compute.
Analysis = Literal["summary", "degree_centrality", "connected_components", "shortest_path"]


class TrustGraphTools:
    """TrustGraph's knowledge tools over one graph; every public method but ``specs`` is a tool."""

    def __init__(self, graph: KnowledgeGraph) -> None:
        self.graph = graph

    def specs(self) -> list[ToolSpec]:
        """How each tool is registered, in listing order."""
        return [
            ToolSpec("knowledge-query", "Knowledge Graph Query",
                     docstring_of(self.knowledge_query), self.knowledge_query, READ_ONLY),
            ToolSpec("graph-update", "Graph Update", docstring_of(self.graph_update),
                     self.graph_update, DESTRUCTIVE),
            ToolSpec("text-completion", "Text Completion",
                     docstring_of(self.text_completion), self.text_completion, READ_ONLY),
            ToolSpec("complex-analysis", "Complex Analysis Tool",
                     docstring_of(self.complex_analysis), self.complex_analysis, READ_ONLY),
            ToolSpec("reset-workflow", "Reset Workflow", docstring_of(self.reset_workflow),
                     self.reset_workflow,
                     DESTRUCTIVE.model_copy(update={"idempotent_hint": True})),
        ]

    def knowledge_query(
        self,
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
        words, everything = tokens(query), query.strip() == "*"
        found = [entity for entity in self.graph.entities.values()
                 if (not entity_type or entity.type == entity_type)
                 and (everything or _mentions_all(entity, words))][:limit]
        ids = {e.id for e in found}
        rels = [r for r in self.graph.relationships.values()
                if (r.source in ids or r.target in ids)
                and (not relation or r.relation == relation)]
        return {"query": query, "entities": [e.to_dict() for e in found],
                "relationships": [r.to_dict() for r in rels],
                "facts": [self.graph.describe_edge(r) for r in rels]}

    def graph_update(
        self,
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
        if kind == "entity":
            if not name:
                raise ToolError("kind 'entity' needs 'name'")
            return self._upsert_entity(name, entity_type, properties or {})
        if not (source and target and relation):
            raise ToolError("kind 'relationship' needs 'source', 'target' and 'relation'")
        return self._upsert_relationship(source, target, relation, properties or {})

    def _upsert_entity(self, name: str, entity_type: str | None,
                       props: Properties) -> dict[str, Any]:
        """``graph-update`` of an entity: update the one named, else create it."""
        entity = self.graph.find(name)
        if entity is None:
            if not entity_type:
                raise ToolError(f"{name!r} is a new entity: give its 'entity_type'")
            entity = self.graph.add_entity(name, entity_type, without_nulls(props))
            return {"action": "created", "entity": entity.to_dict()}
        if entity_type:
            entity.type = entity_type
        merge_properties(entity.properties, props)
        return {"action": "updated", "entity": entity.to_dict()}

    def _upsert_relationship(self, source: str, target: str, relation: str,
                             props: Properties) -> dict[str, Any]:
        """``graph-update`` of a relationship: update the same edge, else create it."""
        src, dst = self.graph.resolve(source), self.graph.resolve(target)
        existing = self.graph.find_relationship(src.id, dst.id, relation)
        if existing is not None:
            merge_properties(existing.properties, props)
            return {"action": "updated", "relationship": existing.to_dict(),
                    "fact": self.graph.describe_edge(existing)}
        rel = self.graph.add_relationship(src.id, dst.id, relation, without_nulls(props))
        return {"action": "created", "relationship": rel.to_dict(),
                "fact": self.graph.describe_edge(rel)}

    def text_completion(
        self,
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
        named = mentioned_entities(self.graph, prompt)
        used = mode if mode != "auto" else ("describe" if named else "summarize")
        if used == "describe":
            named = named or self._best_match(prompt)
            if not named:
                raise ToolError("no entity of the graph is named in the prompt")
            sentences = [s for entity in named
                         for s in self.graph.describe(entity)][:max_sentences]
        else:
            sentences = extractive_summary(prompt, max_sentences)
        return {"mode": used, "completion": " ".join(sentences),
                "entities": [e.id for e in named] if used == "describe" else [],
                "sentences": len(sentences)}

    def _best_match(self, prompt: str) -> list[Entity]:
        """The entity a hybrid search ranks first for the prompt, if any."""
        hits = hybrid_scores(self.graph, prompt)[:1]
        return [self.graph.entities[h["entity"]["id"]] for h in hits]

    def complex_analysis(
        self,
        analysis: Annotated[Analysis,
                            Field(description="Which analysis to run")] = "summary",
        top_k: Annotated[int, Field(ge=1, le=1000, description="How many top entities or "
                                                               "components to list")] = 5,
        source: Annotated[str | None, Field(description="shortest_path: from this "
                                                        "entity")] = None,
        target: Annotated[str | None, Field(description="shortest_path: to this entity")] = None,
    ) -> dict[str, Any]:
        """Perform graph analysis: degree centrality, connected components, shortest paths."""
        if analysis == "shortest_path":
            if not (source and target):
                raise ToolError("shortest_path needs 'source' and 'target'")
            return self._shortest_path(source, target)
        central = self._most_central(top_k)
        components = connected_components(self.graph)
        if analysis == "degree_centrality":
            return {"analysis": analysis, "entities": len(self.graph.entities), "top": central}
        if analysis == "connected_components":
            return {"analysis": analysis, "count": len(components),
                    "sizes": [len(c) for c in components], "components": components[:top_k]}
        return self._summary(central, components)

    def _shortest_path(self, source: str, target: str) -> dict[str, Any]:
        """``complex-analysis`` ``shortest_path``: the hops between two entities."""
        src, dst = self.graph.resolve(source), self.graph.resolve(target)
        path = shortest_path(self.graph, src.id, dst.id)
        return {"analysis": "shortest_path", "source": src.id, "target": dst.id,
                "path": path, "hops": None if path is None else len(path) - 1}

    def _most_central(self, top_k: int) -> list[dict[str, Any]]:
        """The ``top_k`` entities by degree centrality, ties by id."""
        centrality = degree_centrality(self.graph)
        ranked = sorted(centrality.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]
        return [{"id": eid, "name": self.graph.entities[eid].name,
                 "degree": len(self.graph.neighbours(eid)), "centrality": round(c, 4)}
                for eid, c in ranked]

    def _summary(self, central: list[dict[str, Any]],
                 components: list[list[str]]) -> dict[str, Any]:
        """``complex-analysis`` ``summary``: sizes, density, types, relations, hubs."""
        graph = self.graph
        n, m = len(graph.entities), len(graph.relationships)
        return {"analysis": "summary", "entities": n, "relationships": m,
                "density": round(m / (n * (n - 1)), 4) if n > 1 else 0.0,
                "types": dict(sorted(Counter(e.type for e in graph.entities.values()).items())),
                "relations": dict(sorted(Counter(r.relation
                                                 for r in graph.relationships.values()).items())),
                "components": len(components), "largest_component": len(components[0])
                if components else 0, "most_central": central}

    def reset_workflow(self) -> dict[str, Any]:
        """Reset to initial state: the knowledge graph goes back to its seed."""
        before = self.graph.stats()
        self.graph.reset()
        return {"reset": True, "before": before, "after": self.graph.stats()}


def _mentions_all(entity: Entity, words: list[str]) -> bool:
    """Whether each word occurs in the entity's name, id, type or properties (none: no)."""
    haystack = " ".join([entity.name, entity.id, entity.type,
                         *(f"{k} {v}" for k, v in entity.properties.items())]).lower()
    return bool(words) and all(w in haystack for w in words)
