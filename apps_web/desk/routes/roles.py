"""The Roles related list of a user's form: add a role, remove a granted one (admin only)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...deps import ClockDep, SessionDep, row_id
from ...identity.models import User
from ...ui import redirect
from .. import roles as R
from ..acl import DeskUser, access
from ..common import get_or_404
from .denied import denied

router = APIRouter()


@router.post("/sys_user_has_role.do")
async def edit_roles(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep) -> Response:
    form = await request.form()
    target = get_or_404(session, User, form.get("user"), "user")
    here = f"/sys_user.do?sys_id={target.id}"
    verb = str(form.get("sysverb", ""))
    acc = access(request)
    if not acc.can("sys_user_has_role", "create" if verb == "add" else "delete"):
        return denied(request, "Granting and removing roles is for administrators.")
    if verb == "add":
        role = str(form.get("role", "")).strip()
        error = R.grant(session, target, role, user, clock.now)
        message = f"Role {role} granted to {target.name}."
    elif verb == "remove":
        role, error = R.revoke(session, target, row_id(form.get("role_id")), user)
        message = f"Role {role} removed from {target.name}."
    else:
        error, message = "Choose Add or Remove.", ""
    if error:
        session.rollback()
        return redirect(request, here, toast=error, kind="error")
    session.commit()
    return redirect(request, here, toast=message)
