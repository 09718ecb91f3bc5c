"""What chat does, for the pages and the JSON API alike: who may see a conversation, posting and
replying (with the same validation everywhere), mentions and their notifications, reactions,
edits, deletes and read state. Nothing here renders; errors are sentences for the person."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from html import escape, unescape

import nh3

from fastapi import HTTPException
from sqlalchemy import func, text
from sqlmodel import Session, select

from ..identity.models import User
from ..ui.sanitize import sanitize, text_of
from .models import REACTIONS, Activity, Conversation, File, Member, Mention, Message, Reaction

MAX_TEXT = 28_000  # Teams refuses messages over about 28 KB
MAX_FILE = 5_000_000
MENTION_ATTRS = {"span": {"class", "data-user"}}
DELETED_TEXT = "This message has been deleted."


class ChatError(ValueError):
    """A refusal to show the person (bad input); the message says what to do."""


def clean_html(html: str) -> str:
    return sanitize(html, attributes=MENTION_ATTRS)


# -- access ------------------------------------------------------------------------------------------
def conversation_for(session: Session, user: User, conversation_id: int) -> tuple[Conversation, Member]:
    """The conversation, if the user is a member; else 404 (as Teams does, without saying it exists)."""
    conv = session.get(Conversation, conversation_id)
    member = None
    if conv is not None:
        member = session.exec(select(Member).where(Member.conversation_id == conv.id, Member.user_id == user.id)).first()
    if conv is None or member is None:
        raise HTTPException(status_code=404, detail="This conversation doesn't exist or you don't have access to it.")
    return conv, member


def message_for(session: Session, user: User, message_id: int) -> tuple[Message, Conversation, Member]:
    msg = session.get(Message, message_id)
    if msg is None:
        raise HTTPException(status_code=404, detail="This message doesn't exist or you don't have access to it.")
    conv, member = conversation_for(session, user, msg.conversation_id)
    return msg, conv, member


def member_ids(session: Session, conversation_id: int) -> list[int]:
    return list(session.exec(select(Member.user_id).where(Member.conversation_id == conversation_id).order_by(Member.user_id)).all())


# -- bodies and mentions -----------------------------------------------------------------------------
@dataclass
class Draft:
    """What a person submits: plain text from the compose box (or HTML from the API) and the people
    picked from the mention type-ahead."""

    text: str = ""
    html: str | None = None
    mentions: list[int] = field(default_factory=list)
    subject: str = ""

    def __post_init__(self) -> None:
        self.text = self.text.replace("\r\n", "\n").replace("\r", "\n")  # forms send CRLF


def _resolve_mentions(session: Session, conv: Conversation, draft: Draft) -> dict[int, User]:
    ids = []
    for raw in draft.mentions:
        try:
            ids.append(int(raw))
        except (TypeError, ValueError):
            raise ChatError(f"Mentions are people's ids; \u201c{raw}\u201d is not one.") from None
    if not ids:
        return {}
    people = {u.id: u for u in session.exec(select(User).where(User.id.in_(ids))).all()}
    members = set(member_ids(session, conv.id))
    out: dict[int, User] = {}
    plain = draft.text if draft.html is None else text_of(draft.html)
    for uid in dict.fromkeys(ids):
        person = people.get(uid)
        if person is None:
            raise ChatError(f"There is no person with id {uid} to mention.")
        if uid not in members:
            raise ChatError(f"{person.name} isn't in this conversation, so they can't be mentioned here.")
        # A mention picked and then deleted from the text is no mention (Teams drops it too).
        if f"@{person.name}" in plain or (draft.html is not None and person.name in plain):
            out[uid] = person
    return out


def render_body(draft: Draft, mentioned: dict[int, User]) -> str:
    """The stored HTML: typed text escaped (so markup typed in the box shows as text), line breaks
    kept, each picked mention turned into a mention span; API HTML sanitised."""
    if draft.html is not None:
        return clean_html(draft.html)
    body = escape(draft.text.strip())
    for uid, person in sorted(mentioned.items(), key=lambda kv: -len(kv[1].name)):
        tag = f'<span class="mention" data-user="{uid}">{escape(person.name)}</span>'
        body = body.replace(f"@{escape(person.name)}", tag)
    paragraphs = [p.replace("\n", "<br>") for p in re.split(r"\n{2,}", body)]
    return "".join(f"<p>{p}</p>" for p in paragraphs)


def _checked(session: Session, conv: Conversation, draft: Draft) -> tuple[str, str, dict[int, User]]:
    plain_in = draft.text if draft.html is None else text_of(draft.html)
    if not plain_in.strip():
        raise ChatError("Type a message before you send it; an empty message can't be sent.")
    if len(plain_in) > MAX_TEXT:
        raise ChatError(f"Your message is too long ({len(plain_in):,} characters). Shorten it to {MAX_TEXT:,} characters or share it as a file.")
    if len(draft.subject) > 200:
        raise ChatError("The subject is too long; keep it under 200 characters.")
    mentioned = _resolve_mentions(session, conv, draft)
    html = render_body(draft, mentioned)
    plain = text_of(html)
    if not plain:
        raise ChatError("Type a message before you send it; nothing readable was left after removing unsafe content.")
    return html, plain, mentioned


def _notify(session: Session, user_id: int, kind: str, message: Message, actor: User, now: datetime) -> None:
    if user_id != actor.id:
        session.add(Activity(user_id=user_id, kind=kind, message_id=message.id, actor_id=actor.id, created_at=now))


_MENTION_SPAN = re.compile(r'<span class="mention" data-user="(\d+)">(.*?)</span>')


@lru_cache(maxsize=2048)
def editable(html: str) -> tuple[str, tuple[int, ...]]:
    """A stored body back as the compose box's text ("@Name" for each mention) and the mention ids
    (kept per body: every page shows one's own messages' Edit data)."""
    ids = [int(x) for x in _MENTION_SPAN.findall(html or "") for x in [x[0]]]
    body = _MENTION_SPAN.sub(lambda mm: "@" + mm.group(2), html or "")
    body = re.sub(r"</p>\s*<p>", "\n\n", body)
    body = re.sub(r"<br\s*/?>", "\n", body)
    return unescape(nh3.clean(body, tags=set(), attributes={})).strip(), tuple(dict.fromkeys(ids))


# -- posting -----------------------------------------------------------------------------------------
def post(session: Session, user: User, conv: Conversation, draft: Draft, now: datetime, *, parent_id: int | None = None,
         refs: dict[str, int | None] | None = None) -> Message:
    """A new post (or chat message), or a reply in a post's thread. Raises ChatError on bad input."""
    parent = None
    if parent_id is not None:
        parent = session.get(Message, parent_id)
        if parent is None or parent.conversation_id != conv.id:
            raise ChatError("The post you are replying to isn't in this conversation.")
        if parent.parent_id is not None:
            parent = session.get(Message, parent.parent_id)  # replies to a reply go in the same thread
        if parent.deleted_at is not None:
            raise ChatError("This post has been deleted; you can't reply to it.")
        if conv.kind != "channel":
            raise ChatError("Replies in threads are for channel posts; in a chat, just send a message.")
    if parent is not None and draft.subject:
        raise ChatError("A reply has no subject; only a new post can have one.")
    html, plain, mentioned = _checked(session, conv, draft)
    msg = Message(conversation_id=conv.id, parent_id=parent.id if parent else None, author_id=user.id, subject=draft.subject.strip(),
                  body_html=html, body_text=plain, created_at=now, updated_at=now, **(refs or {}))
    session.add(msg)
    session.flush()
    for uid in mentioned:
        session.add(Mention(message_id=msg.id, user_id=uid))
        _notify(session, uid, "mention", msg, user, now)
    if parent is not None and parent.author_id not in mentioned:
        _notify(session, parent.author_id, "reply", msg, user, now)
    conv.last_message_at = now
    mark_read(session, conv, user, msg.id)
    return msg


def edit(session: Session, user: User, msg: Message, conv: Conversation, draft: Draft, now: datetime) -> Message:
    if msg.author_id != user.id:
        raise ChatError("You can only edit your own messages.")
    if msg.deleted_at is not None:
        raise ChatError("This message has been deleted; it can't be edited.")
    if msg.parent_id is not None and draft.subject:
        raise ChatError("A reply has no subject; only a new post can have one.")
    html, plain, mentioned = _checked(session, conv, draft)
    old = {m.user_id: m for m in session.exec(select(Mention).where(Mention.message_id == msg.id)).all()}
    for uid, row in old.items():
        if uid not in mentioned:
            session.delete(row)
    for uid in mentioned:
        if uid not in old:
            session.add(Mention(message_id=msg.id, user_id=uid))
            _notify(session, uid, "mention", msg, user, now)
    if html == msg.body_html and draft.subject.strip() == msg.subject:
        return msg  # nothing changed: no "Edited" label
    msg.body_html, msg.body_text, msg.edited_at, msg.updated_at = html, plain, now, now
    if msg.parent_id is None and conv.kind == "channel":
        msg.subject = draft.subject.strip()
    return msg


def delete(session: Session, user: User, msg: Message, now: datetime) -> Message:
    if msg.author_id != user.id:
        raise ChatError("You can only delete your own messages.")
    if msg.deleted_at is None:
        msg.deleted_at, msg.updated_at = now, now
    return msg


def undo_delete(session: Session, user: User, msg: Message, now: datetime) -> Message:
    if msg.author_id != user.id:
        raise ChatError("You can only restore your own messages.")
    msg.deleted_at, msg.updated_at = None, now
    return msg


def react(session: Session, user: User, msg: Message, kind: str, now: datetime, on: bool | None = None) -> bool:
    """Toggle (or set, with ``on``) the user's reaction of a kind; True when it is now on."""
    if kind not in REACTIONS:
        raise ChatError(f"Unknown reaction \u201c{kind}\u201d. Use one of: {', '.join(REACTIONS)}.")
    if msg.deleted_at is not None:
        raise ChatError("This message has been deleted; you can't react to it.")
    mine = session.exec(select(Reaction).where(Reaction.message_id == msg.id, Reaction.user_id == user.id, Reaction.kind == kind)).first()
    want = (mine is None) if on is None else on
    if want and mine is None:
        session.add(Reaction(message_id=msg.id, user_id=user.id, kind=kind, created_at=now))
        session.flush()
        _notify(session, msg.author_id, "reaction", msg, user, now)
    elif not want and mine is not None:
        session.delete(mine)
    return want


def mark_read(session: Session, conv: Conversation, user: User, upto: int | None = None) -> None:
    """Everything in the conversation up to ``upto`` (default: its newest message) is read by the user."""
    if upto is None:
        upto = session.exec(select(func.max(Message.id)).where(Message.conversation_id == conv.id)).one() or 0
    member = session.exec(select(Member).where(Member.conversation_id == conv.id, Member.user_id == user.id)).first()
    if member is not None and member.last_read_id < upto:
        member.last_read_id = upto


def unread_counts(session: Session, user: User) -> dict[int, int]:
    """Conversation id -> messages by others newer than what the user has read."""
    rows = session.execute(text(
        "select m.conversation_id, count(*) from chat_member me join chat_message m on m.conversation_id = me.conversation_id "
        "and m.id > me.last_read_id and m.author_id != me.user_id and m.deleted_at is null "
        "where me.user_id = :u group by m.conversation_id"), {"u": user.id}).all()
    return {cid: n for cid, n in rows}


def add_file(session: Session, user: User, conv: Conversation, name: str, mime: str, content: bytes, now: datetime, note: str = "") -> File:
    """Share a file: a message in the conversation saying so, and the file's bytes in the world."""
    name = (name or "").strip().replace("/", "_").replace("\\", "_")
    if not name:
        raise ChatError("Choose a file to share.")
    if not content:
        raise ChatError(f"\u201c{name}\u201d is empty; choose a file with something in it.")
    if len(content) > MAX_FILE:
        raise ChatError(f"\u201c{name}\u201d is {len(content) / 1e6:.1f} MB; files shared here can be at most {MAX_FILE // 1_000_000} MB.")
    draft = Draft(text=note.strip() or f"Shared a file: {name}")
    msg = post(session, user, conv, draft, now)
    f = File(conversation_id=conv.id, message_id=msg.id, name=name[:255], mime=(mime or "application/octet-stream")[:120], size=len(content),
             content=content, uploaded_by_id=user.id, created_at=now)
    session.add(f)
    session.flush()
    return f


# -- new chats -----------------------------------------------------------------------------------------
def start_chat(session: Session, user: User, people_ids: list[int], topic: str, first: Draft, now: datetime) -> tuple[Conversation, Message]:
    """A 1:1 chat (reused if it exists, as Teams does) or a new group chat, with its first message."""
    ids: list[int] = []
    for raw in people_ids:
        try:
            uid = int(raw)
        except (TypeError, ValueError):
            raise ChatError(f"People are given by id; \u201c{raw}\u201d is not one.") from None
        if uid != user.id and uid not in ids:
            ids.append(uid)
    if not ids:
        raise ChatError("Add at least one person to chat with: type a name in To and pick them from the list.")
    people = {u.id: u for u in session.exec(select(User).where(User.id.in_(ids))).all()}
    for uid in ids:
        if uid not in people:
            raise ChatError(f"There is no person with id {uid}.")
        if not people[uid].active:
            raise ChatError(f"{people[uid].name} is no longer with the company and can't be added to a chat.")
    if len(topic) > 120:
        raise ChatError("The group name is too long; keep it under 120 characters.")
    plain = first.text if first.html is None else text_of(first.html)
    if not plain.strip():
        raise ChatError("Type a message before you send it; a new chat starts with a message.")
    conv = None
    if len(ids) == 1 and not topic.strip():
        conv = existing_oneonone(session, user.id, ids[0])
    if conv is None:
        conv = Conversation(kind="oneonone" if len(ids) == 1 and not topic.strip() else "group", name=topic.strip(),
                            created_by_id=user.id, created_at=now, last_message_at=now)
        session.add(conv)
        session.flush()
        for uid in [user.id, *ids]:
            session.add(Member(conversation_id=conv.id, user_id=uid, role="owner" if uid == user.id else "member", joined_at=now))
        session.flush()
    msg = post(session, user, conv, first, now)
    return conv, msg


def existing_oneonone(session: Session, a: int, b: int) -> Conversation | None:
    row = session.execute(text(
        "select c.id from chat_conversation c where c.kind = 'oneonone' "
        "and exists (select 1 from chat_member x where x.conversation_id = c.id and x.user_id = :a) "
        "and exists (select 1 from chat_member y where y.conversation_id = c.id and y.user_id = :b) order by c.id limit 1"), {"a": a, "b": b}).first()
    return session.get(Conversation, row[0]) if row else None
