"""The People module: the company directory (from the identity) with search, a person's card and
their place in the org chart (manager chain up, direct reports down)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, or_
from sqlmodel import Session, select

from ..identity.models import User
from .calendar.models import Profile


@dataclass
class Card:
    user: User
    office: str
    mobile: str
    manager: User | None


def search(session: Session, q: str, limit: int = 200) -> list[Card]:
    query = select(User).where(User.active.is_(True))
    q = " ".join((q or "").split()).lower()
    if q:
        like = f"%{q}%"
        query = query.where(or_(func.lower(User.first_name + " " + User.last_name).like(like), func.lower(User.email).like(like),
                                func.lower(User.title).like(like), func.lower(User.department).like(like)))
    users = list(session.exec(query.order_by(User.last_name, User.first_name).limit(limit)).all())
    return _cards(session, users)


def _cards(session: Session, users: list[User]) -> list[Card]:
    ids = [u.id for u in users]
    profiles = {p.user_id: p for p in session.exec(select(Profile).where(Profile.user_id.in_(ids))).all()} if ids else {}
    managers = {m.id: m for m in session.exec(select(User).where(User.id.in_({u.manager_id for u in users if u.manager_id}))).all()}
    return [Card(u, getattr(profiles.get(u.id), "office", ""), getattr(profiles.get(u.id), "mobile", ""), managers.get(u.manager_id)) for u in users]


def card(session: Session, user_id: int) -> Card | None:
    user = session.get(User, user_id)
    return _cards(session, [user])[0] if user is not None else None


def chain(session: Session, user: User) -> list[User]:
    """The manager chain, top first (a cycle in bad data stops the walk)."""
    out: list[User] = []
    seen = {user.id}
    m = session.get(User, user.manager_id) if user.manager_id else None
    while m is not None and m.id not in seen:
        out.append(m)
        seen.add(m.id)
        m = session.get(User, m.manager_id) if m.manager_id else None
    return list(reversed(out))


def reports(session: Session, user: User) -> list[User]:
    return list(session.exec(select(User).where(User.manager_id == user.id, User.active.is_(True)).order_by(User.last_name, User.first_name)).all())
