"""Opportunity board (Kanban): one column per stage; cards move by drag and drop, keyboard or menu.

Kanban Settings choose the picklist the columns follow (Group By: Stage, Type, Forecast Category or
Lead Source; ``?group=``) and what the columns add up (Summarize By: Amount or none; ``?summarize=``).
A move sets the grouping field; with Stage, every way of moving a card ends in the same POST, which
sets the stage and the stage's default
probability and forecast category, as changing the stage on the record does. Moving to Closed Won
or Closed Lost is saved directly, without a confirmation dialog (as Salesforce's Kanban does for
Closed Won; we keep Closed Lost symmetric so a move is always one gesture). Browsers running
board.js send ``Accept: application/json`` and update the columns in place; the "Move to" menu is a
plain form that redirects back to the board with a toast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import JSONResponse
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import redirect, render
from ..common import get_or_404, stamp
from ..models import Account, Opportunity
from ..picklists import CLOSED_STAGES, LEAD_SOURCES, OPEN_STAGES, OPPORTUNITY_TYPES, STAGE_FORECAST, STAGE_NAMES, STAGE_PROBABILITY
from ..validation import FORECAST_CATEGORIES

router = APIRouter()
BOARD = "/opportunities/board"
# Kanban Settings' Group By: the opportunity's picklists, column -> (label, values in picklist order).
GROUPS: dict[str, tuple[str, list[str]]] = {
    "stage": ("Stage", STAGE_NAMES),
    "type": ("Type", OPPORTUNITY_TYPES),
    "forecast_category": ("Forecast Category", FORECAST_CATEGORIES),
    "lead_source": ("Lead Source", LEAD_SOURCES),
}
SUMMARIES = {"amount": "Amount", "none": "None"}
NONE_VALUE = ""  # the column of cards with no value ("--None--"), shown when any card has none


@dataclass
class Card:
    opp: Any  # a row of the board query: id, name, amount, close_date, stage, account_id, owner_id
    account: str | None
    owner: User | None

    @property
    def sort_key(self) -> str:
        # Cards sort by close date, then id; board.js inserts moved cards with the same key.
        return f"{self.opp.close_date.isoformat()}|{self.opp.id:09d}"


@dataclass
class Column:
    stage: str  # the column's value of the grouping field ("" for no value)
    cards: list[Card] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.stage or "--None--"

    @property
    def count(self) -> int:
        return len(self.cards)

    @property
    def total(self) -> float:
        return float(sum(c.opp.amount or 0 for c in self.cards))


def board_state(scope: str, closed: str, group: str = "stage", summarize: str = "amount") -> dict[str, str]:
    state = {"scope": "mine" if scope == "mine" else "all", "closed": "0" if closed == "0" else "1"}
    if group in GROUPS and group != "stage":
        state["group"] = group
    if summarize == "none":
        state["summarize"] = "none"
    return state


def board_url(state: dict[str, str], **changes: str) -> str:
    return f"{BOARD}?{urlencode({**state, **changes})}"


@router.get(BOARD)
def board(request: Request, session: SessionDep, user: CurrentUser, scope: str = "all", closed: str = "1",
          group: str = "stage", summarize: str = "amount"):
    state = board_state(scope, closed, group, summarize)
    group = state.get("group", "stage")
    stages = OPEN_STAGES + (CLOSED_STAGES if state["closed"] == "1" else [])
    column_attr = getattr(Opportunity, group)
    # Plain rows, not ORM objects: a board holds hundreds of cards and needs eight fields of each.
    query = (select(Opportunity.id, Opportunity.name, Opportunity.amount, Opportunity.close_date, Opportunity.stage,
                    Opportunity.account_id, Opportunity.owner_id, Account.name.label("account"), column_attr.label("group_value"))
             .outerjoin(Account, Account.id == Opportunity.account_id)
             .where(Opportunity.stage.in_(stages)).order_by(Opportunity.close_date, Opportunity.id))
    if state["scope"] == "mine":
        query = query.where(Opportunity.owner_id == user.id)
    from ..sharing import visible

    query = query.where(*visible(session, user, "opportunity"))  # the deals the user may see
    rows = session.exec(query).all()
    owner_ids = {row.owner_id for row in rows}
    owners = {u.id: u for u in session.exec(select(User).where(User.id.in_(owner_ids))).all()} if owner_ids else {}
    values = stages if group == "stage" else list(GROUPS[group][1])
    if group != "stage" and any(not row.group_value for row in rows):
        values = values + [NONE_VALUE]
    columns = {value: Column(value) for value in values}
    for row in rows:
        value = row.group_value or NONE_VALUE
        if value not in columns:  # a value no longer in the picklist keeps its own column
            columns[value] = Column(value)
        columns[value].cards.append(Card(row, row.account, owners.get(row.owner_id)))
    cols = list(columns.values())
    return render(
        request,
        "crm/board.html",
        columns=cols,
        stages=STAGE_NAMES,
        move_values=[c.stage for c in cols],
        group=group,
        group_label=GROUPS[group][0],
        groups={k: v[0] for k, v in GROUPS.items()},
        summarize=state.get("summarize", "amount"),
        summaries=SUMMARIES,
        state=state,
        board_url=lambda **kw: board_url(state, **kw),
        here=board_url(state),
        total_count=sum(c.count for c in cols),
        total_amount=sum(c.total for c in cols),
    )


def _safe_next(url: str) -> str:
    return url if url.startswith(BOARD) else BOARD


@router.post(BOARD + "/{opportunity_id}/move")
def move(request: Request, opportunity_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep,
         stage: str | None = Form(None), field_name: str = Form("stage", alias="field"), value: str | None = Form(None),
         next: str = Form(BOARD)):
    opp = get_or_404(session, Opportunity, opportunity_id, "opportunity")
    from ..sharing import require_edit

    require_edit(session, user, "opportunity", opp)  # Insufficient Privileges: a card one may only read doesn't move
    if field_name not in GROUPS:
        raise HTTPException(status_code=422, detail=f"Unknown field {field_name!r}.")
    target = stage if field_name == "stage" and stage is not None else value
    if target is None:
        raise HTTPException(status_code=422, detail="Choose a column to move the card to.")
    label, allowed = GROUPS[field_name]
    if target not in allowed and not (field_name != "stage" and target == NONE_VALUE):
        raise HTTPException(status_code=422, detail=f"Unknown {label.lower()} {target!r}.")
    shown = target or "--None--"
    wants_json = "application/json" in request.headers.get("accept", "")
    current = getattr(opp, field_name) or NONE_VALUE
    changed = current != target
    if changed:
        from ..rules import check, messages

        changes: dict[str, Any] = {field_name: target or None}
        if field_name == "stage":
            changes.update(probability=STAGE_PROBABILITY[target], forecast_category=STAGE_FORECAST[target])
        errors = check(session, "opportunity", opp, changes)
        if field_name == "stage":
            from ..recordtypes import get as get_record_type, restricted_message, values_for

            allowed = values_for(get_record_type(session, opp.record_type_id), "opportunity")
            if allowed is not None and target not in allowed:  # the record type's sales process doesn't have that column
                errors = {"stage": restricted_message("Stage", target)}
        if errors:  # a validation rule refuses the move: the card goes back and the message shows
            message = messages(errors)
            if wants_json:
                return JSONResponse({"id": opp.id, "field": field_name, "value": current, "stage": opp.stage,
                                     "error": "FIELD_CUSTOM_VALIDATION_EXCEPTION", "message": message}, status_code=400)
            return redirect(request, _safe_next(next), toast=f'"{opp.name}" wasn\'t moved to "{shown}". {message}', kind="error")
        for key, val in changes.items():
            setattr(opp, key, val)
        stamp(opp, user, clock)
        session.add(opp)
        session.commit()
        session.refresh(opp)
    if wants_json:
        return JSONResponse({"id": opp.id, "name": opp.name, "field": field_name, "value": getattr(opp, field_name) or NONE_VALUE,
                             "stage": opp.stage, "probability": opp.probability, "forecast_category": opp.forecast_category,
                             "changed": changed})
    toast = f'{label} changed to "{shown}" for "{opp.name}".' if changed else f'"{opp.name}" is already in "{shown}".'
    return redirect(request, _safe_next(next), toast=toast, link=f"/opportunities/{opp.id}", link_text="View")
