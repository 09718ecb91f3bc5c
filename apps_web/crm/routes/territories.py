"""Territories: the list (accounts and users per territory) and one territory's page (its users and
its accounts with their owners), where sales operations see who covers what."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import func
from sqlmodel import select

from ...deps import CurrentUser, SessionDep
from ...ui import render
from ..common import get_or_404, users_by_id
from ..models import Account, Territory, UserTerritory

router = APIRouter()


@router.get("/territories", include_in_schema=False)
def territories(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    rows = session.exec(select(Territory).order_by(Territory.name)).all()
    accounts = dict(session.exec(select(Account.territory_id, func.count()).group_by(Account.territory_id)).all())
    members = dict(session.exec(select(UserTerritory.territory_id, func.count()).group_by(UserTerritory.territory_id)).all())
    return render(request, "crm/territories.html", rows=[(t, accounts.get(t.id, 0), members.get(t.id, 0)) for t in rows])


@router.get("/territories/{territory_id:int}", include_in_schema=False)
def territory(request: Request, territory_id: int, session: SessionDep, user: CurrentUser) -> Response:
    t = get_or_404(session, Territory, territory_id, "Territory")
    users = users_by_id(session)
    member_ids = session.exec(select(UserTerritory.user_id).where(UserTerritory.territory_id == t.id)).all()
    accounts = session.exec(select(Account).where(Account.territory_id == t.id).order_by(Account.name, Account.id)).all()
    return render(request, "crm/territory.html", t=t, members=[users[i] for i in member_ids if i in users], accounts=accounts, users=users)
