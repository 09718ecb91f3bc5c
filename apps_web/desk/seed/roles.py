"""Roles of the desk's users (sys_user_has_role), granted by rule from the people already generated:
the company's administrator gets admin; IT agents itil; the leads of assignment groups itil_admin
(which contains itil) and approver_user (the CAB); everyone who manages someone approver_user;
the Service Desk lead knowledge_admin and the End User Computing lead catalog_admin. Everyone else
(sales, support, marketing, finance) is a self-service user with no role.

No random draws: the grants follow from the people, so they are the same for a seed with or without
other apps, and appending them changes no existing row.
"""

from __future__ import annotations

from sqlalchemy import select

from ...identity.models import Role
from ...world.seeding import SeedContext
from ..models import Group, UserRole
from .base import insert
from .people import Staff


def seed_roles(ctx: SeedContext, staff: Staff) -> None:
    grants: dict[int, list[str]] = {}

    def grant(user_id: int | None, role: str) -> None:
        if user_id is not None and role not in grants.setdefault(user_id, []):
            grants[user_id].append(role)

    leads = dict(ctx.session.execute(select(Group.name, Group.manager_id)).all())
    managers = {u.manager_id for u in staff.users if u.manager_id is not None}
    for u in staff.users:
        if u.role == Role.admin:
            grant(u.id, "admin")
        elif u.role == Role.it:
            grant(u.id, "itil_admin" if u.id in leads.values() else "itil")
        if u.id in managers or u.id in leads.values():
            grant(u.id, "approver_user")
    grant(leads.get("Service Desk"), "knowledge_admin")
    grant(leads.get("Hardware"), "catalog_admin")
    when = ctx.clock.days_ago(900)
    rows = [{"user_id": uid, "role": role, "granted_by_id": None, "created_at": when} for uid in sorted(grants) for role in grants[uid]]
    insert(ctx, UserRole, [{"id": i, **row} for i, row in enumerate(rows, start=1)])
