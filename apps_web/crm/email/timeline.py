"""The emails a record's activity timeline shows: those sent from the CRM (``crm_email_message``)
and the world's mail to or from the record's people or about the record (the mail app's
``mail_message``, read in place: mail is never copied into CRM tables).

One message sent to several colleagues has a copy per mailbox; the timeline shows it once (the
copies share ``internet_message_id``), and a message sent from the CRM shows as the CRM's email.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from markupsafe import Markup
from sqlalchemy import text
from sqlmodel import Session, select

from ...ui.sanitize import sanitize
from ..models import Contact, EmailMessage

CAP = 300  # mail rows read per record (newest first): enough for any timeline page


@dataclass
class EmailEntry:
    key: str  # "crm-12" or "mail-345": unique on the page
    subject: str
    when: datetime
    from_name: str
    from_address: str
    to: list[tuple[str, str]]  # (name, address)
    cc: list[tuple[str, str]] = field(default_factory=list)
    body_html: str = ""
    source: str = "crm"  # crm | mail
    kind: str = "email"

    @property
    def body(self) -> Markup:
        """The body as the timeline shows it (customers' mail is untrusted: sanitised)."""
        return Markup(sanitize(self.body_html))


def _has_table(session: Session, name: str) -> bool:
    return session.execute(text("select 1 from sqlite_master where type = 'table' and name = :n"), {"n": name}).first() is not None


def _split(value: str) -> list[tuple[str, str]]:
    return [("", a.strip()) for a in (value or "").split(";") if a.strip()]


def _addresses(session: Session, object_key: str, record: Any) -> list[str]:
    if object_key in ("contact", "lead"):
        return [record.email.lower()] if record.email else []
    if object_key == "account":
        return [e.lower() for e in session.exec(select(Contact.email).where(Contact.account_id == record.id, Contact.email.is_not(None))).all()]
    return []


def crm_emails(session: Session, object_key: str, record: Any) -> list[EmailMessage]:
    E = EmailMessage
    if object_key in ("contact", "lead"):
        where = ((E.who_type == object_key) & (E.who_id == record.id)) | ((E.related_type == object_key) & (E.related_id == record.id))
    elif object_key == "account":
        where = (E.account_id == record.id) | ((E.what_type == "account") & (E.what_id == record.id))
    else:
        where = (E.what_type == object_key) & (E.what_id == record.id)
    return list(session.exec(select(E).where(where).order_by(E.message_date.desc(), E.id.desc())).all())


def _mail_rows(session: Session, object_key: str, record: Any, exclude: set[str]) -> list[EmailEntry]:
    if not _has_table(session, "mail_message"):
        return []
    # One id list per index (the record's id column, the sender, the recipients): an OR across
    # them would scan the whole table.
    parts, args = [], {"cap": CAP}
    column = {"opportunity": "crm_opportunity_id", "case": "crm_case_id", "account": "crm_account_id"}.get(object_key)
    if column:
        parts.append(f"select id from mail_message where {column} = :rid")
        args["rid"] = record.id
    addresses = _addresses(session, object_key, record)
    if addresses:
        marks = ", ".join(f":a{i}" for i in range(len(addresses)))
        args.update({f"a{i}": a for i, a in enumerate(addresses)})
        parts.append(f"select id from mail_message where from_address in ({marks})")  # the mail app stores addresses in lower case
        parts.append(f"select message_id from mail_recipient where address in ({marks})")
    if not parts:
        return []
    rows = session.execute(text(f"""
        select m.id, m.internet_message_id, m.subject, m.sent_at, m.from_name, m.from_address, m.unique_body_html
        from mail_message m
        where m.id in ({' union '.join(parts)}) and not m.is_draft and m.sent_at is not null and m.event_id is null
        order by m.sent_at desc, m.id limit :cap"""), args).all()
    seen = set(exclude)
    picked = []
    for mid, imid, subject, sent, from_name, from_address, body in rows:
        if imid in seen:
            continue  # another mailbox's copy of the same message, or sent from the CRM
        seen.add(imid)
        picked.append((mid, subject, sent, from_name, from_address, body))
    if not picked:
        return []
    ids = [p[0] for p in picked]
    recips: dict[int, list[tuple[str, str, str]]] = {}
    for mid, kind, address, name in session.execute(text(
            f"select message_id, kind, address, name from mail_recipient where message_id in ({', '.join(str(i) for i in ids)}) "
            "and kind != 'bcc' order by message_id, position, id")).all():
        recips.setdefault(mid, []).append((kind, address, name))
    out = []
    for mid, subject, sent, from_name, from_address, body in picked:
        r = recips.get(mid, [])
        when = sent if isinstance(sent, datetime) else datetime.fromisoformat(str(sent))
        out.append(EmailEntry(key=f"mail-{mid}", subject=subject or "(no subject)", when=when, from_name=from_name, from_address=from_address,
                              to=[(n, a) for k, a, n in r if k == "to"], cc=[(n, a) for k, a, n in r if k == "cc"], body_html=body, source="mail"))
    return out


def load_emails(session: Session, object_key: str, record: Any) -> list[EmailEntry]:
    """The record's emails, newest first."""
    crm = crm_emails(session, object_key, record)
    out = [EmailEntry(key=f"crm-{e.id}", subject=e.subject or "(no subject)", when=e.message_date, from_name=e.from_name, from_address=e.from_address,
                      to=_split(e.to_address), cc=_split(e.cc_address), body_html=e.html_body, source="crm") for e in crm]
    out += _mail_rows(session, object_key, record, {e.internet_message_id for e in crm if e.internet_message_id})
    names = _names(session, {a for e in out for _, a in e.to + e.cc if a})
    for e in out:
        e.to = [(n or names.get(a.lower(), ""), a) for n, a in e.to]
        e.cc = [(n or names.get(a.lower(), ""), a) for n, a in e.cc]
    out.sort(key=lambda e: (e.when, e.key), reverse=True)
    return out


def _names(session: Session, addresses: set[str]) -> dict[str, str]:
    """Display names of addresses stored bare (the CRM's EmailMessage keeps addresses only)."""
    if not addresses:
        return {}
    lowered = sorted({a.lower() for a in addresses})
    marks = ", ".join(f":a{i}" for i in range(len(lowered)))
    args = {f"a{i}": a for i, a in enumerate(lowered)}
    rows = session.execute(text(f"""
        select lower(email), coalesce(first_name || ' ', '') || last_name from crm_contact where lower(email) in ({marks})
        union all select lower(email), coalesce(first_name || ' ', '') || last_name from crm_lead where lower(email) in ({marks})
        union all select lower(email), first_name || ' ' || last_name from identity_user where lower(email) in ({marks})"""), args).all()
    out: dict[str, str] = {}
    for address, name in rows:
        out.setdefault(address, name)
    return out
