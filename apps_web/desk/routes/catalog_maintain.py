"""Service Catalog > Maintain Items: the catalog item form of catalog administrators
(``/sc_cat_item_maintain.do?sys_id=``, ``sys_id=-1`` for a new item) with its variables; the list is
``/sc_cat_item_list.do``. Everyone else gets the security constraints page."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlmodel import select

from ...deps import ClockDep, SessionDep
from ...ui import redirect, render
from .. import catalog_admin as CA
from ..common import get_or_404
from ..models import CatalogItem, Group, RequestedItem
from ..acl import DeskUser, access
from .denied import denied

router = APIRouter()
WHO = "Maintaining catalog items is for catalog administrators (catalog_admin)."


def _form(request: Request, session, item: CatalogItem | None, values: dict, errors: dict, status_code: int = 200):
    groups = session.exec(select(Group).order_by(Group.name)).all()
    ordered = session.exec(select(RequestedItem.id).where(RequestedItem.item_id == item.id)).all() if item is not None else []
    return render(request, "desk/catalog_item_form.html", item=item, v=values, errors=errors, group_options=[(str(g.id), g.name) for g in groups], categories=CA.CATEGORIES,
                  var_types=CA.VAR_TYPES, ordered=len(ordered), status_code=status_code)


@router.get("/sc_cat_item_maintain.do")
def maintain_item(request: Request, session: SessionDep, user: DeskUser, sys_id: str = ""):
    new = sys_id == "-1"
    if not access(request).by_role("sc_cat_item", "create" if new else "write"):
        return denied(request, WHO)
    item = None if new else get_or_404(session, CatalogItem, sys_id, "catalog item")
    return _form(request, session, item, CA.current_values(item), {})


@router.post("/sc_cat_item_maintain.do")
async def save_item(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep):
    form = await request.form()
    new = form.get("sys_id") == "-1"
    if not access(request).by_role("sc_cat_item", "create" if new else "write"):
        return denied(request, WHO)
    item = None if new else get_or_404(session, CatalogItem, form.get("sys_id"), "catalog item")
    values = CA.read_form(form)
    fields, variables, errors = CA.validate(session, values, item)
    if errors:
        return _form(request, session, item, values, errors)
    item = CA.save(session, item, fields, variables, clock)
    session.commit()
    verb = "created" if new else "updated"
    if form.get("sysverb") == "update":
        return redirect(request, "/sc_cat_item_list.do", toast=f"Catalog item {item.name} {verb}.")
    return redirect(request, f"/sc_cat_item_maintain.do?sys_id={item.id}", toast=f"Catalog item {item.name} {verb}.")
