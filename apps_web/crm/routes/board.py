"""Opportunity board (Kanban): one column per stage; cards move by drag and drop, keyboard or menu.

Every way of moving a card ends in the same POST, which sets the stage and the stage's default
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
from ..picklists import CLOSED_STAGES, OPEN_STAGES, STAGE_FORECAST, STAGE_NAMES, STAGE_PROBABILITY

router = APIRouter()
BOARD = "/opportunities/board"


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
    stage: str
    cards: list[Card] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.cards)

    @property
    def total(self) -> float:
        return float(sum(c.opp.amount or 0 for c in self.cards))


def board_state(scope: str, closed: str) -> dict[str, str]:
    return {"scope": "mine" if scope == "mine" else "all", "closed": "0" if closed == "0" else "1"}


def board_url(state: dict[str, str], **changes: str) -> str:
    return f"{BOARD}?{urlencode({**state, **changes})}"


@router.get(BOARD)
def board(request: Request, session: SessionDep, user: CurrentUser, scope: str = "all", closed: str = "1"):
    state = board_state(scope, closed)
    stages = OPEN_STAGES + (CLOSED_STAGES if state["closed"] == "1" else [])
    # Plain rows, not ORM objects: a board holds hundreds of cards and needs seven fields of each.
    query = (select(Opportunity.id, Opportunity.name, Opportunity.amount, Opportunity.close_date, Opportunity.stage,
                    Opportunity.account_id, Opportunity.owner_id, Account.name.label("account"))
             .outerjoin(Account, Account.id == Opportunity.account_id)
             .where(Opportunity.stage.in_(stages)).order_by(Opportunity.close_date, Opportunity.id))
    if state["scope"] == "mine":
        query = query.where(Opportunity.owner_id == user.id)
    from ..sharing import visible

    query = query.where(*visible(session, user, "opportunity"))  # the deals the user may see
    rows = session.exec(query).all()
    owner_ids = {row.owner_id for row in rows}
    owners = {u.id: u for u in session.exec(select(User).where(User.id.in_(owner_ids))).all()} if owner_ids else {}
    columns = {stage: Column(stage) for stage in stages}
    for row in rows:
        columns[row.stage].cards.append(Card(row, row.account, owners.get(row.owner_id)))
    cols = list(columns.values())
    return render(
        request,
        "crm/board.html",
        columns=cols,
        stages=STAGE_NAMES,
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
         stage: str = Form(...), next: str = Form(BOARD)):
    opp = get_or_404(session, Opportunity, opportunity_id, "opportunity")
    from ..sharing import require_edit

    require_edit(session, user, "opportunity", opp)  # Insufficient Privileges: a card one may only read doesn't move
    if stage not in STAGE_PROBABILITY:
        raise HTTPException(status_code=422, detail=f"Unknown stage {stage!r}.")
    changed = opp.stage != stage
    if changed:
        from ..rules import check, messages

        errors = check(session, "opportunity", opp, {"stage": stage, "probability": STAGE_PROBABILITY[stage], "forecast_category": STAGE_FORECAST[stage]})
        if errors:  # a validation rule refuses the move: the card goes back and the message shows
            message = messages(errors)
            if "application/json" in request.headers.get("accept", ""):
                return JSONResponse({"id": opp.id, "stage": opp.stage, "error": "FIELD_CUSTOM_VALIDATION_EXCEPTION", "message": message}, status_code=400)
            return redirect(request, _safe_next(next), toast=f'"{opp.name}" wasn\'t moved to "{stage}". {message}', kind="error")
    if changed:
        opp.stage = stage
        opp.probability = STAGE_PROBABILITY[stage]
        opp.forecast_category = STAGE_FORECAST[stage]
        stamp(opp, user, clock)
        session.add(opp)
        session.commit()
        session.refresh(opp)
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"id": opp.id, "name": opp.name, "stage": opp.stage, "probability": opp.probability,
                             "forecast_category": opp.forecast_category, "changed": changed})
    toast = f'Stage changed to "{stage}" for "{opp.name}".' if changed else f'"{opp.name}" is already in "{stage}".'
    return redirect(request, _safe_next(next), toast=toast, link=f"/opportunities/{opp.id}", link_text="View")
