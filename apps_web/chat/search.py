"""Search over the messages a person can see: words match the text or the author's name; ``from:``
narrows to an author, ``in:`` to a channel or chat name. Newest first."""

from __future__ import annotations

import shlex

from sqlalchemy import or_
from sqlmodel import Session, select

from ..identity.models import User
from .models import Conversation, Member, Message

LIMIT = 50


def _terms(q: str) -> list[str]:
    try:
        return shlex.split(q)
    except ValueError:
        return q.replace('"', " ").split()


def search_messages(session: Session, user: User, q: str, limit: int = LIMIT) -> tuple[list[Message], str]:
    words, authors, places = [], [], []
    for term in _terms(q.strip()):
        key, _, value = term.partition(":")
        if value and key.lower() == "from":
            authors.append(value)
        elif value and key.lower() == "in":
            places.append(value)
        else:
            words.append(term)
    if not (words or authors or places):
        return [], "Type something to search for: words from a message, a person's name, from:name or in:channel."
    name = User.first_name + " " + User.last_name
    query = (select(Message).join(Member, (Member.conversation_id == Message.conversation_id) & (Member.user_id == user.id))
             .join(User, User.id == Message.author_id).join(Conversation, Conversation.id == Message.conversation_id)
             .where(Message.deleted_at == None))  # noqa: E711
    for w in words:
        like = f"%{w}%"
        query = query.where(or_(Message.body_text.ilike(like), Message.subject.ilike(like), name.ilike(like)))
    for a in authors:
        query = query.where(name.ilike(f"%{a}%"))
    for p in places:
        query = query.where(Conversation.name.ilike(f"%{p}%"))
    rows = list(session.exec(query.order_by(Message.created_at.desc(), Message.id.desc()).limit(limit)).all())
    return rows, ""
