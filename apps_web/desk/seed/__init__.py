"""The desk's world generator: IT staff and groups, the CMDB, six months of incidents with their
journals, the knowledge base, and catalog requests with approvals.

It runs after the CRM's (it names customer accounts) from its own sub-seeds, so installing the desk
changes no other app's rows. IT agents are appended to the identity's users after the existing ones.
Rows are inserted with explicit ids in bulk (Core inserts), which keeps the build fast.
"""

from __future__ import annotations

from ...world.seeding import SeedContext
from .catalog import seed_catalog
from .changes import seed_changes
from .cmdb import seed_cmdb
from .incidents import seed_incidents
from .knowledge import seed_knowledge
from .people import seed_people
from .problems import seed_problems
from .relations import seed_relations
from .roles import seed_roles
from .slas import seed_slas


def seed_desk(ctx: SeedContext) -> None:
    staff = seed_people(ctx)
    if staff is None:
        return  # no people in this world: nothing to support
    seed_roles(ctx, staff)
    cis = seed_cmdb(ctx, staff)
    seed_relations(ctx, cis.by_class)
    incidents, journals = seed_incidents(ctx, staff, cis)
    seed_slas(ctx, incidents, journals)
    cis_by_id = {c["id"]: c for rows in cis.by_class.values() for c in rows}
    seed_problems(ctx, staff, incidents, cis_by_id)
    seed_knowledge(ctx, staff)
    seed_catalog(ctx, staff)
    seed_changes(ctx, staff, cis.by_class)


__all__ = ["seed_desk"]
