"""Search: the header box's query (Outlook's operators) over every folder but Deleted Items of the
mailbox one is in: one's own (``/mail/search``) or a shared mailbox one is a member of
(``/mail/<address>/search``, as Outlook on the web searches the mailbox that is open)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from ...deps import ClockDep, CurrentUser, SessionDep
from ..mailbox import box_base, box_by_address, folder_of_kind, folder_views, list_page, own_message
from ..models import Message
from ..search import SearchError, conditions, parse
from ..views import page
from .common import box_of

router = APIRouter()


def search_where(session, box, q: str) -> list:  # noqa: ANN001
    deleted = folder_of_kind(session, box, "deleted")
    return [Message.folder_id != deleted.id, Message.is_draft.is_(False), *conditions(parse(q))]


def _search(request: Request, session, user, clock, q: str, message_id: int | None, p: int, address: str = ""):  # noqa: ANN001
    box = box_by_address(session, user, address) if address else box_of(session, user)
    selected = own_message(session, box, message_id) if message_id is not None else None
    if selected is not None and not selected.is_read:
        selected.is_read = True
        selected.updated_at = clock.now
        session.commit()
    error, messages, total = "", [], 0
    try:
        query = parse(q)
        if not query.empty:
            messages, total = list_page(session, box, search_where(session, box, q), max(1, p))
    except SearchError as exc:
        error = str(exc)
    return page(request, session, user, box, clock, folders=folder_views(session, box), messages=messages, total=total, page_no=max(1, p),
                selected=selected, base_url=f"{box_base(box)}/search", query=q, search_error=error, status_code=200)


@router.get("/mail/search")
def search_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, q: str = "", page: int = 1):
    return _search(request, session, user, clock, q, None, page)


@router.get("/mail/search/id/{message_id}")
def search_message(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int, q: str = "", page: int = 1):
    return _search(request, session, user, clock, q, message_id, page)


@router.get("/mail/{address}/search")
def shared_search_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, address: str, q: str = "", page: int = 1):
    if "@" not in address:
        raise HTTPException(status_code=404, detail="This folder doesn't exist. It may have been deleted.")
    return _search(request, session, user, clock, q, None, page, address)


@router.get("/mail/{address}/search/id/{message_id}")
def shared_search_message(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, address: str, message_id: int, q: str = "",
                          page: int = 1):
    if "@" not in address:
        raise HTTPException(status_code=404, detail="This message doesn't exist or has been permanently deleted.")
    return _search(request, session, user, clock, q, message_id, page, address)
