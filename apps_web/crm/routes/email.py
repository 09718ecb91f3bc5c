"""Email from a record page (the Activity tab's Email composer) and the To field's type-ahead."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from sqlalchemy import text

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect
from ..email.compose import EmailForm, mail_installed, send_email
from .activities import related_record
from .records import record_url, render_record

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
