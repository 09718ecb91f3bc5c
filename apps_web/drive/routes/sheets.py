"""The spreadsheet editor (Excel for the web): the grid page, cell edits recalculated on the server,
new sheets."""

from __future__ import annotations

from fastapi import APIRouter, Body, Form, HTTPException, Request
from fastapi.responses import JSONResponse
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect
from .. import library as lib
from .. import sheets as sh
from ..access import require
from ..models import Cell, Sheet, Site
from .common import page

router = APIRouter()


def cell_json(c: Cell) -> dict:
    return {"ref": c.ref, "input": c.input, "value": c.value, "error": c.error, "number": c.number}


@router.get("/sheet/{item_id}")
def sheet_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, s: str = ""):
    item, role = require(session, user, item_id)
    if item.kind != "sheet":
        raise HTTPException(404, "This item isn't a workbook.")
    if session.get(Site, item.site_id).restricted:
        lib.log(session, item, user, "viewed", "Viewed in the data room", clock.now)
        session.commit()
    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item.id).order_by(Sheet.position)).all())
    current = next((x for x in sheets if x.name == s), sheets[0])
    circular = [c.ref for c in session.exec(select(Cell).where(Cell.sheet_id == current.id, Cell.error == "circular")).all()]
    return page(request, session, user, "drive/sheet.html", item=item, role=role, crumbs=lib.path_of(session, item), sheets=sheets, current=current,
                grid=sh.grid(session, current), circular=circular, display_name=lib.display_name)


@router.post("/sheet/{item_id}/cells")
def edit_cells(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """``{"sheet": name, "ref": "B3", "input": "=SUM(B1:B2)"}`` or ``{"edits": [{sheet, ref, input}...]}``."""
    item, _role = require(session, user, item_id, "edit")
    if item.kind != "sheet":
        return JSONResponse({"detail": "This item isn't a workbook."}, status_code=422)
    raw = payload.get("edits") or [payload]
    try:
        edits = [(str(e["sheet"]), str(e["ref"]), str(e.get("input", ""))) for e in raw]
    except (KeyError, TypeError):
        return JSONResponse({"detail": "Each edit needs sheet, ref and input."}, status_code=422)
    try:
        changed, text = sh.apply_edits(session, item.id, edits)
    except sh.SheetError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    item.text = text
    lib.touch(session, user, clock.now, item, "Edited")
    session.commit()
    names = {x.id: x.name for x in session.exec(select(Sheet).where(Sheet.item_id == item.id)).all()}
    circ = [f"{names[c.sheet_id]}!{c.ref}" for c in session.exec(select(Cell).where(Cell.item_id == item.id, Cell.error == "circular")).all()]
    return {"cells": [{**cell_json(c), "sheet": names.get(c.sheet_id)} for c in changed], "circular": circ}


@router.post("/sheet/{item_id}/sheets")
def add_sheet(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, name: str = Form("")):
    item, _role = require(session, user, item_id, "edit")
    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item.id)).all())
    name = name.strip() or f"Sheet{len(sheets) + 1}"
    try:
        name = sh.check_sheet_name(name, [x.name for x in sheets])
    except sh.SheetError as exc:
        return redirect(request, f"/sheet/{item_id}", toast=str(exc), kind="error")
    session.add(Sheet(item_id=item.id, name=name, position=len(sheets)))
    lib.touch(session, user, clock.now, item, f"Added sheet {name}")
    session.commit()
    return redirect(request, f"/sheet/{item_id}?s={name}")
