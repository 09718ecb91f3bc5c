"""Shared helpers of the desk generator: bulk inserts and seeded time."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import SQLModel

from ...world.seeding import SeedContext


def insert(ctx: SeedContext, model: type[SQLModel], rows: list[dict[str, Any]]) -> None:
    if rows:
        ctx.session.execute(model.__table__.insert(), rows)


def minutes_after(rng: random.Random, start: datetime, lo: float, hi: float) -> datetime:
    return start + timedelta(minutes=rng.randint(int(lo), int(hi)))


def work_hours(rng: random.Random, day: datetime) -> datetime:
    """A moment on ``day`` between 07:30 and 18:30, whole seconds."""
    return day.replace(hour=7, minute=30, second=0, microsecond=0) + timedelta(seconds=rng.randint(0, 11 * 3600))


def fill(rng: random.Random, template: str, values: dict[str, Any]) -> str:
    """``str.format`` with lazily drawn values: a callable value is called only if used."""
    needed = {k: (v(rng) if callable(v) else v) for k, v in values.items() if "{" + k + "}" in template}
    return template.format(**needed)
