"""Task parameter hooks over the calendar (``python: apps_web.mail.calendar.taskparams:NAME``), so a
task's expected slot is computed by the same free/busy rules as the scheduling assistant."""

from __future__ import annotations

from datetime import date

from .freebusy import first_free_slot


def first_slot(ctx) -> str | None:  # noqa: ANN001
    """The first common free start of ``slot_minutes`` on ``slot_day`` for every address of
    ``slot_addresses`` (a list or ``;``-separated text), as the world file writes datetimes."""
    p = ctx.params
    addresses = p["slot_addresses"]
    if isinstance(addresses, str):
        addresses = [a.strip() for a in addresses.split(";") if a.strip()]
    t = first_free_slot(ctx.conn, list(addresses), date.fromisoformat(str(p["slot_day"])[:10]), int(p["slot_minutes"]))
    return t.strftime("%Y-%m-%d %H:%M:%S") if t else None


def busy_slot(ctx) -> str | None:  # noqa: ANN001
    """A start in working hours on ``slot_day`` where the first of ``slot_addresses`` after the
    organiser is busy (a near-miss that overlaps an attendee's meeting)."""
    from datetime import datetime, time

    from .freebusy import blocking, busy

    p = ctx.params
    addresses = p["slot_addresses"]
    if isinstance(addresses, str):
        addresses = [a.strip() for a in addresses.split(";") if a.strip()]
    day = date.fromisoformat(str(p["slot_day"])[:10])
    for a in addresses[1:]:
        for b in blocking(busy(ctx.conn, a, datetime.combine(day, time(8)), datetime.combine(day, time(17)))):
            if b.start.time() >= time(8) and b.start.minute in (0, 30):
                return b.start.strftime("%Y-%m-%d %H:%M:%S")
    return None
