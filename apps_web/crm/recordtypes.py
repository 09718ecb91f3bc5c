"""Record types of opportunities and cases (Salesforce's RecordType with its sales and support processes).

A record type decides which picklist values a record may take: a Renewal runs a shorter sales process
(its own stage subset), a Billing case has its own case reasons. The rows live in ``crm_record_type``
(what Setup shows), the values each type makes available in ``crm_record_type_value`` (seeded from the
org's configuration below, edited in Setup), and which types each profile may use, with its default, in
``crm_record_type_assignment`` (Profile > Record Type Settings).
The server refuses a value the record's type doesn't allow with the product's restricted-picklist message,
but only when the value or the type changes: a record keeps a value its type dropped, as in Salesforce.
It refuses a type the user's profile isn't assigned when a record gets it (new, or Change Record Type);
a record that already has such a type stays readable and editable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from sqlalchemy import text
from sqlalchemy.orm import object_session
from sqlmodel import Session, select

from . import picklists as P
from .models import Case, Opportunity, RecordType, RecordTypeAssignment, RecordTypeValue

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
# The default value of each type's restricted picklist (what a new record of the type starts at).
DEFAULT_VALUES = {("opportunity", "New_Business"): "Prospecting", ("opportunity", "Renewal"): "Qualification",
                  ("opportunity", "Upsell"): "Qualification"}

# Profile > Record Type Settings: per profile and object, the types it may use and its default.
# As real orgs set it up: sales runs every sales process and opens support and onboarding cases for its
# customers (billing goes through Finance); service handles every kind of case and passes expansion
# interest to sales as an Upsell; Finance books renewals and owns billing cases; marketing and IT create
# new-business deals and support cases only. The administrator has everything.
OPP_ALL = ("New_Business", "Renewal", "Upsell")
CASE_ALL = ("Technical_Support", "Billing", "Onboarding")
PROFILE_TYPES: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    "admin": {"opportunity": (OPP_ALL, "New_Business"), "case": (CASE_ALL, "Technical_Support")},
    "sales_manager": {"opportunity": (OPP_ALL, "New_Business"), "case": (("Technical_Support", "Onboarding"), "Technical_Support")},
    "sales_rep": {"opportunity": (OPP_ALL, "New_Business"), "case": (("Technical_Support", "Onboarding"), "Technical_Support")},
    "support_manager": {"opportunity": (("Upsell",), "Upsell"), "case": (CASE_ALL, "Technical_Support")},
    "support_agent": {"opportunity": (("Upsell",), "Upsell"), "case": (CASE_ALL, "Technical_Support")},
    "finance": {"opportunity": (("Renewal",), "Renewal"), "case": (("Billing",), "Billing")},
    "marketing": {"opportunity": (("New_Business",), "New_Business"), "case": (("Technical_Support",), "Technical_Support")},
    "it": {"opportunity": (("New_Business",), "New_Business"), "case": (("Technical_Support",), "Technical_Support")},
}
assert all(set(t.values) <= set(P.STAGE_NAMES if t.object_type == "opportunity" else P.CASE_REASONS) for t in TYPES)


def restricted_message(label: str, value: str) -> str:
    """Salesforce's error for a value the record type doesn't include."""
    return f"{label}: bad value for restricted picklist field: {value}"


def _all(session: Session) -> list[RecordType]:
    """Every record type, by id (one query per request for every object's: a record page builds several forms)."""
    rows = session.info.get("rt_types")
    if rows is None:
        rows = session.info["rt_types"] = list(session.exec(select(RecordType).order_by(RecordType.id)).all())
    return rows


def available(session: Session, object_type: str) -> list[RecordType]:
    """The active record types of an object, the org's default first then by name."""
    return sorted((r for r in _all(session) if r.object_type == object_type and r.active), key=lambda r: (not r.is_default, r.name))


def names(session: Session, object_type: str) -> tuple[str, ...]:
    """The names of an object's record types as list view filters, the report builder and reports offer and
    order them: every type Setup has, in the order they were created, the inactive ones too (a record keeps
    an inactive type, and Salesforce's filters still find it by it)."""
    return tuple(r.name for r in _all(session) if r.object_type == object_type)


def options(object_type: str) -> Callable[[Session], tuple[str, ...]]:
    """A field's ``source`` (``listing.ListField``, ``reports.GroupBy``): the object's record type names, read at request time."""
    return lambda session: names(session, object_type)


def _assignments(session: Session) -> dict[str, dict[int, bool]]:
    """profile -> {record type id: is its default}, once per request."""
    cache = session.info.get("rt_assignments")
    if cache is None:
        cache = session.info["rt_assignments"] = {}
        for a in session.exec(select(RecordTypeAssignment).order_by(RecordTypeAssignment.id)).all():
            cache.setdefault(a.profile, {})[a.record_type_id] = a.is_default
    return cache


def _profile(user: Any) -> str | None:
    if user is None:
        return None
    role = getattr(user, "role", None)
    return getattr(role, "value", role)


def assigned(session: Session, object_type: str, user: Any) -> list[RecordType]:
    """The active types ``user``'s profile may use for ``object_type``, its default first then by name
    (every active type outside a request: seeding and verifiers aren't bound by a profile)."""
    rows = available(session, object_type)
    profile = _profile(user)
    if profile is None:
        return rows
    mine = _assignments(session).get(profile, {})
    return sorted((r for r in rows if r.id in mine), key=lambda r: (not mine[r.id], r.name))


def is_assigned(session: Session, rt: RecordType, user: Any) -> bool:
    profile = _profile(user)
    return profile is None or rt.id in _assignments(session).get(profile, {})


def default_type(session: Session, object_type: str, user: Any = None) -> RecordType | None:
    """The profile's default record type (the org's without a user)."""
    rows = assigned(session, object_type, user) if user is not None else available(session, object_type)
    return rows[0] if rows else None


def get(session: Session, record_type_id: Any) -> RecordType | None:
    try:
        return session.get(RecordType, int(record_type_id)) if record_type_id not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _values(session: Session) -> dict[int, list[RecordTypeValue]]:
    cache = session.info.get("rt_values")
    if cache is None:
        cache = session.info["rt_values"] = {}
        for v in session.exec(select(RecordTypeValue).order_by(RecordTypeValue.record_type_id, RecordTypeValue.sort_order, RecordTypeValue.id)).all():
            cache.setdefault(v.record_type_id, []).append(v)
    return cache


def values_for(rt: RecordType | None, object_type: str) -> tuple[str, ...] | None:
    """The restricted picklist's values a record of ``rt`` may take (None: no restriction), as Setup has them."""
    if rt is None:
        return None
    session = object_session(rt)
    if session is not None:
        rows = _values(session).get(rt.id)
        if rows is not None:
            return tuple(v.value for v in rows)
    td = BY_DEV.get((object_type, rt.developer_name))
    return td.values if td else None


def default_value(rt: RecordType | None) -> str | None:
    """The value a new record of ``rt`` starts with in its restricted picklist (Setup's Default)."""
    session = object_session(rt) if rt is not None else None
    if session is None:
        return None
    return next((v.value for v in _values(session).get(rt.id, []) if v.is_default), None)


def not_valid_message(record_type_id: Any) -> str:
    """Salesforce's error for a record type the user may not use (another object's, or not assigned to the profile)."""
    return f"Record Type ID: this ID value isn't valid for the user: {record_type_id}"


def check(session: Session, object_type: str, cleaned: dict[str, Any], current: dict[str, Any], errors: dict[str, str], *, is_new: bool) -> None:
    """Refuse a record type of another object, an inactive one or one the user's profile isn't assigned
    (when a record gets it), and a stage/reason the record's type doesn't allow when that value or the
    type changes (``cleaned`` the values given, ``current`` the record's)."""
    if object_type not in RECORD_TYPE_OBJECTS:
        return
    from .sharing import viewer

    user = viewer(session)
    rt_changed = "record_type_id" in cleaned and cleaned["record_type_id"] != current.get("record_type_id")
    rt = None
    if "record_type_id" in cleaned and cleaned["record_type_id"] is not None:
        rt = get(session, cleaned["record_type_id"])
        if rt is None or rt.object_type != object_type:
            errors["record_type_id"] = not_valid_message(cleaned["record_type_id"])
            return
        if (rt_changed or is_new) and not rt.active:
            errors["record_type_id"] = f"The record type {rt.name} is inactive. Choose an active record type."
            return
        if (rt_changed or is_new) and not is_assigned(session, rt, user):
            errors["record_type_id"] = not_valid_message(rt.id)
            return
    elif current.get("record_type_id"):
        rt = get(session, current["record_type_id"])
    elif is_new and "record_type_id" not in cleaned:  # a new record without a type gets the profile's default
        rt = default_type(session, object_type, user)
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
    session.add_all(value_rows(rows))
    session.add_all(assignment_rows(ids))
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


def value_rows(types: list[RecordType]) -> list[RecordTypeValue]:
    """The picklist values each seeded type makes available, in the master picklist's order."""
    out = []
    for rt in types:
        td = BY_DEV[(rt.object_type, rt.developer_name)]
        field = RESTRICTED_FIELD[rt.object_type][0]
        default = DEFAULT_VALUES.get((rt.object_type, rt.developer_name))
        out += [RecordTypeValue(record_type_id=rt.id, field=field, value=v, sort_order=master_values(rt.object_type).index(v),
                                is_default=v == default) for v in td.values]
    return out


def assignment_rows(ids: dict[str, int]) -> list[RecordTypeAssignment]:
    """Profile > Record Type Settings as PROFILE_TYPES has them, profile by profile."""
    out = []
    for profile, objects in PROFILE_TYPES.items():
        for object_type in RECORD_TYPE_OBJECTS:
            names, default = objects[object_type]
            out += [RecordTypeAssignment(profile=profile, record_type_id=ids[n], is_default=n == default) for n in names]
    return out


def master_values(object_type: str) -> list[str]:
    """The object's full picklist (Salesforce's Master): every value a record type can make available."""
    return list(P.STAGE_NAMES if object_type == "opportunity" else P.CASE_REASONS)


def names_by_id(session: Session) -> dict[int, str]:
    return {r.id: r.name for r in session.exec(select(RecordType)).all()}
