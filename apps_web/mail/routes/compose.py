"""New mail, Reply, Reply all, Forward: the compose form in the reading pane, drafts and Send."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect
from ..compose import MODES, ComposeForm, form_from_draft, prefill, save_draft, send, validate
from ..mailbox import folder_of_kind, folder_slug, folder_views, list_page, own_message, purge
from ..models import Folder, Message
from ..views import page
from .common import box_of, domain_of, int_list

router = APIRouter()


def _form(data) -> ComposeForm:  # noqa: ANN001
    def num(name: str) -> int | None:
        v = str(data.get(name, "") or "")
        return int(v) if v.isdigit() else None

    return ComposeForm(
        to=str(data.get("to", "")), cc=str(data.get("cc", "")), bcc=str(data.get("bcc", "")), subject=str(data.get("subject", "")),
        body=str(data.get("body", "")), mode=str(data.get("mode", "new") or "new"), source_id=num("source_id"), draft_id=num("draft_id"),
        attachment_ids=int_list(data.getlist("attachment_ids")), confirm_no_subject=str(data.get("confirm_no_subject", "")) in ("1", "true", "on"),
    )


def _compose_page(request, session, user, clock, box, form: ComposeForm, errors=None, confirm=False, status_code=200):  # noqa: ANN001
    source = own_message(session, box, form.source_id) if form.source_id else None
    folder = session.get(Folder, source.folder_id) if source is not None else None
    if folder is None and form.draft_id:
        folder = folder_of_kind(session, box, "drafts")
    folder = folder or folder_of_kind(session, box, "inbox")
    messages, total = list_page(session, box, [Message.folder_id == folder.id], 1)  # the list stays beside the form, as in Outlook
    return page(request, session, user, box, clock, folders=folder_views(session, box), folder=folder, selected=source, messages=messages, total=total,
                base_url=f"/mail/{folder_slug(folder)}",
                compose={"form": form, "errors": errors or {}, "confirm": confirm, "source": source}, status_code=status_code)


@router.get("/mail/compose")
def compose_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, mode: str = "new", source: int | None = None, draft: int | None = None):
    box = box_of(session, user)
    if draft is not None:
        form = form_from_draft(session, own_message(session, box, draft))
    elif mode in ("reply", "replyall", "forward") and source is not None:
        form = prefill(session, box, own_message(session, box, source), mode)
    else:
        form = ComposeForm()
    return _compose_page(request, session, user, clock, box, form)


@router.post("/mail/compose/save")
async def compose_save(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    """Autosave (the page's script) and the Save draft button: the draft's id comes back."""
    box = box_of(session, user)
    form = _form(await request.form())
    problems = validate(session, form, domain_of(request, box), sending=False)
    problems.errors.pop("to", None), problems.errors.pop("cc", None), problems.errors.pop("bcc", None)  # a draft may hold half-typed addresses
    if problems.errors:
        return JSONResponse({"detail": "The draft wasn't saved.", "errors": problems.errors}, status_code=422)
    draft = save_draft(session, box, user, form, clock)
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"draft_id": draft.id, "saved": True})
    return redirect(request, f"/mail/drafts/id/{draft.id}", toast="Draft saved.")


@router.post("/mail/compose/send")
async def compose_send(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    box = box_of(session, user)
    form = _form(await request.form())
    if form.mode not in MODES:
        form.mode = "new"
    problems = validate(session, form, domain_of(request, box), sending=True)
    if not problems.ok:
        return _compose_page(request, session, user, clock, box, form, problems.errors, problems.needs_subject_confirm, status_code=422 if problems.errors else 200)
    sent = send(session, box, user, form, clock, domain_of(request, box))
    back = "/mail/inbox"
    if form.source_id:
        source = own_message(session, box, form.source_id)
        back = f"/mail/{folder_slug(session.get(Folder, source.folder_id))}/id/{source.id}"
    return redirect(request, back, toast="Sent." if sent.subject else "Sent (no subject).")


@router.post("/mail/compose/discard")
async def compose_discard(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    box = box_of(session, user)
    form = _form(await request.form())
    if form.draft_id:
        draft = own_message(session, box, form.draft_id)
        if draft.is_draft:
            purge(session, [draft])
            session.commit()
    return redirect(request, "/mail/drafts" if form.draft_id else "/mail/inbox", toast="Draft discarded." if form.draft_id else None)
