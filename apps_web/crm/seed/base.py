"""Shared state and helpers of the CRM generator: the people to assign, seeded time and choice helpers."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlmodel import select

from ...identity.models import Role, User
from ...world.seeding import SeedContext
from ..models import Account, Case, Contact, Lead, Opportunity


@dataclass
class Built:
    """What the generator has made so far, so later object types can refer to earlier ones."""

    ctx: SeedContext
    users: list[User]
    accounts: list[Account] = field(default_factory=list)
    contacts: list[Contact] = field(default_factory=list)
    contacts_by_account: dict[int, list[Contact]] = field(default_factory=dict)
    opportunities: list[Opportunity] = field(default_factory=list)
    leads: list[Lead] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)

    @property
    def now(self) -> datetime:
        return self.ctx.clock.now

    def role(self, *roles: Role) -> list[User]:
        return [u for u in self.users if u.role in roles and u.active]

    @property
    def sales_reps(self) -> list[User]:
        return self.role(Role.sales_rep) or self.role(Role.sales_manager) or self.users

    @property
    def support_agents(self) -> list[User]:
        return self.role(Role.support_agent) or self.role(Role.support_manager) or self.users

    @property
    def support_managers(self) -> list[User]:
        return self.role(Role.support_manager) or self.support_agents

    def account(self, account_id: int) -> Account:
        return self.accounts[account_id - 1]  # ids are assigned 1..n in order


def load_users(ctx: SeedContext) -> list[User]:
    return list(ctx.session.exec(select(User).order_by(User.id)).all())


# -- seeded time: whole seconds, always relative to the world clock ------------------------------------------
def ago(rng: random.Random, now: datetime, lo_days: float, hi_days: float) -> datetime:
    """A moment between ``hi_days`` and ``lo_days`` days before ``now``."""
    return now - timedelta(seconds=rng.randint(int(lo_days * 86400), int(hi_days * 86400)))


def between(rng: random.Random, start: datetime, end: datetime) -> datetime:
    if end <= start:
        return start
    return start + timedelta(seconds=rng.randint(0, int((end - start).total_seconds())))


def business_time(rng: random.Random, day: date) -> datetime:
    """A meeting or call slot on ``day``: 8:00 to 16:30 on the half hour."""
    slot = rng.randint(16, 33)
    return datetime(day.year, day.month, day.day, slot // 2, 30 * (slot % 2))


def weighted(rng: random.Random, options: dict[str, float]) -> str:
    keys = list(options)
    return rng.choices(keys, weights=[options[k] for k in keys])[0]


def updated_after(rng: random.Random, created: datetime, now: datetime) -> datetime:
    """Last modified: usually some time after creation, never after now."""
    if rng.random() < 0.3:
        return created
    return between(rng, created, now)
