"""Presence (Available, Busy, Away, Offline, Out of office), computed from the world clock and the
person's working hours; never stored, so it follows the clock as the environment advances it.

``BUSY_SOURCES`` is the hook for other apps: a function ``(session, user_id, now) -> str | None``
returning a reason ("In a meeting") when the person is busy then. A calendar registers one with
``register_busy_source`` and presence shows Busy during its events.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from sqlmodel import Session, select

from .models import WorkProfile

BusySource = Callable[[Session, int, datetime], "str | None"]
BUSY_SOURCES: list[BusySource] = []

PRESENCE_CLASS = {"Available": "available", "Busy": "busy", "Away": "away", "Offline": "offline", "Out of office": "ooo"}


def register_busy_source(source: BusySource) -> None:
    if source not in BUSY_SOURCES:
        BUSY_SOURCES.append(source)


def presence_from_profile(profile: WorkProfile | None, now: datetime) -> tuple[str, str]:
    """(status, detail) from working hours alone."""
    if profile is None:
        return "Offline", ""
    today = now.date()
    if profile.ooo_start and profile.ooo_end and profile.ooo_start <= today <= profile.ooo_end:
        return "Out of office", profile.status_message or f"Out of office until {profile.ooo_end:%b} {profile.ooo_end.day}"
    minute = now.hour * 60 + now.minute
    if str(now.weekday()) not in profile.workdays or not profile.start_minute <= minute < profile.end_minute:
        return "Offline", ""
    if profile.focus_minute is not None and profile.focus_minute <= minute < profile.focus_minute + profile.focus_length:
        return "Busy", "Focusing"
    if profile.lunch_minute <= minute < profile.lunch_minute + 45:
        return "Away", ""
    return "Available", profile.status_message


def presence_of(session: Session, user_id: int, now: datetime, profile: WorkProfile | None = None) -> tuple[str, str]:
    """The person's presence at ``now``: out of office and off hours first, then busy sources
    (calendars), then the working day."""
    if profile is None:
        profile = session.exec(select(WorkProfile).where(WorkProfile.user_id == user_id)).first()
    status, detail = presence_from_profile(profile, now)
    if status in ("Available", "Away"):
        for source in BUSY_SOURCES:
            reason = source(session, user_id, now)
            if reason:
                return "Busy", reason
    return status, detail


def presences(session: Session, user_ids: list[int], now: datetime) -> dict[int, tuple[str, str]]:
    """Presence of many people with one query."""
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    profiles = {p.user_id: p for p in session.exec(select(WorkProfile).where(WorkProfile.user_id.in_(ids))).all()}
    return {uid: presence_of(session, uid, now, profiles.get(uid)) for uid in ids}
