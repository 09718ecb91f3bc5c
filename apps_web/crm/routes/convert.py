"""Lead conversion: the Convert dialog of a lead page, its POST, and the "lead converted" page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import or_
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect, render
from .. import picklists as pl
from ..common import get_or_404
from ..conversion import CONVERTED_STATUSES, ConversionError, ConvertRequest, account_matches, contact_matches, convert_lead, default_opportunity_name
from ..models import Account, Contact, Lead, Opportunity

from .records import load

router = APIRouter()


def convert_context(session, lead: Lead, user, users: dict, state: dict | None) -> dict[str, Any]:
    """What the Convert dialog of a lead page shows: prefilled values, matches, errors after a failed POST."""
    if lead.status == pl.LEAD_CONVERTED:
        return {"convert": None}
    values = {
        "account_mode": "new", "account_name": lead.company, "account_id": "", "account_label": "",
        "contact_mode": "new", "salutation": lead.salutation or "", "first_name": lead.first_name or "", "last_name": lead.last_name,
        "contact_id": "", "contact_label": "", "opportunity_name": default_opportunity_name(lead), "no_opportunity": False,
        "owner_id": str(lead.owner_id or user.id), "status": pl.LEAD_CONVERTED,
    }
    errors: dict[str, str] = {}
    if state:
        values.update(state.get("values", {}))
        errors = state.get("errors", {})
    return {
        "convert": {
            "values": values,
            "errors": errors,
            "account_matches": account_matches(session, lead.company),
            "contact_matches": contact_matches(session, lead),
            "statuses": CONVERTED_STATUSES,
            "open": bool(state),
        }
    }


def _int(value: Any) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


@router.get("/leads/{record_id:int}/convert", include_in_schema=False)
def convert_page(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    """The lead page with the Convert dialog open (a link target, and where the path's Converted step goes)."""
    from .records import render_record

    lead = load(session, "lead", record_id, "edit")
    if lead.status == pl.LEAD_CONVERTED:
        return redirect(request, f"/leads/{lead.id}/converted")
    return render_record(request, session, user, clock, "lead", lead, open_dialog="convert-dialog")


@router.post("/leads/{record_id:int}/convert", include_in_schema=False)
async def convert(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    from .records import render_record

    lead = load(session, "lead", record_id, "edit")
    form = await request.form()
    v = {k: str(form.get(k, "")).strip() for k in (
        "account_mode", "account_name", "account_id", "existing_account_id", "contact_mode", "salutation", "first_name",
        "last_name", "contact_id", "existing_contact_id", "opportunity_name", "owner_id", "status")}
    v["no_opportunity"] = form.get("no_opportunity") in ("on", "true", "1")
    existing_account = v["account_mode"] == "existing"
    existing_contact = v["contact_mode"] == "existing"
    account_id = _int(v["account_id"] or v["existing_account_id"]) if existing_account else None
    contact_id = _int(v["contact_id"] or v["existing_contact_id"]) if existing_contact else None
    req = ConvertRequest(
        account_id=account_id, account_name="" if existing_account else v["account_name"],
        contact_id=contact_id, salutation=v["salutation"], first_name=v["first_name"], last_name=v["last_name"],
        opportunity_name=None if v["no_opportunity"] else v["opportunity_name"], owner_id=_int(v["owner_id"]), status=v["status"],
    )
    errors: dict[str, str] = {}
    if existing_account and account_id is None:
        errors["account_id"] = "Choose an existing account, or create a new one."
    if existing_contact and contact_id is None:
        errors["contact_id"] = "Choose an existing contact, or create a new one."
    try:
        if errors:
            raise ConversionError(errors)
        result = convert_lead(session, lead, req, user=user, clock=clock)
    except ConversionError as exc:
        session.rollback()
        if "__all__" in exc.errors and lead.status == pl.LEAD_CONVERTED:
            return redirect(request, f"/leads/{lead.id}/converted", toast=exc.errors["__all__"], kind="error")
        account = session.get(Account, account_id) if account_id else None
        contact = session.get(Contact, contact_id) if contact_id else None
        v.update(account_id=str(account.id) if account else "", account_label=account.name if account else "",
                 contact_id=str(contact.id) if contact else "", contact_label=contact.name if contact else "")
        return render_record(request, session, user, clock, "lead", lead, status_code=422, open_dialog="convert-dialog",
                             convert={"values": v, "errors": exc.errors})
    return redirect(request, f"/leads/{result.lead.id}/converted", toast=f'Lead "{lead.name}" was converted.')


@router.get("/leads/{record_id:int}/convert/contacts", include_in_schema=False)
def convert_contacts(record_id: int, session: SessionDep, user: CurrentUser, account_id: int | None = None, q: str = "") -> list[dict]:
    """Type-ahead of the Convert dialog's "Choose Existing" contact: only contacts of the chosen account."""
    load(session, "lead", record_id, "edit")
    if account_id is None:
        return []
    query = select(Contact).where(Contact.account_id == account_id)
    if q.strip():
        needle = q.strip()
        query = query.where(or_(Contact.first_name.icontains(needle, autoescape=True), Contact.last_name.icontains(needle, autoescape=True),
                                Contact.email.icontains(needle, autoescape=True)))
    rows = session.exec(query.order_by(Contact.last_name, Contact.first_name, Contact.id).limit(10)).all()
    return [{"id": c.id, "label": c.name, "sublabel": " • ".join(p for p in (c.title, c.email) if p)} for c in rows]


@router.get("/leads/{record_id:int}/converted", include_in_schema=False)
def converted(request: Request, record_id: int, session: SessionDep, user: CurrentUser) -> Response:
    lead = load(session, "lead", record_id)
    if lead.status != pl.LEAD_CONVERTED:
        return redirect(request, f"/leads/{lead.id}")
    account = session.get(Account, lead.converted_account_id) if lead.converted_account_id else None
    contact = session.get(Contact, lead.converted_contact_id) if lead.converted_contact_id else None
    opportunity = session.get(Opportunity, lead.converted_opportunity_id) if lead.converted_opportunity_id else None
    return render(request, "crm/record_converted.html", lead=lead, account=account, contact=contact, opportunity=opportunity)
