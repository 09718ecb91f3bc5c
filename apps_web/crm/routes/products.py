"""Opportunity products: Add Products (choose a price book, pick products, then the edit grid), Edit
Products (the grid of every line) and deleting a line. Every save rolls the opportunity's amount up."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect, render
from ..common import get_or_404, stamp
from ..models import Opportunity, OpportunityLineItem, Pricebook, Product
from ..products import LineInput, active_pricebooks, check_line, entries, grid_errors, line_items, line_total, roll_up
from ..record import raw

router = APIRouter()
COLUMNS = ("quantity", "unit_price", "discount", "description")


def _opp(session, record_id: int) -> Opportunity:
    """The opportunity whose products change: edit access needed (Insufficient Privileges otherwise)."""
    from .records import load

    return load(session, "opportunity", record_id, "edit")


def _back(opp: Opportunity) -> str:
    return f"/opportunities/{opp.id}?tab=related"


def _ids(values: list[str]) -> list[int]:
    return sorted({int(v) for v in values if v.isdigit()})


@router.get("/opportunities/{record_id:int}/products/add", include_in_schema=False)
def add_products(request: Request, record_id: int, session: SessionDep, user: CurrentUser, pricebook: int | None = None,
                 q: str = "") -> Response:
    """Step 1 (no price book yet): Choose Price Book. Step 2: pick products, searched by name, code or family."""
    opp = _opp(session, record_id)
    books = active_pricebooks(session)
    book_id = opp.pricebook_id or pricebook
    book = session.get(Pricebook, book_id) if book_id else None
    if book is None or not book.is_active:
        return render(request, "crm/products_pricebook.html", opp=opp, books=books, chosen=None)
    selected = _ids(request.query_params.getlist("entry"))
    rows = entries(session, book.id, q)
    shown = {e.id for e, _p in rows}
    return render(request, "crm/products_select.html", opp=opp, book=book, rows=rows, q=q, selected=selected,
                  hidden=[i for i in selected if i not in shown], locked=bool(opp.pricebook_id), error=request.query_params.get("error"))


def _add_rows(session, book_id: int, ids: list[int], form=None) -> list[LineInput]:
    out = []
    for entry, product in entries(session, book_id, ids=ids):
        key = str(entry.id)
        if form is None:
            values = {"quantity": "", "unit_price": raw(entry.unit_price), "discount": "", "description": ""}
        else:
            values = {c: str(form.get(f"{c}_{key}", "")).strip() for c in COLUMNS}
        out.append(LineInput(key, product.name, entry.unit_price, values))
    return out


@router.get("/opportunities/{record_id:int}/products/add/edit", include_in_schema=False)
def add_products_grid(request: Request, record_id: int, pricebook: int, session: SessionDep, user: CurrentUser) -> Response:
    opp = _opp(session, record_id)
    ids = _ids(request.query_params.getlist("entry"))
    if not ids:
        return redirect(request, f"/opportunities/{opp.id}/products/add?pricebook={pricebook}&error=none")
    book = get_or_404(session, Pricebook, opp.pricebook_id or pricebook, "Price Book")
    return render(request, "crm/products_grid.html", opp=opp, book=book, rows=_add_rows(session, book.id, ids), mode="add", errors=[])


@router.post("/opportunities/{record_id:int}/products/add", include_in_schema=False)
async def save_added(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    opp = _opp(session, record_id)
    form = await request.form()
    book_id = opp.pricebook_id or (int(form["pricebook"]) if str(form.get("pricebook", "")).isdigit() else None)
    book = session.get(Pricebook, book_id) if book_id else None
    if book is None or not book.is_active:
        raise HTTPException(400, "Choose an active price book.")
    ids = _ids([str(v) for v in form.getlist("entry")])
    rows = [check_line(r) for r in _add_rows(session, book.id, ids, form)]
    if not rows or any(r.errors for r in rows):
        return render(request, "crm/products_grid.html", status_code=422, opp=opp, book=book, rows=rows, mode="add",
                      errors=grid_errors(rows) or ["Select at least one product."])
    start = len(line_items(session, opp.id))
    by_entry = {str(e.id): (e, p) for e, p in entries(session, book.id, ids=ids)}
    for n, row in enumerate(rows):
        entry, product = by_entry[row.key]
        c = row.cleaned
        li = OpportunityLineItem(opportunity_id=opp.id, product_id=product.id, pricebook_entry_id=entry.id, quantity=c["quantity"],
                                 list_price=entry.unit_price, unit_price=c["unit_price"], discount=c["discount"],
                                 total_price=line_total(c["quantity"], c["unit_price"], c["discount"]),
                                 description=row.values.get("description") or None, sort_order=start + n)
        stamp(li, user, clock, created=True)
        session.add(li)
    opp.pricebook_id = book.id
    roll_up(session, opp)
    stamp(opp, user, clock)
    session.commit()
    n = len(rows)
    return redirect(request, _back(opp), toast=f"{n} product{'s were' if n != 1 else ' was'} added to the opportunity.")


def _edit_rows(session, opp: Opportunity, form=None) -> list[LineInput]:
    out = []
    for li, product in line_items(session, opp.id):
        key = str(li.id)
        if form is None:
            values = {"quantity": raw(li.quantity), "unit_price": raw(li.unit_price), "discount": raw(li.discount), "description": li.description or ""}
        else:
            values = {c: str(form.get(f"{c}_{key}", "")).strip() for c in COLUMNS}
        out.append(LineInput(key, product.name, li.list_price, values))
    return out


@router.get("/opportunities/{record_id:int}/products/edit", include_in_schema=False)
def edit_products(request: Request, record_id: int, session: SessionDep, user: CurrentUser) -> Response:
    opp = _opp(session, record_id)
    book = session.get(Pricebook, opp.pricebook_id) if opp.pricebook_id else None
    return render(request, "crm/products_grid.html", opp=opp, book=book, rows=_edit_rows(session, opp), mode="edit", errors=[])


@router.post("/opportunities/{record_id:int}/products/edit", include_in_schema=False)
async def save_edited(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    opp = _opp(session, record_id)
    form = await request.form()
    rows = [check_line(r) for r in _edit_rows(session, opp, form)]
    book = session.get(Pricebook, opp.pricebook_id) if opp.pricebook_id else None
    if any(r.errors for r in rows):
        return render(request, "crm/products_grid.html", status_code=422, opp=opp, book=book, rows=rows, mode="edit", errors=grid_errors(rows))
    lines = {str(li.id): li for li, _p in line_items(session, opp.id)}
    changed = 0
    for row in rows:
        li, c = lines[row.key], row.cleaned
        new = {"quantity": c["quantity"], "unit_price": c["unit_price"], "discount": c["discount"], "description": row.values.get("description") or None}
        if any(getattr(li, k) != v for k, v in new.items()):
            for k, v in new.items():
                setattr(li, k, v)
            li.total_price = line_total(li.quantity, li.unit_price, li.discount)
            stamp(li, user, clock)
            session.add(li)
            changed += 1
    if changed:
        roll_up(session, opp)
        stamp(opp, user, clock)
    session.commit()
    return redirect(request, _back(opp), toast="Your changes are saved." if changed else "No changes to save.")


@router.post("/opportunities/{record_id:int}/products/{line_id:int}/delete", include_in_schema=False)
def delete_line(request: Request, record_id: int, line_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    opp = _opp(session, record_id)
    li = session.get(OpportunityLineItem, line_id)
    if li is None or li.opportunity_id != opp.id:
        raise HTTPException(404, "This product doesn't exist or has been removed.")
    product = session.get(Product, li.product_id)
    session.delete(li)
    roll_up(session, opp)
    stamp(opp, user, clock)
    session.commit()
    return redirect(request, _back(opp), toast=f'Opportunity Product "{product.name if product else "Product"}" was deleted.')
