"""Presence from the mail app, for the chat's status (Teams reads the Outlook calendar and automatic
replies): a person whose automatic replies are on is Out of office, one in a meeting on the world
clock is In a meeting (an event shown as Out of office counts as away). Declared on the mail app's
``AppSpec.extra["presence"]``; ``apps_web.chat.presence`` calls it for a list of people at once."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session, select

from .delivery import html_to_text
from .models import Mailbox
from .options import AutoReply, active_reply

MAX_NOTE = 120


def _time(t: datetime) -> str:
    return f"{t.hour % 12 or 12}:{t:%M} {'AM' if t.hour < 12 else 'PM'}"


def _ooo_note(ar: AutoReply, now: datetime) -> str:
    text = html_to_text(ar.internal_html)
    if len(text) > MAX_NOTE:
        text = text[: MAX_NOTE - 1].rsplit(" ", 1)[0] + "…"
    until = f"Until {ar.end:%a}, {ar.end:%b} {ar.end.day}" if ar.scheduled and ar.end else ""
    return " · ".join(p for p in (until, text) if p)


def presence(session: Session, user_ids: list[int], now: datetime) -> dict[int, tuple[str, str]]:
    """(status, detail) of the people the calendar or automatic replies speak for; others are absent."""
    from .calendar.freebusy import busy_during, free_after

    ids = sorted(set(user_ids))
    if not ids:
        return {}
    out: dict[int, tuple[str, str]] = {}
    replies = session.exec(select(Mailbox.user_id, AutoReply).join(AutoReply, AutoReply.mailbox_id == Mailbox.id)
                           .where(Mailbox.user_id.in_(ids), AutoReply.enabled.is_(True))).all()
    for uid, ar in replies:
        if active_reply(ar, now):
            out[uid] = ("Out of office", _ooo_note(ar, now))
    conn = session.connection().connection.driver_connection
    # Everyone's blocking events of the next 12 hours in one query: those at ``now`` say whether one
    # is in a meeting, the run of them says when one is free.
    ahead = busy_during(conn, [i for i in ids if i not in out], now, now + timedelta(hours=12))
    for uid, upcoming in ahead.items():
        blocks = [b for b in upcoming if b.start <= now < b.end]
        if not blocks:
            continue
        if any(b.show_as == "oof" for b in blocks):
            end = max(b.end for b in blocks if b.show_as == "oof")
            out[uid] = ("Out of office", f"Until {_time(end)}" if end.date() == now.date() else f"Until {end:%a}, {end:%b} {end.day}")
        else:
            free = free_after(upcoming, now)
            out[uid] = ("In a meeting", f"Free at {_time(free)}" if free.date() == now.date() else "In a meeting")
    return out
