"""Settings pages of the mailbox: automatic replies and rules; email signatures."""

from __future__ import annotations

from datetime import datetime
from html import escape

from fastapi import APIRouter, Request
from sqlmodel import func, select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect, render
from ..delivery import html_to_text
from ..mailbox import folder_views
from ..models import Signature
from ..options import AutoReply, Rule, RuleForm, validate_auto_reply, validate_rule
from ..signatures import save_signature, set_defaults, signatures_of
from .common import box_of

router = APIRouter()


def _dt(date_value: str, time_value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(f"{date_value.strip()}T{(time_value or '00:00').strip()}")
    except ValueError:
        return None


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{escape(line)}</p>" for line in text.strip().splitlines() if line.strip())


def _page(request, session, box, clock, *, ar=None, errors=None, form=None, rule_errors=None, rule_form=None, status_code=200):  # noqa: ANN001, ANN202
    ar = ar or session.exec(select(AutoReply).where(AutoReply.mailbox_id == box.id)).first() or AutoReply(mailbox_id=box.id)
    rules = session.exec(select(Rule).where(Rule.mailbox_id == box.id).order_by(Rule.position, Rule.id)).all()
    folders = [f.folder for f in folder_views(session, box) if f.folder.kind not in ("drafts", "sent")]
    names = {f.id: f.name for f in folders}
    if form is None:
        form = {"enabled": ar.enabled, "scheduled": ar.scheduled,
                "start_date": ar.start.date().isoformat() if ar.start else clock.today.isoformat(), "start_time": f"{ar.start:%H:%M}" if ar.start else "17:00",
                "end_date": ar.end.date().isoformat() if ar.end else clock.today.isoformat(), "end_time": f"{ar.end:%H:%M}" if ar.end else "09:00",
                "internal": html_to_text(ar.internal_html), "external": html_to_text(ar.external_html)}
    return render(request, "mail/options.html", box=box, ar=ar, form=form, errors=errors or {}, rules=rules, folders=folders, folder_names=names,
                  rule_form=rule_form or RuleForm(), rule_errors=rule_errors or {}, module="mail", status_code=status_code)


@router.get("/mail/options")
def options_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    return _page(request, session, box_of(session, user), clock)


@router.post("/mail/options/automaticreplies")
async def save_auto_reply(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    data = await request.form()
    get = lambda k: str(data.get(k) or "")  # noqa: E731
    box = box_of(session, user)
    enabled, scheduled = bool(data.get("enabled")), bool(data.get("scheduled"))
    start, end = _dt(get("start_date"), get("start_time")), _dt(get("end_date"), get("end_time"))
    errors = validate_auto_reply(enabled, scheduled, start, end, get("internal"))
    form = {"enabled": enabled, "scheduled": scheduled, "start_date": get("start_date"), "start_time": get("start_time"),
            "end_date": get("end_date"), "end_time": get("end_time"), "internal": get("internal"), "external": get("external")}
    if errors:
        return _page(request, session, box, clock, errors=errors, form=form, status_code=422)
    ar = session.exec(select(AutoReply).where(AutoReply.mailbox_id == box.id)).first() or AutoReply(mailbox_id=box.id)
    ar.enabled, ar.scheduled = enabled, scheduled and enabled
    ar.start, ar.end = (start, end) if scheduled and enabled else (None, None)
    ar.internal_html, ar.external_html = _paragraphs(get("internal")), _paragraphs(get("external"))
    ar.updated_at = clock.now
    session.add(ar)
    session.commit()
    return redirect(request, "/mail/options", toast="Automatic replies are on." if enabled else "Automatic replies are off.")


@router.post("/mail/options/rules")
async def add_rule(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    data = await request.form()
    get = lambda k: str(data.get(k) or "")  # noqa: E731
    box = box_of(session, user)
    folder = get("move_to_folder_id")
    form = RuleForm(name=get("name").strip(), from_contains=get("from_contains").strip(), subject_contains=get("subject_contains").strip(),
                    move_to_folder_id=int(folder) if folder.isdigit() else None, mark_read=bool(data.get("mark_read")), flag=bool(data.get("flag")))
    errors = validate_rule(session, box.id, form)
    if errors:
        return _page(request, session, box, clock, rule_errors=errors, rule_form=form, status_code=422)
    top = session.exec(select(func.max(Rule.position)).where(Rule.mailbox_id == box.id)).one() or 0
    session.add(Rule(mailbox_id=box.id, name=form.name, position=top + 1, from_contains=form.from_contains, subject_contains=form.subject_contains,
                     move_to_folder_id=form.move_to_folder_id, mark_read=form.mark_read, flag=form.flag))
    session.commit()
    return redirect(request, "/mail/options", toast=f"Rule \u201c{form.name}\u201d saved. It applies to new messages.")


@router.post("/mail/options/rules/{rule_id}/delete")
def delete_rule(request: Request, session: SessionDep, user: CurrentUser, rule_id: int):
    box = box_of(session, user)
    rule = session.get(Rule, rule_id)
    if rule is None or rule.mailbox_id != box.id:
        return redirect(request, "/mail/options", toast="This rule doesn't exist any more.", kind="error")
    session.delete(rule)
    session.commit()
    return redirect(request, "/mail/options", toast=f"Rule \u201c{rule.name}\u201d deleted.")


# -- Compose and reply: email signatures ----------------------------------------------------------------
def _signatures_page(request, session, box, *, editing=None, form=None, errors=None, default_errors=None, status_code=200):  # noqa: ANN001, ANN202
    form = form or {"name": editing.name if editing else "", "body": editing.body_html if editing else ""}
    return render(request, "mail/signatures.html", signatures=signatures_of(session, box), editing=editing, form=form, errors=errors or {},
                  default_errors=default_errors or {}, module="mail", status_code=status_code)


def _own_signature(session, box, sig_id: int) -> Signature | None:  # noqa: ANN001
    sig = session.get(Signature, sig_id)
    return sig if sig is not None and sig.mailbox_id == box.id else None


@router.get("/mail/options/signatures")
def signatures_page(request: Request, session: SessionDep, user: CurrentUser, edit: str = ""):
    box = box_of(session, user)
    editing = _own_signature(session, box, int(edit)) if edit.isdigit() else None
    if editing is None:  # a new one (the first signature opens as new as well)
        return _signatures_page(request, session, box)
    return _signatures_page(request, session, box, editing=editing)


@router.post("/mail/options/signatures")
@router.post("/mail/options/signatures/{sig_id:int}")
async def save_signature_route(request: Request, session: SessionDep, user: CurrentUser, sig_id: int | None = None):
    data = await request.form()
    box = box_of(session, user)
    existing = _own_signature(session, box, sig_id) if sig_id is not None else None
    if sig_id is not None and existing is None:
        return redirect(request, "/mail/options/signatures", toast="This signature doesn't exist any more.", kind="error")
    name, body = str(data.get("name") or ""), str(data.get("body") or "")
    sig, errors = save_signature(session, box, name, body, existing)
    if errors:
        return _signatures_page(request, session, box, editing=existing, form={"name": name, "body": body}, errors=errors, status_code=422)
    session.commit()
    return redirect(request, f"/mail/options/signatures?edit={sig.id}", toast=f"Signature \u201c{sig.name}\u201d saved.")


@router.post("/mail/options/signatures/{sig_id:int}/delete")
def delete_signature(request: Request, session: SessionDep, user: CurrentUser, sig_id: int):
    box = box_of(session, user)
    sig = _own_signature(session, box, sig_id)
    if sig is None:
        return redirect(request, "/mail/options/signatures", toast="This signature doesn't exist any more.", kind="error")
    session.delete(sig)
    session.commit()
    return redirect(request, "/mail/options/signatures", toast=f"Signature \u201c{sig.name}\u201d deleted.")


@router.post("/mail/options/signatures/defaults")
async def signature_defaults(request: Request, session: SessionDep, user: CurrentUser):
    data = await request.form()
    box = box_of(session, user)

    def pick(key: str) -> int | None | str:
        v = str(data.get(key) or "")
        return int(v) if v.isdigit() else (None if not v else "bad")

    new_id, reply_id = pick("default_new"), pick("default_reply")
    errors = set_defaults(session, box, -1 if new_id == "bad" else new_id, -1 if reply_id == "bad" else reply_id)
    if errors:
        return _signatures_page(request, session, box, default_errors=errors, status_code=422)
    session.commit()
    return redirect(request, "/mail/options/signatures", toast="Default signatures saved.")
