"""Impersonate user and End impersonation (the user menu's dialog posts here; admins only)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...deps import ClockDep, SessionDep, row_id
from ...identity.models import User
from ...ui import redirect
from .. import impersonation as IMP
from ..acl import DeskUser, access
from .denied import denied

router = APIRouter()


@router.post("/impersonate.do")
async def impersonate(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep) -> Response:
    acc = access(request)
    if not acc.real_is_admin:
        return denied(request)
    form = await request.form()
    rid = row_id(form.get("recent_user") or form.get("user"))
    target = session.get(User, rid) if rid is not None else None
    if target is None or not target.active:
        return redirect(request, request.headers.get("referer") or "/", kind="error",
                        toast="Choose the user to impersonate from the suggestions (an active user), then select Impersonate user.")
    if target.id == acc.real.id:
        return end_impersonation(request, session, user, clock)
    response = redirect(request, "/", toast=f"Impersonating {target.name}: the desk now acts with their roles. End impersonation from the user menu.", kind="info")
    IMP.start(request, response, session, acc.real, target, clock.now)
    session.commit()
    return response


@router.post("/unimpersonate.do")
def end_impersonation(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep) -> Response:
    acc = access(request)
    IMP.finish_all(session, acc.real, clock.now)
    session.commit()
    response = redirect(request, "/", toast=f"Impersonation ended: you are {acc.real.name} again.", kind="info")
    response.delete_cookie(IMP.COOKIE)
    return response
