"""The mail JSON API under /api/: folders, messages (list, search, get, send, move, flag/read) and
the people type-ahead the compose form calls. Sending goes through the form's own validation."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse
from sqlalchemy import func
from sqlmodel import select

from .. import openapi
from ...deps import ClockDep, CurrentUser, SessionDep
from ..compose import MODES, ComposeForm, send, validate
from ..html import sanitize
from ..mailbox import PAGE_SIZE, attachments_of, box_by_address, directory, folder_from_slug, folder_slug, folder_views, order_newest, own_message, reachable_message, recipients_of
from ..models import Folder, Message
from ..search import SearchError, parse
from .actions import apply_action
from .common import box_of, domain_of
from .search import search_where

router = APIRouter(prefix="/api", tags=["mail"])


def unprocessable(detail: str, errors: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail, "errors": errors or {"__all__": detail}}, status_code=422)


def summary(m: Message, folders: dict[int, Folder]) -> dict[str, Any]:
    f = folders.get(m.folder_id)
    return {"id": m.id, "folder": folder_slug(f) if f else None, "folder_name": f.name if f else None, "conversation_id": m.conversation_id,
            "subject": m.subject, "from": {"name": m.from_name, "address": m.from_address}, "preview": m.preview,
            "sent_at": m.sent_at.isoformat() if m.sent_at else None, "is_read": m.is_read, "is_flagged": m.is_flagged, "is_draft": m.is_draft,
            "has_attachments": m.has_attachments, "importance": m.importance, "categories": [c for c in m.categories.split(",") if c]}


@router.get("/people")
def people(session: SessionDep, user: CurrentUser, q: str = ""):
    return [{"id": p["address"], "label": f"{p['name']} <{p['address']}>", "name": p["name"], "address": p["address"], "sublabel": p["detail"]}
            for p in directory(session, q)]


def box_for(session, user, mailbox: str):  # noqa: ANN001, ANN201
    """The mailbox an API call reads: one's own, or ``mailbox`` (the address of a shared mailbox one
    is a member of; 404 for anyone else, as the pages answer)."""
    return box_by_address(session, user, mailbox.strip()) if mailbox.strip() else box_of(session, user)


@router.get("/folders")
def folders(session: SessionDep, user: CurrentUser, mailbox: str = ""):
    """The folders of one's mailbox, or of the shared mailbox ``mailbox`` (its address)."""
    box = box_for(session, user, mailbox)
    return [{"id": v.folder.id, "slug": v.slug, "name": v.folder.name, "kind": v.folder.kind, "unread": v.unread, "total": v.total} for v in folder_views(session, box)]


@router.get("/messages")
def list_messages(session: SessionDep, user: CurrentUser, folder: str = "", q: str = "", page: int = 1, page_size: int = PAGE_SIZE,
                  mailbox: str = ""):
    """``folder`` (inbox, drafts, sentitems, archive, deleteditems, junkemail or a folder id) and/or
    ``q`` (the search box's syntax: from:, to:, subject:, has:attachment, is:unread, before:, after:),
    in one's own mailbox or in ``mailbox``, the address of a shared mailbox one is a member of."""
    box = box_for(session, user, mailbox)
    if not 1 <= page <= 10_000_000 or not 1 <= page_size <= 200:
        return unprocessable("page must be from 1 to 10000000 and page_size between 1 and 200.")
    where = []
    try:
        if q.strip():
            parse(q)
            where += search_where(session, box, q)
    except SearchError as exc:
        return unprocessable(str(exc), {"q": str(exc)})
    if folder:
        where.append(Message.folder_id == folder_from_slug(session, box, folder).id)
    elif not q.strip():
        where.append(Message.folder_id == folder_from_slug(session, box, "inbox").id)
    base = select(Message).where(Message.mailbox_id == box.id, *where)
    total = session.execute(select(func.count()).select_from(base.subquery())).scalar() or 0
    rows = session.exec(order_newest(base).offset((page - 1) * page_size).limit(page_size)).all()
    by_id = {f.id: f for f in session.exec(select(Folder).where(Folder.mailbox_id == box.id)).all()}
    return {"total": total, "page": page, "page_size": page_size, "items": [summary(m, by_id) for m in rows]}


@router.get("/messages/{message_id}")
def get_message(session: SessionDep, user: CurrentUser, message_id: int):
    box, m = reachable_message(session, user, message_id)  # one's own, or a shared mailbox one is a member of
    by_id = {f.id: f for f in session.exec(select(Folder).where(Folder.mailbox_id == box.id)).all()}
    out = summary(m, by_id)
    out.update(mailbox=box.address,
        body_html=sanitize(m.body_html), unique_body_html=sanitize(m.unique_body_html), internet_message_id=m.internet_message_id,
        recipients=[{"kind": r.kind, "name": r.name, "address": r.address} for r in recipients_of(session, [m.id]).get(m.id, [])],
        attachments=[{"id": a.id, "name": a.name, "size": a.size, "content_type": a.content_type, "is_link": a.is_link, "drive_item_id": a.drive_item_id}
                     for a in attachments_of(session, [m.id]).get(m.id, [])],
        crm={"account_id": m.crm_account_id, "opportunity_id": m.crm_opportunity_id, "case_id": m.crm_case_id},
    )
    return out


def _addresses(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return str(value or "")


@router.post("/messages/send", openapi_extra=openapi.SEND)
def send_message(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, payload: Any = Body(...)):
    """Send a new message, a reply (``reply_to_id``, ``reply_all``) or a forward (``forward_of_id``,
    attachments kept unless ``attachment_ids`` says otherwise). An empty subject needs
    ``confirm_no_subject: true``, as the form asks for confirmation."""
    if not isinstance(payload, dict):
        return unprocessable("Send a JSON object: to, cc, bcc, subject, body...")
    known = {"to", "cc", "bcc", "subject", "body", "reply_to_id", "reply_all", "forward_of_id", "attachment_ids", "confirm_no_subject", "draft_id", "from"}
    unknown = sorted(set(payload) - known)
    if unknown:
        return unprocessable(f"Unknown fields: {', '.join(unknown)}. Known: {', '.join(sorted(known))}.")
    box = box_of(session, user)
    mode, source_id = "new", None
    if payload.get("reply_to_id") and payload.get("forward_of_id"):
        return unprocessable("Give reply_to_id or forward_of_id, not both.")
    if payload.get("reply_to_id"):
        mode, source_id = ("replyall" if payload.get("reply_all") else "reply"), int(payload["reply_to_id"])
    elif payload.get("forward_of_id"):
        mode, source_id = "forward", int(payload["forward_of_id"])
    if source_id is not None:  # answering a message of a shared mailbox works in that mailbox
        box = reachable_message(session, user, source_id)[0]
    attachment_ids = payload.get("attachment_ids")
    if attachment_ids is None and mode == "forward":
        attachment_ids = [a.id for a in attachments_of(session, [source_id]).get(source_id, [])]
    form = ComposeForm(to=_addresses(payload.get("to")), cc=_addresses(payload.get("cc")), bcc=_addresses(payload.get("bcc")),
                       subject=str(payload.get("subject") or ""), body=str(payload.get("body") or ""), mode=mode if mode in MODES else "new",
                       source_id=source_id, draft_id=payload.get("draft_id"), attachment_ids=[int(a) for a in attachment_ids or []],
                       confirm_no_subject=bool(payload.get("confirm_no_subject")), from_address=str(payload.get("from") or ""))
    problems = validate(session, form, domain_of(request, box), sending=True, user=user, box=box)
    if problems.errors:
        return unprocessable("The message wasn't sent: " + " ".join(problems.errors.values()), problems.errors)
    if problems.needs_subject_confirm:
        msg = "This message has no subject. Send it anyway with confirm_no_subject: true, or add a subject."
        return unprocessable(msg, {"subject": msg})
    sent = send(session, box, user, form, clock, domain_of(request, box))
    return JSONResponse(get_message(session, user, sent.id), status_code=201)


@router.post("/messages/{message_id}/move", openapi_extra=openapi.MOVE)
def move_message(session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int, payload: Any = Body(...)):
    """``{"folder": "archive"}``: a folder slug, id or name (``deleteditems`` deletes)."""
    box = box_of(session, user)
    m = own_message(session, box, message_id)
    target = str((payload or {}).get("folder", "")) if isinstance(payload, dict) else ""
    if not target:
        return unprocessable("Say which folder: {\"folder\": \"archive\"} (a slug, id or name).", {"folder": "Required."})
    folder = next((f for f in session.exec(select(Folder).where(Folder.mailbox_id == box.id)).all()
                   if target in (folder_slug(f), str(f.id)) or f.name.lower() == target.lower()), None)
    if folder is None:
        return unprocessable(f"No folder \u201c{target}\u201d in this mailbox.", {"folder": "Unknown folder."})
    try:
        apply_action(session, box, clock, "move", [m], folder.id)
    except ValueError as exc:
        return unprocessable(str(exc), {"folder": str(exc)})
    session.commit()
    return get_message(session, user, m.id)


@router.patch("/messages/{message_id}", openapi_extra=openapi.UPDATE)
def update_message(session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int, payload: Any = Body(...)):
    """Flag or mark read: ``{"is_flagged": true}``, ``{"is_read": false}``."""
    box = box_of(session, user)
    m = own_message(session, box, message_id)
    if not isinstance(payload, dict) or not payload or set(payload) - {"is_read", "is_flagged"}:
        return unprocessable("Send is_read and/or is_flagged (true or false); nothing else can be changed.")
    for key, value in payload.items():
        if not isinstance(value, bool):
            return unprocessable(f"{key} must be true or false.", {key: "Must be true or false."})
        apply_action(session, box, clock, ("read" if value else "unread") if key == "is_read" else ("flag" if value else "unflag"), [m])
    session.commit()
    return get_message(session, user, m.id)
