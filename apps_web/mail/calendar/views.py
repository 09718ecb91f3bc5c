"""What the calendar pages show: the user's events in a range (series expanded), laid out in the
day/work-week grid (overlapping meetings side by side) or the month grid."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from sqlalchemy import or_
from sqlmodel import Session, select

from .models import Attendee, Event, Room
from .recurrence import occurrences

HOUR_PX = 48
VIEWS = {"day": "Day", "workweek": "Work week", "month": "Month"}


@dataclass
class Occurrence:
    event: Event
    start: datetime
    end: datetime
    response: str  # the viewer's: organizer | none | accepted | tentative | declined
    lane: int = 0
    lanes: int = 1

    @property
    def key(self) -> str:
        return f"{self.start:%Y-%m-%dT%H:%M}"

    @property
    def href(self) -> str:
        return f"/calendar/item/{self.event.id}" + (f"?start={self.key}" if self.event.recurrence not in (None, "", "none") else "")

    @property
    def minutes(self) -> int:
        return int((self.end - self.start).total_seconds() // 60)


@dataclass
class Day:
    date: date
    timed: list[Occurrence] = field(default_factory=list)
    all_day: list[Occurrence] = field(default_factory=list)


def hm(t: datetime | time) -> str:
    return f"{t.hour % 12 or 12}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"


def range_for(view: str, day: date) -> tuple[date, date]:
    if view == "day":
        return day, day + timedelta(days=1)
    if view == "workweek":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=5)
    first = day.replace(day=1)
    start = first - timedelta(days=(first.weekday() + 1) % 7)  # weeks start on Sunday, as in Outlook's month view
    return start, start + timedelta(weeks=6)


def step(view: str, day: date, sign: int) -> date:
    if view == "day":
        return day + timedelta(days=sign)
    if view == "workweek":
        return day + timedelta(weeks=sign)
    m = day.month - 1 + sign
    return date(day.year + m // 12, m % 12 + 1, 1)


def title_for(view: str, lo: date, hi: date, day: date) -> str:
    if view == "day":
        return f"{day:%A}, {day:%B} {day.day}, {day.year}"
    if view == "workweek":
        last = hi - timedelta(days=1)
        if lo.month == last.month:
            return f"{lo:%B} {lo.day}-{last.day}, {lo.year}"
        return f"{lo:%B} {lo.day} - {last:%B} {last.day}, {last.year}"
    return f"{day:%B} {day.year}"


def user_occurrences(session: Session, user_id: int, lo: datetime, hi: datetime) -> list[Occurrence]:
    """The user's calendar in [lo, hi): meetings they organise or attend (declined ones leave the
    calendar, as in Outlook), cancelled ones gone."""
    mine = select(Attendee.event_id).where(Attendee.user_id == user_id, Attendee.response != "declined")
    rows = session.exec(select(Event).where(
        Event.is_cancelled.is_(False), Event.start < hi,
        or_(Event.end > lo, Event.recurrence != "none"),
        or_(Event.organizer_id == user_id, Event.id.in_(mine)))).all()
    responses = dict(session.execute(select(Attendee.event_id, Attendee.response).where(
        Attendee.user_id == user_id, Attendee.event_id.in_([e.id for e in rows]))).all()) if rows else {}
    series = [e.id for e in rows if e.recurrence not in (None, "", "none")]
    skip: dict[int, set[datetime]] = {}
    if series:
        for sid, orig in session.execute(select(Event.series_id, Event.original_start).where(Event.series_id.in_(series))).all():
            if orig is not None:
                skip.setdefault(sid, set()).add(orig)
    out = []
    for e in rows:
        resp = "organizer" if e.organizer_id == user_id else responses.get(e.id, "none")
        for s, t in occurrences(e, lo, hi, frozenset(skip.get(e.id, ()))):
            out.append(Occurrence(e, s, t, resp))
    out.sort(key=lambda o: (o.start, -o.minutes, o.event.id))
    return out


def _lanes(items: list[Occurrence]) -> None:
    """Side by side columns for overlapping meetings (each cluster shares its lane count)."""
    cluster: list[Occurrence] = []
    ends: list[datetime] = []
    cluster_end = None
    for o in items:
        if cluster and o.start >= cluster_end:
            for c in cluster:
                c.lanes = len(ends)
            cluster, ends, cluster_end = [], [], None
        lane = next((i for i, e in enumerate(ends) if e <= o.start), None)
        if lane is None:
            lane = len(ends)
            ends.append(o.end)
        else:
            ends[lane] = o.end
        o.lane = lane
        cluster.append(o)
        cluster_end = o.end if cluster_end is None else max(cluster_end, o.end)
    for c in cluster:
        c.lanes = len(ends)


def days_of(occs: list[Occurrence], lo: date, hi: date) -> list[Day]:
    days = [Day(lo + timedelta(days=i)) for i in range((hi - lo).days)]
    index = {d.date: d for d in days}
    for o in occs:
        if o.event.all_day or o.end - o.start >= timedelta(hours=24):
            d = o.start.date()
            while d < o.end.date() or d == o.start.date():
                if d in index:
                    index[d].all_day.append(o)
                d += timedelta(days=1)
                if d >= o.end.date():
                    break
        elif o.start.date() in index:
            index[o.start.date()].timed.append(o)
    for d in days:
        _lanes(d.timed)
    return days


def rooms(session: Session) -> list[Room]:
    return list(session.exec(select(Room).order_by(Room.capacity, Room.name)).all())
