"""What the API returns for each object: the ``Public`` models (FastAPI full-stack template style)."""

from __future__ import annotations

from typing import Any

from pydantic import NaiveDatetime
from sqlmodel import SQLModel

from ..models import AccountBase, ActivityBase, CaseBase, ContactBase, LeadBase, NoteBase, OpportunityBase


class _Stamps(SQLModel):
    id: int
    created_at: NaiveDatetime | None = None
    updated_at: NaiveDatetime | None = None
    created_by_id: int | None = None


class AccountPublic(AccountBase, _Stamps):
    pass


class ContactPublic(ContactBase, _Stamps):
    name: str


class LeadPublic(LeadBase, _Stamps):
    name: str
    converted_account_id: int | None = None
    converted_contact_id: int | None = None
    converted_opportunity_id: int | None = None
    converted_at: NaiveDatetime | None = None


class OpportunityPublic(OpportunityBase, _Stamps):
    pass


class CasePublic(CaseBase, _Stamps):
    case_number: str
    closed_at: NaiveDatetime | None = None


class ActivityPublic(ActivityBase, _Stamps):
    completed_at: NaiveDatetime | None = None


class NotePublic(NoteBase, _Stamps):
    pass


PUBLIC: dict[str, type[SQLModel]] = {
    "account": AccountPublic,
    "contact": ContactPublic,
    "lead": LeadPublic,
    "opportunity": OpportunityPublic,
    "case": CasePublic,
    "activity": ActivityPublic,
    "note": NotePublic,
}


def to_public(object_key: str, record: Any) -> dict[str, Any]:
    """A record as JSON-ready data."""
    return PUBLIC[object_key].model_validate(record, from_attributes=True).model_dump(mode="json")


__all__ = ["PUBLIC", "to_public", *[cls.__name__ for cls in PUBLIC.values()]]
