"""Lead conversion: one transaction turns a qualified lead into an account, a contact and, optionally,
an opportunity, the way Salesforce does it.

The lead keeps its row: its status becomes "Closed - Converted" and it points at what it became
(``converted_*_id``, ``converted_at`` from the world clock). Its open and past activities and its notes
move to the new contact (activities also to the opportunity, or else the account), so the history
follows the customer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, or_
from sqlmodel import Session, select

from ..identity.models import User
from ..world import WorldClock
from . import picklists as pl
from .common import stamp
from .models import Account, Activity, Contact, Lead, Note, Opportunity, OpportunityContactRole

CONVERTED_STATUSES = [pl.LEAD_CONVERTED]
FIRST_STAGE = pl.OPEN_STAGES[0]


class ConversionError(Exception):
    """The conversion can't run; ``errors`` maps form fields (or ``__all__``) to messages."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(errors.values()))
        self.errors = errors


@dataclass
class ConvertRequest:
    account_id: int | None = None  # an existing account, or else:
    account_name: str = ""  # the name of a new one
    contact_id: int | None = None  # an existing contact of that account, or else a new contact:
    salutation: str = ""
    first_name: str = ""
    last_name: str = ""
    opportunity_name: str | None = None  # None: don't create an opportunity
    owner_id: int | None = None
    status: str = pl.LEAD_CONVERTED


@dataclass
class ConvertResult:
    lead: Lead
    account: Account
    contact: Contact
    opportunity: Opportunity | None
    new_account: bool
    new_contact: bool


def default_opportunity_name(lead: Lead) -> str:
    return f"{lead.company}-"


def account_matches(session: Session, company: str, limit: int = 5) -> list[Account]:
    """Existing accounts that look like the lead's company (name contains it, or it contains the name)."""
    name = (company or "").strip().lower()
    if not name:
        return []
    lowered = func.lower(Account.name)
    query = select(Account).where(or_(lowered.contains(name), func.instr(name, lowered) > 0)).order_by(Account.name, Account.id).limit(limit)
    return list(session.exec(query).all())


def contact_matches(session: Session, lead: Lead, limit: int = 5) -> list[Contact]:
    """Existing contacts with the lead's email, or its first and last name."""
    conds = [func.lower(Contact.last_name) == (lead.last_name or "").lower()]
    if lead.first_name:
        conds.append(func.lower(Contact.first_name) == lead.first_name.lower())
    same_name = conds[0] if len(conds) == 1 else (conds[0] & conds[1])
    cond = or_(same_name, func.lower(Contact.email) == lead.email.lower()) if lead.email else same_name
    query = select(Contact).where(cond).order_by(Contact.last_name, Contact.first_name, Contact.id).limit(limit)
    return list(session.exec(query).all())


def _check(session: Session, lead: Lead, req: ConvertRequest) -> tuple[Account | None, Contact | None, User]:
    if lead.status == pl.LEAD_CONVERTED or lead.converted_at is not None:
        raise ConversionError({"__all__": "This lead has already been converted."})
    errors: dict[str, str] = {}
    account = None
    if req.account_id is not None:
        account = session.get(Account, req.account_id)
        if account is None:
            errors["account_id"] = "The account doesn't exist or has been deleted."
    elif not req.account_name.strip():
        errors["account_name"] = "Complete this field."
    elif len(req.account_name.strip()) > 255:
        errors["account_name"] = "Use 255 characters or fewer."
    contact = None
    if req.contact_id is not None:
        contact = session.get(Contact, req.contact_id)
        if contact is None:
            errors["contact_id"] = "The contact doesn't exist or has been deleted."
        elif account is None and "account_id" not in errors:
            errors["contact_id"] = "To use an existing contact, choose its existing account too."
        elif account is not None and contact.account_id != account.id:
            errors["contact_id"] = f"{contact.name} isn't a contact of {account.name}. Choose a contact of the selected account."
    elif not req.last_name.strip():
        errors["last_name"] = "Complete this field."
    if req.salutation and req.salutation not in pl.SALUTATIONS:
        errors["salutation"] = "Choose a salutation from the list."
    if req.opportunity_name is not None:
        if not req.opportunity_name.strip():
            errors["opportunity_name"] = "Complete this field, or select \"Don't create an opportunity upon conversion\"."
        elif len(req.opportunity_name.strip()) > 120:
            errors["opportunity_name"] = "Use 120 characters or fewer."
    owner = session.get(User, req.owner_id) if req.owner_id else None
    if owner is None or not owner.active:
        errors["owner_id"] = "Choose an active user as the record owner."
    if req.status not in CONVERTED_STATUSES:
        errors["status"] = "Choose a converted status."
    if errors:
        raise ConversionError(errors)
    return account, contact, owner


def convert_lead(session: Session, lead: Lead, req: ConvertRequest, *, user: User, clock: WorldClock) -> ConvertResult:
    """Convert ``lead`` and commit; raises ``ConversionError`` (nothing written) when the request is invalid."""
    account, contact, owner = _check(session, lead, req)
    new_account = account is None
    if account is None:
        account = Account(
            name=req.account_name.strip(), industry=lead.industry, rating=lead.rating, annual_revenue=lead.annual_revenue,
            employees=lead.employees, phone=lead.phone, billing_city=lead.city, billing_state=lead.state,
            billing_country=lead.country, owner_id=owner.id,
        )
        stamp(account, user, clock, created=True)
        session.add(account)
        session.flush()
    new_contact = contact is None
    if contact is None:
        contact = Contact(
            salutation=req.salutation or None, first_name=req.first_name.strip() or None, last_name=req.last_name.strip(),
            title=lead.title, email=lead.email, phone=lead.phone, lead_source=lead.source, mailing_city=lead.city,
            mailing_state=lead.state, mailing_country=lead.country, description=lead.description,
            account_id=account.id, owner_id=owner.id,
        )
        stamp(contact, user, clock, created=True)
        session.add(contact)
        session.flush()
    opportunity = None
    if req.opportunity_name is not None:
        opportunity = Opportunity(
            name=req.opportunity_name.strip(), account_id=account.id, stage=FIRST_STAGE,
            probability=pl.STAGE_PROBABILITY[FIRST_STAGE], forecast_category=pl.STAGE_FORECAST[FIRST_STAGE],
            close_date=_close_date(clock), lead_source=lead.source, owner_id=owner.id,
        )
        stamp(opportunity, user, clock, created=True)
        session.add(opportunity)
        session.flush()
        session.add(OpportunityContactRole(opportunity_id=opportunity.id, contact_id=contact.id, is_primary=True))
    _move_history(session, lead, account, contact, opportunity, user, clock)
    lead.status = req.status
    lead.converted_account_id = account.id
    lead.converted_contact_id = contact.id
    lead.converted_opportunity_id = opportunity.id if opportunity else None
    lead.converted_at = clock.now
    stamp(lead, user, clock)
    session.add(lead)
    session.commit()
    return ConvertResult(lead, account, contact, opportunity, new_account, new_contact)


def _close_date(clock: WorldClock) -> date:
    return clock.quarter_end  # Salesforce: the last day of the current quarter


def _move_history(session: Session, lead: Lead, account: Account, contact: Contact, opportunity: Opportunity | None,
                  user: User, clock: WorldClock) -> None:
    what_type, what_id = ("opportunity", opportunity.id) if opportunity else ("account", account.id)
    for act in session.exec(select(Activity).where(Activity.related_type == "lead", Activity.related_id == lead.id)).all():
        act.related_type, act.related_id, act.contact_id = what_type, what_id, contact.id
        stamp(act, user, clock)
        session.add(act)
    for note in session.exec(select(Note).where(Note.related_type == "lead", Note.related_id == lead.id)).all():
        note.related_type, note.related_id = "contact", contact.id
        stamp(note, user, clock)
        session.add(note)


__all__ = [
    "CONVERTED_STATUSES",
    "ConversionError",
    "ConvertRequest",
    "ConvertResult",
    "account_matches",
    "contact_matches",
    "convert_lead",
    "default_opportunity_name",
]
