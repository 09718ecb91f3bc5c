"""The drive's JSON API under /api/: items (list, get, create, rename/move, delete, restore, share),
documents (structured blocks) and sheets (cells with inputs and computed values), through the same
operations and validation as the pages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse
from sqlmodel import select

from .. import openapi
from ...deps import ClockDep, CurrentUser, SessionDep
from .. import documents as docs
from .. import library as lib
from .. import sheets as sh
from ..access import require
from ..models import Cell, Item, Sheet

router = APIRouter(prefix="/api", tags=["drive"])
ERRORS = (lib.DriveError, docs.DocumentError, sh.SheetError)


def unprocessable(detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=422)


def item_json(i: Item, role: str | None = None) -> dict[str, Any]:
    out = {"id": i.id, "name": i.name, "kind": i.kind, "parent_id": i.parent_id, "site_id": i.site_id, "owner_id": i.owner_id, "size": i.size,
           "content_type": i.content_type or None, "version": i.version, "modified_at": i.modified_at.isoformat() if i.modified_at else None,
           "deleted": i.deleted_at is not None, "crm_account_id": i.crm_account_id, "crm_opportunity_id": i.crm_opportunity_id}
    if role:
        out["your_role"] = role
    return out


@router.get("/items")
def list_items(session: SessionDep, user: CurrentUser, folder: int | None = None):
    """The children of ``folder`` (default: the top of My files)."""
    if folder is None:
        site = lib.personal_site(session, user)
        if site is None:
            return unprocessable("You have no OneDrive; name a folder.")
        folder = site.root_id
    f, role = require(session, user, folder)
    if f.kind != "folder":
        return unprocessable(f"Item {folder} is not a folder.")
    return {"folder": item_json(f, role), "items": [item_json(i) for i in lib.sort_items(lib.children(session, f), "name", "asc")]}


@router.get("/items/{item_id}")
def get_item(session: SessionDep, user: CurrentUser, item_id: int):
    item, role = require(session, user, item_id)
    out = item_json(item, role)
    out["access"] = lib.access_list(session, item)
    return out


@router.post("/items", status_code=201, openapi_extra=openapi.CREATE)
def create_item(session: SessionDep, user: CurrentUser, clock: ClockDep, payload: dict = Body(...)):
    """``{"parent_id", "kind": folder|document|sheet, "name"}``."""
    parent = session.get(Item, int(payload.get("parent_id") or 0)) if str(payload.get("parent_id", "")).isdigit() else None
    if parent is None:
        return unprocessable("parent_id must name a folder you can edit.")
    require(session, user, parent.id)
    try:
        item = lib.create(session, user, clock.now, parent, str(payload.get("kind", "")), str(payload.get("name", "")))
    except ERRORS as exc:
        return unprocessable(str(exc))
    session.commit()
    return item_json(item)


@router.patch("/items/{item_id}", openapi_extra=openapi.UPDATE)
def update_item(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """``{"name"}`` renames, ``{"parent_id"}`` moves."""
    item, _role = require(session, user, item_id, "edit")
    try:
        if "name" in payload:
            lib.rename(session, user, clock.now, item, str(payload["name"]))
        if "parent_id" in payload:
            target = session.get(Item, int(payload["parent_id"])) if str(payload["parent_id"]).isdigit() else None
            if target is None:
                raise lib.DriveError("parent_id must name a folder.")
            require(session, user, target.id)
            lib.move(session, user, clock.now, item, target)
    except ERRORS as exc:
        session.rollback()
        return unprocessable(str(exc))
    session.commit()
    return item_json(item)


@router.delete("/items/{item_id}")
def delete_item(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int):
    item, _role = require(session, user, item_id, "edit")
    try:
        lib.delete(session, user, clock.now, item)
    except ERRORS as exc:
        return unprocessable(str(exc))
    session.commit()
    return item_json(item)


@router.post("/items/{item_id}/restore")
def restore_item(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int):
    item, _role = require(session, user, item_id, "edit", deleted_ok=True)
    try:
        lib.restore(session, user, clock.now, item)
    except ERRORS as exc:
        return unprocessable(str(exc))
    session.commit()
    return item_json(item)


@router.post("/items/{item_id}/shares", openapi_extra=openapi.SHARE)
def share_item(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """``{"role": view|edit, "user_ids": [...], "groups": [...]}``."""
    item, _role = require(session, user, item_id, "edit")
    try:
        lib.share(session, user, clock.now, item, str(payload.get("role", "")), [int(u) for u in payload.get("user_ids", []) if str(u).isdigit()],
                  [str(g) for g in payload.get("groups", [])])
    except ERRORS as exc:
        return unprocessable(str(exc))
    session.commit()
    return {"access": lib.access_list(session, item)}


@router.get("/search")
def search(session: SessionDep, user: CurrentUser, q: str = ""):
    return {"items": [item_json(i) for i in lib.search(session, user, q)]}


@router.get("/documents/{item_id}", openapi_extra=openapi.DOCUMENT_OUT)
def get_document(session: SessionDep, user: CurrentUser, item_id: int):
    item, role = require(session, user, item_id)
    if item.kind != "document":
        return unprocessable(f"Item {item_id} is not a document.")
    return {**item_json(item, role), "blocks": docs.load(session, item.id),
            "comments": [{"id": c.id, "parent_id": c.parent_id, "anchor": c.anchor, "body": c.body, "author_id": c.author_id, "resolved": c.resolved}
                         for c in lib.comments(session, item)],
            "suggestions": [{"id": s.id, "block": s.block_position, "offset": s.offset, "anchor": s.anchor, "text": s.text, "author_id": s.author_id,
                             "status": s.status} for s in lib.suggestions(session, item, None)]}


@router.put("/documents/{item_id}", openapi_extra=openapi.DOCUMENT_PUT)
def put_document(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """Replace the document's content: ``{"blocks": [{"style": "Heading 1", "runs": [{"text": "...", "bold": true}]},
    {"style": "Table", "rows": [[[{"text": "Qty", "bold": true}], [{"text": "Price"}]], [[{"text": "2"}], [{"text": "$40"}]]]}]}``."""
    item, _role = require(session, user, item_id, "edit")
    if item.kind != "document":
        return unprocessable(f"Item {item_id} is not a document.")
    try:
        lib.set_document(session, user, clock.now, item, payload.get("blocks"))
    except ERRORS as exc:
        return unprocessable(str(exc))
    session.commit()
    return {**item_json(item), "blocks": docs.load(session, item.id)}


@router.post("/documents/{item_id}/export-pdf", status_code=201)
def export_pdf(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """``{"name": "Memo.pdf"}``: the document saved as a PDF in its folder; returns the new file and its text."""
    item, _role = require(session, user, item_id)
    try:
        pdf = lib.export_pdf(session, user, clock.now, item, str(payload.get("name") or ""))
    except ERRORS as exc:
        return unprocessable(str(exc))
    session.commit()
    return {**item_json(pdf), "text": pdf.text}


@router.get("/sheets/{item_id}")
def get_sheet(session: SessionDep, user: CurrentUser, item_id: int):
    item, role = require(session, user, item_id)
    if item.kind != "sheet":
        return unprocessable(f"Item {item_id} is not a workbook.")
    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item.id).order_by(Sheet.position)).all())
    cells = session.exec(select(Cell).where(Cell.item_id == item.id).order_by(Cell.row, Cell.col)).all()
    from .. import charts as ch

    def charts_json(s: Sheet) -> list[dict]:
        found = ch.charts_of(session, s)
        values = {(c.row, c.col): (c.value, c.number) for c in cells if c.sheet_id == s.id} if found else {}
        return [ch.as_json(x, ch.read(values, x.source), s.name) for x in found]

    return {**item_json(item, role), "sheets": [{"name": s.name, "freeze_rows": s.freeze_rows, "freeze_cols": s.freeze_cols, "filter_range": s.filter_range,
                                                  "filter_criteria": sh.criteria(s), "sort_state": s.sort_state, "cells": [{"ref": c.ref, "input": c.input, "value": c.value, "number": c.number,
                                                                             "error": c.error} for c in cells if c.sheet_id == s.id],
                                                  "charts": charts_json(s)} for s in sheets]}


@router.patch("/sheets/{item_id}/cells", openapi_extra=openapi.CELLS)
def patch_cells(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """``{"edits": [{"sheet": "Sheet1", "ref": "B3", "input": "=SUM(B1:B2)"}]}``; returns the cells that changed."""
    from .sheets import edit_cells

    return edit_cells(session, user, clock, item_id, payload)
