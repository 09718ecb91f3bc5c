"""Helpers of the desk's routes: records or a 404 in the app's look, display values of references."""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import HTTPException
from sqlalchemy import select
from sqlmodel import Session, SQLModel

from ..deps import row_id
from .tables import REFS, Table

T = TypeVar("T", bound=SQLModel)


def get_or_404(session: Session, model: type[T], record_id: Any, label: str) -> T:
    rid = row_id(record_id)
    record = session.get(model, rid) if rid is not None else None
    if record is None:
        raise HTTPException(status_code=404, detail=f"Record not found: no {label.lower()} with sys_id {record_id!r}. It may have been deleted.")
    return record


def displays(session: Session, ref_key: str, ids: set[int]) -> dict[int, str]:
    """Display values of referenced records, in one query."""
    ids = {i for i in ids if i is not None}
    ref = REFS.get(ref_key)
    if not ids or ref is None:
        return {}
    rows = session.execute(select(ref.model.id, ref.display).where(ref.model.id.in_(ids))).all()
    return {i: str(d) for i, d in rows}


def display(session: Session, ref_key: str, record_id: int | None) -> str:
    if record_id is None:
        return ""
    return displays(session, ref_key, {record_id}).get(record_id, "")


def reference_maps(session: Session, table: Table, rows: list[SQLModel], names: list[str]) -> dict[str, dict[int, str]]:
    out: dict[str, dict[int, str]] = {}
    for name in names:
        col = table.col(name)
        if col and col.type == "reference":
            out[name] = displays(session, col.ref, {getattr(r, col.attr) for r in rows})
    return out


def sn_datetime(value: Any) -> str:
    """ServiceNow's date-time format: 2026-03-16 09:30:00."""
    if value is None:
        return ""
    return value.strftime("%Y-%m-%d %H:%M:%S") if hasattr(value, "hour") else value.isoformat()
