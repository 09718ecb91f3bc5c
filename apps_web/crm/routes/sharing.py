"""Setup > Sharing Settings, Roles and Profiles: the record access model of ``crm.sharing``.

Everyone may read these pages (View Setup and Configuration); only a system administrator (Manage
Sharing) changes the Organization-Wide Defaults: others see no Edit button and the server answers 403
with "Insufficient Privileges".

  GET  /setup/sharing         Organization-Wide Defaults (Default Internal Access per object)
  GET  /setup/sharing/edit    the edit form (admin)
  POST /setup/sharing         save it (admin): <object>=Private|Public Read Only|Public Read/Write[|Controlled by Parent]
  GET  /setup/roles           the role hierarchy (the org chart) as a tree
  GET  /setup/profiles        profiles: View All Data, Modify All Data, read-only fields
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import Role
from ...ui import redirect, render
from ..common import users_by_id
from ..models import FieldPermission, OrgWideDefault
from .. import sharing as S

router = APIRouter()


def _choices(object_key: str) -> tuple[str, ...]:
    return (S.PARENT, *S.ACCESS_LEVELS) if object_key == "contact" else S.ACCESS_LEVELS


def _rows(session) -> list[dict]:
    stored = {r.object_type: r for r in session.exec(select(OrgWideDefault)).all()}
    users = users_by_id(session)
    out = []
    for key in S.SHARED_OBJECTS:
        row = stored.get(key)
        by = users.get(row.last_modified_by_id) if row and row.last_modified_by_id else None
        out.append({"key": key, "access": row.access if row else S.DEFAULTS[key], "hierarchy": row.grant_hierarchy if row else True,
                    "choices": _choices(key), "modified_by": by, "updated_at": row.updated_at if row else None})
    return out


@router.get("/setup/sharing", include_in_schema=False)
def sharing_settings(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    return render(request, "crm/setup_sharing.html", rows=_rows(session), editing=False, can_edit=S.modify_all(user), errors={})


@router.get("/setup/sharing/edit", include_in_schema=False)
def sharing_edit(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    if not S.modify_all(user):
        raise HTTPException(403, S.INSUFFICIENT)
    return render(request, "crm/setup_sharing.html", rows=_rows(session), editing=True, can_edit=True, errors={})


@router.post("/setup/sharing", include_in_schema=False)
async def sharing_save(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    if not S.modify_all(user):
        raise HTTPException(403, S.INSUFFICIENT)
    form = await request.form()
    rows = _rows(session)
    errors: dict[str, str] = {}
    wanted: dict[str, str] = {}
    for r in rows:
        value = str(form.get(r["key"]) or r["access"])
        if value not in r["choices"]:
            errors[r["key"]] = f"Bad value for restricted picklist field: {value}"
        wanted[r["key"]] = value
        r["access"] = value
    if not errors and wanted["contact"] != S.PARENT and wanted["account"] == S.PRIVATE and wanted["contact"] != S.PRIVATE:
        errors["contact"] = "Contact access can't be more open than Account access when accounts are Private."
    if errors:
        return render(request, "crm/setup_sharing.html", status_code=422, rows=rows, editing=True, can_edit=True, errors=errors)
    changed = []
    for key, value in wanted.items():
        row = session.get(OrgWideDefault, key) or OrgWideDefault(object_type=key, access=S.DEFAULTS[key])
        if row.access != value:
            changed.append(key)
            row.access, row.last_modified_by_id, row.updated_at = value, user.id, clock.now
        session.add(row)
    session.commit()
    toast = ("Sharing settings were saved. Sharing recalculation is complete for: " + ", ".join(S.MODELS[k].__name__ for k in changed) + "."
             if changed else "No changes to save.")
    return redirect(request, "/setup/sharing", toast=toast)


@router.get("/setup/roles", include_in_schema=False)
def roles(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    return render(request, "crm/setup_roles.html", nodes=S.tree(session))


PROFILE_NAMES = {
    "admin": "System Administrator", "sales_manager": "Sales Manager", "sales_rep": "Sales User", "support_manager": "Support Manager",
    "support_agent": "Support User", "marketing": "Marketing User", "it": "IT Standard User", "finance": "Finance User",
}


@router.get("/setup/profiles", include_in_schema=False)
def profiles(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    from ..forms import form_fields
    from ..objects import OBJECTS

    locked: dict[str, list[str]] = {}
    for fp in session.exec(select(FieldPermission).order_by(FieldPermission.profile, FieldPermission.object_type, FieldPermission.field)).all():
        labels = {f.name: f.label for f in form_fields(fp.object_type)}
        locked.setdefault(fp.profile, []).append(f"{OBJECTS[fp.object_type].label}.{labels.get(fp.field, fp.field)}")
    rows = [{"key": r.value, "name": PROFILE_NAMES.get(r.value, r.label), "view_all": r.value in ("admin", "finance"), "modify_all": r.value == "admin",
             "object_view_all": [OBJECTS[o].plural for o in sorted(S.OBJECT_VIEW_ALL.get(r.value, ()))],
             "read_only": locked.get(r.value, [])} for r in Role]
    return render(request, "crm/setup_profiles.html", rows=rows)
