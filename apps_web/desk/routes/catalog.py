"""The service catalog: items by category (``/catalog``), an item with its variables and Order Now
(``/sc_cat_item.do?sys_id=``), which makes a request and a requested item."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlmodel import select

from ...deps import ClockDep, SessionDep
from ...ui import redirect, render
from ..catalog import place_order, validate_order, variables_of
from ..common import display, get_or_404
from ..models import CatalogItem
from ..seed.knowledge import APPROVAL_LIMIT
from ..acl import DeskUser

router = APIRouter()


@router.get("/catalog")
def catalog_home(request: Request, session: SessionDep, user: DeskUser):
    items = session.exec(select(CatalogItem).where(CatalogItem.active.is_(True)).order_by(CatalogItem.category, CatalogItem.name)).all()
    categories: dict[str, list[CatalogItem]] = {}
    for it in items:
        categories.setdefault(it.category, []).append(it)
    return render(request, "desk/catalog.html", categories=categories)


def _item_page(request, session, user, item: CatalogItem, values: dict, errors: dict, qty=1, requested_for=None):
    rf = requested_for if requested_for is not None else user.id
    return render(request, "desk/catalog_item.html", item=item, variables=variables_of(item), values=values, errors=errors, qty=qty,
                  requested_for=rf, requested_for_label=display(session, "sys_user", int(rf)) if str(rf).isdigit() else "",
                  approval_limit=APPROVAL_LIMIT)


@router.get("/sc_cat_item.do")
def catalog_item(request: Request, session: SessionDep, user: DeskUser, sys_id: str = ""):
    item = get_or_404(session, CatalogItem, sys_id, "catalog item")
    return _item_page(request, session, user, item, {}, {})


@router.post("/sc_cat_item.do")
async def catalog_order(request: Request, session: SessionDep, user: DeskUser, clock: ClockDep):
    form = await request.form()
    item = get_or_404(session, CatalogItem, form.get("sys_id"), "catalog item")
    raw = {v["name"]: form.get(f"IO:{v['name']}") for v in variables_of(item)}
    values, qty, who, errors = validate_order(session, item, raw, form.get("quantity", "1"), form.get("requested_for"))
    if errors:
        return _item_page(request, session, user, item, raw, errors, form.get("quantity", "1"), form.get("requested_for") or "")
    req, ritm = place_order(session, item, values, qty, who, user, clock)
    session.commit()
    return redirect(request, f"/sc_request.do?sys_id={req.id}", toast=f"Thank you, your request has been submitted: {req.number} ({ritm.number}).")
