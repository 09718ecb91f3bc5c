"""Helpers every CRM route uses: fetching records, stamping changes, the recently-viewed list."""

from __future__ import annotations

from typing import TypeVar

from fastapi import HTTPException
from sqlmodel import Session, SQLModel, select

from ..deps import row_id
from ..identity.models import User
from ..world import WorldClock
from .models import RecentView
from .objects import OBJECTS

T = TypeVar("T", bound=SQLModel)
RECENT_LIMIT = 50


def get_or_404(session: Session, model: type[T], record_id: int, label: str | None = None) -> T:
    rid = row_id(record_id)
    record = session.get(model, rid) if rid is not None else None
    if record is None:
        name = label or model.__name__
        raise HTTPException(status_code=404, detail=f"This {name.lower()} doesn't exist or has been deleted.")
    return record


def stamp(record: SQLModel, user: User | None, clock: WorldClock, *, created: bool = False) -> None:
    """Set bookkeeping fields from the frozen world clock (never the real clock)."""
    if created:
        record.created_at = clock.now
        record.created_by_id = user.id if user else None
    record.updated_at = clock.now


def record_view(session: Session, user: User, object_key: str, record_id: int) -> None:
    """Remember that ``user`` opened a record (bookkeeping table, ignored by verifiers)."""
    last = session.exec(select(RecentView).where(RecentView.user_id == user.id).order_by(RecentView.id.desc()).limit(1)).first()
    if last is not None and last.object_type == object_key and last.record_id == record_id:
        return
    session.add(RecentView(user_id=user.id, object_type=object_key, record_id=record_id))
    session.commit()


def recent_records(session: Session, user: User, object_key: str | None = None, limit: int = 10) -> list[tuple[str, SQLModel]]:
    """The user's most recently viewed records (newest first), skipping deleted ones."""
    query = select(RecentView).where(RecentView.user_id == user.id)
    if object_key:
        query = query.where(RecentView.object_type == object_key)
    seen: set[tuple[str, int]] = set()
    out: list[tuple[str, SQLModel]] = []
    for view in session.exec(query.order_by(RecentView.id.desc()).limit(RECENT_LIMIT * 4)).all():
        key = (view.object_type, view.record_id)
        if key in seen or view.object_type not in OBJECTS:
            continue
        seen.add(key)
        record = session.get(OBJECTS[view.object_type].model, view.record_id)
        if record is not None:
            out.append((view.object_type, record))
        if len(out) >= limit:
            break
    return out


def users_by_id(session: Session) -> dict[int, User]:
    return {u.id: u for u in session.exec(select(User).order_by(User.last_name, User.first_name)).all()}
