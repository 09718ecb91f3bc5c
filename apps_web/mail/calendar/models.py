"""Calendar objects. One ``mail_event`` row per meeting (a recurring series is one row holding its
rule; occurrences are expanded when shown), one ``mail_attendee`` row per invited person or room
with the response and when it was given. Invitations, responses and cancellations are ordinary
``mail_message`` rows whose ``event_id`` and ``meeting_type`` link them to the event, so a colleague
simulation reads an invitation like any message and answers it through :mod:`.events`.

Datetimes are naive wall-clock times of the world clock; an all-day event runs from 00:00 of its
first day to 00:00 after its last.
"""

from __future__ import annotations

from datetime import date

from pydantic import NaiveDatetime
from sqlmodel import Field, SQLModel

USER_FK = "identity_user.id"
RESPONSES = ("none", "accepted", "tentative", "declined")
ATTENDEE_KINDS = ("required", "optional", "resource")
RECURRENCES = ("none", "daily", "weekly")
SHOW_AS = ("busy", "tentative", "free", "oof")
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


class Room(SQLModel, table=True):
    """A conference room: a resource with its own address, booked as an attendee of kind "resource"."""

    __tablename__ = "mail_room"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=120)
    address: str = Field(max_length=254, index=True, unique=True)
    building: str = Field(default="", max_length=80)
    floor: int = 1
    capacity: int = 4
    equipment: str = Field(default="", max_length=255)  # comma-separated: Display, Video conferencing, Whiteboard


class Event(SQLModel, table=True):
    __tablename__ = "mail_event"
    id: int | None = Field(default=None, primary_key=True)
    organizer_id: int = Field(foreign_key=USER_FK, index=True)
    subject: str = Field(default="", max_length=255)
    location: str = Field(default="", max_length=255)  # free text; the room's name when a room is booked
    room_id: int | None = Field(default=None, foreign_key="mail_room.id", index=True)
    start: NaiveDatetime = Field(index=True)
    end: NaiveDatetime = Field(index=True)
    all_day: bool = False
    show_as: str = Field(default="busy", max_length=10)
    body_html: str = ""
    is_online: bool = False  # a Teams meeting link in the body
    # Recurrence: the series rule, stored once. weekly uses recur_days ("MO,WE"); the series ends on
    # recur_until (a date, inclusive) or after recur_count occurrences, or never.
    recurrence: str = Field(default="none", max_length=10)
    recur_interval: int = 1
    recur_days: str = Field(default="", max_length=30)
    recur_until: date | None = None
    recur_count: int | None = None
    # An edited single occurrence: its own row pointing at the series and the start it replaces.
    series_id: int | None = Field(default=None, index=True)
    original_start: NaiveDatetime | None = None
    is_cancelled: bool = False
    ical_uid: str = Field(default="", max_length=120, index=True)
    crm_account_id: int | None = Field(default=None, index=True)
    crm_opportunity_id: int | None = Field(default=None, index=True)
    created_at: NaiveDatetime | None = None
    updated_at: NaiveDatetime | None = None  # bookkeeping: verifiers ignore it


class Attendee(SQLModel, table=True):
    __tablename__ = "mail_attendee"
    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="mail_event.id", index=True)
    address: str = Field(max_length=254, index=True)
    name: str = Field(default="", max_length=160)
    user_id: int | None = Field(default=None, index=True)  # set for colleagues (internal attendees)
    room_id: int | None = None  # set for a room (kind "resource")
    kind: str = Field(default="required", max_length=10)  # required | optional | resource
    response: str = Field(default="none", max_length=10)  # none | accepted | tentative | declined
    responded_at: NaiveDatetime | None = None
    comment: str = Field(default="", max_length=500)


class Profile(SQLModel, table=True):
    """What the People directory shows beyond the identity: the office where someone sits."""

    __tablename__ = "mail_profile"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key=USER_FK, index=True, unique=True)
    office: str = Field(default="", max_length=120)
    mobile: str = Field(default="", max_length=40)


TABLES = {"room": Room, "event": Event, "attendee": Attendee, "profile": Profile}
