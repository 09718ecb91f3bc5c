"""Meetings: the New event form's fields and validation, saving (attendees, the room, invitations
sent as mail), responding (the attendee's response recorded, a response message to the organiser)
and cancelling. The web form, the JSON API and any colleague simulation share these functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from html import escape

from sqlalchemy import text
from sqlmodel import Session, select

from ...identity.models import User
from ...world import WorldClock
from ..compose import EMAIL, ComposeForm, mailboxes_by_address, send, split_addresses
from ..delivery import fmt_sent
from ..html import sanitize
from ..mailbox import directory
from ..models import Mailbox, Message
from .freebusy import conflicts
from .models import RECURRENCES, RESPONSES, SHOW_AS, WEEKDAYS, Attendee, Event, Room
from .recurrence import describe

MAX_SUBJECT = 255
MAX_COUNT = 999
RESPONSE_WORD = {"accepted": "Accepted", "tentative": "Tentative", "declined": "Declined"}


@dataclass
class EventForm:
    subject: str = ""
    required: str = ""  # "Name <address>; address" as typed, like the compose recipient wells
    optional: str = ""
    start_date: str = ""  # YYYY-MM-DD (the date input's value)
    start_time: str = ""  # HH:MM (the time input's value)
    end_date: str = ""
    end_time: str = ""
    all_day: bool = False
    room_id: int | None = None
    location: str = ""
    recurrence: str = "none"
    recur_days: list[str] = field(default_factory=list)  # MO..SU for weekly
    recur_interval: int = 1
    recur_end: str = "never"  # never | until | count
    recur_until: str = ""
    recur_count: str = ""
    body: str = ""
    is_online: bool = False
    show_as: str = "busy"


@dataclass
class Checked:
    """A valid form, parsed: what saving needs."""

    start: datetime
    end: datetime
    attendees: list[tuple[str, str, str]]  # (kind, name, address)
    room: Room | None
    until: date | None
    count: int | None


def _parse_date(value: str) -> date | None:
    value = (value or "").strip()
    for fmt in ("%Y-%m-%d", "%m/%d/%Y"):
        try:
            return datetime.strptime(value, fmt).date()
        except ValueError:
            pass
    return None


def _parse_time(value: str) -> time | None:
    value = (value or "").strip().upper()
    for fmt in ("%H:%M", "%H:%M:%S", "%I:%M %p", "%I:%M%p"):
        try:
            return datetime.strptime(value, fmt).time()
        except ValueError:
            pass
    return None


def form_for_new(clock: WorldClock, day: date | None = None, hour: int | None = None) -> EventForm:
    """Outlook's default: the next half hour (or the clicked slot), 30 minutes long."""
    if day is not None and hour is not None:
        start = datetime.combine(day, time(hour))
    else:
        now = clock.now
        start = now.replace(minute=0, second=0, microsecond=0) + timedelta(minutes=30 if now.minute < 30 else 60)
        if day is not None:
            start = datetime.combine(day, start.time())
    end = start + timedelta(minutes=30)
    return EventForm(start_date=start.date().isoformat(), start_time=f"{start:%H:%M}", end_date=end.date().isoformat(), end_time=f"{end:%H:%M}")


def form_from_event(session: Session, ev: Event) -> EventForm:
    rows = session.exec(select(Attendee).where(Attendee.event_id == ev.id).order_by(Attendee.id)).all()

    def join(kind: str) -> str:
        items = [f"{a.name} <{a.address}>" if a.name else a.address for a in rows if a.kind == kind]
        return "; ".join(items) + ("; " if items else "")

    end = ev.end - timedelta(days=1) if ev.all_day else ev.end
    return EventForm(
        subject=ev.subject, required=join("required"), optional=join("optional"), start_date=ev.start.date().isoformat(),
        start_time=f"{ev.start:%H:%M}", end_date=end.date().isoformat(), end_time=f"{ev.end:%H:%M}", all_day=ev.all_day,
        room_id=ev.room_id, location="" if ev.room_id else ev.location, recurrence=ev.recurrence or "none",
        recur_days=[d for d in (ev.recur_days or "").split(",") if d], recur_interval=ev.recur_interval or 1,
        recur_end="until" if ev.recur_until else ("count" if ev.recur_count else "never"),
        recur_until=ev.recur_until.isoformat() if ev.recur_until else "", recur_count=str(ev.recur_count or ""),
        body=ev.body_html, is_online=ev.is_online, show_as=ev.show_as or "busy")


def validate(session: Session, form: EventForm, domain: str, exclude_event: int | None = None) -> tuple[Checked | None, dict[str, str]]:
    """The form's problems, each with Outlook's wording, or the parsed event."""
    errors: dict[str, str] = {}
    if not form.subject.strip():
        errors["subject"] = "Add a title for the event."
    elif len(form.subject) > MAX_SUBJECT:
        errors["subject"] = f"The title can be at most {MAX_SUBJECT} characters."
    sd, ed = _parse_date(form.start_date), _parse_date(form.end_date or form.start_date)
    st, et = (time(0), time(0)) if form.all_day else (_parse_time(form.start_time), _parse_time(form.end_time))
    if sd is None:
        errors["start"] = "Enter a valid start date, such as 3/16/2026."
    elif st is None:
        errors["start"] = "Enter a valid start time, such as 9:30 AM."
    if ed is None:
        errors["end"] = "Enter a valid end date, such as 3/16/2026."
    elif et is None:
        errors["end"] = "Enter a valid end time, such as 10:00 AM."
    start = end = None
    if "start" not in errors and "end" not in errors:
        start = datetime.combine(sd, st)
        end = datetime.combine(ed + timedelta(days=1), time(0)) if form.all_day else datetime.combine(ed, et)
        if end < start or (end == start and not form.all_day):
            errors["end"] = "The end time you entered occurs before the start time."
        elif end - start > timedelta(days=14) and form.recurrence != "none":
            errors["end"] = "A recurring meeting can't be longer than 14 days. Shorten it or make it a single event."
    boxes = mailboxes_by_address(session)
    # Someone who left the company keeps no calendar: their address is not in the directory.
    departed = {e.lower() for e in session.exec(select(User.email).where(User.active.is_(False))).all()}
    attendees: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for kind in ("required", "optional"):
        for typed, address in split_addresses(getattr(form, kind)):
            low = address.lower()
            if not EMAIL.match(address):
                errors.setdefault(kind, f"\u201c{address}\u201d isn't a valid email address. Check the address, or pick the person from the suggestions.")
            elif low.endswith("@" + domain.lower()) and (low not in boxes or low in departed):
                errors.setdefault(kind, f"We couldn't find \u201c{address}\u201d in your organization's directory. Check the address, or pick the person from the suggestions.")
            elif low not in seen:
                seen.add(low)
                attendees.append((kind, typed, low))
    room = None
    if form.room_id:
        room = session.get(Room, form.room_id)
        if room is None:
            errors["room"] = "This room doesn't exist. Choose a room from the list."
        elif start is not None and end is not None and not errors.get("end"):
            conn = session.connection().connection.driver_connection
            if conflicts(conn, room.address, start, end, exclude_event):
                errors["room"] = f"{room.name} is busy at this time and declined the booking. Choose another room or time."
    if form.recurrence not in RECURRENCES:
        errors["recurrence"] = f"Unknown repeat option \u201c{form.recurrence}\u201d (use {', '.join(RECURRENCES)})."
    if form.show_as not in SHOW_AS:
        errors["show_as"] = f"Unknown Show as option \u201c{form.show_as}\u201d (use {', '.join(SHOW_AS)})."
    until = count = None
    if form.recurrence in ("daily", "weekly"):
        if form.recurrence == "weekly" and not [d for d in form.recur_days if d in WEEKDAYS]:
            errors["recurrence"] = "Choose at least one day of the week for a weekly series."
        if not 1 <= int(form.recur_interval or 1) <= 99:
            errors["recurrence"] = "Repeat every 1 to 99 days or weeks."
        if form.recur_end == "until":
            until = _parse_date(form.recur_until)
            if until is None:
                errors["recur_until"] = "Enter the date the series ends, such as 6/30/2026."
            elif sd is not None and until < sd:
                errors["recur_until"] = "The series must end on or after its first occurrence."
        elif form.recur_end == "count":
            try:
                count = int(form.recur_count)
            except ValueError:
                count = 0
            if not 1 <= count <= MAX_COUNT:
                errors["recur_count"] = f"Enter a number of occurrences from 1 to {MAX_COUNT}."
        elif form.recur_end != "never":
            errors["recur_until"] = "Choose how the series ends: never, on a date, or after a number of occurrences."
    if errors:
        return None, errors
    return Checked(start, end, attendees, room, until, count), {}


def _display(session: Session, address: str, typed: str, boxes: dict[str, Mailbox]) -> str:
    if typed:
        return typed
    if address in boxes:
        return boxes[address].display_name
    found = [p for p in directory(session, address, 3) if p["address"] == address]
    return found[0]["name"] if found else address


def when_text(ev: Event, start: datetime | None = None, end: datetime | None = None) -> str:
    """"Wednesday, March 18, 2026 2:00 PM-3:00 PM" (Outlook's invitation line)."""
    start, end = start or ev.start, end or ev.end
    if ev.all_day:
        last = end - timedelta(days=1)
        first = f"{start:%A}, {start:%B} {start.day}, {start.year}"
        return first + (" (all day)" if last.date() == start.date() else f" - {last:%A}, {last:%B} {last.day}, {last.year}")
    hm = lambda t: f"{t.hour % 12 or 12}:{t:%M} {'AM' if t.hour < 12 else 'PM'}"  # noqa: E731
    if end.date() == start.date():
        return f"{start:%A}, {start:%B} {start.day}, {start.year} {hm(start)}-{hm(end)}"
    return f"{fmt_sent(start)} - {fmt_sent(end)}"


def _invitation_body(ev: Event, room: Room | None, note: str = "") -> str:
    rows = [f"<p><b>When:</b> {escape(when_text(ev))}</p>"]
    if ev.location:
        rows.append(f"<p><b>Where:</b> {escape(ev.location)}</p>")
    series = describe(ev)
    if series:
        rows.append(f"<p><b>Recurrence:</b> {escape(series)}</p>")
    if note:
        rows.insert(0, f"<p>{escape(note)}</p>")
    return "".join(rows) + (ev.body_html or "")


def _send_meeting_mail(session: Session, sender: User, box: Mailbox, to: list[str], cc: list[str], subject: str, body: str,
                       ev: Event, meeting_type: str, clock: WorldClock, domain: str) -> Message | None:
    if not to and not cc:
        return None
    form = ComposeForm(to="; ".join(to), cc="; ".join(cc), subject=subject, body=body, confirm_no_subject=True)
    sent = send(session, box, sender, form, clock, domain)
    session.execute(text("update mail_message set event_id = :e, meeting_type = :t where internet_message_id = :i"),
                    {"e": ev.id, "t": meeting_type, "i": sent.internet_message_id})
    session.commit()
    return sent


def _attendee_label(a: Attendee) -> str:
    return f"{a.name} <{a.address}>" if a.name and a.name != a.address else a.address


def save(session: Session, user: User, box: Mailbox, form: EventForm, checked: Checked, clock: WorldClock, domain: str,
         ev: Event | None = None) -> Event:
    """Create or update the organiser's event, its attendee rows and its room; send the invitations
    (a new meeting, new attendees, or everyone when the time changed: their responses start over)
    and cancellations to attendees removed."""
    boxes = mailboxes_by_address(session)
    new = ev is None
    old_times = None if new else (ev.start, ev.end, ev.recurrence, ev.recur_days, ev.recur_until, ev.recur_count, ev.all_day)
    if new:
        ev = Event(organizer_id=user.id, start=checked.start, end=checked.end, created_at=clock.now)
    ev.subject = form.subject.strip()
    ev.start, ev.end, ev.all_day = checked.start, checked.end, form.all_day
    ev.room_id = checked.room.id if checked.room else None
    ev.location = checked.room.name if checked.room else form.location.strip()
    ev.body_html = sanitize(form.body)
    ev.is_online = form.is_online
    ev.show_as = form.show_as
    ev.recurrence = form.recurrence
    ev.recur_interval = int(form.recur_interval or 1) if form.recurrence != "none" else 1
    ev.recur_days = ",".join(d for d in WEEKDAYS if d in form.recur_days) if form.recurrence == "weekly" else ""
    ev.recur_until, ev.recur_count = (checked.until, checked.count) if form.recurrence != "none" else (None, None)
    ev.updated_at = clock.now
    session.add(ev)
    session.flush()
    if not ev.ical_uid:
        ev.ical_uid = f"evt-{ev.id}@{domain}"
    moved = not new and old_times != (ev.start, ev.end, ev.recurrence, ev.recur_days, ev.recur_until, ev.recur_count, ev.all_day)
    current = {a.address: a for a in session.exec(select(Attendee).where(Attendee.event_id == ev.id)).all()}
    wanted = [(k, n, a) for k, n, a in checked.attendees if a != box.address.lower()]
    if checked.room:
        wanted.append(("resource", checked.room.name, checked.room.address.lower()))
    invite: list[Attendee] = []
    removed = [a for addr, a in current.items() if addr not in {w[2] for w in wanted}]
    for a in removed:
        session.delete(a)
    for kind, typed, address in wanted:
        a = current.get(address)
        if a is None:
            mb = boxes.get(address)
            room = checked.room if kind == "resource" else None
            a = Attendee(event_id=ev.id, address=address, name=_display(session, address, typed, boxes) if kind != "resource" else typed,
                         user_id=mb.user_id if mb else None, room_id=room.id if room else None, kind=kind)
            invite.append(a)
        else:
            a.kind = kind
            if moved and kind != "resource":
                a.response, a.responded_at = "none", None
                invite.append(a)
        if kind == "resource":  # the room's calendar accepts what fits (conflicts were refused above)
            a.response, a.responded_at = "accepted", clock.now
        session.add(a)
    session.commit()
    people = [a for a in invite if a.kind != "resource"]
    if people or (new and checked.room):
        everyone = session.exec(select(Attendee).where(Attendee.event_id == ev.id).order_by(Attendee.id)).all()
        to = [_attendee_label(a) for a in everyone if a.kind in ("required", "resource")]
        cc = [_attendee_label(a) for a in everyone if a.kind == "optional"]
        if not new:  # an update goes to those it concerns
            names = {a.address for a in people}
            to = [_attendee_label(a) for a in everyone if a.address in names and a.kind == "required"]
            cc = [_attendee_label(a) for a in everyone if a.address in names and a.kind == "optional"]
        _send_meeting_mail(session, user, box, to, cc, ev.subject, _invitation_body(ev, checked.room), ev, "request", clock, domain)
    gone = [a for a in removed if a.kind != "resource"]
    if gone:
        _send_meeting_mail(session, user, box, [_attendee_label(a) for a in gone], [], f"Canceled: {ev.subject}",
                           _invitation_body(ev, checked.room, "You were removed from this meeting."), ev, "cancel", clock, domain)
    return ev


class MeetingError(ValueError):
    """A response or cancellation that cannot be done, with what to do instead."""


def respond(session: Session, user: User, box: Mailbox, ev: Event, response: str, clock: WorldClock, domain: str, *,
            comment: str = "", send_response: bool = True) -> Attendee:
    """Record ``user``'s response to ``ev`` and tell the organiser (Outlook's "Send the response now")."""
    if response not in RESPONSES[1:]:
        raise MeetingError(f"Unknown response \u201c{response}\u201d (use accepted, tentative or declined).")
    if ev.is_cancelled:
        raise MeetingError("This meeting has been canceled. There is nothing to respond to.")
    if ev.organizer_id == user.id:
        raise MeetingError("You're the organizer of this meeting, so you don't need to respond.")
    me = session.exec(select(Attendee).where(Attendee.event_id == ev.id, Attendee.user_id == user.id)).first()
    if me is None:
        raise MeetingError("You aren't invited to this meeting, so you can't respond to it.")
    me.response, me.responded_at, me.comment = response, clock.now, comment.strip()[:500]
    session.add(me)
    # The invitation is handled: it reads as read in the inbox.
    for m in session.exec(select(Message).where(Message.mailbox_id == box.id, Message.event_id == ev.id, Message.is_read.is_(False))).all():
        m.is_read, m.updated_at = True, clock.now
    session.commit()
    if send_response:
        organizer = session.get(User, ev.organizer_id)
        if organizer is not None:
            word = RESPONSE_WORD[response]
            body = f"<p>{escape(comment.strip())}</p>" if comment.strip() else ""
            _send_meeting_mail(session, user, box, [f"{organizer.name} <{organizer.email.lower()}>"], [], f"{word}: {ev.subject}", body,
                               ev, response, clock, domain)
    return me


def cancel(session: Session, user: User, box: Mailbox, ev: Event, clock: WorldClock, domain: str, *, message: str = "") -> Event:
    """Cancel the organiser's meeting: it leaves every calendar and attendees get the cancellation."""
    if ev.organizer_id != user.id:
        raise MeetingError("Only the organizer can cancel this meeting. To leave it, decline it instead.")
    if ev.is_cancelled:
        raise MeetingError("This meeting has already been canceled.")
    ev.is_cancelled, ev.updated_at = True, clock.now
    session.add(ev)
    session.commit()
    people = session.exec(select(Attendee).where(Attendee.event_id == ev.id, Attendee.kind != "resource").order_by(Attendee.id)).all()
    room = session.get(Room, ev.room_id) if ev.room_id else None
    _send_meeting_mail(session, user, box, [_attendee_label(a) for a in people if a.kind == "required"],
                       [_attendee_label(a) for a in people if a.kind == "optional"], f"Canceled: {ev.subject}",
                       _invitation_body(ev, room, message.strip()), ev, "cancel", clock, domain)
    return ev


def save_occurrence(session: Session, user: User, box: Mailbox, series: Event, original_start: datetime, form: EventForm, checked: Checked,
                    clock: WorldClock, domain: str) -> Event:
    """Edit one occurrence of ``series`` ("This event"): the change is stored as an exception, its own
    event row pointing at the series (``series_id``) and the start it replaces (``original_start``),
    with the series' attendees; the series skips that start and goes on unchanged. Attendees get the
    update of this occurrence (their responses to it start over when it moves)."""
    ev = session.exec(select(Event).where(Event.series_id == series.id, Event.original_start == original_start)).first()
    if ev is None:
        length = series.end - series.start
        ev = Event(organizer_id=series.organizer_id, subject=series.subject, location=series.location, room_id=series.room_id,
                   start=original_start, end=original_start + length, all_day=series.all_day, show_as=series.show_as, body_html=series.body_html,
                   is_online=series.is_online, series_id=series.id, original_start=original_start, ical_uid=series.ical_uid or f"evt-{series.id}@{domain}",
                   crm_account_id=series.crm_account_id, crm_opportunity_id=series.crm_opportunity_id, created_at=clock.now, updated_at=clock.now)
        session.add(ev)
        session.flush()
        for a in session.exec(select(Attendee).where(Attendee.event_id == series.id).order_by(Attendee.id)).all():
            session.add(Attendee(event_id=ev.id, address=a.address, name=a.name, user_id=a.user_id, room_id=a.room_id, kind=a.kind,
                                 response=a.response, responded_at=a.responded_at))
        session.flush()
    form.recurrence, form.recur_days = "none", []
    return save(session, user, box, form, checked, clock, domain, ev)


def occurrence_of(series: Event, start: datetime) -> bool:
    """Whether ``start`` is one of the series' own occurrences."""
    from .recurrence import starts

    return any(t == start for t in starts(series.start, series.recurrence, series.recur_interval, series.recur_days, series.recur_until,
                                           series.recur_count, stop=start + timedelta(seconds=1)))
