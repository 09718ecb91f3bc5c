"""Expanding a series rule into occurrences (daily or weekly on chosen days, every N days/weeks,
until a date or for a count), as Outlook shows a recurring meeting: the rule is stored once."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Iterator

from .models import WEEKDAYS

MAX_OCCURRENCES = 999


def _days(recur_days: str) -> list[int]:
    return sorted({WEEKDAYS.index(d) for d in (recur_days or "").split(",") if d in WEEKDAYS})


def starts(start: datetime, recurrence: str, interval: int = 1, recur_days: str = "", until: date | None = None,
           count: int | None = None, stop: datetime | None = None) -> Iterator[datetime]:
    """Every occurrence's start, in order, up to ``stop`` (exclusive) and the series' own end."""
    interval = max(1, interval or 1)
    limit = min(count or MAX_OCCURRENCES, MAX_OCCURRENCES)
    n = 0

    def ok(t: datetime) -> bool:
        return (until is None or t.date() <= until) and (stop is None or t < stop)

    if recurrence == "daily":
        t = start
        while n < limit and ok(t):
            yield t
            n += 1
            t += timedelta(days=interval)
        return
    if recurrence == "weekly":
        days = _days(recur_days) or [start.weekday()]
        week = start - timedelta(days=start.weekday())
        while n < limit:
            for d in days:
                t = week + timedelta(days=d)
                if t < start:
                    continue
                if not ok(t) or n >= limit:
                    return
                yield t
                n += 1
            week += timedelta(weeks=interval)
        return
    if ok(start) or stop is None:
        yield start


def occurrences(ev, lo: datetime, hi: datetime, skip: frozenset[datetime] = frozenset()) -> list[tuple[datetime, datetime]]:
    """(start, end) of ``ev``'s occurrences that overlap [lo, hi), minus the starts in ``skip``
    (occurrences replaced by an edited exception). ``ev`` has the Event fields."""
    length = ev.end - ev.start
    if ev.recurrence in (None, "", "none"):
        return [(ev.start, ev.end)] if ev.start < hi and ev.end > lo else []
    out = []
    for t in starts(ev.start, ev.recurrence, ev.recur_interval, ev.recur_days, ev.recur_until, ev.recur_count, stop=hi):
        if t + length > lo and t not in skip:
            out.append((t, t + length))
    return out


def describe(ev) -> str:
    """Outlook's summary of a series: "Occurs every Monday and Wednesday until 6/30/2026"."""
    if ev.recurrence in (None, "", "none"):
        return ""
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    if ev.recurrence == "daily":
        text = "Occurs every day" if (ev.recur_interval or 1) == 1 else f"Occurs every {ev.recur_interval} days"
    else:
        days = [names[d] for d in (_days(ev.recur_days) or [ev.start.weekday()])]
        joined = days[0] if len(days) == 1 else ", ".join(days[:-1]) + " and " + days[-1]
        text = f"Occurs every {joined}" if (ev.recur_interval or 1) == 1 else f"Occurs every {ev.recur_interval} weeks on {joined}"
    if ev.recur_until:
        u = ev.recur_until
        text += f" until {u.month}/{u.day}/{u.year}"
    elif ev.recur_count:
        text += f" for {ev.recur_count} occurrences"
    return text
