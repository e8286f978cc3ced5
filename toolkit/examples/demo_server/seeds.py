"""The seed graphs: the same companies, people and relationships on every start and reset."""

import random
from collections.abc import Callable

from .graph import KnowledgeGraph, Properties

__all__ = ["SEEDS", "seed_graph"]


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


#: Seed loaders by name (``--graph`` / ``$DEMO_GRAPH``).
SEEDS: dict[str, Callable[[KnowledgeGraph], None]] = {"small": _seed_small, "large": _seed_large}


def seed_graph(size: str = "small") -> KnowledgeGraph:
    """A fresh graph loaded with the named seed (``small`` or ``large``).

    >>> seed_graph().stats()
    {'entities': 16, 'relationships': 19}
    """
    try:
        return KnowledgeGraph(SEEDS[size])
    except KeyError:
        raise ValueError(f"unknown graph seed {size!r}; known: {', '.join(SEEDS)}") from None
