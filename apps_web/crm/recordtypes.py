"""Record types of opportunities and cases (Salesforce's RecordType with its sales and support processes).

A record type decides which picklist values a record may take: a Renewal runs a shorter sales process
(its own stage subset), a Billing case has its own case reasons. The rows live in ``crm_record_type``
(what Setup shows); the values each type allows are the org's configuration below, by developer name.
The server refuses a value the record's type doesn't allow with the product's restricted-picklist message,
but only when the value or the type changes: a record keeps a value its type dropped, as in Salesforce.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, select

from . import picklists as P
from .models import Case, Opportunity, RecordType

RECORD_TYPE_OBJECTS = ("opportunity", "case")
# The picklist each object's record types restrict: opportunity Stage, case Case Reason.
RESTRICTED_FIELD = {"opportunity": ("stage", "Stage"), "case": ("reason", "Case Reason")}
LABEL = {"opportunity": "Opportunity Record Type", "case": "Case Record Type"}


@dataclass(frozen=True)
class TypeDef:
    object_type: str
    name: str
    developer_name: str
    description: str
    values: tuple[str, ...]  # the restricted picklist's values for this type, in the order the UI shows them
    is_default: bool = False


RENEWAL_STAGES = ("Qualification", "Needs Analysis", "Proposal/Price Quote", "Negotiation/Review", "Closed Won", "Closed Lost")
UPSELL_STAGES = ("Qualification", "Needs Analysis", "Value Proposition", "Id. Decision Makers", "Proposal/Price Quote",
                 "Negotiation/Review", "Closed Won", "Closed Lost")
SUPPORT_REASONS = ("Installation", "Performance", "Breakdown", "Equipment Design", "Feedback", "User Training",
                   "Complex Functionality", "Existing Problem", "Other")
BILLING_REASONS = ("Invoice Dispute", "Duplicate Charge", "Refund Request", "Payment Method", "Tax Form", "Billing Contact Change", "Other")
ONBOARDING_REASONS = ("Installation", "Data Migration", "User Training", "Account Setup", "Complex Functionality", "Other")

TYPES: tuple[TypeDef, ...] = (
    TypeDef("opportunity", "New Business", "New_Business",
            "First sale to an account that isn't a customer yet: the full sales process, from prospecting to close.",
            tuple(P.STAGE_NAMES), is_default=True),
    TypeDef("opportunity", "Renewal", "Renewal",
            "Renewing a customer's subscription or support contract at the end of its term. Starts at qualification; no discovery stages.",
            RENEWAL_STAGES),
    TypeDef("opportunity", "Upsell", "Upsell",
            "More seats, products or services for an existing customer, sold by the account's owner.",
            UPSELL_STAGES),
    TypeDef("case", "Technical Support", "Technical_Support",
            "Problems, how-to questions and feature requests about our products.", SUPPORT_REASONS, is_default=True),
    TypeDef("case", "Billing", "Billing",
            "Invoices, charges, refunds, tax forms and billing contacts, handled with Finance.", BILLING_REASONS),
    TypeDef("case", "Onboarding", "Onboarding",
            "A new customer's setup, data migration and admin training in their first 90 days.", ONBOARDING_REASONS),
)
BY_DEV = {(t.object_type, t.developer_name): t for t in TYPES}
NAMES = {o: tuple(t.name for t in TYPES if t.object_type == o) for o in RECORD_TYPE_OBJECTS}
assert all(set(t.values) <= set(P.STAGE_NAMES if t.object_type == "opportunity" else P.CASE_REASONS) for t in TYPES)


def restricted_message(label: str, value: str) -> str:
    """Salesforce's error for a value the record type doesn't include."""
    return f"{label}: bad value for restricted picklist field: {value}"


def available(session: Session, object_type: str) -> list[RecordType]:
    """The active record types of an object a user may pick, default first then by name."""
    rows = session.exec(select(RecordType).where(RecordType.object_type == object_type, RecordType.active == True)).all()  # noqa: E712
    return sorted(rows, key=lambda r: (not r.is_default, r.name))


def default_type(session: Session, object_type: str) -> RecordType | None:
    rows = available(session, object_type)
    return rows[0] if rows else None


def get(session: Session, record_type_id: Any) -> RecordType | None:
    try:
        return session.get(RecordType, int(record_type_id)) if record_type_id not in (None, "") else None
    except (TypeError, ValueError):
        return None


def values_for(rt: RecordType | None, object_type: str) -> tuple[str, ...] | None:
    """The restricted picklist's values a record of ``rt`` may take (None: no restriction)."""
    if rt is None:
        return None
    td = BY_DEV.get((object_type, rt.developer_name))
    return td.values if td else None


def check(session: Session, object_type: str, cleaned: dict[str, Any], current: dict[str, Any], errors: dict[str, str], *, is_new: bool) -> None:
    """Refuse a record type of another object or an inactive one, and a stage/reason the record's type
    doesn't allow when that value or the type changes (``cleaned`` the values given, ``current`` the record's)."""
    if object_type not in RECORD_TYPE_OBJECTS:
        return
    rt_changed = "record_type_id" in cleaned and cleaned["record_type_id"] != current.get("record_type_id")
    rt = None
    if "record_type_id" in cleaned and cleaned["record_type_id"] is not None:
        rt = get(session, cleaned["record_type_id"])
        if rt is None or rt.object_type != object_type:
            errors["record_type_id"] = f"Record Type ID: this ID value isn't valid for the user: {cleaned['record_type_id']}"
            return
        if rt_changed and not rt.active:
            errors["record_type_id"] = f"The record type {rt.name} is inactive. Choose an active record type."
            return
    elif current.get("record_type_id"):
        rt = get(session, current["record_type_id"])
    elif is_new and "record_type_id" not in cleaned:  # a new record without a type gets the object's default
        rt = default_type(session, object_type)
        if rt is not None:
            cleaned["record_type_id"] = rt.id
    field, label = RESTRICTED_FIELD[object_type]
    value_changed = is_new or (field in cleaned and cleaned[field] != current.get(field))
    if not (rt_changed or value_changed):
        return
    from .validation import DEFAULTS

    value = cleaned.get(field, current.get(field, DEFAULTS.get(object_type, {}).get(field) if is_new else None))
    allowed = values_for(rt, object_type)
    if value and allowed is not None and value not in allowed and field not in errors:
        errors[field] = restricted_message(label, value)


# -- the world ------------------------------------------------------------------------------------------------
def opportunity_type_of(opp: Opportunity) -> str:
    """The record type an opportunity seeded before record types existed gets: renewals by their name,
    existing-business deals as upsells, the rest new business."""
    if "Renewal" in (opp.name or ""):
        return "Renewal"
    if (opp.type or "").startswith("Existing Business"):
        return "Upsell"
    return "New_Business"


def case_type_of(case: Case) -> str:
    """A seeded case's record type: billing cases by their type, setup questions as onboarding, the rest support."""
    if case.type == "Billing":
        return "Billing"
    if case.type == "Question" and case.reason in ("Installation", "User Training"):
        return "Onboarding"
    return "Technical_Support"


def seed_record_types(session: Session) -> None:
    """The org's record types, and a type for every opportunity and case by the rules above (no random
    draw: the rest of the world is what it was)."""
    if session.exec(select(RecordType)).first() is not None:
        return
    rows = [RecordType(id=i + 1, object_type=t.object_type, name=t.name, developer_name=t.developer_name, description=t.description,
                       active=True, is_default=t.is_default) for i, t in enumerate(TYPES)]
    session.add_all(rows)
    session.flush()
    ids = {r.developer_name: r.id for r in rows}
    # One UPDATE per object (the same rules as opportunity_type_of and case_type_of): no ORM events, no history rows.
    session.execute(text(
        "UPDATE crm_opportunity SET record_type_id = CASE WHEN instr(name, 'Renewal') > 0 THEN :renewal "
        "WHEN type LIKE 'Existing Business%' THEN :upsell ELSE :new END"),
        {"renewal": ids["Renewal"], "upsell": ids["Upsell"], "new": ids["New_Business"]})
    session.execute(text(
        "UPDATE crm_case SET record_type_id = CASE WHEN type = 'Billing' THEN :billing "
        "WHEN type = 'Question' AND reason IN ('Installation', 'User Training') THEN :onboarding ELSE :support END"),
        {"billing": ids["Billing"], "onboarding": ids["Onboarding"], "support": ids["Technical_Support"]})
    session.flush()


def names_by_id(session: Session) -> dict[int, str]:
    return {r.id: r.name for r in session.exec(select(RecordType)).all()}
