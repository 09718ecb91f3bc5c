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
    """A start in working hours on ``slot_day`` where one of ``slot_addresses`` is busy (attendees
    first, then the organiser and the room): a near-miss that overlaps someone's meeting."""
    from datetime import datetime, time

    from .freebusy import blocking, busy

    p = ctx.params
    addresses = p["slot_addresses"]
    if isinstance(addresses, str):
        addresses = [a.strip() for a in addresses.split(";") if a.strip()]
    day = date.fromisoformat(str(p["slot_day"])[:10])
    for a in addresses[1:] + addresses[:1]:
        for b in blocking(busy(ctx.conn, a, datetime.combine(day, time(8)), datetime.combine(day, time(17)))):
            if b.start.time() >= time(8) and b.start.minute in (0, 30):
                return b.start.strftime("%Y-%m-%d %H:%M:%S")
    return None


def _rooms_free(ctx, bigger: bool) -> dict | None:  # noqa: ANN001
    from datetime import datetime, timedelta

    from .freebusy import conflicts

    p = ctx.params
    start = datetime.fromisoformat(str(p["slot_start"]))
    end = start + timedelta(minutes=int(p["slot_minutes"]))
    need = int(p["room_min"])
    rows = ctx.conn.execute("select id, name, address, capacity from mail_room order by capacity, id").fetchall()
    fits = [r for r in rows if (r[3] >= need) == bigger and not conflicts(ctx.conn, r[2], start, end)]
    if not fits:
        return None
    r = fits[0] if bigger else fits[-1]
    return {"id": r[0], "name": r[1], "address": r[2], "capacity": r[3]}


def free_room(ctx) -> dict | None:  # noqa: ANN001
    """The smallest room seating ``room_min`` that is free from ``slot_start`` for ``slot_minutes``."""
    return _rooms_free(ctx, True)


def small_room(ctx) -> dict | None:  # noqa: ANN001
    """The largest free room that is too small for ``room_min`` people (a near-miss)."""
    return _rooms_free(ctx, False)
