"""CMDB relationships: applications run on production servers and depend on production databases;
databases run on servers. Drawn from their own sub-seed, after the CIs."""

from __future__ import annotations

from ...world.seeding import SeedContext
from ..models import CIRelationship
from .base import insert

DEPENDS = "Depends on::Used by"
RUNS = "Runs on::Runs"


def seed_relations(ctx: SeedContext, by_class: dict[str, list[dict]]) -> None:
    rng = ctx.random("desk.cmdb.relations")
    prod = lambda cls: [c for c in by_class.get(cls, []) if c.get("environment") == "Production"]  # noqa: E731
    servers, databases = prod("Server"), prod("Database")
    rows: list[dict] = []

    def rel(parent: dict, child: dict, kind: str) -> None:
        rows.append({"id": len(rows) + 1, "parent_id": parent["id"], "child_id": child["id"], "type": kind})

    if not servers:
        return
    for app in by_class.get("Application", []):
        for server in rng.sample(servers, min(len(servers), rng.randint(1, 3))):
            rel(app, server, RUNS)
        for db in rng.sample(databases, min(len(databases), rng.randint(0, 2))):
            rel(app, db, DEPENDS)
    for db in databases:
        rel(db, rng.choice(servers), RUNS)
    insert(ctx, CIRelationship, rows)
