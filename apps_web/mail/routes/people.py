"""People: the directory with search, a person's card and org chart."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from ...deps import CurrentUser, SessionDep
from ...ui import render
from .. import people as directory

router = APIRouter()


@router.get("/people")
def people_page(request: Request, session: SessionDep, user: CurrentUser, q: str = ""):
    return render(request, "mail/people.html", cards=directory.search(session, q), q=q, person=None, module="people")


@router.get("/people/{user_id}")
def person_page(request: Request, session: SessionDep, user: CurrentUser, user_id: int, q: str = ""):
    card = directory.card(session, user_id)
    if card is None:
        raise HTTPException(status_code=404, detail="This person isn't in your organization's directory.")
    return render(request, "mail/people.html", cards=directory.search(session, q), q=q, person=card, module="people",
                  chain=directory.chain(session, card.user), reports=directory.reports(session, card.user))
