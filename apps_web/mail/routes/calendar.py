"""Calendar pages: the day, work-week and month views on the world clock, an event's details with
responses and tracking, the New event form (and editing), responding, cancelling, and the
scheduling assistant."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import RedirectResponse
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import redirect, render
from ..calendar import events as ev_ops
from ..calendar.freebusy import STEP, WORK_END, WORK_START, blocking, busy, first_free_slot
from ..calendar.models import Attendee, Event, Room
from ..calendar.recurrence import describe
from ..calendar.views import HOUR_PX, VIEWS, days_of, hm, range_for, rooms, step, title_for, user_occurrences
from ..compose import split_addresses
from .common import box_of, domain_of, safe_back

router = APIRouter()


def _date(value: str | None, default: date) -> date:
    try:
        return date.fromisoformat(value) if value else default
    except ValueError:
        return default


@router.get("/calendar")
def calendar_home() -> RedirectResponse:
    return RedirectResponse("/calendar/view/workweek", status_code=303)


@router.get("/calendar/view/{view}")
@router.get("/calendar/view/{view}/{y}/{m}/{d}")
def calendar_view(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, view: str, y: int | None = None,
                  m: int | None = None, d: int | None = None):
    if view not in VIEWS:
        raise HTTPException(status_code=404, detail=f"There's no calendar view called \u201c{view}\u201d. Use day, workweek or month.")
    try:
        day = date(y, m, d) if y else clock.today
    except ValueError:
        raise HTTPException(status_code=404, detail="That date doesn't exist. Use Today to go back to the calendar.") from None
    lo, hi = range_for(view, day)
    occs = user_occurrences(session, user.id, datetime.combine(lo, time(0)), datetime.combine(hi, time(0)))
    days = days_of(occs, lo, hi)
    link = lambda t: f"/calendar/view/{view}/{t.year}/{t.month}/{t.day}"  # noqa: E731
    return render(request, "mail/calendar/view.html", view=view, views=VIEWS, day=day, days=days, today=clock.today, now=clock.now,
                  title=title_for(view, lo, hi, day), prev_url=link(step(view, day, -1)), next_url=link(step(view, day, 1)),
                  today_url=f"/calendar/view/{view}", link=link, hour_px=HOUR_PX, hm=hm, module="calendar",
                  weeks=[days[i:i + 7] for i in range(0, len(days), 7)] if view == "month" else [])


def _own_event(session, event_id: int) -> Event:  # noqa: ANN001
    ev = session.get(Event, event_id)
    if ev is None:
        raise HTTPException(status_code=404, detail="This event doesn't exist. It may have been deleted.")
    return ev


def _visible(session, ev: Event, user: User) -> Attendee | None:  # noqa: ANN001
    me = session.exec(select(Attendee).where(Attendee.event_id == ev.id, Attendee.user_id == user.id)).first()
    if ev.organizer_id != user.id and me is None:
        raise HTTPException(status_code=404, detail="This event isn't on your calendar.")
    return me


@router.get("/calendar/item/{event_id}")
def event_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, event_id: int, start: str = ""):
    ev = _own_event(session, event_id)
    me = _visible(session, ev, user)
    occ_start = ev.start
    if start:
        try:
            occ_start = datetime.fromisoformat(start)
        except ValueError:
            occ_start = ev.start
    occ_end = occ_start + (ev.end - ev.start)
    attendees = session.exec(select(Attendee).where(Attendee.event_id == ev.id).order_by(Attendee.kind.desc(), Attendee.id)).all()
    people = [a for a in attendees if a.kind != "resource"]
    tracking = {r: sum(1 for a in people if a.response == r) for r in ("accepted", "tentative", "declined", "none")}
    return render(request, "mail/calendar/item.html", ev=ev, me=me, organizer=session.get(User, ev.organizer_id), attendees=attendees,
                  people=people, tracking=tracking, room=session.get(Room, ev.room_id) if ev.room_id else None, series=describe(ev),
                  when=ev_ops.when_text(ev, occ_start, occ_end), module="calendar", is_organizer=ev.organizer_id == user.id,
                  day=occ_start.date(), hm=hm, occ_key=f"{occ_start:%Y-%m-%dT%H:%M}",
                  series_of=session.get(Event, ev.series_id) if ev.series_id else None)


async def _form_from_request(request: Request) -> ev_ops.EventForm:
    data = await request.form()
    get = lambda k: str(data.get(k) or "")  # noqa: E731
    room = get("room_id")
    try:
        interval = int(get("recur_interval") or 1)
    except ValueError:
        interval = 0
    return ev_ops.EventForm(
        subject=get("subject"), required=get("required"), optional=get("optional"), start_date=get("start_date"), start_time=get("start_time"),
        end_date=get("end_date") or get("start_date"), end_time=get("end_time"), all_day=bool(data.get("all_day")),
        room_id=int(room) if room.isdigit() else (-1 if room else None), location=get("location"), recurrence=get("recurrence") or "none",
        recur_days=[str(v) for v in data.getlist("recur_days")], recur_interval=interval, recur_end=get("recur_end") or "never",
        recur_until=get("recur_until"), recur_count=get("recur_count"), body=get("body"), is_online=bool(data.get("is_online")),
        show_as=get("show_as") or "busy")


def _form_page(request: Request, session, form: ev_ops.EventForm, errors: dict[str, str], action: str, heading: str,  # noqa: ANN001
               status_code: int = 200, ev: Event | None = None, occurrence: str = ""):
    return render(request, "mail/calendar/form.html", form=form, errors=errors, action=action, heading=heading, rooms=rooms(session),
                  module="calendar", ev=ev, occurrence=occurrence, weekdays=[("MO", "Monday"), ("TU", "Tuesday"), ("WE", "Wednesday"), ("TH", "Thursday"),
                                                       ("FR", "Friday"), ("SA", "Saturday"), ("SU", "Sunday")], status_code=status_code)


@router.get("/calendar/deeplink/compose")
def new_event(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, date_: str = Query("", alias="date"), hour: int | None = None,
              subject: str = "", required: str = "", optional: str = "", start: str = "", end: str = "", room: int | None = None):
    # Prefilled by a click in the grid (?date_=&hour=) or by the scheduling assistant's chosen slot.
    form = ev_ops.form_for_new(clock, _date(date_, clock.today) if date_ else None, hour)
    form.subject, form.required, form.optional, form.room_id = subject, required, optional, room
    for value, d_attr, t_attr in ((start, "start_date", "start_time"), (end, "end_date", "end_time")):
        try:
            t = datetime.fromisoformat(value) if value else None
        except ValueError:
            t = None
        if t is not None:
            setattr(form, d_attr, t.date().isoformat())
            setattr(form, t_attr, f"{t:%H:%M}")
    return _form_page(request, session, form, {}, "/calendar/deeplink/compose", "New event")


@router.post("/calendar/deeplink/compose")
async def create_event(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    form = await _form_from_request(request)
    box = box_of(session, user)
    checked, errors = ev_ops.validate(session, form, domain_of(request, box))
    if errors:
        return _form_page(request, session, form, errors, "/calendar/deeplink/compose", "New event", status_code=422)
    ev = ev_ops.save(session, user, box, form, checked, clock, domain_of(request, box))
    day = ev.start.date()
    has_people = session.exec(select(Attendee.id).where(Attendee.event_id == ev.id, Attendee.kind != "resource")).first() is not None
    return redirect(request, f"/calendar/view/workweek/{day.year}/{day.month}/{day.day}",
                    toast=("Invitation sent: " if has_people else "Event saved: ") + ev.subject, link=f"/calendar/item/{ev.id}", link_text="Open")


def _occurrence(ev: Event, value: str) -> datetime | None:
    """The occurrence start named by ``?occurrence=`` ("This event"), checked against the series."""
    try:
        start = datetime.fromisoformat(value) if value else None
    except ValueError:
        start = None
    if start is None or ev.recurrence in (None, "", "none") or not ev_ops.occurrence_of(ev, start):
        raise HTTPException(status_code=404, detail="This event isn't an occurrence of the series. Open it from the calendar and choose Edit again.")
    return start


@router.get("/calendar/item/{event_id}/edit")
def edit_event(request: Request, session: SessionDep, user: CurrentUser, event_id: int, occurrence: str = ""):
    ev = _own_event(session, event_id)
    if ev.organizer_id != user.id or ev.is_cancelled:
        raise HTTPException(status_code=403, detail="Only the organizer can edit this meeting.")
    if occurrence:  # "This event": the one occurrence (an existing exception is edited as itself)
        start = _occurrence(ev, occurrence)
        done = session.exec(select(Event).where(Event.series_id == ev.id, Event.original_start == start)).first()
        if done is not None:
            return RedirectResponse(f"/calendar/item/{done.id}/edit", status_code=303)
        form = ev_ops.form_from_event(session, ev)
        end = start + (ev.end - ev.start)
        form.start_date, form.start_time, form.end_date, form.end_time = start.date().isoformat(), f"{start:%H:%M}", end.date().isoformat(), f"{end:%H:%M}"
        form.recurrence, form.recur_days = "none", []
        return _form_page(request, session, form, {}, f"/calendar/item/{ev.id}/edit", "Edit event", ev=ev, occurrence=f"{start:%Y-%m-%dT%H:%M}")
    return _form_page(request, session, ev_ops.form_from_event(session, ev), {}, f"/calendar/item/{ev.id}/edit", "Edit event", ev=ev)


@router.post("/calendar/item/{event_id}/edit")
async def update_event(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, event_id: int):
    ev = _own_event(session, event_id)
    if ev.organizer_id != user.id or ev.is_cancelled:
        raise HTTPException(status_code=403, detail="Only the organizer can edit this meeting.")
    form = await _form_from_request(request)
    occurrence = str((await request.form()).get("occurrence") or "")
    box = box_of(session, user)
    if occurrence:
        start = _occurrence(ev, occurrence)
        form.recurrence = "none"
        checked, errors = ev_ops.validate(session, form, domain_of(request, box), exclude_event=ev.id)
        if errors:
            return _form_page(request, session, form, errors, f"/calendar/item/{ev.id}/edit", "Edit event", status_code=422, ev=ev, occurrence=occurrence)
        one = ev_ops.save_occurrence(session, user, box, ev, start, form, checked, clock, domain_of(request, box))
        return redirect(request, f"/calendar/item/{one.id}", toast=f"Update sent: {one.subject}")
    checked, errors = ev_ops.validate(session, form, domain_of(request, box), exclude_event=ev.id)
    if errors:
        return _form_page(request, session, form, errors, f"/calendar/item/{ev.id}/edit", "Edit event", status_code=422, ev=ev)
    ev_ops.save(session, user, box, form, checked, clock, domain_of(request, box), ev)
    return redirect(request, f"/calendar/item/{ev.id}", toast=f"Update sent: {ev.subject}")


@router.post("/calendar/item/{event_id}/respond")
async def respond_event(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, event_id: int):
    data = await request.form()
    ev = _own_event(session, event_id)
    back = safe_back(str(data.get("back") or f"/calendar/item/{event_id}"))
    box = box_of(session, user)
    try:
        ev_ops.respond(session, user, box, ev, str(data.get("response") or ""), clock, domain_of(request, box),
                       comment=str(data.get("comment") or ""), send_response=data.get("send") != "no")
    except ev_ops.MeetingError as e:
        return redirect(request, back, toast=str(e), kind="error")
    word = {"accepted": "Accepted", "tentative": "Tentatively accepted", "declined": "Declined"}[str(data.get("response"))]
    return redirect(request, back, toast=f"{word}: {ev.subject}")


@router.post("/calendar/item/{event_id}/cancel")
async def cancel_event(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, event_id: int):
    data = await request.form()
    ev = _own_event(session, event_id)
    box = box_of(session, user)
    try:
        ev_ops.cancel(session, user, box, ev, clock, domain_of(request, box), message=str(data.get("message") or ""))
    except ev_ops.MeetingError as e:
        return redirect(request, f"/calendar/item/{event_id}", toast=str(e), kind="error")
    day = ev.start.date()
    return redirect(request, f"/calendar/view/workweek/{day.year}/{day.month}/{day.day}", toast=f"Canceled: {ev.subject}")


@router.get("/calendar/scheduling")
def scheduling(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, date_: str = Query("", alias="date"), attendees: str = "",
               room: int | None = None, duration: int = 30, subject: str = ""):
    """Free/busy of the organiser, each attendee and the room over one day's working hours, and the
    first slot where everyone is free."""
    day = _date(date_, clock.today)
    duration = duration if duration in (15, 30, 45, 60, 90, 120) else 30
    box = box_of(session, user)
    people = [(box.display_name, box.address)]
    unknown = []
    known = {a.lower(): n for n, a in ((f"{u.first_name} {u.last_name}", u.email) for u in session.exec(select(User)).all())}
    for typed, address in split_addresses(attendees):
        low = address.lower()
        if low == box.address.lower() or any(low == p[1] for p in people):
            continue
        if low in known:
            people.append((known[low], low))
        else:
            unknown.append(address)
    the_room = session.get(Room, room) if room else None
    rows = people + ([(the_room.name, the_room.address)] if the_room else [])
    conn = session.connection().connection.driver_connection
    lo, hi = datetime.combine(day, WORK_START), datetime.combine(day, WORK_END)
    slots = []
    t = lo
    while t < hi:
        slots.append(t)
        t += STEP
    grid = []
    for name, address in rows:
        blocks = blocking(busy(conn, address, lo, hi))
        cells = []
        for s in slots:
            hit = [b for b in blocks if b.start < s + STEP and b.end > s]
            cells.append(hit[0].show_as if hit else "")
        grid.append({"name": name, "address": address, "cells": cells, "blocks": blocks})
    earliest = clock.now if day == clock.today else None
    slot = first_free_slot(conn, [a for _, a in rows], day, duration, earliest=earliest)
    required = "; ".join(f"{n} <{a}>" for n, a in people[1:])
    use_url = None
    if slot is not None:
        from urllib.parse import urlencode

        use_url = "/calendar/deeplink/compose?" + urlencode({k: v for k, v in {
            "subject": subject, "required": required + ("; " if required else ""), "start": slot.isoformat(),
            "end": (slot + timedelta(minutes=duration)).isoformat(), "room": the_room.id if the_room else ""}.items() if v})
    return render(request, "mail/calendar/scheduling.html", day=day, slots=slots, grid=grid, slot=slot, duration=duration,
                  slot_end=slot + timedelta(minutes=duration) if slot else None, rooms=rooms(session), room=the_room, attendees=attendees,
                  unknown=unknown, use_url=use_url, hm=hm, module="calendar", subject=subject,
                  capacity_short=the_room is not None and the_room.capacity < len(people))
