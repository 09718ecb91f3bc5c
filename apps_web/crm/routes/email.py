"""Email from a record page (the Activity tab's Email composer), the To field's type-ahead, and the
JSON API that sends the same way (``POST /api/emails``) and lists the templates."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import text
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...tools import json_body
from ...ui import redirect
from ..email.compose import EmailForm, mail_installed, merged_template, send_email
from ..models import EmailMessage, EmailTemplate
from ..objects import OBJECTS
from .activities import related_record
from .records import RECORD_OBJECTS, record_url, render_record

router = APIRouter()
PEOPLE_LIMIT = 10


def _domain(request: Request, user) -> str:  # noqa: ANN001
    meta = getattr(getattr(request.state, "world", None), "meta", None)
    return getattr(meta, "domain", "") or user.email.split("@", 1)[1]


@router.post("/emails/send", include_in_schema=False)
async def send(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    if not mail_installed():
        raise HTTPException(404, "Email isn't available: the mail app is not installed.")
    form = await request.form()
    related_type, record = related_record(session, form)
    template = str(form.get("template_id", "")).strip()
    email = EmailForm(to=str(form.get("to", "")), cc=str(form.get("cc", "")), bcc=str(form.get("bcc", "")),
                      subject=str(form.get("subject", "")), body=str(form.get("body", "")),
                      template_id=int(template) if template.isdigit() else None)
    result = send_email(session, user, clock, _domain(request, user), related_type, record, email)
    if result.errors:
        return render_record(request, session, user, clock, related_type, record, tab="activity", status_code=422,
                             composer={"kind": "email", "values": email.values(), "errors": result.errors, "origin": "composer"})
    return redirect(request, record_url(related_type, record.id, "activity"), toast=f'Email "{result.email.subject}" was sent.')


@router.get("/emails/templates/{template_id:int}", include_in_schema=False)
def template(template_id: int, related_type: str, related_id: int, session: SessionDep, user: CurrentUser, to: str = ""):
    """A template merged for a record and its recipient (the composer's *Insert template*)."""
    if related_type not in RECORD_OBJECTS:
        raise HTTPException(404, "Email templates are inserted on an account, contact, lead, opportunity or case.")
    obj = OBJECTS[related_type]
    record = session.get(obj.model, related_id) if -2**63 <= related_id < 2**63 else None
    found = session.get(EmailTemplate, template_id) if -2**63 <= template_id < 2**63 else None
    if record is None or found is None or not found.is_active:
        raise HTTPException(404, "This template or record doesn't exist or has been deleted.")
    return merged_template(session, user, related_type, record, found, to)


@router.get("/emails/people", include_in_schema=False)
def people(session: SessionDep, user: CurrentUser, q: str = ""):
    """Contacts, leads and colleagues whose name or address contains ``q`` (the To, Cc and Bcc type-ahead)."""
    q = q.strip().lower()
    if len(q) < 2:
        return []
    like = f"%{q}%"
    rows = session.execute(text("""
        select * from (
          select 1 as k, coalesce(c.first_name || ' ', '') || c.last_name as name, lower(c.email) as address, 'Contact' || coalesce(' · ' || a.name, '') as detail
            from crm_contact c left join crm_account a on a.id = c.account_id
            where c.email is not null and (lower(coalesce(c.first_name || ' ', '') || c.last_name) like :q or lower(c.email) like :q)
          union all
          select 2, coalesce(l.first_name || ' ', '') || l.last_name, lower(l.email), 'Lead · ' || l.company
            from crm_lead l where l.email is not null and l.converted_at is null
              and (lower(coalesce(l.first_name || ' ', '') || l.last_name) like :q or lower(l.email) like :q)
          union all
          select 3, u.first_name || ' ' || u.last_name, lower(u.email), 'User' || case when u.title != '' then ' · ' || u.title else '' end
            from identity_user u where u.active and (lower(u.first_name || ' ' || u.last_name) like :q or lower(u.email) like :q)
        ) order by k, name, address limit :n"""), {"q": like, "n": PEOPLE_LIMIT}).all()
    return [{"label": f"{name} <{address}>", "name": name, "address": address, "sublabel": detail} for _, name, address, detail in rows]


# -- JSON API (and so the tools crm_send_email and crm_list_email_templates) -------------------------------
api = APIRouter(prefix="/api", tags=["crm"])
ADDRESSES = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
             "description": "addresses as a list, or one text separated by ';' (\"Ann Lee <ann@x.com>; bob@y.com\")"}
SEND_BODY = json_body("EmailSend", {
    "related_type": {"type": "string", "enum": list(RECORD_OBJECTS), "description": "the record the email is sent from"},
    "related_id": {"type": "integer", "description": "its id"},
    "to": ADDRESSES, "cc": ADDRESSES, "bcc": ADDRESSES,
    "subject": {"type": "string", "maxLength": 255, "description": "may hold merge fields such as {!Contact.FirstName}"},
    "body": {"type": "string", "description": "HTML; merge fields are merged when sent"},
    "template_id": {"anyOf": [{"type": "integer"}, {"type": "null"}],
                    "description": "an email template: its subject and body are used where none is given"},
}, ["related_type", "related_id", "to"])


def _addresses(value: Any) -> str | None:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "; ".join(value)
    return None


def _email_public(e: EmailMessage) -> dict[str, Any]:
    keys = ("id", "subject", "html_body", "text_body", "from_address", "from_name", "to_address", "cc_address", "bcc_address", "status",
            "incoming", "message_date", "related_type", "related_id", "who_type", "who_id", "what_type", "what_id", "account_id",
            "template_id", "internet_message_id", "created_by_id")
    return {k: (getattr(e, k).isoformat() if k == "message_date" else getattr(e, k)) for k in keys}


@api.post("/emails", status_code=201, summary="Send an email from a record", name="api_send_email", openapi_extra=SEND_BODY)
def api_send(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, payload: Annotated[Any, Body()] = None):
    """Send an email from an account, contact, lead, opportunity or case, as the record's Email
    composer does: delivered through the mail app (the sender's Sent Items, colleagues' inboxes) and
    logged on the record with its WhoId and WhatId. Errors come back per field (422)."""
    if not mail_installed():
        raise HTTPException(404, "Email isn't available: the mail app is not installed.")
    if not isinstance(payload, dict):
        return JSONResponse({"detail": "Send a JSON object.", "errors": {"__all__": "Send a JSON object."}}, status_code=422)
    errors: dict[str, str] = {}
    unknown = [k for k in payload if k not in SEND_BODY["requestBody"]["content"]["application/json"]["schema"]["properties"]]
    for k in unknown:
        errors[k] = "Unknown field."
    related_type, related_id = payload.get("related_type"), payload.get("related_id")
    if related_type not in RECORD_OBJECTS:
        errors["related_type"] = f"Choose one of {', '.join(RECORD_OBJECTS)}."
    if not isinstance(related_id, int) or isinstance(related_id, bool):
        errors["related_id"] = "Give the record's id (a number)."
    texts = {k: _addresses(payload.get(k)) for k in ("to", "cc", "bcc")}
    for k, v in texts.items():
        if v is None:
            errors[k] = "Give addresses as a list of text, or one text separated by ';'."
    for k in ("subject", "body"):
        if payload.get(k) is not None and not isinstance(payload.get(k), str):
            errors[k] = "Give text."
    template_id = payload.get("template_id")
    if template_id is not None and (not isinstance(template_id, int) or isinstance(template_id, bool)):
        errors["template_id"] = "Give a template's id (a number), or null."
    if errors:
        return JSONResponse({"detail": "The email wasn't sent: check " + ", ".join(errors) + ".", "errors": errors}, status_code=422)
    obj = OBJECTS[related_type]
    record = session.get(obj.model, related_id) if -2**63 <= related_id < 2**63 else None
    if record is None:
        raise HTTPException(404, f"This {obj.label.lower()} doesn't exist or has been deleted.")
    subject, body = payload.get("subject") or "", payload.get("body") or ""
    template = session.get(EmailTemplate, template_id) if template_id is not None and -2**63 <= template_id < 2**63 else None
    if template is not None:
        subject, body = subject or template.subject, body or template.html_body
    form = EmailForm(to=texts["to"], cc=texts["cc"], bcc=texts["bcc"], subject=subject, body=body, template_id=template_id)
    result = send_email(session, user, clock, _domain(request, user), related_type, record, form)
    if result.errors:
        return JSONResponse({"detail": "The email wasn't sent: check " + ", ".join(result.errors) + ".", "errors": result.errors}, status_code=422)
    return _email_public(result.email)


@api.get("/email-templates", summary="List the email templates", name="api_list_email_templates")
def api_templates(session: SessionDep, user: CurrentUser):
    """The active email templates, with their merge fields unmerged (``{!Contact.FirstName}``)."""
    rows = session.exec(select(EmailTemplate).where(EmailTemplate.is_active.is_(True)).order_by(EmailTemplate.folder, EmailTemplate.name)).all()
    return [{"id": t.id, "name": t.name, "folder": t.folder, "related_object": t.related_object, "subject": t.subject,
             "html_body": t.html_body, "description": t.description} for t in rows]


router.include_router(api)
