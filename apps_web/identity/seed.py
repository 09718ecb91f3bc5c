"""Generates the company's people: an org chart of about 40 users per unit of scale."""

from __future__ import annotations

from sqlmodel import Session

from ..world.seeding import SeedContext
from .models import Role, User
from .passwords import DEFAULT_PASSWORD, hash_password

# (role, department, title, count per scale unit, reports to role)
ORG: list[tuple[Role, str, str, int, Role | None]] = [
    (Role.admin, "IT", "Systems Administrator", 1, None),
    (Role.sales_manager, "Sales", "VP of Sales", 1, None),
    (Role.sales_manager, "Sales", "Regional Sales Manager", 3, Role.sales_manager),
    (Role.sales_rep, "Sales", "Account Executive", 16, Role.sales_manager),
    (Role.support_manager, "Customer Support", "Support Manager", 2, None),
    (Role.support_agent, "Customer Support", "Support Engineer", 10, Role.support_manager),
    (Role.marketing, "Marketing", "Marketing Manager", 3, None),
    (Role.it, "IT", "IT Specialist", 2, Role.admin),
    (Role.finance, "Finance", "Financial Analyst", 2, None),
]

SINGLETONS = {"Systems Administrator", "VP of Sales"}  # one per company whatever the scale


def _username(first: str, last: str, taken: set[str]) -> str:
    base = "".join(ch for ch in f"{first[0]}{last}".lower() if ch.isalnum())[:20]
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


def seed_users(ctx: SeedContext) -> list[User]:
    fake = ctx.faker("identity")
    rng = ctx.random("identity")
    session: Session = ctx.session
    taken: set[str] = set()
    users: list[User] = []
    by_role: dict[Role, list[User]] = {}
    for role, dept, title, count, boss_role in ORG:
        n = count if title in SINGLETONS else count * ctx.scale
        for _ in range(n):
            first, last = fake.first_name(), fake.last_name()
            username = _username(first, last, taken)
            bosses = by_role.get(boss_role, []) if boss_role else []
            # A regional manager reports to the VP; reps spread over regional managers.
            if boss_role == Role.sales_manager and role == Role.sales_rep:
                bosses = [u for u in bosses if u.title != "VP of Sales"] or bosses
            if role == Role.sales_manager and title != "VP of Sales":
                bosses = [u for u in bosses if u.title == "VP of Sales"]
            manager = rng.choice(bosses) if bosses else None
            user = User(
                username=username,
                email=f"{username}@{ctx.domain}",
                first_name=first,
                last_name=last,
                title=title,
                department=dept,
                role=role,
                phone=fake.numerify("(###) 555-####"),
                manager_id=manager.id if manager else None,
                password_hash=hash_password(DEFAULT_PASSWORD, f"{ctx.seed}-{username}"),
            )
            session.add(user)
            session.flush()  # ids for manager links
            users.append(user)
            by_role.setdefault(role, []).append(user)
    return users
