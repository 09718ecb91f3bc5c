"""The document editor (Word for the web): the page, saving the editor's content as blocks, comments."""

from __future__ import annotations

import json

from fastapi import APIRouter, Body, Form, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import redirect
from .. import documents as docs
from .. import library as lib
from ..access import require
from ..editor_html import editor_html
from ..models import Comment, Site, Suggestion
from .common import page

router = APIRouter()


@router.get("/doc/{item_id}")
def doc_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int):
    item, role = require(session, user, item_id)
    if item.kind != "document":
        raise HTTPException(404, "This item isn't a document.")
    site = session.get(Site, item.site_id)
    if site.restricted:
        lib.log(session, item, user, "viewed", "Viewed in the data room", clock.now)
        session.commit()
    blocks = docs.load(session, item.id)
    comments = lib.comments(session, item)
    suggestions = lib.suggestions(session, item)
    people = {u.id: u for u in session.exec(select(User).where(User.id.in_({c.author_id for c in comments} | {s.author_id for s in suggestions} or {0}))).all()}
    shown = []
    for s in suggestions:
        para = docs.block_text(blocks[s.block_position]) if s.block_position < len(blocks) else ""
        before, after = para[max(0, s.offset - 40): s.offset], para[s.offset + len(s.anchor): s.offset + len(s.anchor) + 40]
        shown.append({"s": s, "label": lib.describe(s), "before": ("…" if s.offset > 40 else "") + before, "after": after + ("…" if len(para) > s.offset + len(s.anchor) + 40 else "")})
    delta = docs.to_delta(blocks)
    return page(request, session, user, "drive/document.html", item=item, role=role, crumbs=lib.path_of(session, item),
                delta=json.dumps(delta), doc_html=editor_html(delta), blocks=blocks, comments=comments, people=people, display_name=lib.display_name,
                suggestions=shown)


@router.post("/doc/{item_id}/suggestions")
def add_suggestion(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, block: int = Form(0), offset: int = Form(0),
                   anchor: str = Form(""), text: str = Form("")):
    """Suggest an edit: the selected text (``anchor`` at ``offset`` in paragraph ``block``) replaced by ``text``."""
    item, _role = require(session, user, item_id, "edit")
    try:
        lib.suggest(session, user, clock.now, item, block, offset, anchor, text)
    except lib.DriveError as exc:
        return redirect(request, f"/doc/{item_id}", toast=str(exc), kind="error")
    session.commit()
    return redirect(request, f"/doc/{item_id}", toast="Suggestion added.")


@router.post("/doc/{item_id}/suggestions/{action}")
def resolve_all_or_one(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, action: str, suggestion_id: str = Form("")):
    """Accept or reject one suggestion (``suggestion_id``), or all of them (Accept All / Reject All)."""
    item, _role = require(session, user, item_id, "edit")
    if action not in ("accept", "reject", "accept-all", "reject-all"):
        raise HTTPException(404, "Unknown action.")
    if action.endswith("-all"):
        todo = lib.suggestions(session, item)
    else:
        one = session.get(Suggestion, int(suggestion_id)) if suggestion_id.isdigit() else None
        if one is None or one.item_id != item.id:
            return redirect(request, f"/doc/{item_id}", toast="That suggestion no longer exists.", kind="error")
        todo = [one]
    try:
        for s in todo:
            lib.resolve_suggestion(session, user, clock.now, item, s, action.startswith("accept"))
    except lib.DriveError as exc:
        session.rollback()
        return redirect(request, f"/doc/{item_id}", toast=str(exc), kind="error")
    session.commit()
    n = len(todo)
    verb = "accepted" if action.startswith("accept") else "rejected"
    return redirect(request, f"/doc/{item_id}", toast=f"Suggestion {verb}." if n == 1 else f"{n} suggestions {verb}.")


@router.post("/doc/{item_id}/save")
def save(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    item, _role = require(session, user, item_id, "edit")
    if item.kind != "document":
        return JSONResponse({"detail": "This item isn't a document."}, status_code=422)
    try:
        blocks = docs.from_delta(payload.get("delta"))
        lib.set_document(session, user, clock.now, item, blocks)
    except docs.DocumentError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    session.commit()
    return {"saved": True, "version": item.version, "blocks": len(blocks)}


@router.post("/doc/{item_id}/comments")
def add_comment(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, body: str = Form(""), anchor: str = Form(""),
                parent_id: str = Form("")):
    item, _role = require(session, user, item_id)  # commenters need view access, as in Word for the web
    body = body.strip()
    back = f"/doc/{item_id}"
    if not body:
        return redirect(request, back, toast="Type a comment first.", kind="error")
    parent = None
    if parent_id.isdigit():
        parent = session.get(Comment, int(parent_id))
        if parent is None or parent.item_id != item.id:
            return redirect(request, back, toast="That comment no longer exists.", kind="error")
    anchor = (parent.anchor if parent else anchor).strip()[:500]
    if not parent and not anchor:
        return redirect(request, back, toast="Select the text you want to comment on, then choose New comment.", kind="error")
    position = None
    for b in session.exec(select(docs.Block).where(docs.Block.item_id == item.id).order_by(docs.Block.position)).all():
        if anchor and anchor in b.text:
            position = b.position
            break
    if not parent and position is None:
        return redirect(request, back, toast="The selected text wasn't found in the saved document. Save, then comment again.", kind="error")
    session.add(Comment(item_id=item.id, parent_id=parent.id if parent else None, anchor=anchor, block_position=parent.block_position if parent else position,
                        body=body[:4000], author_id=user.id, created_at=clock.now))
    lib.log(session, item, user, "commented", f"Commented: {body[:80]}", clock.now)
    session.commit()
    return redirect(request, back, toast="Comment posted." if not parent else "Reply posted.")


@router.post("/doc/{item_id}/comments/{comment_id}/resolve")
def resolve(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, comment_id: int, reopen: str = Form("")):
    item, _role = require(session, user, item_id)
    c = session.get(Comment, comment_id)
    if c is None or c.item_id != item.id or c.parent_id is not None:
        return redirect(request, f"/doc/{item_id}", toast="That comment no longer exists.", kind="error")
    c.resolved = not reopen
    session.commit()
    return redirect(request, f"/doc/{item_id}", toast="Comment resolved." if c.resolved else "Comment reopened.")


@router.post("/doc/{item_id}/export-pdf")
def export_pdf(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, name: str = Form("")):
    """File > Export > Save as PDF: a PDF of the saved document, into the document's folder."""
    item, _role = require(session, user, item_id)
    try:
        pdf = lib.export_pdf(session, user, clock.now, item, name)
    except lib.DriveError as exc:
        session.rollback()
        return redirect(request, f"/doc/{item_id}", toast=str(exc), kind="error")
    session.commit()
    folder = session.get(lib.Item, pdf.parent_id)
    return redirect(request, f"/doc/{item_id}", toast=f"Saved “{pdf.name}” to “{folder.name}”.")


@router.get("/doc/{item_id}/export.docx")
def export(item_id: int) -> RedirectResponse:
    return RedirectResponse(f"/files/{item_id}/download", status_code=303)
