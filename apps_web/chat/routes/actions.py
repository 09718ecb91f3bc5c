"""Form posts of the pages: post and reply, edit, delete and undo, react, share a file, start a
chat. On bad input the page comes back with the text kept and the error said (nothing is lost)."""

from __future__ import annotations

from fastapi import APIRouter, File as FileParam, Form, Request, UploadFile
from fastapi.responses import RedirectResponse

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect
from ..service import ChatError, Draft, add_file, conversation_for, delete, edit, message_for, post, react, start_chat, undo_delete
from ..views import page, users_by_id
from .pages import conversation_page

router = APIRouter()


def ids_of(raw: str) -> list[int]:
    return [int(x) for x in raw.replace(",", " ").split() if x.isdigit()]


def _page_url(conv, open_root: int | None = None) -> str:  # noqa: ANN001
    base = f"/channels/{conv.id}" if conv.kind == "channel" else f"/chat/{conv.id}"
    return base + (f"?open={open_root}" if open_root else "")


@router.post("/conversations/{conv_id}/messages")
def post_message(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int, text: str = Form(""),
                 mentions: str = Form(""), parent_id: int | None = Form(None), subject: str = Form("")):
    conv, _ = conversation_for(session, user, conv_id)
    draft = Draft(text=text, mentions=ids_of(mentions), subject=subject)
    try:
        msg = post(session, user, conv, draft, clock.now, parent_id=parent_id)
    except ChatError as exc:
        session.rollback()
        return conversation_page(request, session, user, clock, conv_id, status_code=422,
                                 draft={"text": text, "mentions": mentions, "parent_id": parent_id, "subject": subject, "error": str(exc)})
    session.commit()
    return RedirectResponse(_page_url(conv, msg.parent_id) + f"#m-{msg.id}", status_code=303)


@router.post("/messages/{message_id}/edit")
def edit_message(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int, text: str = Form(""),
                 mentions: str = Form(""), subject: str = Form("")):
    msg, conv, _ = message_for(session, user, message_id)
    try:
        edit(session, user, msg, conv, Draft(text=text, mentions=ids_of(mentions), subject=subject), clock.now)
    except ChatError as exc:
        session.rollback()
        return redirect(request, _page_url(conv, msg.parent_id) + f"#m-{msg.id}", toast=f"Your edit wasn't saved: {exc}", kind="error")
    session.commit()
    return RedirectResponse(_page_url(conv, msg.parent_id) + f"#m-{msg.id}", status_code=303)


@router.post("/messages/{message_id}/delete")
def delete_message(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int):
    msg, conv, _ = message_for(session, user, message_id)
    try:
        delete(session, user, msg, clock.now)
    except ChatError as exc:
        return redirect(request, _page_url(conv, msg.parent_id), toast=str(exc), kind="error")
    session.commit()
    return RedirectResponse(_page_url(conv, msg.parent_id) + f"#m-{msg.id}", status_code=303)


@router.post("/messages/{message_id}/undo")
def undo_message(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int):
    msg, conv, _ = message_for(session, user, message_id)
    try:
        undo_delete(session, user, msg, clock.now)
    except ChatError as exc:
        return redirect(request, _page_url(conv, msg.parent_id), toast=str(exc), kind="error")
    session.commit()
    return RedirectResponse(_page_url(conv, msg.parent_id) + f"#m-{msg.id}", status_code=303)


@router.post("/messages/{message_id}/react")
def react_message(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, message_id: int, kind: str = Form("")):
    msg, conv, _ = message_for(session, user, message_id)
    try:
        react(session, user, msg, kind, clock.now)
    except ChatError as exc:
        return redirect(request, _page_url(conv, msg.parent_id), toast=str(exc), kind="error")
    session.commit()
    return RedirectResponse(_page_url(conv, msg.parent_id) + f"#m-{msg.id}", status_code=303)


@router.post("/conversations/{conv_id}/files")
async def share_file(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int,
                     upload: UploadFile | None = FileParam(None), note: str = Form("")):
    conv, _ = conversation_for(session, user, conv_id)
    files_url = _page_url(conv) + "/files"
    content = await upload.read() if upload is not None else b""
    try:
        f = add_file(session, user, conv, upload.filename if upload else "", upload.content_type if upload else "", content, clock.now, note)
    except ChatError as exc:
        session.rollback()
        return redirect(request, files_url, toast=str(exc), kind="error")
    session.commit()
    return redirect(request, files_url, toast=f"\u201c{f.name}\u201d was shared.")


@router.post("/chat/new")
def create_chat(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, people: str = Form(""), topic: str = Form(""),
                text: str = Form(""), mentions: str = Form("")):
    try:
        conv, msg = start_chat(session, user, ids_of(people), topic, Draft(text=text, mentions=ids_of(mentions)), clock.now)
    except ChatError as exc:
        session.rollback()
        chosen = list(users_by_id(session, ids_of(people)).values())
        return page(request, session, user, clock, section="chat", status_code=422,
                    new_chat={"people": chosen, "topic": topic, "text": text, "error": str(exc)})
    session.commit()
    return RedirectResponse(f"/chat/{conv.id}#m-{msg.id}", status_code=303)
