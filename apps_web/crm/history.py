"""Field history tracking: every save of a tracked field writes a row (who, when, old and new value).

A session listener sees each flush, so the record pages, the board, mass actions and the JSON API all
write history without each remembering to. The request's user and world time come from
``session.info`` (set by the host's dependencies).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import event, inspect
from sqlmodel import Session, select

from ..identity.models import User
from ..ui import fmt_date, money
from .models import Case, FieldHistory, Lead, Opportunity

TRACKED: dict[type, tuple[str, dict[str, str]]] = {
    Opportunity: ("opportunity", {"stage": "Stage", "amount": "Amount", "close_date": "Close Date", "owner_id": "Owner"}),
    Case: ("case", {"status": "Status", "priority": "Priority", "owner_id": "Owner"}),
    Lead: ("lead", {"status": "Lead Status", "rating": "Rating", "owner_id": "Owner"}),
}


def raw_value(value) -> str | None:
    """A field's value as field history stores it (and as a merge compares values)."""
    if value is None:
        return None
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@event.listens_for(Session, "before_flush")
def _track(session, _flush_context, _instances) -> None:  # noqa: ANN001
    now = session.info.get("now")
    if now is None:  # the world generator and direct changes: no history
        return
    for obj in list(session.dirty):
        spec = TRACKED.get(type(obj))
        if spec is None:
            continue
        object_type, fields = spec
        state = inspect(obj)
        for name in fields:
            hist = state.attrs[name].history
            if not hist.added:
                continue
            old = hist.deleted[0] if hist.deleted else None
            new = hist.added[0]
            if raw_value(old) == raw_value(new):
                continue
            session.add(FieldHistory(object_type=object_type, record_id=obj.id, field=name, old_value=raw_value(old), new_value=raw_value(new),
                                     user_id=session.info.get("user_id"), changed_at=now))


def display(field: str, value: str | None, users: dict[int, User]) -> str:
    if value is None or value == "":
        return ""
    if field == "amount":
        return money(float(value))
    if field == "close_date":
        return fmt_date(date.fromisoformat(value))
    if field == "owner_id":
        u = users.get(int(value)) if value.isdigit() else None
        return u.name if u else value
    return value


def history_rows(session: Session, object_type: str, record_id: int, limit: int | None = None) -> tuple[list[FieldHistory], int]:
    from sqlalchemy import func

    where = (FieldHistory.object_type == object_type, FieldHistory.record_id == record_id)
    q = select(FieldHistory).where(*where).order_by(FieldHistory.changed_at.desc(), FieldHistory.id.desc())
    rows = list(session.exec(q.limit(limit) if limit else q).all())
    total = session.exec(select(func.count()).select_from(FieldHistory).where(*where)).one()
    return rows, total


def label(object_type: str, field: str) -> str:
    for _model, (key, fields) in TRACKED.items():
        if key == object_type and field in fields:
            return fields[field]
    return field
