"""Support cases: numbered in the order they were opened, most old ones closed, a live queue of open ones."""

from __future__ import annotations

from datetime import timedelta

from ..models import Case
from ..picklists import CASE_OPEN_STATUSES
from . import vocab
from .base import Built, ago, between, weighted

CASES_PER_SCALE = 300
FIRST_CASE_NUMBER = 1001
PRIORITIES = {"Low": 25, "Medium": 45, "High": 22, "Critical": 8}
ORIGINS = {"Email": 40, "Phone": 30, "Web": 20, "Chat": 10}
TYPES = {"Problem": 50, "Question": 22, "Billing": 12, "Feature Request": 10, "Other": 6}
OPEN_STATUSES = dict(zip(CASE_OPEN_STATUSES, [30, 40, 12, 18]))
SUPPORTED_TYPES = {"Customer - Direct": 6, "Customer - Channel": 4, "Channel Partner / Reseller": 1, "Installation Partner": 1, "Technology Partner": 1}


def case_number(n: int) -> str:
    return f"{n:08d}"


def seed_cases(built: Built) -> list[Case]:
    ctx, now = built.ctx, built.now
    rng = ctx.random("crm.cases")
    customers = [a for a in built.accounts if a.type in SUPPORTED_TYPES] or built.accounts
    weights = [SUPPORTED_TYPES.get(a.type, 1) for a in customers]
    agents, managers = built.support_agents, built.support_managers
    planned: list[tuple] = []
    for i in range(CASES_PER_SCALE * ctx.scale):
        acct = rng.choices(customers, weights=weights)[0]
        # Recent weeks are busier than last year: most cases are from the last 120 days.
        created = ago(rng, now, 0.05, 120) if rng.random() < 0.6 else ago(rng, now, 120, 420)
        created = max(created, acct.created_at + timedelta(days=1))
        planned.append((created, i, acct))
    planned.sort(key=lambda p: (p[0], p[1]))  # case numbers follow the order cases were opened
    cases: list[Case] = []
    for n, (created, _, acct) in enumerate(planned):
        kind = weighted(rng, TYPES)
        reason, subject = rng.choice(vocab.CASE_SUBJECTS[kind])
        subject = subject.format(product=rng.choice(vocab.SUPPORT_PRODUCTS))
        age_days = (now - created).total_seconds() / 86400
        closed = rng.random() < (0.93 if age_days > 45 else 0.35 if age_days > 7 else 0.1)
        status = "Closed" if closed else weighted(rng, OPEN_STATUSES)
        if status == "New" and age_days > 10:
            status = "Working"
        priority = weighted(rng, PRIORITIES)
        if status == "Escalated" and priority in ("Low", "Medium"):
            priority = "High"
        details = rng.sample(vocab.CASE_DETAILS, rng.randint(1, 2))
        description = " ".join(d.format(n=rng.randint(3, 120), day=f"{created:%B} {created.day}") for d in details)
        closed_at = None
        if closed:
            closed_at = min(created + timedelta(hours=rng.randint(1, 24 * 20)), now - timedelta(minutes=5))
            description += " " + rng.choice(vocab.CASE_RESOLUTIONS)
        contacts = built.contacts_by_account.get(acct.id, [])
        owner = rng.choice(managers if priority == "Critical" and rng.random() < 0.4 else agents).id
        case = Case(
            id=n + 1,
            case_number=case_number(FIRST_CASE_NUMBER + n),
            subject=subject,
            status=status,
            priority=priority,
            origin=weighted(rng, ORIGINS),
            type=kind,
            reason=reason,
            account_id=acct.id,
            contact_id=rng.choice(contacts).id if contacts and rng.random() < 0.92 else None,
            description=description,
            owner_id=owner,
            created_at=created,
            updated_at=closed_at or between(rng, created, now),
            created_by_id=owner,
            closed_at=closed_at,
        )
        cases.append(case)
    built.cases = cases
    return cases
