"""The frozen world clock: apps never read the real clock for data they show or store."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

# A Monday morning, so "this week" and "this quarter" have a natural meaning in every world.
DEFAULT_CLOCK = datetime(2026, 3, 16, 9, 30, 0)


@dataclass(frozen=True)
class WorldClock:
    """The world's 'now'. Frozen: every request of an episode sees the same instant."""

    now: datetime = DEFAULT_CLOCK

    @property
    def today(self) -> date:
        return self.now.date()

    def days_ago(self, days: float) -> datetime:
        return self.now - timedelta(days=days)

    def days_ahead(self, days: float) -> datetime:
        return self.now + timedelta(days=days)

    @property
    def quarter_start(self) -> date:
        q = (self.now.month - 1) // 3
        return date(self.now.year, 3 * q + 1, 1)

    @property
    def quarter_end(self) -> date:
        start = self.quarter_start
        month = start.month + 3
        year = start.year + (month > 12)
        month = month - 12 if month > 12 else month
        return date(year, month, 1) - timedelta(days=1)
