"""The Files related list's actions: Add Files (link a drive file the user can see), Remove from
Record, the file picker's type-ahead and opening a file in the drive (record/files.py)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import app_url, redirect
from ..record.files import OBJECT_TYPES, drive_installed
from .records import load, record_url, render_record

router = APIRouter()
PLURAL = {"opportunity": "opportunities", "account": "accounts"}


def _need_drive(session) -> None:  # noqa: ANN001
    if not drive_installed(session):
        raise HTTPException(404, "Files aren't available: the drive isn't installed in this world.")


def _visible_file(session, user, item_id: int):  # noqa: ANN001, ANN202
    from ...drive.access import role_on
    from ...drive.models import Item

    item = session.get(Item, item_id)
    if item is None or item.kind == "folder" or item.deleted_at is not None or role_on(session, user, item) is None:
        return None
    return item


@router.get("/record-files/lookup", include_in_schema=False)
def lookup(session: SessionDep, user: CurrentUser, q: str = ""):
    """Files of the drive the user can see whose name holds ``q`` (the Select Files search)."""
    _need_drive(session)
    from ...drive.access import visible_ids
    from ...drive.library import path_of
    from ...drive.models import Item

    ids = visible_ids(session, user)
    rows = session.exec(select(Item).where(Item.kind != "folder", Item.deleted_at.is_(None), Item.name.ilike(f"%{q.strip()}%"))
                        .order_by(Item.name, Item.id)).all()
    out = []
    for item in rows:
        if item.id in ids:
            out.append({"id": item.id, "label": item.name, "sublabel": " / ".join(p.name for p in path_of(session, item)[:-1])})
        if len(out) >= 10:
            break
    return out


@router.get("/record-files/open/{item_id:int}", include_in_schema=False)
def open_file(request: Request, item_id: int, session: SessionDep, user: CurrentUser) -> Response:
    _need_drive(session)
    item = _visible_file(session, user, item_id)
    if item is None:
        raise HTTPException(404, "This file might not exist or you don't have permission to view it.")
    path = {"document": f"/doc/{item.id}", "sheet": f"/sheet/{item.id}"}.get(item.kind, f"/files/{item.id}")
    return RedirectResponse(app_url(request, "drive", path), status_code=303)


def _add(object_key: str):
    async def add(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        _need_drive(session)
        from ...drive.library import log
        from ...drive.models import RecordLink

        record = load(session, object_key, record_id)
        form = await request.form()
        raw = str(form.get("item_id", "")).strip()
        item = _visible_file(session, user, int(raw)) if raw.isdigit() else None
        errors = {}
        if item is None:
            errors["item_id"] = "Complete this field." if not raw else "Select a file from the list."
        elif session.exec(select(RecordLink).where(RecordLink.item_id == item.id, RecordLink.app == "crm", RecordLink.object_type == object_key,
                                                   RecordLink.record_id == record.id)).first():
            errors["item_id"] = f"{item.name} is already attached to this record."
        if errors:
            return render_record(request, session, user, clock, object_key, record, tab="related", status_code=422,
                                 open_dialog="add-files-dialog", files_errors=errors)
        session.add(RecordLink(item_id=item.id, app="crm", object_type=object_key, record_id=record.id, created_by_id=user.id, created_at=clock.now))
        log(session, item, user, "linked", f"Added to the {object_key} {record.name} in Sales", clock.now)
        session.commit()
        return redirect(request, record_url(object_key, record.id, "related"), toast=f"1 file was added to the {object_key.title()}.")

    return add


def _remove(object_key: str):
    def remove(request: Request, record_id: int, link_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
        _need_drive(session)
        from ...drive.library import log
        from ...drive.models import Item, RecordLink

        record = load(session, object_key, record_id)
        link = session.get(RecordLink, link_id)
        if link is None or link.object_type != object_key or link.record_id != record.id:
            raise HTTPException(404, "This file isn't attached to this record any more.")
        item = session.get(Item, link.item_id)
        session.delete(link)
        if item is not None:
            log(session, item, user, "unlinked", f"Removed from the {object_key} {record.name} in Sales", clock.now)
        session.commit()
        return redirect(request, record_url(object_key, record.id, "related"), toast=f"“{item.name if item else 'The file'}” was removed from the record.")

    return remove


for _key in OBJECT_TYPES:
    router.add_api_route(f"/{PLURAL[_key]}/{{record_id:int}}/files", _add(_key), methods=["POST"], include_in_schema=False)
    router.add_api_route(f"/{PLURAL[_key]}/{{record_id:int}}/files/{{link_id:int}}/delete", _remove(_key), methods=["POST"], include_in_schema=False)
