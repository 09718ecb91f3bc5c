"""IT staff: agents appended to the identity's users, and assignment groups with members."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import select

from ...identity.models import Role, User
from ...identity.passwords import DEFAULT_PASSWORD, hash_password
from ...world.seeding import SeedContext
from ..choices import GROUPS
from ..models import Group, GroupMember
from .base import insert

# group -> (title of its lead, title of its agents, agents per scale unit)
STAFFING = {
    "Service Desk": ("Service Desk Manager", "Service Desk Analyst", 4),
    "Network": ("Network Lead", "Network Engineer", 2),
    "Database": ("DBA Lead", "Database Administrator", 2),
    "Hardware": ("End User Computing Lead", "Desktop Support Technician", 3),
    "Application Support": ("Application Support Lead", "Application Analyst", 2),
    "Messaging": ("Messaging Lead", "Messaging Engineer", 1),
    "Identity & Access": ("IAM Lead", "Identity & Access Analyst", 2),
}


@dataclass
class Staff:
    users: list[User]  # every employee (callers)
    groups: dict[str, int] = field(default_factory=dict)  # name -> id
    members: dict[int, list[int]] = field(default_factory=dict)  # group id -> user ids
    users_by_id: dict[int, User] = field(default_factory=dict)


def _username(first: str, last: str, taken: set[str]) -> str:
    base = "".join(ch for ch in f"{first[0]}{last}".lower() if ch.isalnum())[:20]
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


def seed_people(ctx: SeedContext) -> Staff | None:
    existing = list(ctx.session.exec(select(User).order_by(User.id)).all())
    if not existing:
        return None
    fake = ctx.faker("desk.people")
    rng = ctx.random("desk.people")
    taken = {u.username for u in existing}
    admin = next((u for u in existing if u.role == Role.admin), existing[0])
    next_id = max(u.id for u in existing) + 1
    new_users: list[User] = []
    staff = Staff(users=existing)
    group_rows, member_rows = [], []
    for gid, (name, description) in enumerate(GROUPS, start=1):
        lead_title, agent_title, per_scale = STAFFING[name]
        people: list[User] = []
        for k in range(1 + per_scale * ctx.scale):
            first, last = fake.first_name(), fake.last_name()
            username = _username(first, last, taken)
            lead = people[0] if people else None
            user = User(
                id=next_id, username=username, email=f"{username}@{ctx.domain}", first_name=first, last_name=last,
                title=lead_title if k == 0 else agent_title, department="IT", role=Role.it,
                phone=fake.numerify("(###) 555-####"), manager_id=(lead.id if lead else admin.id), active=True,
                password_hash=hash_password(DEFAULT_PASSWORD, f"{ctx.seed}-{username}"),
            )
            next_id += 1
            people.append(user)
        new_users += people
        member_ids = [u.id for u in people]
        if name == "Service Desk":  # the company's existing IT staff work the desk too
            member_ids += [u.id for u in existing if u.role in (Role.it, Role.admin)]
        staff.groups[name] = gid
        staff.members[gid] = member_ids
        slug = name.lower().replace(" & ", "-").replace(" ", "-")
        group_rows.append({"id": gid, "name": name, "description": description, "manager_id": people[0].id,
                           "email": f"it-{slug}@{ctx.domain}", "created_at": ctx.clock.days_ago(900), "updated_at": ctx.clock.days_ago(rng.randint(30, 300))})
        member_rows += [{"group_id": gid, "user_id": uid} for uid in member_ids]
    ctx.session.add_all(new_users)
    ctx.session.flush()
    insert(ctx, Group, group_rows)
    insert(ctx, GroupMember, [{"id": i, **row} for i, row in enumerate(member_rows, start=1)])
    staff.users = existing + new_users
    staff.users_by_id = {u.id: u for u in staff.users}
    return staff
