"""Mailbox options that act on delivery: automatic replies (out of office) and inbox rules.

Both are applied by :func:`on_delivery` whenever a message lands in a mailbox of this world (a
colleague's mail, a meeting message), so a colleague simulation that sends mail sees the same
behaviour as a person would. Rules run first, in order; then, if automatic replies are on at the
world clock's time, the sender gets one automatic reply (once per sender, internal senders only:
customers receive nothing in this world).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import NaiveDatetime
from sqlmodel import Field, Session, SQLModel, select

MAX_TEXT = 4000
AUTO_PREFIX = "Automatic reply: "


class AutoReply(SQLModel, table=True):
    __tablename__ = "mail_auto_reply"
    id: int | None = Field(default=None, primary_key=True)
    mailbox_id: int = Field(foreign_key="mail_mailbox.id", index=True, unique=True)
    enabled: bool = False
    scheduled: bool = False  # only between start and end (else: until turned off)
    start: NaiveDatetime | None = None
    end: NaiveDatetime | None = None
    internal_html: str = ""
    external_html: str = ""
    updated_at: NaiveDatetime | None = None  # bookkeeping: verifiers ignore it


class Rule(SQLModel, table=True):
    __tablename__ = "mail_rule"
    id: int | None = Field(default=None, primary_key=True)
    mailbox_id: int = Field(foreign_key="mail_mailbox.id", index=True)
    name: str = Field(max_length=120)
    position: int = 0
    enabled: bool = True
    from_contains: str = Field(default="", max_length=254)  # matches the sender's address or name
    subject_contains: str = Field(default="", max_length=255)
    move_to_folder_id: int | None = Field(default=None, foreign_key="mail_folder.id")
    mark_read: bool = False
    flag: bool = False


def active_reply(ar: AutoReply | None, now: datetime) -> bool:
    if ar is None or not ar.enabled:
        return False
    return not ar.scheduled or (ar.start is not None and ar.end is not None and ar.start <= now < ar.end)


@dataclass
class RuleForm:
    name: str = ""
    from_contains: str = ""
    subject_contains: str = ""
    move_to_folder_id: int | None = None
    mark_read: bool = False
    flag: bool = False


def validate_rule(session: Session, box_id: int, form: RuleForm) -> dict[str, str]:
    from .models import Folder

    errors: dict[str, str] = {}
    if not form.name.strip():
        errors["name"] = "Enter a name for the rule."
    elif len(form.name) > 120:
        errors["name"] = "A rule name can be at most 120 characters."
    if not form.from_contains.strip() and not form.subject_contains.strip():
        errors["condition"] = "Add a condition: the sender, or words in the subject."
    if form.move_to_folder_id is None and not form.mark_read and not form.flag:
        errors["action"] = "Add an action: move to a folder, mark as read, or flag."
    if form.move_to_folder_id is not None:
        folder = session.get(Folder, form.move_to_folder_id)
        if folder is None or folder.mailbox_id != box_id or folder.kind in ("drafts", "sent"):
            errors["action"] = "Choose a folder of your mailbox to move messages to."
    return errors


def validate_auto_reply(enabled: bool, scheduled: bool, start: datetime | None, end: datetime | None, internal: str) -> dict[str, str]:
    errors: dict[str, str] = {}
    if enabled and scheduled:
        if start is None or end is None:
            errors["time"] = "Enter the start and end of the period to send replies during."
        elif end <= start:
            errors["time"] = "The end time must be after the start time."
    if enabled and not internal.strip():
        errors["internal"] = "Add a message to send to people inside your organization."
    if len(internal) > MAX_TEXT:
        errors["internal"] = f"The message can be at most {MAX_TEXT} characters."
    return errors


def _matches(rule: Rule, message) -> bool:  # noqa: ANN001
    who = f"{message.from_name} {message.from_address}".lower()
    if rule.from_contains.strip() and rule.from_contains.strip().lower() not in who:
        return False
    if rule.subject_contains.strip() and rule.subject_contains.strip().lower() not in (message.subject or "").lower():
        return False
    return True


def on_delivery(session: Session, box, message, now: datetime) -> tuple | None:  # noqa: ANN001
    """Apply ``box``'s rules to the delivered ``message``; return (box, sender address, sender name,
    subject, body) when an automatic reply is due (the caller sends it after the delivery)."""
    for rule in session.exec(select(Rule).where(Rule.mailbox_id == box.id, Rule.enabled.is_(True)).order_by(Rule.position, Rule.id)).all():
        if _matches(rule, message):
            if rule.move_to_folder_id:
                message.folder_id = rule.move_to_folder_id
            if rule.mark_read:
                message.is_read = True
            if rule.flag:
                message.is_flagged = True
    ar = session.exec(select(AutoReply).where(AutoReply.mailbox_id == box.id)).first()
    if not active_reply(ar, now) or (message.subject or "").startswith(AUTO_PREFIX) or message.from_address.lower() == box.address.lower():
        return None
    from .models import Folder, Message, Recipient

    sent = select(Folder.id).where(Folder.mailbox_id == box.id, Folder.kind == "sent")
    already = session.exec(select(Message.id).join(Recipient, Recipient.message_id == Message.id).where(
        Message.mailbox_id == box.id, Message.folder_id.in_(sent), Message.subject.startswith(AUTO_PREFIX),
        Recipient.address == message.from_address.lower(), Message.sent_at >= (ar.start if ar.scheduled and ar.start else datetime.min))).first()
    if already is not None:  # Outlook answers each sender once per period
        return None
    return (box, message.from_address, message.from_name, AUTO_PREFIX + (message.subject or ""), ar.internal_html)
