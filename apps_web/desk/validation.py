"""The incident form's rules, shared by the form and the JSON API: mandatory fields that change with
the state, dependent subcategories, references that must exist, an assignee who belongs to the group.

Input uses ServiceNow's field names (caller_id, cmdb_ci, assignment_group...); references are ids.
Nothing is saved when any rule fails: the caller gets one message per field.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from ..identity.models import User
from ..world import WorldClock
from . import choices as C
from . import slas
from .models import ConfigItem, Group, GroupMember, Incident, Journal, Problem

# form/API name -> (model attribute, label)
FIELDS: dict[str, tuple[str, str]] = {
    "caller_id": ("caller_id", "Caller"),
    "category": ("category", "Category"),
    "subcategory": ("subcategory", "Subcategory"),
    "cmdb_ci": ("ci_id", "Configuration item"),
    "contact_type": ("channel", "Channel"),
    "state": ("state", "State"),
    "hold_reason": ("on_hold_reason", "On hold reason"),
    "impact": ("impact", "Impact"),
    "urgency": ("urgency", "Urgency"),
    "assignment_group": ("assignment_group_id", "Assignment group"),
    "assigned_to": ("assigned_to_id", "Assigned to"),
    "company": ("account_id", "Customer account"),
    "short_description": ("short_description", "Short description"),
    "description": ("description", "Description"),
    "close_code": ("close_code", "Resolution code"),
    "close_notes": ("close_notes", "Resolution notes"),
    "problem_id": ("problem_id", "Problem"),
}
JOURNAL_FIELDS = {"work_notes": "Work notes", "comments": "Additional comments"}
REFERENCES = {"caller_id": User, "cmdb_ci": ConfigItem, "assignment_group": Group, "problem_id": Problem}


def _account_model():
    try:
        from ..crm.models import Account
    except ImportError:  # pragma: no cover
        return None
    return Account


def mandatory(state: str) -> list[str]:
    """Fields that must be filled in for a record in ``state`` (the form marks them with *)."""
    names = ["caller_id", "short_description"]
    if state == "On Hold":
        names.append("hold_reason")
    if state in C.DONE_STATES:
        names += ["close_code", "close_notes"]
    return names


def current_values(inc: Incident | None) -> dict[str, Any]:
    if inc is None:
        return {**{name: None for name in FIELDS}, "state": "New", "impact": 3, "urgency": 3}
    return {name: getattr(inc, attr) for name, (attr, _label) in FIELDS.items()}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).replace("\r\n", "\n").strip()  # browsers send textarea lines with CRLF
    return text or None


def validate(session: Session, data: dict[str, Any], inc: Incident | None) -> tuple[dict[str, Any], dict[str, str]]:
    """Merge ``data`` (only the fields given) over the incident's values, check every rule.

    Returns the merged values (form names) and errors (form name -> message; "__all__" for the top).
    """
    values = current_values(inc)
    errors: dict[str, str] = {}
    for name, raw in data.items():
        if name not in FIELDS:
            continue
        values[name] = _text(raw) if not isinstance(raw, int) or isinstance(raw, bool) else raw
    if inc is not None and inc.state in C.READ_ONLY_STATES and any(n in data for n in FIELDS):
        return values, {"__all__": f"This incident is {inc.state.lower()} and can no longer be changed."}
    # Numbers and choices.
    for name, allowed in (("impact", C.IMPACT), ("urgency", C.URGENCY)):
        v = values.get(name)
        try:
            values[name] = int(v) if v is not None else 3
            if values[name] not in allowed:
                raise ValueError
        except (TypeError, ValueError):
            errors[name] = f"Choose one of {', '.join(allowed.values())}."
    checks = (("state", C.INCIDENT_STATES), ("contact_type", C.CHANNELS), ("hold_reason", C.HOLD_REASONS), ("close_code", C.CLOSE_CODES), ("category", list(C.CATEGORIES)))
    for name, allowed in checks:
        v = values.get(name)
        if v is not None and v not in allowed:
            errors[name] = f"'{v}' is not a valid {FIELDS[name][1].lower()}: choose one of {', '.join(allowed)}."
    if values.get("state") is None:
        errors["state"] = "State is mandatory."
    sub = values.get("subcategory")
    cat = values.get("category")
    if sub is not None and "category" not in errors:
        if cat is None:
            errors["subcategory"] = "Choose a category first: the subcategories depend on it."
        elif sub not in C.CATEGORIES[cat]:
            errors["subcategory"] = f"'{sub}' is not a subcategory of {cat} (choose one of {', '.join(C.CATEGORIES[cat])})."
    # References.
    refs = dict(REFERENCES)
    refs["assigned_to"] = User
    account = _account_model()
    if account is not None:
        refs["company"] = account
    found: dict[str, Any] = {}
    for name, model in refs.items():
        v = values.get(name)
        if v is None:
            continue
        try:
            rec = session.get(model, int(v))
        except (TypeError, ValueError):
            rec = None
        if rec is None:
            errors[name] = f"Invalid reference: no {FIELDS[name][1].lower()} with id {v!r}. Pick one from the suggestions."
        else:
            values[name] = rec.id
            found[name] = rec
    if "assigned_to" in found and "assignment_group" in found:
        member = session.exec(select(GroupMember).where(GroupMember.group_id == found["assignment_group"].id, GroupMember.user_id == found["assigned_to"].id)).first()
        if member is None:
            errors["assigned_to"] = f"{found['assigned_to'].name} is not a member of {found['assignment_group'].name}: choose a member of the assignment group."
    if values.get("short_description") and len(values["short_description"]) > 160:
        errors["short_description"] = "Keep the short description to 160 characters; put the details in Description."
    missing = [n for n in mandatory(values.get("state") or "New") if values.get(n) in (None, "")]
    for n in missing:
        errors.setdefault(n, f"{FIELDS[n][1]} is mandatory.")
    if missing:
        errors["__all__"] = "The following mandatory fields are not filled in: " + ", ".join(FIELDS[n][1] for n in missing)
    return values, errors


def next_number(session: Session) -> str:
    top = session.exec(select(Incident.number).order_by(Incident.number.desc()).limit(1)).first()
    n = int(top[3:]) + 1 if top else 10001
    return f"INC{n:07d}"


def apply(session: Session, inc: Incident | None, values: dict[str, Any], journal: dict[str, str], user: User, clock: WorldClock) -> Incident:
    """Save validated values (and journal entries) on a new or existing incident."""
    now = clock.now
    snapshot = None if inc is None else {"state": inc.state, "priority": inc.priority}
    if inc is None:
        inc = Incident(number=next_number(session), opened_at=now, opened_by_id=user.id, created_at=now)
    before = inc.state
    for name, (attr, _label) in FIELDS.items():
        if name in values:
            # text columns that are never NULL keep an emptied field as ""
            setattr(inc, attr, "" if values[name] is None and attr in ("short_description", "description") else values[name])
    inc.priority = C.priority_of(inc.impact, inc.urgency)
    if inc.state != "On Hold":
        inc.on_hold_reason = None
    if inc.state in C.DONE_STATES and before not in C.DONE_STATES:
        inc.resolved_at, inc.resolved_by_id = now, user.id
    if inc.state in C.OPEN_STATES and before in C.DONE_STATES:  # reopened
        inc.resolved_at = inc.resolved_by_id = None
    if inc.state in C.READ_ONLY_STATES and before not in C.READ_ONLY_STATES:
        inc.closed_at = now
    inc.updated_at = now
    session.add(inc)
    session.flush()
    slas.sync(session, inc, snapshot, now)
    for kind, body in journal.items():
        if body and body.strip():
            session.add(Journal(table_name="incident", record_id=inc.id, kind=kind, author_id=user.id, created_at=now, body=body.replace("\r\n", "\n").strip()))
    return inc
