"""Change management: the change form's rules (mandatory planning from Assess on, planned dates in
order, no scheduling without CAB approval), Request Approval and the CAB's decision, and conflicts
(another open change on the same configuration item in an overlapping window). Shared by the form and
the JSON API."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_
from sqlmodel import Session, select

from ..identity.models import User
from ..world import WorldClock
from . import choices as C
from .forms import F, assign, next_number, validate as validate_fields, values_of
from .models import Approval, ChangeRequest, Group
from .problems import note

FIELDS: dict[str, F] = {f.name: f for f in [
    F("short_description", "short_description", "Short description", max_len=160),
    F("description", "description", "Description"),
    F("type", "type", "Type", "choice", tuple(C.CHANGE_TYPES)),
    F("state", "state", "State", "choice", tuple(C.CHANGE_STATES)),
    F("category", "category", "Category", "choice", tuple(C.CHANGE_CATEGORIES)),
    F("cmdb_ci", "ci_id", "Configuration item", "reference", ref="cmdb_ci"),
    F("risk", "risk", "Risk", "choice", tuple(C.CHANGE_RISKS)),
    F("impact", "impact", "Impact", "number", tuple(C.IMPACT)),
    F("priority", "priority", "Priority", "number", tuple(C.PRIORITY)),
    F("requested_by", "requested_by_id", "Requested by", "reference", ref="sys_user"),
    F("assignment_group", "assignment_group_id", "Assignment group", "reference", ref="sys_user_group"),
    F("assigned_to", "assigned_to_id", "Assigned to", "reference", ref="sys_user"),
    F("start_date", "start_date", "Planned start date", "datetime"),
    F("end_date", "end_date", "Planned end date", "datetime"),
    F("justification", "justification", "Justification"),
    F("implementation_plan", "implementation_plan", "Implementation plan"),
    F("backout_plan", "backout_plan", "Backout plan"),
    F("test_plan", "test_plan", "Test plan"),
    F("close_code", "close_code", "Close code", "choice", tuple(C.CHANGE_CLOSE_CODES)),
    F("close_notes", "close_notes", "Close notes"),
]}
DEFAULTS = {"type": "Normal", "state": "New", "risk": "Moderate", "impact": 3, "priority": 4}
APPROVED_STATES = ("Scheduled", "Implement", "Review", "Closed")
DONE = ("Closed", "Canceled")


def mandatory_for(state: str, change_type: str | None) -> list[str]:
    """From Assess on a change is planned: the CI, the group, the window and (unless standard) its plans;
    it closes with a close code and notes."""
    names = ["short_description", "type", "requested_by"]
    if state not in ("New", "Canceled"):
        names += ["cmdb_ci", "assignment_group", "start_date", "end_date"]
        if change_type != "Standard":
            names += ["implementation_plan", "backout_plan", "test_plan"]
    if state == "Closed":
        names += ["close_code", "close_notes"]
    return names


def current_values(chg: ChangeRequest | None, user: User | None = None) -> dict[str, Any]:
    values = values_of(FIELDS, chg, DEFAULTS)
    if chg is None and user is not None:
        values["requested_by"] = user.id
    return values


def validate(session: Session, data: dict[str, Any], chg: ChangeRequest | None, user: User | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    if chg is not None and chg.state in DONE and any(n in data for n in FIELDS):
        return current_values(chg), {"__all__": f"Change {chg.number} is {chg.state.lower()} and can no longer be changed."}
    base = current_values(chg, user)
    values, errors = validate_fields(session, FIELDS, data, base, lambda v: mandatory_for(v.get("state") or "New", v.get("type")))
    start, end = values.get("start_date"), values.get("end_date")
    if start is not None and end is not None and "start_date" not in errors and "end_date" not in errors and end <= start:
        errors["end_date"] = "The planned end date must be after the planned start date."
    state, before = values.get("state"), (chg.state if chg else "New")
    approval = chg.approval if chg else ("approved" if values.get("type") == "Standard" else "not requested")
    if values.get("type") == "Standard" and (chg is None or chg.type != "Standard"):
        approval = "approved"  # standard changes are pre-approved
    if "state" not in errors and state != before:
        if state == "Authorize":
            errors["state"] = "A change moves to Authorize when you use Request Approval."
        elif state in APPROVED_STATES and approval != "approved":
            errors["state"] = f"This change has not been approved by the CAB ({approval}): use Request Approval and wait for the decision."
    if chg is not None and chg.type != values.get("type") and chg.state != "New" and "type" not in errors:
        errors["type"] = "The type can only be changed while the change is New."
    if errors and "__all__" not in errors:
        errors["__all__"] = "Invalid update: " + next(v for k, v in errors.items())
    return values, errors


def apply(session: Session, chg: ChangeRequest | None, values: dict[str, Any], work_notes: str, user: User, clock: WorldClock) -> ChangeRequest:
    now = clock.now
    if chg is None:
        chg = ChangeRequest(number=next_number(session, ChangeRequest, "CHG", 30001), opened_at=now, created_at=now,
                            approval="approved" if values.get("type") == "Standard" else "not requested")
    elif values.get("type") == "Standard" and chg.type != "Standard":
        chg.approval = "approved"
    before = chg.state
    assign(chg, FIELDS, values)
    if chg.state in DONE and before not in DONE:
        chg.closed_at = now
    chg.updated_at = now
    session.add(chg)
    session.flush()
    note(session, "change_request", chg.id, user, now, work_notes)
    return chg


def cab_approver(session: Session, chg: ChangeRequest) -> int | None:
    group = session.get(Group, chg.assignment_group_id) if chg.assignment_group_id else None
    return group.manager_id if group else None


def request_approval(session: Session, chg: ChangeRequest, user: User, clock: WorldClock) -> dict[str, str]:
    """Request Approval: a planned change goes to Authorize and the CAB (the assignment group's manager)
    gets an approval in My Approvals."""
    if chg.type == "Standard":
        return {"__all__": "Standard changes are pre-approved: set the state to Scheduled."}
    if chg.state not in ("New", "Assess"):
        return {"__all__": f"Approval can be requested for a New or Assess change; this one is {chg.state}."}
    values, errors = validate(session, {"state": "Assess"}, chg)
    if errors:
        missing = [FIELDS[n].label for n in mandatory_for("Assess", chg.type) if values.get(n) in (None, "")]
        return {"__all__": "Plan the change before requesting approval: " + (", ".join(missing) if missing else errors["__all__"]) + "."}
    approver = cab_approver(session, chg)
    if approver is None:
        return {"assignment_group": "Choose an assignment group: its manager approves the change for the CAB."}
    now = clock.now
    chg.state, chg.approval, chg.updated_at = "Authorize", "requested", now
    session.add(chg)
    session.add(Approval(approver_id=approver, change_id=chg.id, state="requested", created_at=now, updated_at=now))
    note(session, "change_request", chg.id, user, now, "Approval requested from the CAB.")
    return {}


def on_decision(session: Session, approval: Approval, decision: str, comments: str, user_id: int, clock: WorldClock) -> None:
    """The CAB's decision moves the change: approved -> Scheduled; rejected -> back to New."""
    chg = session.get(ChangeRequest, approval.change_id)
    if chg is None:
        return
    now = clock.now
    chg.approval, chg.updated_at = decision, now
    if chg.state == "Authorize":
        chg.state = "Scheduled" if decision == "approved" else "New"
    session.add(chg)
    from ..identity.models import User as _User

    approver = session.get(_User, user_id)
    body = f"CAB {'approved' if decision == 'approved' else 'rejected'} by {approver.name if approver else 'the approver'}" + (f": {comments.strip()}" if comments.strip() else ".")
    note(session, "change_request", chg.id, approver or _User(id=user_id), now, body)


def conflicts(session: Session, chg: ChangeRequest) -> list[ChangeRequest]:
    """Other open changes on the same configuration item whose planned windows overlap this one's."""
    if chg.ci_id is None or chg.start_date is None or chg.end_date is None or chg.state in DONE:
        return []
    M = ChangeRequest
    stmt = select(M).where(and_(M.ci_id == chg.ci_id, M.state.not_in(DONE), M.start_date < chg.end_date, M.end_date > chg.start_date))
    if chg.id is not None:
        stmt = stmt.where(M.id != chg.id)
    return list(session.exec(stmt.order_by(M.start_date)).all())
