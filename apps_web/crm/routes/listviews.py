"""List View Controls: New, Clone, Rename, Sharing Settings, Select Fields to Display, Delete, and
saving a view's filters (with filter logic) from the filter panel.

  POST /listviews/<objects>/new        name, api_name, visibility[, clone_of=<view key>]
  POST /listviews/<id>/rename          name, api_name
  POST /listviews/<id>/sharing         visibility
  POST /listviews/<id>/fields          col (repeated, in order)
  POST /listviews/<id>/filters         scope, ff/fo/fv (repeated), logic
  POST /listviews/<id>/delete

Bad input shows the list again (422) with the dialog or panel open and the messages; nothing saved.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from sqlmodel import Session, select
from starlette.datastructures import QueryParams

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import redirect
from ...world import WorldClock
from .. import listviews as LV
from ..listing import Filter, spec_in_world
from ..models import ListViewDef, ListViewFilter
from ..objects import OBJECTS
from ..views import SPECS
from .lists import BY_PATH, render_list

router = APIRouter(include_in_schema=False)
_MINE_VIEWS = {"mine", "my_open"}


def _view(session: Session, user: User, view_id: int, *, edit: bool = True) -> ListViewDef:
    lv = session.get(ListViewDef, view_id)
    if lv is None or not (lv.owner_id == user.id or lv.visibility == "all_users"):
        raise HTTPException(404, "This list view doesn't exist or has been deleted.")
    if edit and not LV.can_edit(user, lv):
        raise HTTPException(403, "You don't have permission to edit this list view.")
    return lv


def _url(lv: ListViewDef, **extra: str) -> str:
    path = OBJECTS[lv.object_type].path
    tail = "".join(f"&{k}={v}" for k, v in extra.items())
    return f"{path}?view={LV.view_key(lv)}{tail}"


def _again(request: Request, session: Session, user: User, clock: WorldClock, object_key: str, view: str, state: dict[str, Any]) -> Response:
    session.rollback()
    query = QueryParams({"view": view, **({"panel": "1"} if "filters" in state else {})})
    return render_list(request, session, user, clock, object_key, query, status_code=422, lv_state=state)


def _visibility(user: User, value: Any) -> str:
    v = str(value or "only_me")
    if v not in LV.VISIBILITY or (v == "all_users" and not LV.can_share(user)):
        return "only_me"
    return v


@router.post("/listviews/{objects}/new")
async def new_view(objects: str, request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    object_key = BY_PATH.get(objects)
    if object_key not in SPECS:
        raise HTTPException(404, "This object doesn't exist.")
    spec = SPECS[object_key]
    form = await request.form()
    name, api_name = str(form.get("name") or "").strip(), str(form.get("api_name") or "").strip()
    clone_of = str(form.get("clone_of") or "")
    requested = str(form.get("visibility") or "only_me")
    errors = LV.check_names(session, object_key, name, api_name)
    if requested == "all_users" and not LV.can_share(user):
        errors["visibility"] = "You don't have permission to share list views with all users."
    back_view = clone_of or str(form.get("current_view") or "")
    if errors:
        dialog = "lv-clone" if clone_of else "lv-new"
        return _again(request, session, user, clock, object_key, back_view,
                      {"dialog": dialog, "values": {"name": name, "api_name": api_name, "visibility": requested}, "errors": errors})
    lv = ListViewDef(object_type=object_key, name=name, api_name=api_name, owner_id=user.id, visibility=_visibility(user, requested),
                     scope="all", columns=",".join(spec.columns), created_at=clock.now, updated_at=clock.now, created_by_id=user.id)
    filters: list[Filter] = []
    source = LV.find(session, user, object_key, clone_of)
    if source is not None:
        lv.scope, lv.columns, lv.filter_logic = source.scope, source.columns, source.filter_logic
        filters = LV.filters_of(session, source)
    elif clone_of in _MINE_VIEWS:
        lv.scope = "mine"
    session.add(lv)
    session.flush()
    LV.save_filters(session, lv, filters)
    session.commit()
    # A new view opens with its filter panel, as Lightning does, to add the filters.
    return redirect(request, _url(lv, **({} if clone_of else {"panel": "1"})), toast=f'List view "{lv.name}" was {"cloned" if clone_of else "created"}.')


@router.post("/listviews/{view_id:int}/rename")
async def rename_view(view_id: int, request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    lv = _view(session, user, view_id)
    form = await request.form()
    name, api_name = str(form.get("name") or "").strip(), str(form.get("api_name") or "").strip()
    errors = LV.check_names(session, lv.object_type, name, api_name, exclude=lv.id)
    if errors:
        return _again(request, session, user, clock, lv.object_type, LV.view_key(lv),
                      {"dialog": "lv-rename", "values": {"name": name, "api_name": api_name}, "errors": errors})
    lv.name, lv.api_name = name, api_name
    return _saved(request, session, clock, lv)


@router.post("/listviews/{view_id:int}/sharing")
async def share_view(view_id: int, request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    lv = _view(session, user, view_id)
    form = await request.form()
    requested = str(form.get("visibility") or "")
    if requested not in LV.VISIBILITY or (requested == "all_users" and not LV.can_share(user)):
        message = ("You don't have permission to share list views with all users." if requested == "all_users"
                   else "Select who sees this list view.")
        return _again(request, session, user, clock, lv.object_type, LV.view_key(lv),
                      {"dialog": "lv-sharing", "values": {"visibility": requested}, "errors": {"visibility": message}})
    lv.visibility = requested
    return _saved(request, session, clock, lv, f'Sharing settings for "{lv.name}" were saved.')


def _saved(request: Request, session, clock, lv, toast: str | None = None) -> Response:  # noqa: ANN001
    """Store a list view the user changed and go back to it with the product's toast."""
    lv.updated_at = clock.now
    session.add(lv)
    session.commit()
    return redirect(request, _url(lv), toast=toast or f'List view "{lv.name}" was saved.')


@router.post("/listviews/{view_id:int}/fields")
async def view_fields(view_id: int, request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    lv = _view(session, user, view_id)
    spec = SPECS[lv.object_type]
    form = await request.form()
    cols = list(dict.fromkeys(str(c) for c in form.getlist("col")))
    error = None
    if not cols:
        error = "Select at least one field to display."
    elif any(c not in spec.fields for c in cols):
        error = "Select fields from the Available Fields list."
    elif len(cols) > LV.MAX_COLUMNS:
        error = f"You can display up to {LV.MAX_COLUMNS} fields."
    if error:
        return _again(request, session, user, clock, lv.object_type, LV.view_key(lv),
                      {"dialog": "lv-fields", "values": {"columns": [c for c in cols if c in spec.fields]}, "errors": {"columns": error}})
    lv.columns = ",".join(cols)
    return _saved(request, session, clock, lv)


@router.post("/listviews/{view_id:int}/filters")
async def view_filters(view_id: int, request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    lv = _view(session, user, view_id)
    spec = spec_in_world(SPECS[lv.object_type], session)  # a record type filter takes the types Setup has
    form = await request.form()
    scope = "mine" if form.get("scope") == "mine" else "all"
    check = LV.check_filters(spec, [str(v) for v in form.getlist("ff")], [str(v) for v in form.getlist("fo")],
                             [str(v) for v in form.getlist("fv")], str(form.get("logic") or ""))
    if not check.ok:
        return _again(request, session, user, clock, lv.object_type, LV.view_key(lv),
                      {"filters": check.filters, "logic": str(form.get("logic") or ""), "logic_error": check.logic_error, "scope": scope})
    lv.scope, lv.filter_logic, lv.updated_at = scope, check.logic, clock.now
    session.add(lv)
    LV.save_filters(session, lv, check.filters)
    session.commit()
    return redirect(request, _url(lv), toast=f'List view "{lv.name}" was saved.')


@router.post("/listviews/{view_id:int}/delete")
async def delete_view(view_id: int, request: Request, session: SessionDep, user: CurrentUser) -> Response:
    lv = _view(session, user, view_id)
    path, name = OBJECTS[lv.object_type].path, lv.name
    for row in session.exec(select(ListViewFilter).where(ListViewFilter.list_view_id == lv.id)).all():
        session.delete(row)
    session.delete(lv)
    session.commit()
    return redirect(request, path, toast=f'List view "{name}" was deleted.')
