"""Folder pages: the message list of a folder, the conversation of the open message, new folders."""

from __future__ import annotations

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect
from ..compose import form_from_draft
from ..mailbox import box_base, box_by_address, create_folder, folder_from_slug, folder_slug, folder_views, list_page, own_message
from ..models import Message
from ..views import page
from .common import box_of, safe_back

router = APIRouter()


@router.get("/")
def home() -> RedirectResponse:
    return RedirectResponse("/mail/inbox", status_code=303)


@router.get("/mail")
def mail_home() -> RedirectResponse:
    return RedirectResponse("/mail/inbox", status_code=303)


@router.post("/mail/folders/new")
def new_folder(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, name: str = Form(""), back: str = Form("/mail/inbox")):
    box = box_of(session, user)
    folder, error = create_folder(session, box, name)
    if error:
        return redirect(request, safe_back(back), toast=error, kind="error")
    session.commit()
    return redirect(request, f"/mail/{folder_slug(folder)}", toast=f"Folder \u201c{folder.name}\u201d created.")


def _folder_page(request: Request, session, user, clock, slug: str, message_id: int | None, p: int, address: str = ""):  # noqa: ANN001
    box = box_by_address(session, user, address) if address else box_of(session, user)
    folder = folder_from_slug(session, box, slug)
    selected = own_message(session, box, message_id) if message_id is not None else None
    compose = None
    if selected is not None and selected.is_draft:
        compose = {"form": form_from_draft(session, selected), "errors": {}, "confirm": False}
    elif selected is not None and not selected.is_read:
        selected.is_read = True  # opening a message reads it, as in Outlook
        selected.updated_at = clock.now
        session.commit()
    messages, total = list_page(session, box, [Message.folder_id == folder.id], max(1, p))
    return page(request, session, user, box, clock, folders=folder_views(session, box), folder=folder, messages=messages, total=total,
                page_no=max(1, p), selected=selected, base_url=f"{box_base(box)}/{slug}", compose=compose)


@router.get("/mail/{slug}")
def folder_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, slug: str, page: int = 1):
    return _folder_page(request, session, user, clock, slug, None, page)


@router.get("/mail/{slug}/id/{message_id}")
def message_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, slug: str, message_id: int, page: int = 1):
    return _folder_page(request, session, user, clock, slug, message_id, page)


# A shared mailbox's folders, under its address as Outlook on the web opens them: /mail/support@.../inbox.
@router.get("/mail/{address}/{slug}")
def shared_folder_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, address: str, slug: str, page: int = 1):
    if "@" not in address:
        raise HTTPException(status_code=404, detail="This folder doesn't exist. It may have been deleted.")
    return _folder_page(request, session, user, clock, slug, None, page, address)


@router.get("/mail/{address}/{slug}/id/{message_id}")
def shared_message_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, address: str, slug: str, message_id: int,
                        page: int = 1):
    if "@" not in address:
        raise HTTPException(status_code=404, detail="This message doesn't exist or has been permanently deleted.")
    return _folder_page(request, session, user, clock, slug, message_id, page, address)
