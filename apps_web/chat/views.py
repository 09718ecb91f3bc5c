"""What the chat pages show: the chat list and team tree with unread markers, a conversation's
messages with their threads, reactions, mentions and files, and the time labels of Teams."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Iterable

from fastapi import Request
from markupsafe import Markup
from sqlalchemy import func, text
from sqlmodel import Session, select

from ..identity.models import User
from ..ui import render
from ..world import WorldClock
from .models import REACTION_EMOJI, REACTION_LABELS, REACTIONS, Activity, Conversation, File, Member, Message, Reaction, Team
from .presence import PRESENCE_CLASS, presences
from .service import clean_html

REACTIONS_ALL = [(k, REACTION_LABELS[k], REACTION_EMOJI[k]) for k in REACTIONS]
POSTS_SHOWN = 20  # the newest channel posts a page shows (older ones: "See older posts")
CHAT_SHOWN = 50


def safe_body(html: str) -> Markup:
    """A stored body, sanitised again for the page (rows a task's set-up writes skip the posting
    code). Bodies repeat across renders (every post, edit or reaction redirects back to the same
    conversation), so the sanitised text is kept per body."""
    return Markup(_sanitised(html or ""))


@lru_cache(maxsize=4096)
def _sanitised(html: str) -> str:
    return clean_html(html)


def size_label(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{max(1, round(n / 1000))} KB"


PREVIEW_ROWS = 500  # a viewer page, not a spreadsheet: longer files are cut with a note to download them


def file_preview(name: str, mime: str, content: bytes | str) -> dict[str, Any]:
    """What the viewer shows of a shared file: a CSV as a table, plain text as text, and for anything
    else only that it has no preview (the Download link stays)."""
    is_csv = mime == "text/csv" or name.lower().endswith(".csv")
    if not (is_csv or (mime or "").startswith("text/") or name.lower().endswith((".txt", ".md", ".log"))):
        return {"kind": "none"}
    body = content.decode("utf-8", errors="replace") if isinstance(content, bytes) else str(content)
    if not is_csv:
        return {"kind": "text", "text": body}
    rows = list(csv.reader(io.StringIO(body)))
    return {"kind": "table", "header": rows[0] if rows else [], "rows": rows[1:PREVIEW_ROWS + 1], "cut": max(0, len(rows) - 1 - PREVIEW_ROWS)}


def reply_names(replies: list[Message], authors: dict[int, User]) -> str:
    """"Ana, Raj and 2 others", the people in a thread as its collapsed bar shows them."""
    names = [authors[a].first_name for a in dict.fromkeys(r.author_id for r in replies) if a in authors]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def chat_time(value: Any, now: datetime | None = None) -> str:
    """Teams' labels: "9:30 AM" today, "Yesterday 4:02 PM", "Fri 3:14 PM" this week, else "3/2 10:05 AM"."""
    if not isinstance(value, datetime):
        return ""
    hm = f"{value.hour % 12 or 12}:{value:%M} {'AM' if value.hour < 12 else 'PM'}"
    if now is None:
        return f"{value.month}/{value.day}/{value.year} {hm}"
    if value.date() == now.date():
        return hm
    if value.date() == (now - timedelta(days=1)).date():
        return f"Yesterday {hm}"
    if timedelta(0) <= now - value < timedelta(days=6):
        return f"{value:%a} {hm}"
    if value.year == now.year:
        return f"{value.month}/{value.day} {hm}"
    return f"{value.month}/{value.day}/{value.year} {hm}"


@dataclass
class ChatItem:
    conv: Conversation
    title: str
    preview: str
    unread: int
    others: list[User]
    presence: tuple[str, str] | None = None

    @property
    def partner_id(self) -> int | None:
        """The other person of a 1:1 chat (their presence dot shows in the list)."""
        return self.others[0].id if self.conv.kind == "oneonone" and self.others else None


@dataclass
class TeamItem:
    team: Team
    channels: list[tuple[Conversation, int]] = field(default_factory=list)  # (channel, unread)


def users_by_id(session: Session, ids) -> dict[int, User]:  # noqa: ANN001
    ids = sorted(set(ids))
    return {u.id: u for u in session.exec(select(User).where(User.id.in_(ids))).all()} if ids else {}


def title_of(conv: Conversation, others: list[User]) -> str:
    if conv.kind == "channel" or conv.name:
        return conv.name
    if not others:
        return "Just you"
    if conv.kind == "oneonone":
        return others[0].name
    names = [u.first_name for u in others]
    return ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")


def chat_items(session: Session, user: User, now: datetime, unread: dict[int, int],
               pres: dict[int, tuple[str, str]] | None = None) -> list[ChatItem]:
    """The chat list, newest first. ``pres``: presences already worked out (else they are here)."""
    convs = session.exec(select(Conversation).join(Member, Member.conversation_id == Conversation.id)
                         .where(Member.user_id == user.id, Conversation.kind != "channel")
                         .order_by(Conversation.last_message_at.desc(), Conversation.id.desc())).all()
    if not convs:
        return []
    ids = [c.id for c in convs]
    mem = session.exec(select(Member.conversation_id, Member.user_id).where(Member.conversation_id.in_(ids))).all()
    others: dict[int, list[int]] = defaultdict(list)
    for cid, uid in mem:
        if uid != user.id:
            others[cid].append(uid)
    people = users_by_id(session, [u for v in others.values() for u in v])
    last = dict(session.execute(text(
        "select conversation_id, body_text from chat_message where id in (select max(id) from chat_message where conversation_id in (%s) "
        "and deleted_at is null group by conversation_id)" % ",".join(str(i) for i in ids))).all())
    out = []
    for c in convs:
        os_ = sorted((people[u] for u in others[c.id] if u in people), key=lambda u: u.name)
        out.append(ChatItem(c, title_of(c, os_), (last.get(c.id) or "")[:80], unread.get(c.id, 0), os_))
    if pres is None:
        pres = presences(session, [i.partner_id for i in out if i.partner_id], now)
    for item in out:
        item.presence = pres.get(item.partner_id) if item.partner_id else None
    return out


def team_items(session: Session, user: User, unread: dict[int, int]) -> list[TeamItem]:
    rows = session.exec(select(Conversation).join(Member, Member.conversation_id == Conversation.id)
                        .where(Member.user_id == user.id, Conversation.kind == "channel").order_by(Conversation.team_id, Conversation.id)).all()
    teams = {t.id: t for t in session.exec(select(Team).where(Team.id.in_({c.team_id for c in rows}))).all()} if rows else {}
    out: dict[int, TeamItem] = {}
    for c in rows:
        item = out.setdefault(c.team_id, TeamItem(teams[c.team_id]))
        item.channels.append((c, unread.get(c.id, 0)))
    return sorted(out.values(), key=lambda t: t.team.name.lower())


def unread_activity(session: Session, user: User) -> int:
    return session.exec(select(func.count()).select_from(Activity).where(Activity.user_id == user.id, Activity.is_read == False)).one()  # noqa: E712


@dataclass
class ReactionView:
    kind: str
    label: str
    emoji: str
    count: int
    names: list[str]
    mine: bool


def message_context(session: Session, user: User, messages: list[Message], more_people: list[int] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    """Authors, reactions (grouped, with who), and files of the messages shown (``authors`` also has
    ``more_people``, loaded in the same query)."""
    ids = [m.id for m in messages]
    reactions: dict[int, list[ReactionView]] = {}
    files: dict[int, list[File]] = defaultdict(list)
    if ids:
        rows = session.exec(select(Reaction).where(Reaction.message_id.in_(ids)).order_by(Reaction.id)).all()
        people = users_by_id(session, [r.user_id for r in rows] + [m.author_id for m in messages] + list(more_people))
        grouped: dict[int, dict[str, list[Reaction]]] = defaultdict(lambda: defaultdict(list))
        for r in rows:
            grouped[r.message_id][r.kind].append(r)
        for mid, kinds in grouped.items():
            reactions[mid] = [ReactionView(k, REACTION_LABELS[k], REACTION_EMOJI[k], len(kinds[k]),
                                           [("You" if r.user_id == user.id else people[r.user_id].name) for r in kinds[k] if r.user_id in people],
                                           any(r.user_id == user.id for r in kinds[k])) for k in REACTIONS if k in kinds]
        for f in session.exec(select(File.id, File.name, File.size, File.mime, File.message_id).where(File.message_id.in_(ids))).all():
            files[f.message_id].append(f)
    else:
        people = users_by_id(session, more_people)
    return {"authors": people, "reactions": reactions, "files_by_msg": files}


def conversation_view(session: Session, user: User, conv: Conversation, now: datetime, older: bool = False, open_id: int | None = None,
                      member: Member | None = None) -> dict[str, Any]:
    if conv.kind == "channel":
        # Time order (ids follow it, except for rows a task's set-up back-dates).
        q = select(Message).where(Message.conversation_id == conv.id, Message.parent_id == None).order_by(Message.created_at.desc(), Message.id.desc())  # noqa: E711
        roots = list(session.exec(q if older else q.limit(POSTS_SHOWN)).all())[::-1]
        total = session.exec(select(func.count()).select_from(Message).where(Message.conversation_id == conv.id, Message.parent_id == None)).one()  # noqa: E711
        # Only the open thread's replies are rendered; the others show their count and who replied.
        replies: dict[int, list[Message]] = defaultdict(list)
        summary: dict[int, list[int]] = defaultdict(list)
        if roots:
            for pid, aid in session.exec(select(Message.parent_id, Message.author_id).where(Message.parent_id.in_([m.id for m in roots])).order_by(Message.id)).all():
                summary[pid].append(aid)
        if open_id is not None and open_id in summary:
            replies[open_id] = list(session.exec(select(Message).where(Message.parent_id == open_id).order_by(Message.created_at, Message.id)).all())
        shown = roots + replies.get(open_id, [])
        ctx = {"posts": roots, "replies": replies, "reply_summary": summary, "open_id": open_id,
               "hidden_older": 0 if older else max(0, total - len(roots))}
    else:
        q = select(Message).where(Message.conversation_id == conv.id).order_by(Message.created_at.desc(), Message.id.desc())
        msgs = list(session.exec(q if older else q.limit(CHAT_SHOWN)).all())[::-1]
        total = session.exec(select(func.count()).select_from(Message).where(Message.conversation_id == conv.id)).one()
        shown = msgs
        ctx = {"posts": msgs, "replies": {}, "reply_summary": {}, "open_id": None, "hidden_older": 0 if older else max(0, total - len(msgs))}
    if member is None:
        member = session.exec(select(Member).where(Member.conversation_id == conv.id, Member.user_id == user.id)).first()
    ctx["last_read_id"] = member.last_read_id if member else 0
    ctx.update(message_context(session, user, shown, [a for v in ctx["reply_summary"].values() for a in v]))
    names = ctx["authors"]
    ctx["reply_names"] = {pid: ", ".join(names[a].first_name for a in dict.fromkeys(v) if a in names) for pid, v in ctx["reply_summary"].items()}
    return ctx


def members_of(session: Session, conv: Conversation) -> list[User]:
    return list(session.exec(select(User).join(Member, Member.user_id == User.id).where(Member.conversation_id == conv.id).order_by(User.first_name, User.last_name)).all())


def page(request: Request, session: Session, user: User, clock: WorldClock, *, section: str, template: str = "chat/page.html",
         status_code: int = 200, presence_ids: Iterable[int] = (), **ctx: Any):
    """The Teams frame: app bar (Activity, Chat, Teams with badges), the list pane of the section,
    and the main pane the caller fills. Everyone's presence on the page (you, the chat list, and
    ``presence_ids``) is worked out at once: ``presence_of`` in the template."""
    unread: dict[int, int] = {}
    chat_badge = teams_badge = 0
    for cid, kind, n in session.execute(text(
            "select me.conversation_id, c.kind, count(m.id) from chat_member me join chat_conversation c on c.id = me.conversation_id "
            "join chat_message m on m.conversation_id = me.conversation_id and m.id > me.last_read_id and m.author_id != me.user_id "
            "and m.deleted_at is null where me.user_id = :u group by me.conversation_id"), {"u": user.id}).all():
        unread[cid] = n
        chat_badge += kind != "channel"
        teams_badge += kind == "channel"
    base: dict[str, Any] = {
        "section": section, "now": clock.now, "presence_class": PRESENCE_CLASS,
        "activity_badge": unread_activity(session, user), "chat_badge": chat_badge, "teams_badge": teams_badge,
        "reactions_all": REACTIONS_ALL,
    }
    wanted = {user.id, *presence_ids}
    if section == "chat":
        base["chats"] = chat_items(session, user, clock.now, unread, pres={})  # presence filled below, with everyone else's
        wanted.update(i.partner_id for i in base["chats"] if i.partner_id)
    elif section == "teams":
        base["teams"] = team_items(session, user, unread)
    pres = presences(session, list(wanted), clock.now)
    for item in base.get("chats", ()):
        item.presence = pres.get(item.partner_id) if item.partner_id else None
    base["presence_of"] = pres
    base["my_presence"] = pres.get(user.id, ("Available", ""))
    base.update(ctx)
    return render(request, template, status_code=status_code, **base)
