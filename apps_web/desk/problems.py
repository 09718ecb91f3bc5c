"""Problem management: the problem form's rules, linking incidents, Mark Duplicate, and creating a
problem from an incident. Shared by the form and the JSON API."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from ..identity.models import User
from ..world import WorldClock
from . import choices as C
from .forms import F, assign, next_number, validate as validate_fields, values_of
from .models import Incident, Journal, Problem

FIELDS: dict[str, F] = {f.name: f for f in [
    F("short_description", "short_description", "Problem statement", max_len=160),
    F("description", "description", "Description"),
    F("category", "category", "Category", "choice", tuple(C.CATEGORIES)),
    F("cmdb_ci", "ci_id", "Configuration item", "reference", ref="cmdb_ci"),
    F("state", "state", "State", "choice", tuple(C.PROBLEM_STATES)),
    F("impact", "impact", "Impact", "number", tuple(C.IMPACT)),
    F("urgency", "urgency", "Urgency", "number", tuple(C.URGENCY)),
    F("assignment_group", "assignment_group_id", "Assignment group", "reference", ref="sys_user_group"),
    F("assigned_to", "assigned_to_id", "Assigned to", "reference", ref="sys_user"),
    F("workaround", "workaround", "Workaround"),
    F("cause_notes", "cause_notes", "Cause notes"),
    F("fix_notes", "fix_notes", "Fix notes"),
    F("resolution_code", "resolution_code", "Resolution code", "choice", tuple(C.PROBLEM_CODES)),
    F("duplicate_of", "duplicate_of_id", "Duplicate of", "reference", ref="problem"),
]}
DEFAULTS = {"state": "New", "impact": 3, "urgency": 3}
FIX_STATES = ("Fix in Progress", "Resolved", "Closed")


def mandatory_for(state: str, code: str | None = None) -> list[str]:
    """ServiceNow's problem UI policies: an assignee from Assess on, the cause before the fix, and a
    resolution code (with fix notes, or the original problem for a duplicate) to resolve or close."""
    names = ["short_description"]
    if state != "New":
        names += ["assignment_group", "assigned_to"]
    if state in FIX_STATES and code not in ("Duplicate", "Canceled"):
        names.append("cause_notes")
    if state in ("Resolved", "Closed"):
        names.append("resolution_code")
        if code == "Duplicate":
            names.append("duplicate_of")
        elif code == "Fix Applied":
            names.append("fix_notes")
    return names


def current_values(prb: Problem | None) -> dict[str, Any]:
    return values_of(FIELDS, prb, DEFAULTS)


def validate(session: Session, data: dict[str, Any], prb: Problem | None) -> tuple[dict[str, Any], dict[str, str]]:
    if prb is not None and prb.state == "Closed" and any(n in data for n in FIELDS):
        return current_values(prb), {"__all__": f"Problem {prb.number} is closed and can no longer be changed."}
    values, errors = validate_fields(session, FIELDS, data, current_values(prb), lambda v: mandatory_for(v.get("state") or "New", v.get("resolution_code")))
    dup = values.get("duplicate_of")
    if dup is not None and "duplicate_of" not in errors:
        err = duplicate_error(session, prb, dup)
        if err:
            errors["duplicate_of"] = err
    if values.get("resolution_code") == "Duplicate" and values.get("state") not in ("Resolved", "Closed") and "state" not in errors:
        errors["resolution_code"] = "A duplicate is closed: use Mark Duplicate, or set the state to Closed."
    return values, errors


def duplicate_error(session: Session, prb: Problem | None, target_id: int) -> str:
    target = session.get(Problem, target_id)
    if target is None:
        return "Choose the problem this one duplicates."
    if prb is not None and target.id == prb.id:
        return "A problem cannot be a duplicate of itself: choose the original problem."
    if target.resolution_code == "Duplicate" and target.duplicate_of_id is not None:
        original = session.get(Problem, target.duplicate_of_id)
        return f"{target.number} is itself a duplicate of {original.number if original else 'another problem'}: choose the original problem."
    return ""


def note(session: Session, table: str, record_id: int, user: User, now, body: str, kind: str = "work_notes") -> None:
    if body and body.strip():
        session.add(Journal(table_name=table, record_id=record_id, kind=kind, author_id=user.id, created_at=now, body=body.replace("\r\n", "\n").strip()))


def apply(session: Session, prb: Problem | None, values: dict[str, Any], work_notes: str, user: User, clock: WorldClock) -> Problem:
    now = clock.now
    if prb is None:
        prb = Problem(number=next_number(session, Problem, "PRB", 40001), opened_at=now, opened_by_id=user.id, created_at=now)
    before = prb.state
    assign(prb, FIELDS, values)
    prb.priority = C.priority_of(prb.impact, prb.urgency)
    if prb.resolution_code != "Duplicate":
        prb.duplicate_of_id = None
    if prb.state in ("Resolved", "Closed") and before not in ("Resolved", "Closed"):
        prb.resolved_at = now
    if prb.state == "Closed" and before != "Closed":
        prb.closed_at = now
    if prb.state in C.PROBLEM_OPEN:
        prb.resolved_at = prb.closed_at = None
    prb.updated_at = now
    session.add(prb)
    session.flush()
    note(session, "problem", prb.id, user, now, work_notes)
    return prb


def mark_duplicate(session: Session, prb: Problem, target_id: Any, user: User, clock: WorldClock) -> dict[str, str]:
    """Close ``prb`` as a duplicate of the chosen problem (ServiceNow's Mark Duplicate)."""
    if prb.state == "Closed":
        return {"__all__": f"Problem {prb.number} is already closed."}
    try:
        target = session.get(Problem, int(target_id))
    except (TypeError, ValueError):
        target = None
    if target is None:
        return {"duplicate_of": "Choose the problem this one duplicates."}
    err = duplicate_error(session, prb, target.id)
    if err:
        return {"duplicate_of": err}
    now = clock.now
    prb.state, prb.resolution_code, prb.duplicate_of_id = "Closed", "Duplicate", target.id
    prb.resolved_at = prb.resolved_at or now
    prb.closed_at = prb.updated_at = now
    session.add(prb)
    note(session, "problem", prb.id, user, now, f"Closed as a duplicate of {target.number}.")
    return {}


def link_incident(session: Session, prb: Problem, incident_id: Any, user: User, clock: WorldClock) -> tuple[Incident | None, dict[str, str]]:
    try:
        inc = session.get(Incident, int(incident_id))
    except (TypeError, ValueError):
        inc = None
    if inc is None:
        return None, {"incident": "Choose an incident to link from the suggestions."}
    if inc.problem_id == prb.id:
        return None, {"incident": f"{inc.number} is already linked to this problem."}
    if inc.state in C.READ_ONLY_STATES:
        return None, {"incident": f"{inc.number} is {inc.state.lower()} and can no longer be changed."}
    inc.problem_id, inc.updated_at = prb.id, clock.now
    session.add(inc)
    prb.updated_at = clock.now
    session.add(prb)
    return inc, {}


def unlink_incident(session: Session, prb: Problem, incident_id: Any, clock: WorldClock) -> tuple[Incident | None, dict[str, str]]:
    try:
        inc = session.get(Incident, int(incident_id))
    except (TypeError, ValueError):
        inc = None
    if inc is None or inc.problem_id != prb.id:
        return None, {"incident": "That incident is not linked to this problem."}
    if inc.state in C.READ_ONLY_STATES:
        return None, {"incident": f"{inc.number} is {inc.state.lower()} and can no longer be changed."}
    inc.problem_id, inc.updated_at = None, clock.now
    session.add(inc)
    return inc, {}


def from_incident(session: Session, inc: Incident, user: User, clock: WorldClock) -> Problem:
    """The incident's "Create Problem" UI action: a problem with the incident's details, linked to it."""
    now = clock.now
    prb = Problem(number=next_number(session, Problem, "PRB", 40001), opened_at=now, opened_by_id=user.id, created_at=now, updated_at=now,
                  state="New", category=inc.category, ci_id=inc.ci_id, impact=inc.impact, urgency=inc.urgency, priority=inc.priority,
                  assignment_group_id=inc.assignment_group_id, first_reported_by_id=inc.id,
                  short_description=inc.short_description, description=inc.description)
    session.add(prb)
    session.flush()
    inc.problem_id, inc.updated_at = prb.id, now
    session.add(inc)
    note(session, "incident", inc.id, user, now, f"Problem {prb.number} created from this incident.")
    return prb


def incidents_of(session: Session, prb: Problem) -> list[Incident]:
    return list(session.exec(select(Incident).where(Incident.problem_id == prb.id).order_by(Incident.number)).all())
