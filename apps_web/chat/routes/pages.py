"""The pages: Activity, the chat list and a chat, the teams and a channel (Posts and Files tabs),
new chat, search, a message's permalink, the file viewer and file downloads."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import func
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ..models import Activity, Conversation, File, Member, Message
from ..search import search_messages
from ..service import conversation_for, message_for
from ..views import conversation_view, file_preview, members_of, message_context, page, team_items, title_of, users_by_id
from ..models import Team

router = APIRouter()


@router.get("/")
def home() -> RedirectResponse:
    return RedirectResponse("/chat", status_code=303)


@router.get("/activity")
def activity(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    rows = session.exec(select(Activity).where(Activity.user_id == user.id).order_by(Activity.created_at.desc(), Activity.id.desc()).limit(60)).all()
    msgs = {m.id: m for m in session.exec(select(Message).where(Message.id.in_([a.message_id for a in rows]))).all()} if rows else {}
    convs = {c.id: c for c in session.exec(select(Conversation).where(Conversation.id.in_({m.conversation_id for m in msgs.values()}))).all()} if msgs else {}
    people = users_by_id(session, [a.actor_id for a in rows])
    teams = {t.id: t.name for t in session.exec(select(Team)).all()}
    unread_ids = [a.id for a in rows if not a.is_read]
    response = page(request, session, user, clock, section="activity", items=rows, msgs=msgs, convs=convs, people=people, teams=teams,
                    unread_ids=set(unread_ids))
    if unread_ids:  # seen once shown, as the feed's bold goes away in Teams
        for a in rows:
            a.is_read = True
        session.commit()
    return response


@router.get("/chat")
def chat_home(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    return page(request, session, user, clock, section="chat")


@router.get("/chat/new")
def new_chat(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    return page(request, session, user, clock, section="chat", new_chat={"people": [], "topic": "", "text": "", "error": ""})


@router.get("/teams")
def teams_home(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    return page(request, session, user, clock, section="teams")


def conversation_page(request: Request, session, user, clock, conv_id: int, *, tab: str = "posts", older: bool = False,  # noqa: ANN001
                      draft: dict | None = None, status_code: int = 200, file_id: int | None = None, access=None):  # noqa: ANN001
    """A conversation's tab. ``access``: the (conversation, membership) pair the route already checked."""
    conv, member = access or conversation_for(session, user, conv_id)
    section = "teams" if conv.kind == "channel" else "chat"
    # A channel's other tabs show only how many people it has (its People tab lists them).
    members = members_of(session, conv) if conv.kind != "channel" or tab == "people" else []
    member_count = len(members) if members else session.exec(select(func.count()).select_from(Member).where(Member.conversation_id == conv.id)).one()
    others = [u for u in members if u.id != user.id]
    presence_ids: list[int] = []
    ctx = {"conv": conv, "members": members, "member_count": member_count, "title": title_of(conv, others), "tab": tab, "draft": draft or {},
           "team": session.get(Team, conv.team_id) if conv.team_id else None,
           "base_url": f"/channels/{conv.id}" if conv.kind == "channel" else f"/chat/{conv.id}"}
    if tab == "files":
        files = session.exec(select(File.id, File.name, File.size, File.mime, File.uploaded_by_id, File.created_at, File.message_id)
                             .where(File.conversation_id == conv.id).order_by(File.id.desc())).all()
        ctx.update(files=files, uploaders=users_by_id(session, [f.uploaded_by_id for f in files]))
        if file_id is not None:  # the file opened in the viewer, as Teams opens a shared file in the tab
            f = session.get(File, file_id)
            if f is None or f.conversation_id != conv.id:
                raise HTTPException(status_code=404, detail="This file doesn't exist or has been deleted.")
            ctx["viewing"] = {"id": f.id, "name": f.name, "size": f.size, "uploaded_by_id": f.uploaded_by_id, "created_at": f.created_at,
                              **file_preview(f.name, f.mime, f.content)}
    elif tab == "people":
        presence_ids = [u.id for u in members]
    else:
        open_id = (draft or {}).get("parent_id") or request.query_params.get("open")
        ctx.update(conversation_view(session, user, conv, clock.now, older=older, open_id=int(open_id) if str(open_id or "").isdigit() else None,
                                     member=member))
        if conv.kind == "oneonone" and others:
            ctx["other_id"] = others[0].id
            presence_ids = [others[0].id]
    response = page(request, session, user, clock, section=section, presence_ids=presence_ids, **ctx)
    if tab == "posts" and status_code == 200:
        newest = session.exec(select(func.max(Message.id)).where(Message.conversation_id == conv.id)).one() or 0
        if member.last_read_id < newest:  # after rendering: the unread line shows once, as in Teams
            member.last_read_id = newest
            session.commit()
    response.status_code = status_code
    return response


@router.get("/chat/{conv_id}")
def chat_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int, older: bool = False):
    access = conversation_for(session, user, conv_id)
    if access[0].kind == "channel":
        return RedirectResponse(f"/channels/{conv_id}", status_code=303)
    return conversation_page(request, session, user, clock, conv_id, older=older, access=access)


@router.get("/chat/{conv_id}/files")
def chat_files(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int):
    return conversation_page(request, session, user, clock, conv_id, tab="files")


@router.get("/channels/{conv_id}")
def channel_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int, older: bool = False):
    access = conversation_for(session, user, conv_id)
    if access[0].kind != "channel":
        return RedirectResponse(f"/chat/{conv_id}", status_code=303)
    return conversation_page(request, session, user, clock, conv_id, older=older, access=access)


@router.get("/channels/{conv_id}/files")
def channel_files(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int):
    return conversation_page(request, session, user, clock, conv_id, tab="files")


@router.get("/chat/{conv_id}/files/{file_id}")
@router.get("/channels/{conv_id}/files/{file_id}")
def file_viewer(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int, file_id: int):
    return conversation_page(request, session, user, clock, conv_id, tab="files", file_id=file_id)


@router.get("/channels/{conv_id}/people")
@router.get("/chat/{conv_id}/people")
def conversation_people(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, conv_id: int):
    return conversation_page(request, session, user, clock, conv_id, tab="people")


@router.get("/messages/{message_id}")
def permalink(session: SessionDep, user: CurrentUser, message_id: int) -> RedirectResponse:
    """A link to a message (from search or Activity): its conversation, the thread opened, scrolled to it."""
    msg, conv, _ = message_for(session, user, message_id)
    if conv.kind == "channel":
        root = msg.parent_id or msg.id
        root_msg = session.get(Message, root)
        cutoff = session.exec(select(Message).where(Message.conversation_id == conv.id, Message.parent_id == None)  # noqa: E711
                              .order_by(Message.created_at.desc(), Message.id.desc()).offset(19).limit(1)).first()
        older = "&older=1" if cutoff is not None and (root_msg.created_at, root_msg.id) < (cutoff.created_at, cutoff.id) else ""
        return RedirectResponse(f"/channels/{conv.id}?open={root}{older}#m-{msg.id}", status_code=303)
    return RedirectResponse(f"/chat/{conv.id}#m-{msg.id}", status_code=303)


@router.get("/search")
def search_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, q: str = ""):
    results, error = search_messages(session, user, q) if q.strip() else ([], "")
    convs = {c.id: c for c in session.exec(select(Conversation).where(Conversation.id.in_({m.conversation_id for m in results}))).all()} if results else {}
    ctx = message_context(session, user, results)
    teams = {t.id: t.name for t in session.exec(select(Team)).all()}
    return page(request, session, user, clock, section="search", search_query=q, results=results, result_convs=convs, search_error=error,
                teams_by_id=teams, **ctx)


@router.get("/files/{file_id}/view")
def open_file(session: SessionDep, user: CurrentUser, file_id: int) -> RedirectResponse:
    """A file chip of a message: the file in its conversation's viewer."""
    f = session.get(File, file_id)
    if f is None:
        raise HTTPException(status_code=404, detail="This file doesn't exist or has been deleted.")
    conv, _ = conversation_for(session, user, f.conversation_id)
    return RedirectResponse(f"/{'channels' if conv.kind == 'channel' else 'chat'}/{conv.id}/files/{f.id}", status_code=303)


@router.get("/files/{file_id}")
def download(session: SessionDep, user: CurrentUser, file_id: int) -> Response:
    f = session.get(File, file_id)
    if f is None:
        raise HTTPException(status_code=404, detail="This file doesn't exist or has been deleted.")
    conversation_for(session, user, f.conversation_id)
    disposition = "attachment; filename*=UTF-8''" + quote(f.name)
    return Response(f.content, media_type=f.mime or "application/octet-stream", headers={"Content-Disposition": disposition})
