"""The Email composer of a record: who it goes to by default, the templates merged for the record,
and Send (through the mail app's delivery; the CRM's EmailMessage written beside it).

The mail app is the only delivery path: the sender's copy lands in their Sent Items and every
colleague among the recipients gets a copy in their Inbox, exactly as when writing from Outlook.
Without the mail app installed the composer is not offered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from ... import registry
from ...ui.sanitize import sanitize
from ...identity.models import User
from ...world import WorldClock
from ..common import stamp
from ..models import Account, Contact, EmailMessage, EmailTemplate, Lead, OpportunityContactRole
from .merge import MergeContext, merge

MAX_SUBJECT = 255
# Which templates a record offers first: its own object's, then the general ones.
TEMPLATE_OBJECTS = {"opportunity": ("opportunity", "contact", "account"), "contact": ("contact", "account"), "account": ("account", "contact"),
                    "lead": ("lead",), "case": ("case", "contact")}


def mail_installed() -> bool:
    return registry.get("mail") is not None


@dataclass
class EmailForm:
    to: str = ""
    cc: str = ""
    bcc: str = ""
    subject: str = ""
    body: str = ""  # HTML from the editor (sanitised by the mail app when stored)
    template_id: int | None = None

    def values(self) -> dict[str, Any]:
        return {"to": self.to, "cc": self.cc, "bcc": self.bcc, "subject": self.subject, "body": self.body,
                "template_id": self.template_id or ""}


@dataclass
class Sent:
    email: EmailMessage | None = None
    errors: dict[str, str] = field(default_factory=dict)


def person_label(name: str, address: str) -> str:
    return f"{name} <{address.lower()}>"


def default_recipient(session: Session, object_key: str, record: Any) -> Contact | Lead | None:
    """Who the To field starts with: the contact or lead itself, a deal's primary contact (else its
    first contact role), a case's contact. An account starts empty, as in Salesforce."""
    if object_key in ("contact", "lead"):
        return record if record.email else None
    if object_key == "opportunity":
        role = session.exec(select(OpportunityContactRole).where(OpportunityContactRole.opportunity_id == record.id)
                            .order_by(OpportunityContactRole.is_primary.desc(), OpportunityContactRole.id)).first()
        contact = session.get(Contact, role.contact_id) if role else None
        return contact if contact is not None and contact.email else None
    if object_key == "case" and record.contact_id:
        contact = session.get(Contact, record.contact_id)
        return contact if contact is not None and contact.email else None
    return None


def who_of(session: Session, addresses: list[str], object_key: str, record: Any) -> Contact | Lead | None:
    """The WhoId: the first To address that is a contact (else a lead); on a contact's or lead's own
    page, that record when it is among the recipients."""
    lowered = [a.lower() for a in addresses]
    if object_key in ("contact", "lead") and record.email and record.email.lower() in lowered:
        return record
    for address in lowered:
        contact = session.exec(select(Contact).where(func.lower(Contact.email) == address).order_by(Contact.id)).first()
        if contact is not None:
            return contact
        lead = session.exec(select(Lead).where(func.lower(Lead.email) == address, Lead.converted_at.is_(None)).order_by(Lead.id)).first()
        if lead is not None:
            return lead
    return None


def merge_context(session: Session, user: User, object_key: str, record: Any, who: Contact | Lead | None) -> MergeContext:
    ctx = MergeContext(user=user)
    if isinstance(who, Contact):
        ctx.contact = who
    elif isinstance(who, Lead):
        ctx.lead = who
    if object_key == "opportunity":
        ctx.opportunity = record
    elif object_key == "case":
        ctx.case = record
    elif object_key == "account":
        ctx.account = record
    account_id = getattr(record, "account_id", None) if object_key != "account" else record.id
    if account_id is None and ctx.contact is not None:
        account_id = ctx.contact.account_id
    if ctx.account is None and account_id:
        ctx.account = session.get(Account, account_id)
    if ctx.case is not None and ctx.contact is None and ctx.case.contact_id:
        ctx.contact = session.get(Contact, ctx.case.contact_id)
    return ctx


def what_of(object_key: str, record: Any) -> tuple[str | None, int | None]:
    """The WhatId: the record itself when it is an account, opportunity or case; a person has none."""
    return (object_key, record.id) if object_key in ("account", "opportunity", "case") else (None, None)


def account_of(object_key: str, record: Any, who: Contact | Lead | None) -> int | None:
    if object_key == "account":
        return record.id
    if object_key in ("opportunity", "case", "contact"):
        return record.account_id or (who.account_id if isinstance(who, Contact) else None)
    return who.account_id if isinstance(who, Contact) else None


def templates_for(session: Session, object_key: str) -> list[EmailTemplate]:
    rows = session.exec(select(EmailTemplate).where(EmailTemplate.is_active.is_(True)).order_by(EmailTemplate.folder, EmailTemplate.name)).all()
    order = TEMPLATE_OBJECTS.get(object_key, ())
    return sorted(rows, key=lambda t: (order.index(t.related_object) if t.related_object in order else len(order), t.folder, t.name))


def merged_template(session: Session, user: User, object_key: str, record: Any, template: EmailTemplate, to: str = "") -> dict[str, Any]:
    """A template merged for the record and the person it goes to (the first To address that is a
    contact or lead, else the record's default recipient): what *Insert template* fills in."""
    from ...mail.compose import split_addresses

    who = who_of(session, [a for _, a in split_addresses(to)], object_key, record) or default_recipient(session, object_key, record)
    ctx = merge_context(session, user, object_key, record, who)
    return {"id": template.id, "name": template.name, "subject": merge(template.subject, ctx),
            "body": sanitize(merge(template.html_body, ctx, html=True))}


def composer_defaults(session: Session, user: User, object_key: str, record: Any) -> dict[str, Any]:
    who = default_recipient(session, object_key, record)
    return {"from": person_label(user.name, user.email), "to": person_label(who.name, who.email) + "; " if who else ""}


def send_email(session: Session, user: User, clock: WorldClock, domain: str, object_key: str, record: Any, form: EmailForm) -> Sent:
    """Validate, merge, deliver through the mail app and write the EmailMessage; errors per field."""
    from ...mail.compose import ComposeForm, send, split_addresses, validate
    from ...mail.delivery import html_to_text
    from ...mail.mailbox import mailbox_for

    errors: dict[str, str] = {}
    template = None
    if form.template_id is not None:
        template = session.get(EmailTemplate, form.template_id)
        if template is None or not template.is_active:
            errors["template_id"] = "Choose a template from the list."
    if not form.subject.strip():
        errors["subject"] = "Enter a subject."
    elif len(form.subject) > MAX_SUBJECT:
        errors["subject"] = f"The subject can be at most {MAX_SUBJECT} characters."
    to = [a for _, a in split_addresses(form.to)]
    who = who_of(session, to, object_key, record)
    ctx = merge_context(session, user, object_key, record, who)
    subject, body = merge(form.subject.strip(), ctx), merge(form.body, ctx, html=True)
    account_id = account_of(object_key, record, who)
    opp_id = record.id if object_key == "opportunity" else None
    case_id = record.id if object_key == "case" else None
    mail_form = ComposeForm(to=form.to, cc=form.cc, bcc=form.bcc, subject=subject, body=body, confirm_no_subject=True,
                            crm_account_id=account_id, crm_opportunity_id=opp_id, crm_case_id=case_id)
    problems = validate(session, mail_form, domain, sending=True)
    if not to and "to" not in problems.errors:
        problems.errors["to"] = "Add at least one recipient in To."
    for key, message in problems.errors.items():
        errors.setdefault(key, message)
    if errors:
        return Sent(errors=errors)
    box = mailbox_for(session, user)
    copy = send(session, box, user, mail_form, clock, domain)
    what_type, what_id = what_of(object_key, record)

    def joined(value: str) -> str:
        return "; ".join(a.lower() for _, a in split_addresses(value))

    email = EmailMessage(
        subject=copy.subject, html_body=copy.unique_body_html, text_body=html_to_text(copy.unique_body_html), from_address=box.address,
        from_name=box.display_name, to_address=joined(form.to), cc_address=joined(form.cc), bcc_address=joined(form.bcc), status="Sent",
        incoming=False, message_date=clock.now, related_type=object_key, related_id=record.id,
        who_type="contact" if isinstance(who, Contact) else ("lead" if isinstance(who, Lead) else None), who_id=who.id if who else None,
        what_type=what_type, what_id=what_id, account_id=account_id, template_id=template.id if template else None,
        internet_message_id=copy.internet_message_id,
    )
    stamp(email, user, clock, created=True)
    session.add(email)
    session.commit()
    return Sent(email=email)
