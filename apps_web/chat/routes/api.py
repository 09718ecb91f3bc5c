"""The chat JSON API under /api/: conversations, messages (list, get, post, reply, react, edit,
delete), new chats, search, Activity and the people type-ahead. Every write goes through the same
validation as the pages; bad input answers 422 with a sentence, unknown or unseen ids 404."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse
from sqlalchemy import or_
from sqlmodel import select

from .. import openapi
from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ..models import Activity, Conversation, File, Member, Mention, Message, Reaction, Team
from ..presence import presences
from ..search import search_messages
from ..service import DELETED_TEXT, ChatError, Draft, conversation_for, delete, edit, member_ids, message_for, post, react, start_chat, unread_counts
from ..views import title_of, users_by_id

router = APIRouter(prefix="/api", tags=["chat"])


def unprocessable(detail: str, field: str = "__all__") -> JSONResponse:
    return JSONResponse({"detail": detail, "errors": {field: detail}}, status_code=422)


def _iso(v) -> str | None:  # noqa: ANN001
    return v.isoformat() if v else None


def messages_json(session, rows: list[Message]) -> list[dict[str, Any]]:  # noqa: ANN001
    """Many messages with one query per related table."""
    ids = [m.id for m in rows]
    if not ids:
        return []
    extra: dict[str, dict[int, list]] = {"reactions": defaultdict(list), "mentions": defaultdict(list), "files": defaultdict(list), "replies": defaultdict(list)}
    for r in session.exec(select(Reaction).where(Reaction.message_id.in_(ids)).order_by(Reaction.id)).all():
        extra["reactions"][r.message_id].append(r)
    for mid, uid in session.exec(select(Mention.message_id, Mention.user_id).where(Mention.message_id.in_(ids)).order_by(Mention.id)).all():
        extra["mentions"][mid].append(uid)
    for f in session.exec(select(File.id, File.name, File.size, File.mime, File.message_id).where(File.message_id.in_(ids))).all():
        extra["files"][f.message_id].append(f)
    for rid, pid in session.exec(select(Message.id, Message.parent_id).where(Message.parent_id.in_(ids))).all():
        extra["replies"][pid].append(rid)
    return [message_json(session, m, extra) for m in rows]


def message_json(session, m: Message, extra: dict | None = None) -> dict[str, Any]:  # noqa: ANN001
    if extra is None:
        return messages_json(session, [m])[0]
    reactions, mentions, files = extra["reactions"][m.id], extra["mentions"][m.id], extra["files"][m.id]
    deleted = m.deleted_at is not None
    return {"id": m.id, "conversation_id": m.conversation_id, "parent_id": m.parent_id, "author_id": m.author_id,
            "subject": "" if deleted else m.subject, "body_html": "" if deleted else m.body_html, "text": DELETED_TEXT if deleted else m.body_text,
            "created_at": _iso(m.created_at), "edited_at": _iso(m.edited_at), "deleted": deleted,
            "mentions": list(mentions), "reactions": [{"kind": r.kind, "user_id": r.user_id} for r in reactions],
            "files": [{"id": f.id, "name": f.name, "size": f.size, "mime": f.mime, "url": f"/files/{f.id}"} for f in files],
            "reply_count": len(extra["replies"][m.id]) if m.parent_id is None else None,
            "refs": {"crm_account_id": m.crm_account_id, "crm_opportunity_id": m.crm_opportunity_id, "desk_incident_id": m.desk_incident_id}}


def conversation_json(session, user: User, c: Conversation, unread: dict[int, int] | None = None, pre: dict | None = None) -> dict[str, Any]:  # noqa: ANN001
    if pre is None:
        ids = member_ids(session, c.id)
        people = users_by_id(session, ids)
        team = session.get(Team, c.team_id) if c.team_id else None
    else:
        ids, people, team = pre["members"].get(c.id, []), pre["people"], pre["teams"].get(c.team_id)
    return {"id": c.id, "kind": c.kind, "title": title_of(c, [people[i] for i in ids if i != user.id and i in people]), "name": c.name,
            "team": {"id": team.id, "name": team.name} if team else None, "description": c.description,
            "members": [{"id": i, "name": people[i].name} for i in ids if i in people],
            "last_message_at": _iso(c.last_message_at), "unread": (unread or {}).get(c.id, 0)}


def _draft(payload: Any, *, subject_ok: bool = True) -> Draft:
    if not isinstance(payload, dict):
        raise ChatError("Send a JSON object with text (or body_html) and, optionally, mentions (people's ids).")
    known = {"text", "body_html", "mentions", "subject"}
    unknown = sorted(set(payload) - known - {"members", "topic"})
    if unknown:
        raise ChatError(f"Unknown fields: {', '.join(unknown)}. Known: {', '.join(sorted(known))}.")
    if "text" in payload and "body_html" in payload:
        raise ChatError("Give text or body_html, not both.")
    mentions = payload.get("mentions") or []
    if not isinstance(mentions, list):
        raise ChatError("mentions must be a list of people's ids.")
    html = payload.get("body_html")
    return Draft(text=str(payload.get("text") or ""), html=str(html) if html is not None else None, mentions=mentions,
                 subject=str(payload.get("subject") or "") if subject_ok else "")


@router.get("/people")
def people(session: SessionDep, user: CurrentUser, clock: ClockDep, q: str = "", conversation: int | None = None, limit: int = 8):
    """The company directory's type-ahead (active people); ``conversation`` keeps it to its members (mentions)."""
    query = select(User).where(User.active == True)  # noqa: E712
    for word in q.split():
        like = f"{word}%"
        query = query.where(or_(User.first_name.ilike(like), User.last_name.ilike(like), User.email.ilike(like)))
    if conversation is not None:
        conversation_for(session, user, conversation)
        query = query.where(User.id.in_(member_ids(session, conversation)))
    rows = session.exec(query.order_by(User.first_name, User.last_name).limit(max(1, min(limit, 25)))).all()
    pres = presences(session, [u.id for u in rows], clock.now)
    return [{"id": u.id, "label": u.name, "name": u.name, "sublabel": f"{u.title} \u00b7 {u.department}".strip(" \u00b7"),
             "email": u.email, "presence": pres.get(u.id, ("Offline", ""))[0]} for u in rows]


@router.get("/conversations")
def conversations(session: SessionDep, user: CurrentUser, kind: str = ""):
    """Every conversation the user is in (``kind``: channel, oneonone or group), newest activity first."""
    query = select(Conversation).join(Member, Member.conversation_id == Conversation.id).where(Member.user_id == user.id)
    if kind:
        query = query.where(Conversation.kind == kind)
    unread = unread_counts(session, user)
    rows = session.exec(query.order_by(Conversation.last_message_at.desc(), Conversation.id)).all()
    members: dict[int, list[int]] = defaultdict(list)
    for cid, uid in session.exec(select(Member.conversation_id, Member.user_id).where(Member.conversation_id.in_([c.id for c in rows]))
                                 .order_by(Member.user_id)).all():
        members[cid].append(uid)
    pre = {"members": members, "people": users_by_id(session, [u for v in members.values() for u in v]),
           "teams": {t.id: t for t in session.exec(select(Team)).all()}}
    return [conversation_json(session, user, c, unread, pre) for c in rows]


@router.post("/conversations", openapi_extra=openapi.NEW_CHAT)
def create_conversation(session: SessionDep, user: CurrentUser, clock: ClockDep, payload: Any = Body(...)):
    """A new chat: ``{"members": [ids], "topic": "", "text": "first message"}`` (1:1 chats are reused)."""
    try:
        draft = _draft(payload, subject_ok=False)
        members = payload.get("members")
        if not isinstance(members, list):
            raise ChatError("members must be a list of people's ids.")
        conv, msg = start_chat(session, user, members, str(payload.get("topic") or ""), draft, clock.now)
    except ChatError as exc:
        session.rollback()
        return unprocessable(str(exc))
    session.commit()
    return JSONResponse({**conversation_json(session, user, conv), "message": message_json(session, msg)}, status_code=201)


@router.get("/conversations/{conv_id}")
def get_conversation(session: SessionDep, user: CurrentUser, conv_id: int):
    conv, _ = conversation_for(session, user, conv_id)
    return conversation_json(session, user, conv, unread_counts(session, user))


@router.get("/conversations/{conv_id}/messages")
def list_messages(session: SessionDep, user: CurrentUser, conv_id: int, parent_id: int | None = None, limit: int = 50, before: int | None = None):
    """Newest first. Top-level posts (or chat messages) by default; ``parent_id`` lists a thread's replies."""
    conv, _ = conversation_for(session, user, conv_id)
    if not 1 <= limit <= 200:
        return unprocessable("limit must be between 1 and 200.", "limit")
    query = select(Message).where(Message.conversation_id == conv.id, Message.parent_id == parent_id)
    if before is not None:
        query = query.where(Message.id < before)
    rows = session.exec(query.order_by(Message.id.desc()).limit(limit)).all()
    return {"items": messages_json(session, list(rows))}


@router.post("/conversations/{conv_id}/messages", openapi_extra=openapi.POST)
def create_message(session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int, payload: Any = Body(...)):
    """Post: ``{"text": "...", "mentions": [ids], "subject": ""}`` (or ``body_html``, sanitised)."""
    conv, _ = conversation_for(session, user, conv_id)
    try:
        msg = post(session, user, conv, _draft(payload), clock.now)
    except ChatError as exc:
        session.rollback()
        return unprocessable(str(exc))
    session.commit()
    return JSONResponse(message_json(session, msg), status_code=201)


@router.get("/messages/{message_id}")
def get_message(session: SessionDep, user: CurrentUser, message_id: int):
    msg, _, _ = message_for(session, user, message_id)
    return message_json(session, msg)


@router.post("/messages/{message_id}/replies", openapi_extra=openapi.REPLY)
def reply(session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int, payload: Any = Body(...)):
    msg, conv, _ = message_for(session, user, message_id)
    try:
        draft = _draft(payload)
        out = post(session, user, conv, draft, clock.now, parent_id=msg.id)
    except ChatError as exc:
        session.rollback()
        return unprocessable(str(exc))
    session.commit()
    return JSONResponse(message_json(session, out), status_code=201)


@router.patch("/messages/{message_id}", openapi_extra=openapi.EDIT)
def update_message(session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int, payload: Any = Body(...)):
    msg, conv, _ = message_for(session, user, message_id)
    try:
        edit(session, user, msg, conv, _draft(payload), clock.now)
    except ChatError as exc:
        session.rollback()
        return unprocessable(str(exc))
    session.commit()
    return message_json(session, msg)


@router.delete("/messages/{message_id}")
def delete_message(session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int):
    msg, _, _ = message_for(session, user, message_id)
    try:
        delete(session, user, msg, clock.now)
    except ChatError as exc:
        return unprocessable(str(exc))
    session.commit()
    return message_json(session, msg)


@router.post("/messages/{message_id}/reactions", openapi_extra=openapi.REACT)
def add_reaction(session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int, payload: Any = Body(...)):
    """``{"kind": "like"}`` toggles; ``"on": true|false`` sets."""
    msg, _, _ = message_for(session, user, message_id)
    if not isinstance(payload, dict) or "kind" not in payload:
        return unprocessable("Say which reaction: {\"kind\": \"like\"} (like, heart, laugh, surprised, sad, angry).", "kind")
    on = payload.get("on")
    if on is not None and not isinstance(on, bool):
        return unprocessable("on must be true or false.", "on")
    try:
        react(session, user, msg, str(payload["kind"]), clock.now, on)
    except ChatError as exc:
        return unprocessable(str(exc), "kind")
    session.commit()
    return message_json(session, msg)


@router.get("/search")
def search(session: SessionDep, user: CurrentUser, q: str = ""):
    rows, error = search_messages(session, user, q)
    if error:
        return unprocessable(error, "q")
    return {"items": messages_json(session, list(rows))}


@router.get("/activity")
def activity(session: SessionDep, user: CurrentUser, limit: int = 50):
    rows = session.exec(select(Activity).where(Activity.user_id == user.id).order_by(Activity.id.desc()).limit(max(1, min(limit, 200)))).all()
    return [{"id": a.id, "kind": a.kind, "message_id": a.message_id, "actor_id": a.actor_id, "created_at": _iso(a.created_at), "is_read": a.is_read} for a in rows]
