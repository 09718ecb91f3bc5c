"""The calendar's JSON API under /api/: events in a range (series expanded), one event with its
attendees and responses, create (the New event form's validation), respond, cancel, rooms and
free/busy with the first common free slot."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from fastapi import APIRouter, Body, HTTPException, Request
from sqlmodel import select

from .. import openapi
from ...deps import ClockDep, CurrentUser, SessionDep
from ..calendar import events as ev_ops
from ..calendar.freebusy import blocking, busy, first_free_slot
from ..calendar.models import Attendee, Event, Room
from ..calendar.recurrence import describe
from ..calendar.views import rooms as all_rooms
from ..calendar.views import user_occurrences
from .api import unprocessable
from .common import box_of, domain_of


router = APIRouter(prefix="/api", tags=["calendar"])


def _event_json(session, ev: Event) -> dict[str, Any]:  # noqa: ANN001
    attendees = session.exec(select(Attendee).where(Attendee.event_id == ev.id).order_by(Attendee.id)).all()
    return {"id": ev.id, "subject": ev.subject, "start": ev.start.isoformat(), "end": ev.end.isoformat(), "all_day": ev.all_day,
            "location": ev.location, "room_id": ev.room_id, "organizer_id": ev.organizer_id, "show_as": ev.show_as, "is_online": ev.is_online,
            "is_cancelled": ev.is_cancelled, "recurrence": {"type": ev.recurrence, "interval": ev.recur_interval, "days": [d for d in ev.recur_days.split(",") if d],
                                                            "until": ev.recur_until.isoformat() if ev.recur_until else None, "count": ev.recur_count,
                                                            "summary": describe(ev)},
            "crm_account_id": ev.crm_account_id, "crm_opportunity_id": ev.crm_opportunity_id, "body_html": ev.body_html,
            "attendees": [{"address": a.address, "name": a.name, "kind": a.kind, "response": a.response, "user_id": a.user_id,
                           "responded_at": a.responded_at.isoformat() if a.responded_at else None} for a in attendees]}


def _visible_event(session, user, event_id: int) -> Event:  # noqa: ANN001
    ev = session.get(Event, event_id)
    mine = ev is not None and (ev.organizer_id == user.id or session.exec(
        select(Attendee.id).where(Attendee.event_id == ev.id, Attendee.user_id == user.id)).first() is not None)
    if not mine:
        raise HTTPException(status_code=404, detail="This event isn't on your calendar.")
    return ev


@router.get("/events")
def list_events(session: SessionDep, user: CurrentUser, clock: ClockDep, start: str = "", end: str = ""):
    """The signed-in user's calendar between ``start`` and ``end`` (ISO dates; default: this week)."""
    try:
        lo = date.fromisoformat(start) if start else clock.today - timedelta(days=clock.today.weekday())
        hi = date.fromisoformat(end) if end else lo + timedelta(days=7)
    except ValueError:
        return unprocessable("start and end must be dates such as 2026-03-16.")
    if hi <= lo or (hi - lo).days > 366:
        return unprocessable("end must be after start, at most a year later.")
    occs = user_occurrences(session, user.id, datetime.combine(lo, time(0)), datetime.combine(hi, time(0)))
    return [{"id": o.event.id, "subject": o.event.subject, "start": o.start.isoformat(), "end": o.end.isoformat(), "all_day": o.event.all_day,
             "location": o.event.location, "response": o.response, "is_recurring": o.event.recurrence != "none"} for o in occs]


@router.get("/events/{event_id}")
def get_event(session: SessionDep, user: CurrentUser, event_id: int):
    return _event_json(session, _visible_event(session, user, event_id))


def _whole(value: Any) -> int:
    """A repeat interval as given (1 when missing); the form's validation refuses a bad one."""
    try:
        return max(1, min(int(value or 1), 999))
    except (TypeError, ValueError):
        return 1


def _form(payload: dict[str, Any]) -> ev_ops.EventForm:
    def addresses(v) -> str:  # noqa: ANN001
        return "; ".join(v) if isinstance(v, list) else str(v or "")

    start, end = str(payload.get("start") or ""), str(payload.get("end") or "")
    rec = payload.get("recurrence") or {}
    if not isinstance(rec, dict):
        rec = {"type": str(rec)}
    return ev_ops.EventForm(
        subject=str(payload.get("subject") or ""), required=addresses(payload.get("required")), optional=addresses(payload.get("optional")),
        start_date=start[:10], start_time=start[11:16], end_date=end[:10], end_time=end[11:16], all_day=bool(payload.get("all_day")),
        room_id=payload.get("room_id") if isinstance(payload.get("room_id"), int) else None, location=str(payload.get("location") or ""),
        recurrence=str(rec.get("type") or "none"), recur_days=[str(d) for d in rec.get("days") or []] if isinstance(rec.get("days"), list) else [], recur_interval=_whole(rec.get("interval")),
        recur_end="until" if rec.get("until") else ("count" if rec.get("count") else "never"), recur_until=str(rec.get("until") or ""),
        recur_count=str(rec.get("count") or ""), body=str(payload.get("body") or ""), is_online=bool(payload.get("is_online")),
        show_as=str(payload.get("show_as") or "busy"))


@router.post("/events", status_code=201, name="create_event", openapi_extra=openapi.EVENT)
def create_event(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, payload: dict[str, Any] = Body(...)):
    """``subject``, ``start``/``end`` (ISO datetimes), ``required``/``optional`` (lists or ``;``-separated),
    ``room_id``, ``location``, ``all_day``, ``recurrence`` ({type, days, interval, until, count}), ``body``."""
    form = _form(payload)
    box = box_of(session, user)
    checked, errors = ev_ops.validate(session, form, domain_of(request, box))
    if errors:
        return unprocessable(next(iter(errors.values())), errors)
    ev = ev_ops.save(session, user, box, form, checked, clock, domain_of(request, box))
    return _event_json(session, ev)


@router.post("/events/{event_id}/respond", name="respond_to_event", openapi_extra=openapi.RESPOND)
def respond(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, event_id: int, payload: dict[str, Any] = Body(...)):
    """``response`` (accepted, tentative, declined), ``comment``, ``send_response`` (default true)."""
    ev = _visible_event(session, user, event_id)
    box = box_of(session, user)
    try:
        ev_ops.respond(session, user, box, ev, str(payload.get("response") or ""), clock, domain_of(request, box),
                       comment=str(payload.get("comment") or ""), send_response=payload.get("send_response", True) is not False)
    except ev_ops.MeetingError as e:
        return unprocessable(str(e))
    return _event_json(session, ev)


@router.post("/events/{event_id}/cancel", name="cancel_event", openapi_extra=openapi.CANCEL)
def cancel(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, event_id: int, payload: dict[str, Any] = Body(default={})):
    ev = _visible_event(session, user, event_id)
    box = box_of(session, user)
    try:
        ev_ops.cancel(session, user, box, ev, clock, domain_of(request, box), message=str((payload or {}).get("message") or ""))
    except ev_ops.MeetingError as e:
        return unprocessable(str(e))
    return _event_json(session, ev)


@router.get("/rooms")
def rooms(session: SessionDep, user: CurrentUser):
    return [{"id": r.id, "name": r.name, "address": r.address, "building": r.building, "floor": r.floor, "capacity": r.capacity,
             "equipment": [e.strip() for e in r.equipment.split(",") if e.strip()]} for r in all_rooms(session)]


@router.get("/freebusy")
def freebusy(session: SessionDep, user: CurrentUser, day: str, addresses: str, duration: int = 30):
    """Busy blocks per address (``;``-separated, people or rooms) on ``day`` and the first common free slot."""
    try:
        d = date.fromisoformat(day)
    except ValueError:
        return unprocessable("day must be a date such as 2026-03-16.")
    if not 5 <= duration <= 540:
        return unprocessable("duration must be between 5 and 540 minutes.")
    conn = session.connection().connection.driver_connection
    addrs = [a.strip().lower() for a in addresses.split(";") if a.strip()]
    lo, hi = datetime.combine(d, time(0)), datetime.combine(d + timedelta(days=1), time(0))
    slot = first_free_slot(conn, addrs, d, duration)
    return {"busy": {a: [{"start": b.start.isoformat(), "end": b.end.isoformat(), "show_as": b.show_as} for b in blocking(busy(conn, a, lo, hi))] for a in addrs},
            "first_free": slot.isoformat() if slot else None}
