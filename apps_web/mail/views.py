"""What the mail pages show: the list time format, and the context of the three-pane page."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

from fastapi import Request
from sqlmodel import Session, select

from ..identity.models import User
from ..ui import render
from ..world import WorldClock
from .mailbox import PAGE_SIZE, FolderView, attachments_of, box_base, conversation, folder_views, mailbox_for, recipients_of, shared_boxes
from .calendar.models import Attendee, Event
from .attachments import has_drive
from .compose import from_choices
from .models import Attachment, Folder, Mailbox, Message
from .signatures import signatures_of


def list_time(value: Any, now: datetime | None = None) -> str:
    """Outlook's message-list time: "9:30 AM" today, "Mon 3:14 PM" this week, else "3/2/2026"."""
    if not isinstance(value, datetime):
        return ""
    hm = f"{value.hour % 12 or 12}:{value:%M} {'AM' if value.hour < 12 else 'PM'}"
    if now is None:
        return f"{value.month}/{value.day}/{value.year}"
    if value.date() == now.date():
        return hm
    if timedelta(0) <= now - value < timedelta(days=6):
        return f"{value:%a} {hm}"
    return f"{value.month}/{value.day}/{value.year}"


def size_label(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{max(1, round(n / 1000))} KB"


def _attachments(session: Session, ids: list[int]) -> list[Attachment]:
    if not ids:
        return []
    return list(session.exec(select(Attachment).where(Attachment.id.in_(ids)).order_by(Attachment.id)).all())


def reading(session: Session, box: Mailbox, message: Message, folders: list[FolderView]) -> dict[str, Any]:
    deleted = next((f.folder.id for f in folders if f.folder.kind == "deleted"), -1)
    thread = conversation(session, box, message, deleted)
    ids = [m.id for m in thread]
    return {"thread": thread, "recipients": recipients_of(session, ids), "attachments": attachments_of(session, ids),
            "meetings": meetings_of(session, box, thread)}


def meetings_of(session: Session, box: Mailbox, thread: list[Message]) -> dict[int, Any]:
    """The events the thread's meeting messages are about, with the reader's attendee row."""
    ids = sorted({m.event_id for m in thread if m.event_id})
    if not ids:
        return {}
    events = {e.id: e for e in session.exec(select(Event).where(Event.id.in_(ids))).all()}
    mine = {a.event_id: a for a in session.exec(select(Attendee).where(Attendee.event_id.in_(ids), Attendee.user_id == box.user_id)).all()}
    return {i: SimpleNamespace(event=events[i], me=mine.get(i)) for i in ids if i in events}


def page(request: Request, session: Session, user: User, box: Mailbox, clock: WorldClock, *, folders: list[FolderView] | None = None,
         folder: Folder | None = None, messages: list[Message] = (), total: int = 0, page_no: int = 1, selected: Message | None = None,
         base_url: str = "", query: str = "", search_error: str = "", compose: dict[str, Any] | None = None, status_code: int = 200):
    folders = folders if folders is not None else folder_views(session, box)
    # The folder pane: one's own mailbox, then every shared mailbox one is a member of (as Outlook
    # maps them), each with its folders.
    own = box if box.user_id == user.id else mailbox_for(session, user)
    pane = [(own, folders if own.id == box.id else folder_views(session, own))]
    pane += [(sb, folders if sb.id == box.id else folder_views(session, sb)) for sb in shared_boxes(session, user)]
    ctx: dict[str, Any] = {
        "pane": pane, "own": own, "box_base": box_base(box),
        "box": box, "folders": folders, "folder": folder, "messages": messages, "total": total, "page_no": page_no,
        "pages": max(1, -(-total // PAGE_SIZE)), "selected": selected, "base_url": base_url, "search_query": query,
        "search_error": search_error, "compose": compose, "now": clock.now, "size_label": size_label,
        "custom_folders": [f for f in folders if f.folder.kind == "custom"],
        "folder_names": {f.folder.id: f.folder.name for f in folders},
        "list_recipients": recipients_of(session, [m.id for m in messages]) if folder is not None and folder.kind in ("sent", "drafts") else {},
    }
    if compose is not None:
        ctx["compose_attachments"] = lambda form: _attachments(session, form.attachment_ids)
        ctx["from_choices"] = from_choices(session, user, own)
        ctx["signatures"] = signatures_of(session, own)
        ctx["has_drive"] = has_drive(session)
    if selected is not None and compose is None:
        ctx.update(reading(session, box, selected, folders))
    return render(request, "mail/page.html", status_code=status_code, **ctx)
