"""Task parameter hooks over the calendar (``python: apps_web.mail.calendar.taskparams:NAME``), so a
task's expected slot is computed by the same free/busy rules as the scheduling assistant."""

from __future__ import annotations

from datetime import date

from .freebusy import first_free_slot


def first_slot(ctx) -> str | None:  # noqa: ANN001
    """The first common free start of ``slot_minutes`` on ``slot_day`` for every address of
    ``slot_addresses`` (a list or ``;``-separated text), not before ``slot_earliest`` when the task
    has it, as the world file writes datetimes."""
    from datetime import datetime

    p = ctx.params
    addresses = p["slot_addresses"]
    if isinstance(addresses, str):
        addresses = [a.strip() for a in addresses.split(";") if a.strip()]
    earliest = datetime.fromisoformat(str(p["slot_earliest"])) if p.get("slot_earliest") else None
    t = first_free_slot(ctx.conn, list(addresses), date.fromisoformat(str(p["slot_day"])[:10]), int(p["slot_minutes"]), earliest=earliest)
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


def first_slot_with_room(ctx) -> dict | None:  # noqa: ANN001
    """The first start on ``slot_day`` when every address of ``slot_addresses`` is free for
    ``slot_minutes`` and some room seating ``room_min`` is free too, with the smallest such room:
    ``{"start", "end", "room": {id, name, address, capacity}}`` (all None when there is none, for a
    task's ``assert`` to reject)."""
    from datetime import datetime, timedelta

    from .freebusy import STEP, conflicts

    p = ctx.params
    day = date.fromisoformat(str(p["slot_day"])[:10])
    length = timedelta(minutes=int(p["slot_minutes"]))
    rooms = ctx.conn.execute("select id, name, address, capacity from mail_room where capacity >= ? order by capacity, id",
                             (int(p["room_min"]),)).fetchall()
    earliest: datetime | None = None
    while True:
        t = first_free_slot(ctx.conn, list(p["slot_addresses"]), day, int(p["slot_minutes"]), earliest=earliest)
        if t is None:
            return {"start": None, "end": None, "room": {"id": None, "name": None, "address": None, "capacity": None}}
        free = [r for r in rooms if not conflicts(ctx.conn, r[2], t, t + length)]
        if free:
            r = free[0]
            return {"start": t.strftime("%Y-%m-%d %H:%M:%S"), "end": (t + length).strftime("%Y-%m-%d %H:%M:%S"),
                    "room": {"id": r[0], "name": r[1], "address": r[2], "capacity": r[3]}}
        earliest = t + STEP


def book_big_rooms(conn, params) -> None:  # noqa: ANN001
    """Set-up: every room seating ``room_min`` that is free at ``people_slot`` gets a meeting of
    someone else's then (``blocker``), so the people's first common time has only small rooms."""
    from datetime import datetime, timedelta

    from .freebusy import conflicts

    start = datetime.fromisoformat(str(params["people_slot"]))
    end = start + timedelta(minutes=int(params["slot_minutes"]))
    rooms = conn.execute("select id, name, address, capacity from mail_room where capacity >= ? order by id", (int(params["room_min"]),)).fetchall()
    for rid, name, address, _cap in rooms:
        if conflicts(conn, address, start, end):
            continue
        cur = conn.execute(
            "insert into mail_event (organizer_id, subject, location, room_id, start, \"end\", all_day, show_as, body_html, is_online, recurrence,"
            " recur_interval, recur_days, is_cancelled, ical_uid) values (?, ?, ?, ?, ?, ?, 0, 'busy', '', 0, 'none', 1, '', 0, ?)",
            (int(params["blocker"]["id"]), params["blocker"]["subject"], name, rid, start.strftime("%Y-%m-%d %H:%M:%S"),
             end.strftime("%Y-%m-%d %H:%M:%S"), f"setup-room-{rid}"))
        conn.execute("insert into mail_attendee (event_id, address, name, room_id, kind, response, comment) values (?, ?, ?, ?, 'resource', 'accepted', '')",
                     (cur.lastrowid, address, name, rid))


def small_room_at(ctx) -> dict | None:  # noqa: ANN001
    """The largest room too small for ``room_min`` that is free at ``people_slot`` (a near-miss)."""
    from datetime import datetime, timedelta

    from .freebusy import conflicts

    p = ctx.params
    start = datetime.fromisoformat(str(p["people_slot"]))
    end = start + timedelta(minutes=int(p["slot_minutes"]))
    rows = ctx.conn.execute("select id, name, address, capacity from mail_room where capacity < ? order by capacity desc, id",
                            (int(p["room_min"]),)).fetchall()
    for r in rows:
        if not conflicts(ctx.conn, r[2], start, end):
            return {"id": r[0], "name": r[1], "address": r[2], "capacity": r[3]}
    return None


def send_invitation(conn, params) -> None:  # noqa: ANN001
    """Set-up: ``invite.organizer`` (a username) sends a meeting invitation through the calendar's own
    form (``invite.subject``, ``invite.start`` and ``invite.end`` as world datetimes, ``invite.to``
    the required addresses), an hour before the world clock, so the attendees have it unread.
    ``invites`` (a list of the same) sends several."""
    from datetime import datetime, timedelta

    from sqlmodel import select

    from ...identity.models import User
    from ...messaging import session_on
    from ...world import WorldClock
    from ..models import Mailbox
    from .events import EventForm, save, validate

    conn.commit()  # the set-up's earlier changes: SQLAlchemy's first use of the connection rolls back an open transaction
    now = datetime.fromisoformat(conn.execute("select value from sandbox_meta where key = 'clock'").fetchone()[0])
    domain = conn.execute("select value from sandbox_meta where key = 'domain'").fetchone()[0]
    invites = params["invites"] if "invites" in params else [params["invite"]]
    with session_on(conn) as session:
        for inv in invites:
            start, end = datetime.fromisoformat(str(inv["start"])), datetime.fromisoformat(str(inv["end"]))
            user = session.exec(select(User).where(User.username == inv["organizer"])).one()
            box = session.exec(select(Mailbox).where(Mailbox.user_id == user.id)).one()
            form = EventForm(subject=inv["subject"], required="; ".join(inv["to"]), start_date=start.date().isoformat(),
                             start_time=start.strftime("%H:%M"), end_date=end.date().isoformat(), end_time=end.strftime("%H:%M"),
                             body=inv.get("body", ""), is_online=True)
            checked, errors = validate(session, form, domain)
            if checked is None:
                raise ValueError(f"the invitation {inv['subject']!r} of the set-up is not valid: {errors}")
            save(session, user, box, form, checked, WorldClock(now - timedelta(hours=1)), domain)
        session.commit()
