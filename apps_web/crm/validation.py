"""Field rules of the CRM objects, shared by the UI forms and the JSON API.

``validate(object_key, data, session)`` turns raw values (form strings or JSON values) into typed
values for the model and collects one message per bad field, as Salesforce shows them under each
input. It never writes. ``derive`` computes the values a save sets by itself (probability from the
stage, a case's closed time...). Both are pure apart from reading lookups from the session.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from annotated_types import MaxLen
from sqlalchemy import select
from sqlmodel import Session

from ..identity.models import User
from . import picklists as P
from .models import Account, Activity, Campaign, Case, Contact, Lead, Note, Opportunity, RecordType, Territory

REQUIRED = "Complete this field."
LOSS_REASON_REQUIRED = "Select a Loss Reason before you mark this opportunity Closed Lost."
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
FORECAST_CATEGORIES = ["Pipeline", "Best Case", "Commit", "Closed", "Omitted"]
LOOKUP_MODELS: dict[str, type] = {
    "account": Account, "contact": Contact, "lead": Lead, "opportunity": Opportunity, "case": Case, "user": User, "territory": Territory, "campaign": Campaign,
    "record_type": RecordType,
}
MODELS: dict[str, type] = {
    "account": Account, "contact": Contact, "lead": Lead, "opportunity": Opportunity, "case": Case, "activity": Activity, "note": Note,
}


@dataclass(frozen=True)
class Rule:
    kind: str = "text"  # text email int float date datetime picklist lookup
    required: bool = False
    choices: tuple[str, ...] = ()
    lookup: str | None = None  # object key of a lookup (or "user")
    min: float | None = None
    max: float | None = None


def _r(kind: str = "text", *, choices: list[str] | tuple[str, ...] = (), **kw: Any) -> Rule:
    return Rule(kind, choices=tuple(choices), **kw)


OWNER = _r("lookup", lookup="user")

# Writable fields per object. Bookkeeping (id, created_*, updated_at), auto numbers and derived
# timestamps (closed_at, completed_at, converted_*) are set by the server, never by the client.
RULES: dict[str, dict[str, Rule]] = {
    "account": {
        "name": _r(required=True), "type": _r("picklist", choices=P.ACCOUNT_TYPES),
        "industry": _r("picklist", choices=P.INDUSTRIES), "rating": _r("picklist", choices=P.RATINGS),
        "annual_revenue": _r("float", min=0), "employees": _r("int", min=0), "phone": _r(), "website": _r(),
        "billing_street": _r(), "billing_city": _r(), "billing_state": _r(), "billing_postal_code": _r(),
        "billing_country": _r(), "shipping_street": _r(), "shipping_city": _r(), "shipping_state": _r(), "shipping_postal_code": _r(),
        "shipping_country": _r(), "description": _r(), "owner_id": OWNER, "parent_id": _r("lookup", lookup="account"),
        "territory_id": _r("lookup", lookup="territory"),
    },
    "contact": {
        "salutation": _r("picklist", choices=P.SALUTATIONS), "first_name": _r(), "last_name": _r(required=True),
        "title": _r(), "department": _r(), "email": _r("email"), "phone": _r(), "mobile": _r(),
        "account_id": _r("lookup", lookup="account"), "reports_to_id": _r("lookup", lookup="contact"),
        "lead_source": _r("picklist", choices=P.LEAD_SOURCES), "mailing_city": _r(), "mailing_state": _r(),
        "mailing_country": _r(), "description": _r(), "owner_id": OWNER,
    },
    "lead": {
        "salutation": _r("picklist", choices=P.SALUTATIONS), "first_name": _r(), "last_name": _r(required=True),
        "company": _r(required=True), "title": _r(), "status": _r("picklist", choices=P.LEAD_STATUSES, required=True),
        "source": _r("picklist", choices=P.LEAD_SOURCES), "rating": _r("picklist", choices=P.RATINGS),
        "industry": _r("picklist", choices=P.INDUSTRIES), "email": _r("email"), "phone": _r(),
        "annual_revenue": _r("float", min=0), "employees": _r("int", min=0), "city": _r(), "state": _r(),
        "country": _r(), "description": _r(), "owner_id": OWNER,
    },
    "opportunity": {
        "name": _r(required=True), "account_id": _r("lookup", lookup="account"), "amount": _r("float", min=0),
        "stage": _r("picklist", choices=P.STAGE_NAMES, required=True), "probability": _r("int", min=0, max=100),
        "close_date": _r("date", required=True), "type": _r("picklist", choices=P.OPPORTUNITY_TYPES),
        "lead_source": _r("picklist", choices=P.LEAD_SOURCES), "next_step": _r(),
        "forecast_category": _r("picklist", choices=FORECAST_CATEGORIES), "description": _r(), "owner_id": OWNER,
        "loss_reason": _r("picklist", choices=P.LOSS_REASONS), "main_competitors": _r(),
        "campaign_id": _r("lookup", lookup="campaign"), "record_type_id": _r("lookup", lookup="record_type"),
    },
    "case": {
        "subject": _r(required=True), "status": _r("picklist", choices=P.CASE_STATUSES, required=True),
        "priority": _r("picklist", choices=P.CASE_PRIORITIES, required=True), "origin": _r("picklist", choices=P.CASE_ORIGINS),
        "type": _r("picklist", choices=P.CASE_TYPES), "reason": _r("picklist", choices=P.CASE_REASONS),
        "account_id": _r("lookup", lookup="account"), "contact_id": _r("lookup", lookup="contact"),
        "description": _r(), "owner_id": OWNER, "record_type_id": _r("lookup", lookup="record_type"),
    },
    "activity": {
        "kind": _r("picklist", choices=P.ACTIVITY_KINDS, required=True), "subject": _r(required=True),
        "status": _r("picklist", choices=P.TASK_STATUSES), "priority": _r("picklist", choices=P.TASK_PRIORITIES),
        "due_date": _r("date"), "start_at": _r("datetime"), "end_at": _r("datetime"), "location": _r(),
        "call_duration_min": _r("int", min=0, max=24 * 60), "call_result": _r("picklist", choices=P.CALL_RESULTS),
        "description": _r(), "related_type": _r("picklist", choices=P.RELATED_TYPES), "related_id": _r("int", min=1),
        "contact_id": _r("lookup", lookup="contact"), "assignee_id": _r("lookup", lookup="user"),
    },
    "note": {
        "title": _r(required=True), "body": _r(), "related_type": _r("picklist", choices=P.RELATED_TYPES, required=True),
        "related_id": _r("int", required=True, min=1), "owner_id": OWNER,
    },
}
# Defaults a new record gets when the caller leaves the field out (the models' own defaults).
DEFAULTS: dict[str, dict[str, Any]] = {
    "lead": {"status": "Open - Not Contacted"},
    "opportunity": {"stage": "Prospecting"},
    "case": {"status": "New", "priority": "Medium"},
    "activity": {"kind": "task", "status": "Not Started", "priority": "Normal"},
}


def fields(object_key: str) -> list[str]:
    """The writable fields of an object, in declaration order."""
    return list(RULES[object_key])


def max_length(object_key: str, name: str) -> int | None:
    info = MODELS[object_key].model_fields.get(name)
    for meta in getattr(info, "metadata", ()):
        if isinstance(meta, MaxLen):
            return meta.max_length
    return None


# -- single values ---------------------------------------------------------------------------------------
class Invalid(ValueError):
    """A value that cannot be used; the message is shown to the user."""


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


MAX_INTEGER = 2**63 - 1  # SQLite's integers are 64-bit


def parse_number(value: Any, *, integer: bool) -> int | float:
    if isinstance(value, bool):
        raise Invalid("Enter a number.")
    if isinstance(value, (int, float)):
        number = value
    else:
        text = str(value).strip().replace(",", "").removeprefix("$").removesuffix("%").strip()
        try:
            number = float(text)
        except ValueError:
            raise Invalid("Enter a whole number." if integer else "Enter a number.") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise Invalid("Enter a number.")
    if integer:
        if float(number) != int(number):
            raise Invalid("Enter a whole number.")
        if abs(int(number)) > MAX_INTEGER:  # beyond what the database stores
            raise Invalid("Enter a smaller number.")
        return int(number)
    return float(number)


def parse_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    try:
        return date.fromisoformat(text)
    except ValueError:
        pass
    m = re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{4})", text)  # the US display format: 3/16/2026
    if m:
        try:
            return date(int(m[3]), int(m[1]), int(m[2]))
        except ValueError:
            pass
    raise Invalid("Enter a valid date (YYYY-MM-DD).")


def parse_datetime(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    text = str(value).strip()
    try:
        # The world has one wall clock: an offset, if any, is dropped rather than converted.
        return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        raise Invalid("Enter a valid date and time (YYYY-MM-DDTHH:MM).") from None


def parse_value(object_key: str, name: str, value: Any) -> Any:
    """One raw value to its typed form (``None`` for blank), or ``Invalid`` with a message.

    Lookups are parsed to ids but not checked for existence here (that needs the session).
    """
    rule = RULES[object_key][name]
    if _blank(value):
        return None
    if rule.kind in ("int", "lookup"):
        out: Any = parse_number(value, integer=True)
    elif rule.kind == "float":
        out = parse_number(value, integer=False)
    elif rule.kind == "date":
        out = parse_date(value)
    elif rule.kind == "datetime":
        out = parse_datetime(value)
    else:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise Invalid("Enter text.")
        out = str(value).strip()
        if rule.kind == "picklist" and out not in rule.choices:
            raise Invalid(f"'{out}' is not a valid value. Choose one of: {', '.join(rule.choices)}.")
        if rule.kind == "email" and not EMAIL_RE.match(out):
            raise Invalid("Enter a valid email address, such as name@example.com.")
        limit = max_length(object_key, name)
        if limit is not None and len(out) > limit:
            raise Invalid(f"Use {limit} characters or fewer (this has {len(out)}).")
    if rule.min is not None and out < rule.min:
        raise Invalid(f"Enter a value between {rule.min:g} and {rule.max:g}." if rule.max is not None else f"Enter a value of {rule.min:g} or more.")
    if rule.max is not None and out > rule.max:
        raise Invalid(f"Enter a value between {rule.min:g} and {rule.max:g}." if rule.min is not None else f"Enter a value of {rule.max:g} or less.")
    return out


# -- whole records ---------------------------------------------------------------------------------------
def validate(
    object_key: str,
    data: dict[str, Any],
    session: Session,
    *,
    partial: bool = False,
    record_id: int | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """Check ``data`` for ``object_key``: returns (cleaned values, {field: message}).

    ``partial`` (an update such as PATCH): only the given fields are checked, and a required field
    may be left out but not blanked. Otherwise (a create or a full form) every required field must
    have a value. Keys that are not writable fields are ignored (callers that must reject them can
    compare against ``fields(object_key)``). ``record_id`` is the record being edited, for rules that
    look at it (an account cannot be its own parent; a converted lead cannot be edited).
    """
    if object_key not in RULES:
        raise KeyError(f"unknown CRM object {object_key!r}")
    rules = RULES[object_key]
    cleaned: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, rule in rules.items():
        if name not in data:
            if rule.required and not partial and DEFAULTS.get(object_key, {}).get(name) is None:
                errors[name] = REQUIRED
            continue
        try:
            value = parse_value(object_key, name, data[name])
        except Invalid as exc:
            errors[name] = str(exc)
            continue
        if value is None and rule.required:
            errors[name] = REQUIRED
            continue
        cleaned[name] = value
    _check_lookups(object_key, cleaned, errors, session)
    current = _current(object_key, record_id, session)
    merged = {**DEFAULTS.get(object_key, {}), **current, **cleaned}
    _CROSS_CHECKS.get(object_key, lambda *a: None)(merged, cleaned, errors, session, record_id, current)
    if object_key in ("opportunity", "case"):  # the record type's picklist values (recordtypes.py)
        from .recordtypes import check as check_record_type

        check_record_type(session, object_key, cleaned, current, errors, is_new=record_id is None)
    if not errors:  # the org's validation rules run after the field checks, on the record as it would be saved
        from .rules import RULE_OBJECTS, errors_of, failures

        if object_key in RULE_OBJECTS:
            after = {**merged}
            if object_key == "opportunity" and "stage" in cleaned and "probability" not in cleaned and cleaned["stage"] != current.get("stage"):
                after["probability"] = P.STAGE_PROBABILITY[cleaned["stage"]]
            errors.update(errors_of(failures(session, object_key, after, current, is_new=record_id is None)))
    return cleaned, errors


def _check_lookups(object_key: str, cleaned: dict[str, Any], errors: dict[str, str], session: Session) -> None:
    for name, rule in RULES[object_key].items():
        if rule.kind != "lookup" or cleaned.get(name) is None or name in errors:
            continue
        model = LOOKUP_MODELS[rule.lookup]
        record = session.get(model, cleaned[name])
        if record is None:
            errors[name] = f"Select an existing {'user' if rule.lookup == 'user' else rule.lookup}: id {cleaned[name]} doesn't exist."
        elif rule.lookup == "user" and not record.active:
            errors[name] = "Select an active user."


def _current(object_key: str, record_id: int | None, session: Session) -> dict[str, Any]:
    if record_id is None:
        return {}
    record = session.get(MODELS[object_key], record_id)
    return {} if record is None else {name: getattr(record, name) for name in [*RULES[object_key], "status"] if hasattr(record, name)}


def _no_cycle(session: Session, model: type, column: str, record_id: int | None, target: int | None) -> bool:
    """Following ``column`` up from ``target`` never reaches ``record_id`` (no loop in a hierarchy)."""
    if record_id is None or target is None:
        return True
    seen: list[int] = []
    while target is not None and target not in seen:
        if target == record_id:
            return False
        seen.append(target)
        target = session.execute(select(getattr(model, column)).where(model.id == target)).scalar()
    return True


def _account_checks(merged, cleaned, errors, session, record_id, current) -> None:
    if "parent_id" in cleaned and not _no_cycle(session, Account, "parent_id", record_id, cleaned["parent_id"]):
        errors["parent_id"] = "An account can't be its own parent, directly or through its child accounts."


def _contact_checks(merged, cleaned, errors, session, record_id, current) -> None:
    if "reports_to_id" in cleaned and not _no_cycle(session, Contact, "reports_to_id", record_id, cleaned["reports_to_id"]):
        errors["reports_to_id"] = "A contact can't report to themselves, directly or through their reports."


def _lead_checks(merged, cleaned, errors, session, record_id, current) -> None:
    if current.get("status") == P.LEAD_CONVERTED:
        errors["__all__"] = "This lead has been converted and can't be edited."
    elif cleaned.get("status") == P.LEAD_CONVERTED:
        errors["status"] = "Use Convert to convert a lead: its status can't be set to Closed - Converted directly."


def _opportunity_checks(merged, cleaned, errors, session, record_id, current) -> None:
    # The probability default comes from ``derive``; these are the org's rules beyond the field rules.
    if record_id and "amount" in cleaned and cleaned["amount"] != current.get("amount"):
        from .products import AMOUNT_LOCKED, line_count

        if line_count(session, record_id):
            errors["amount"] = AMOUNT_LOCKED
    if merged.get("stage") == "Closed Lost" and not merged.get("loss_reason") and ("stage" in cleaned or "loss_reason" in cleaned):
        errors["loss_reason"] = LOSS_REASON_REQUIRED


def _related_checks(merged, cleaned, errors, session, record_id, current) -> None:
    rtype, rid = merged.get("related_type"), merged.get("related_id")
    if "related_type" in errors or "related_id" in errors:
        return
    if (rtype is None) != (rid is None):
        errors["related_id" if rid is None else "related_type"] = "Give both the related record's type and its id, or neither."
    elif rtype is not None and ("related_type" in cleaned or "related_id" in cleaned):
        if session.get(LOOKUP_MODELS[rtype], rid) is None:
            errors["related_id"] = f"Select an existing {rtype}: id {rid} doesn't exist."


def _activity_checks(merged, cleaned, errors, session, record_id, current) -> None:
    _related_checks(merged, cleaned, errors, session, record_id, current)
    if merged.get("kind") == "meeting":
        for name in ("start_at", "end_at"):
            if merged.get(name) is None and name not in errors:
                errors[name] = REQUIRED
        start, end = merged.get("start_at"), merged.get("end_at")
        if start and end and end < start and "end_at" not in errors:
            errors["end_at"] = "The end must be after the start."


_CROSS_CHECKS = {
    "account": _account_checks,
    "contact": _contact_checks,
    "lead": _lead_checks,
    "opportunity": _opportunity_checks,
    "activity": _activity_checks,
    "note": _related_checks,
}


# -- values a save sets by itself ---------------------------------------------------------------------------
def derive(object_key: str, cleaned: dict[str, Any], record: Any, now: datetime) -> dict[str, Any]:
    """Values the server sets alongside ``cleaned`` (``record`` is None for a create).

    Opportunity: a stage change sets the probability (unless one is given) and the forecast
    category. Case: closing stamps closed_at, reopening clears it. Activity: completing stamps
    completed_at, reopening clears it; an event's date follows its start.
    """
    out: dict[str, Any] = {}
    if object_key == "opportunity":
        stage = cleaned.get("stage") or (getattr(record, "stage", None) if record is not None else DEFAULTS["opportunity"]["stage"])
        stage_changed = record is None or ("stage" in cleaned and cleaned["stage"] != record.stage)
        if stage_changed and cleaned.get("probability") is None:
            out["probability"] = P.STAGE_PROBABILITY[stage]
        if stage_changed and "forecast_category" not in cleaned:
            out["forecast_category"] = P.STAGE_FORECAST[stage]
    elif object_key in ("case", "activity"):
        done, stamp_field = ("Closed", "closed_at") if object_key == "case" else ("Completed", "completed_at")
        default = DEFAULTS[object_key]["status"]
        status = cleaned.get("status") or (getattr(record, "status", None) if record is not None else default)
        if status == done and (record is None or getattr(record, stamp_field) is None):
            out[stamp_field] = now
        elif status != done and record is not None and getattr(record, stamp_field) is not None:
            out[stamp_field] = None
        if object_key == "activity" and cleaned.get("start_at") and "due_date" not in cleaned:
            if (cleaned.get("kind") or getattr(record, "kind", None)) == "meeting":
                out["due_date"] = cleaned["start_at"].date()  # lists and reports date an event by its day
    return out


__all__ = [
    "DEFAULTS", "FORECAST_CATEGORIES", "Invalid", "REQUIRED", "RULES", "Rule",
    "derive", "fields", "max_length", "parse_date", "parse_datetime", "parse_number", "parse_value", "validate",
]
