"""New mail, Reply, Reply all, Forward: the compose form in the reading pane, drafts and Send."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.datastructures import UploadFile as StarletteUpload

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import app_url, redirect, render
from ..attachments import AttachmentError, add_cloud, add_upload, cloud_files, cloud_path, content
from ..compose import MODES, ComposeForm, form_from_draft, prefill, save_draft, send, validate
from ..mailbox import box_base, box_by_address, folder_of_kind, folder_slug, folder_views, list_page, own_message, purge, reachable_message
from ..models import Attachment, Folder, Message
from ..signatures import default_signature, signature_block
from ..views import page, size_label
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
        from_address=str(data.get("from_other", "") if data.get("from_address") == "other" else data.get("from_address", "") or "").strip(),
    )


def acting_box(session, user, form: ComposeForm):  # noqa: ANN001, ANN201
    """The mailbox the form works in: the draft's or the answered message's (a shared mailbox when
    answering from it), else the user's own."""
    for mid in (form.draft_id, form.source_id):
        if mid:
            return reachable_message(session, user, mid)[0]
    return box_of(session, user)


def _compose_page(request, session, user, clock, box, form: ComposeForm, errors=None, confirm=False, status_code=200):  # noqa: ANN001
    source = own_message(session, box, form.source_id) if form.source_id else None
    folder = session.get(Folder, source.folder_id) if source is not None else None
    if folder is None and form.draft_id:
        folder = folder_of_kind(session, box, "drafts")
    folder = folder or folder_of_kind(session, box, "inbox")
    messages, total = list_page(session, box, [Message.folder_id == folder.id], 1)  # the list stays beside the form, as in Outlook
    return page(request, session, user, box, clock, folders=folder_views(session, box), folder=folder, selected=source, messages=messages, total=total,
                base_url=f"{box_base(box)}/{folder_slug(folder)}",
                compose={"form": form, "errors": errors or {}, "confirm": confirm, "source": source}, status_code=status_code)


@router.get("/mail/compose")
def compose_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, mode: str = "new", source: int | None = None,
                 draft: int | None = None, from_: str = Query("", alias="from")):
    box = box_of(session, user)
    if draft is not None:
        box, message = reachable_message(session, user, draft)
        form = form_from_draft(session, message)
    elif mode in ("reply", "replyall", "forward") and source is not None:
        box, message = reachable_message(session, user, source)
        form = prefill(session, box, message, mode)
    else:
        # New mail from a shared mailbox's page starts from its address (the draft stays in one's own Drafts).
        form = ComposeForm(from_address=box_by_address(session, user, from_).address if from_ else "")
    if draft is None:  # the user's default signature for new messages, or for replies and forwards
        sig = default_signature(session, box_of(session, user), "new" if form.mode == "new" else "reply")
        if sig is not None:
            form.body = signature_block(sig)
    return _compose_page(request, session, user, clock, box, form)


@router.post("/mail/compose/save")
async def compose_save(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    """Autosave (the page's script) and the Save draft button: the draft's id comes back."""
    form = _form(await request.form())
    box = acting_box(session, user, form)
    problems = validate(session, form, domain_of(request, box), sending=False)
    problems.errors.pop("to", None), problems.errors.pop("cc", None), problems.errors.pop("bcc", None)  # a draft may hold half-typed addresses
    if problems.errors:
        return JSONResponse({"detail": "The draft wasn't saved.", "errors": problems.errors}, status_code=422)
    draft = save_draft(session, box, user, form, clock)
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"draft_id": draft.id, "saved": True})
    return redirect(request, f"{box_base(box)}/drafts/id/{draft.id}", toast="Draft saved.")


@router.post("/mail/compose/send")
async def compose_send(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    form = _form(await request.form())
    box = acting_box(session, user, form)
    if form.mode not in MODES:
        form.mode = "new"
    problems = validate(session, form, domain_of(request, box), sending=True, user=user, box=box)
    if not problems.ok:
        return _compose_page(request, session, user, clock, box, form, problems.errors, problems.needs_subject_confirm, status_code=422 if problems.errors else 200)
    sent = send(session, box, user, form, clock, domain_of(request, box))
    back = f"{box_base(box)}/inbox"
    if form.source_id:
        source = own_message(session, box, form.source_id)
        back = f"{box_base(box)}/{folder_slug(session.get(Folder, source.folder_id))}/id/{source.id}"
    return redirect(request, back, toast="Sent." if sent.subject else "Sent (no subject).")


@router.post("/mail/compose/discard")
async def compose_discard(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    form = _form(await request.form())
    box = acting_box(session, user, form)
    if form.draft_id:
        draft = own_message(session, box, form.draft_id)
        if draft.is_draft:
            purge(session, [draft])
            session.commit()
    return redirect(request, f"{box_base(box)}/drafts" if form.draft_id else f"{box_base(box)}/inbox", toast="Draft discarded." if form.draft_id else None)


# -- attachments: from the computer, from the cloud, and downloads ------------------------------------------
async def _draft_from_request(request: Request, session, user, clock):  # noqa: ANN001, ANN202
    """Save the form as a draft first (attaching always works on a saved draft, as in Outlook)."""
    data = await request.form()
    form = _form(data)
    box = acting_box(session, user, form)
    return data, box, save_draft(session, box, user, form, clock)


@router.post("/mail/compose/attach")
async def compose_attach(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    data, box, draft = await _draft_from_request(request, session, user, clock)
    back = f"{box_base(box)}/drafts/id/{draft.id}"
    upload = data.get("upload")
    if not isinstance(upload, StarletteUpload) or not upload.filename:
        return redirect(request, back, toast="Choose a file to attach.", kind="error")
    try:
        add_upload(session, draft, upload.filename, await upload.read(), upload.content_type or "")
    except AttachmentError as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    session.commit()
    return redirect(request, back)  # the file shows in the draft's attachments, as in Outlook (no toast over the form)


@router.post("/mail/compose/cloud")
async def compose_cloud(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    """Browse cloud locations: the draft is saved, then the picker of drive files opens."""
    _data, _box, draft = await _draft_from_request(request, session, user, clock)
    return redirect(request, f"/mail/compose/cloud?draft={draft.id}")


@router.get("/mail/compose/cloud")
def cloud_picker(request: Request, session: SessionDep, user: CurrentUser, draft: int, q: str = ""):
    box, message = reachable_message(session, user, draft)
    if not message.is_draft:
        return redirect(request, f"{box_base(box)}/sentitems", toast="This message was already sent.", kind="error")
    return render(request, "mail/cloud.html", draft=message, back=f"{box_base(box)}/drafts/id/{message.id}", files=cloud_files(session, user, q), q=q,
                  size_label=size_label, module="mail")


@router.post("/mail/compose/cloud/add")
async def cloud_add(request: Request, session: SessionDep, user: CurrentUser):
    data = await request.form()
    draft_id, item = str(data.get("draft") or ""), str(data.get("item") or "")
    box, message = reachable_message(session, user, int(draft_id) if draft_id.isdigit() else None)
    back = f"{box_base(box)}/drafts/id/{message.id}"
    if not message.is_draft:
        return redirect(request, f"{box_base(box)}/sentitems", toast="This message was already sent.", kind="error")
    try:
        add_cloud(session, user, message, int(item) if item.isdigit() else -1, str(data.get("how") or ""))
    except AttachmentError as exc:
        return redirect(request, f"/mail/compose/cloud?draft={message.id}", toast=str(exc), kind="error")
    session.commit()
    return redirect(request, back)


@router.get("/mail/attachments/{attachment_id}")
def download_attachment(request: Request, session: SessionDep, user: CurrentUser, attachment_id: int):
    att = session.get(Attachment, attachment_id)
    if att is None:
        raise HTTPException(status_code=404, detail="This attachment doesn't exist any more. The message may have been deleted.")
    _box, message = reachable_message(session, user, att.message_id)
    if att.is_link:  # a cloud link opens the file in the drive (its own permissions apply there)
        return RedirectResponse(app_url(request, "drive", cloud_path(session, att)), status_code=303)
    body, ctype = content(att, message)
    return Response(body, media_type=ctype, headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quote(att.name)}"})
