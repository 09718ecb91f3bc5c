"""Presence (Available, Busy, In a meeting, Away, Offline, Out of office), computed from the world
clock and the person's working hours; never stored, so it follows the clock as the environment
advances it.

Other apps speak for people too, without chat importing them:

- an app declares ``AppSpec.extra["presence"]``, a function ``(session, user_ids, now) ->
  {user_id: (status, detail)}`` for the people it knows about (the mail app: "Out of office" while
  automatic replies are on, "In a meeting" during a calendar event, with "Free at 10:30 AM");
- ``register_busy_source`` adds a function ``(session, user_id, now) -> str | None`` returning a
  reason ("In a call") when the person is busy then.

Out of office from an app wins over everything (Teams shows it even off hours); a meeting or a busy
reason shows during working hours.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from sqlmodel import Session, select

from .models import WorkProfile

BusySource = Callable[[Session, int, datetime], "str | None"]
BUSY_SOURCES: list[BusySource] = []

PRESENCE_CLASS = {"Available": "available", "Busy": "busy", "In a meeting": "busy", "Away": "away", "Offline": "offline",
                  "Out of office": "ooo"}


def register_busy_source(source: BusySource) -> None:
    if source not in BUSY_SOURCES:
        BUSY_SOURCES.append(source)


def app_sources() -> list[Callable]:
    """The installed apps' presence functions (``AppSpec.extra["presence"]``), in launcher order."""
    from .. import registry

    return [spec.extra["presence"] for spec in registry.discover() if callable(spec.extra.get("presence"))]


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


def _combine(session: Session, user_id: int, now: datetime, own: tuple[str, str], from_apps: tuple[str, str] | None) -> tuple[str, str]:
    status, detail = own
    if status == "Out of office":
        return own
    if from_apps is not None and from_apps[0] == "Out of office":
        return from_apps
    if status in ("Available", "Away", "Busy"):
        if from_apps is not None:
            return from_apps
        if status in ("Available", "Away"):
            for source in BUSY_SOURCES:
                reason = source(session, user_id, now)
                if reason:
                    return "Busy", reason
    return status, detail


def presences(session: Session, user_ids: list[int], now: datetime) -> dict[int, tuple[str, str]]:
    """Presence of many people: one query for their working hours, one call per app."""
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    profiles = {p.user_id: p for p in session.exec(select(WorkProfile).where(WorkProfile.user_id.in_(ids))).all()}
    from_apps: dict[int, tuple[str, str]] = {}
    for source in app_sources():
        for uid, value in source(session, ids, now).items():
            if uid not in from_apps or (value[0] == "Out of office" and from_apps[uid][0] != "Out of office"):
                from_apps[uid] = value
    return {uid: _combine(session, uid, now, presence_from_profile(profiles.get(uid), now), from_apps.get(uid)) for uid in ids}


def presence_of(session: Session, user_id: int, now: datetime, profile: WorkProfile | None = None) -> tuple[str, str]:
    """The person's presence at ``now``: out of office first, then off hours, then meetings and busy
    sources, then the working day."""
    if profile is None:
        profile = session.exec(select(WorkProfile).where(WorkProfile.user_id == user_id)).first()
    from_apps: tuple[str, str] | None = None
    for source in app_sources():
        value = source(session, [user_id], now).get(user_id)
        if value is not None and (from_apps is None or value[0] == "Out of office"):
            from_apps = value
    return _combine(session, user_id, now, presence_from_profile(profile, now), from_apps)
