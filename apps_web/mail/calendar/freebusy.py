"""Free/busy over the world's calendars, on a plain sqlite3 connection so the app, the JSON API and
task parameters compute the same slots: who is busy when (expanded series included), and the first
slot in working hours where every given person and room is free.

A person is busy during the events they organise or attend (declined ones excepted); a room during
the events that booked it. Events shown as free do not block; cancelled events do not exist.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from types import SimpleNamespace

from .recurrence import occurrences

WORK_START = time(8, 0)  # Outlook's default working hours
WORK_END = time(17, 0)
STEP = timedelta(minutes=30)


def db_time(t: datetime) -> str:
    """The text form datetimes have in the world file (SQLAlchemy's for SQLite)."""
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")


def _dt(value) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


def _d(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


@dataclass(frozen=True)
class Block:
    start: datetime
    end: datetime
    show_as: str
    subject: str
    event_id: int


_EVENT_COLS = "e.id, e.subject, e.start, e.end, e.show_as, e.recurrence, e.recur_interval, e.recur_days, e.recur_until, e.recur_count"


def _exceptions(conn: sqlite3.Connection, rows) -> dict[int, set[datetime]]:
    """The original starts of the occurrences edited out of the series among ``rows``, per series."""
    series = sorted({r[0] for r in rows if r[5] not in (None, "", "none")})
    skip: dict[int, set[datetime]] = {}
    if series:
        marks = ",".join("?" * len(series))
        for sid, orig in conn.execute(f"select series_id, original_start from mail_event where series_id in ({marks}) and original_start is not null", series):
            skip.setdefault(sid, set()).add(_dt(orig))
    return skip


def _expand(conn: sqlite3.Connection, rows, lo: datetime, hi: datetime, exclude_event: int | None,
            skip: dict[int, set[datetime]] | None = None) -> list[Block]:
    rows = [r for r in rows if r[0] != exclude_event]
    if skip is None:
        skip = _exceptions(conn, rows)
    out = []
    for r in rows:
        ev = SimpleNamespace(start=_dt(r[2]), end=_dt(r[3]), recurrence=r[5] or "none", recur_interval=r[6], recur_days=r[7] or "",
                             recur_until=_d(r[8]), recur_count=r[9])
        for s, e in occurrences(ev, lo, hi, frozenset(skip.get(r[0], ()))):
            out.append(Block(s, e, r[4] or "busy", r[1] or "", r[0]))
    return sorted(out, key=lambda b: (b.start, b.end, b.event_id))


def busy(conn: sqlite3.Connection, address: str, lo: datetime, hi: datetime, exclude_event: int | None = None) -> list[Block]:
    """The calendar blocks of a person or room (by address) that overlap [lo, hi)."""
    address = address.lower()
    # Series may start long before lo; their end is checked when expanding.
    where_time = "e.start < ? and (e.end > ? or coalesce(e.recurrence, 'none') != 'none')"
    args = (db_time(hi), db_time(lo))
    room = conn.execute("select id from mail_room where lower(address) = ?", (address,)).fetchone()
    if room is not None:
        rows = conn.execute(f"select {_EVENT_COLS} from mail_event e where not e.is_cancelled and e.room_id = ? and {where_time}",
                            (room[0], *args)).fetchall()
        return _expand(conn, rows, lo, hi, exclude_event)
    user = conn.execute("select id from identity_user where lower(email) = ?", (address,)).fetchone()
    if user is None:
        return []
    rows = conn.execute(f"""select {_EVENT_COLS} from mail_event e where not e.is_cancelled and {where_time} and (
        e.organizer_id = ? or exists (select 1 from mail_attendee a where a.event_id = e.id and a.user_id = ? and a.response != 'declined'))""",
                        (*args, user[0], user[0])).fetchall()
    return _expand(conn, rows, lo, hi, exclude_event)


def blocking(blocks: list[Block]) -> list[Block]:
    return [b for b in blocks if b.show_as != "free"]


def first_free_slot(conn: sqlite3.Connection, addresses: list[str], day: date, minutes: int, *, earliest: datetime | None = None,
                    exclude_event: int | None = None) -> datetime | None:
    """The first start on ``day`` (every half hour within working hours, not before ``earliest``)
    where a meeting of ``minutes`` fits with every address free."""
    lo, hi = datetime.combine(day, WORK_START), datetime.combine(day, WORK_END)
    taken = [b for a in addresses for b in blocking(busy(conn, a, lo, hi, exclude_event))]
    length = timedelta(minutes=minutes)
    t = lo
    while t + length <= hi:
        if (earliest is None or t >= earliest) and not any(b.start < t + length and b.end > t for b in taken):
            return t
        t += STEP
    return None


def conflicts(conn: sqlite3.Connection, address: str, start: datetime, end: datetime, exclude_event: int | None = None) -> list[Block]:
    return [b for b in blocking(busy(conn, address, start, end, exclude_event)) if b.start < end and b.end > start]


def busy_at(conn: sqlite3.Connection, user_ids: list[int], at: datetime) -> dict[int, list[Block]]:
    """The blocking events (not free, not declined) each person is in at ``at``: one query for everyone
    (presence of a list of people)."""
    out = {}
    for uid, blocks in busy_during(conn, user_ids, at, at + timedelta(minutes=1)).items():
        blocks = [b for b in blocks if b.start <= at < b.end]
        if blocks:
            out[uid] = blocks
    return out


def busy_during(conn: sqlite3.Connection, user_ids: list[int], lo: datetime, hi: datetime) -> dict[int, list[Block]]:
    """The blocking events (not free, not declined) of each person that overlap [lo, hi), series
    expanded: one query for everyone."""
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"""
        select {_EVENT_COLS}, p.uid from mail_event e join (
            select id as event_id, organizer_id as uid from mail_event where organizer_id in ({marks})
            union select event_id, user_id from mail_attendee where user_id in ({marks}) and response != 'declined'
        ) p on p.event_id = e.id
        where not e.is_cancelled and e.show_as != 'free' and e.start < ? and (e.end > ? or coalesce(e.recurrence, 'none') != 'none')""",
                        (*ids, *ids, db_time(hi), db_time(lo))).fetchall()
    by_user: dict[int, list] = {}
    for r in rows:
        by_user.setdefault(r[-1], []).append(r[:-1])
    skip = _exceptions(conn, [r[:-1] for r in rows])  # one query for every person's series
    out = {}
    for uid, evs in by_user.items():
        blocks = [b for b in _expand(conn, evs, lo, hi, None, skip) if b.start < hi and b.end > lo]
        if blocks:
            out[uid] = blocks
    return out


def free_from(conn: sqlite3.Connection, address: str, at: datetime) -> datetime:
    """When a person busy at ``at`` is next free: the end of the run of blocking events they are in."""
    return free_after(blocking(busy(conn, address, at, at + timedelta(hours=12))), at)


def free_after(blocks: list[Block], at: datetime) -> datetime:
    """The end of the run of ``blocks`` that ``at`` is in (``at`` itself when none is)."""
    end = at
    moved = True
    while moved:
        moved = False
        for b in blocks:
            if b.start <= end < b.end:
                end, moved = b.end, True
    return end
