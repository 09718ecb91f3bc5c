"""Ordering a catalog item and deciding an approval: one implementation for the UI and the API.

An order makes a request (REQ) with one requested item (RITM) holding the variables; above the
approval limit it waits for the approval of the requester's manager, else it goes to fulfilment.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from ..identity.models import User
from ..world import WorldClock
from .models import Approval, CatalogItem, Request, RequestedItem
from .seed.catalog import item_price
from .seed.knowledge import APPROVAL_LIMIT

MAX_QUANTITY = 20


def variables_of(item: CatalogItem) -> list[dict]:
    return json.loads(item.variables or "[]")


def validate_order(session: Session, item: CatalogItem, raw: dict[str, Any], quantity: Any, requested_for: Any) -> tuple[dict, int, User | None, dict[str, str]]:
    """Check the variables of an order; returns (values, quantity, requested-for user, errors)."""
    errors: dict[str, str] = {}
    values: dict[str, Any] = {}
    for var in variables_of(item):
        name, label = var["name"], var["label"]
        v = raw.get(name)
        if var["type"] == "checkbox":
            values[name] = v in (True, "true", "on", "1", 1, "yes")
            continue
        text = str(v).strip() if v is not None else ""
        if not text:
            if var.get("mandatory"):
                errors[name] = f"{label} is mandatory."
            continue
        if var["type"] == "choice":
            allowed = [c["value"] for c in var["choices"]]
            if text not in allowed:
                errors[name] = f"'{text}' is not an option of {label}: choose one of {', '.join(allowed)}."
                continue
        elif var["type"] == "number":
            try:
                n = int(text)
                if not 1 <= n <= MAX_QUANTITY:
                    raise ValueError
                values[name] = n
                continue
            except ValueError:
                errors[name] = f"{label} must be a whole number from 1 to {MAX_QUANTITY}."
                continue
        elif var["type"] == "date":
            try:
                text = date.fromisoformat(text).isoformat()
            except ValueError:
                errors[name] = f"{label} must be a date (YYYY-MM-DD)."
                continue
        values[name] = text
    try:
        qty = int(quantity or 1)
        if not 1 <= qty <= MAX_QUANTITY:
            raise ValueError
    except (TypeError, ValueError):
        errors["quantity"] = f"Quantity must be a whole number from 1 to {MAX_QUANTITY}."
        qty = 1
    user = None
    if requested_for not in (None, ""):
        try:
            user = session.get(User, int(requested_for))
        except (TypeError, ValueError):
            user = None
        if user is None:
            errors["requested_for"] = "Invalid reference: pick the person this request is for from the suggestions."
    else:
        errors["requested_for"] = "Requested for is mandatory."
    return values, qty, user, errors


def _next(session: Session, column, prefix: str) -> str:
    top = session.execute(select(func.max(column))).scalar()
    n = int(top[len(prefix):]) + 1 if top else 10001
    return f"{prefix}{n:07d}"


def place_order(session: Session, item: CatalogItem, values: dict, qty: int, requested_for: User, user: User, clock: WorldClock) -> tuple[Request, RequestedItem]:
    now = clock.now
    spec = {"price": item.price, "variables": variables_of(item)}
    total = item_price(spec, values) * qty
    needs = total > APPROVAL_LIMIT and requested_for.manager_id is not None
    req = Request(number=_next(session, Request.number, "REQ"), requested_for_id=requested_for.id, opened_by_id=user.id, opened_at=now,
                  state="Pending Approval" if needs else "Approved", total=total, created_at=now, updated_at=now)
    session.add(req)
    session.flush()
    ritm = RequestedItem(number=_next(session, RequestedItem.number, "RITM"), request_id=req.id, item_id=item.id, requested_for_id=requested_for.id,
                         quantity=qty, variables=json.dumps(values, sort_keys=True), price=total,
                         stage="Waiting for Approval" if needs else "Fulfillment", state="Open" if needs else "Work in Progress",
                         approval="requested" if needs else "approved", assignment_group_id=None if needs else item.fulfillment_group_id,
                         created_at=now, updated_at=now)
    session.add(ritm)
    session.flush()
    if needs:
        session.add(Approval(approver_id=requested_for.manager_id, req_item_id=ritm.id, state="requested", created_at=now, updated_at=now))
    return req, ritm


def decide(session: Session, approval: Approval, decision: str, comments: str, clock: WorldClock) -> dict[str, str]:
    """Approve or reject; a rejection needs a comment. Returns errors (nothing saved when any)."""
    if approval.state != "requested":
        return {"__all__": f"This approval is already {approval.state}; it cannot be changed."}
    if decision not in ("approved", "rejected"):
        return {"state": "Choose approved or rejected."}
    if decision == "rejected" and not comments.strip():
        return {"comments": "Comments are required when rejecting: say why the request is rejected."}
    now = clock.now
    approval.state, approval.updated_at = decision, now
    if comments.strip():
        approval.comments = comments.strip()
    if approval.change_id is not None:  # a change request's CAB approval
        from .changes import on_decision

        on_decision(session, approval, decision, comments, approval.approver_id, clock)
        session.add(approval)
        return {}
    ritm = session.get(RequestedItem, approval.req_item_id) if approval.req_item_id else None
    req = session.get(Request, ritm.request_id) if ritm else None
    if ritm is not None:
        item = session.get(CatalogItem, ritm.item_id)
        ritm.approval, ritm.updated_at = decision, now
        if decision == "approved":
            ritm.stage, ritm.state = "Fulfillment", "Work in Progress"
            ritm.assignment_group_id = item.fulfillment_group_id if item else None
        else:
            ritm.stage, ritm.state = "Request Cancelled", "Closed Incomplete"
        session.add(ritm)
    if req is not None:
        req.state, req.updated_at = ("Approved" if decision == "approved" else "Closed Rejected"), now
        session.add(req)
    session.add(approval)
    return {}
