"""Composing: the form's fields, drafts, and Send (validation, the sender's copy in Sent Items, one
copy in the Inbox of every internal recipient; external addresses receive nothing here).

The web form and the JSON API both go through :func:`validate`, :func:`save_draft` and :func:`send`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlmodel import Session, select

from ..identity.models import User
from ..world import WorldClock
from .calendar.models import Room
from .delivery import EVERYONE_LOCAL, quote_header, text_preview
from .html import sanitize
from .mailbox import directory, folder_of_kind, own_message, recipients_of, shared_boxes
from .models import Attachment, Mailbox, Message, Recipient
from .options import on_delivery

EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
NAMED = re.compile(r"^\s*\"?([^<\"]*?)\"?\s*<([^>]+)>\s*$")
MAX_SUBJECT = 255
MODES = ("new", "reply", "replyall", "forward")


@dataclass
class ComposeForm:
    to: str = ""
    cc: str = ""
    bcc: str = ""
    subject: str = ""
    body: str = ""  # HTML from the editor (sanitised before it is stored)
    mode: str = "new"
    source_id: int | None = None  # the message replied to or forwarded
    draft_id: int | None = None
    attachment_ids: list[int] = field(default_factory=list)  # attachments kept (of the source or the draft)
    confirm_no_subject: bool = False
    from_address: str = ""  # the From picker: the user's own address or a shared mailbox they may send as
    # What a new message is about in the CRM (set by the CRM's email composer; a reply or forward
    # takes its source's).
    crm_account_id: int | None = None
    crm_opportunity_id: int | None = None
    crm_case_id: int | None = None


SEND_AS_DENIED = ("You can't send a message on behalf of \u201c{address}\u201d unless you have permission to do so. Make sure you're "
                  "sending from the correct address, or ask your administrator for Send As permission.")


def sender_box(session: Session, user: User, box: Mailbox, form: ComposeForm) -> Mailbox | None:
    """The mailbox the message goes out from: the From address when the user may send as it (their
    own, or a shared mailbox with Send As); None when they may not."""
    address = (form.from_address or box.address).strip().lower()
    own = session.exec(select(Mailbox).where(Mailbox.user_id == user.id)).first()
    if own is not None and address == own.address.lower():
        return own
    return next((b for b in shared_boxes(session, user, send_as=True) if b.address.lower() == address), None)


def from_choices(session: Session, user: User, own: Mailbox) -> list[Mailbox]:
    """What the From picker lists: the user's own address, then the shared mailboxes they may send as."""
    return [own] + shared_boxes(session, user, send_as=True)


@dataclass
class Problems:
    errors: dict[str, str] = field(default_factory=dict)
    needs_subject_confirm: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors and not self.needs_subject_confirm


def split_addresses(value: str) -> list[tuple[str, str]]:
    """``"Ann Lee <ann@x.com>; bob@y.com"`` -> [("Ann Lee", "ann@x.com"), ("", "bob@y.com")] (as typed)."""
    out = []
    for token in re.split(r"[;,]", value or ""):
        token = token.strip()
        if not token:
            continue
        m = NAMED.match(token)
        out.append((m.group(1).strip(), m.group(2).strip()) if m else ("", token))
    return out


def mailboxes_by_address(session: Session) -> dict[str, Mailbox]:
    return {b.address.lower(): b for b in session.exec(select(Mailbox)).all()}


def validate(session: Session, form: ComposeForm, domain: str, *, sending: bool, user: User | None = None,
             box: Mailbox | None = None) -> Problems:
    problems = Problems()
    if user is not None and box is not None and sender_box(session, user, box, form) is None:
        address = form.from_address.strip()
        problems.errors["from"] = (f"\u201c{address}\u201d isn't a valid email address. Pick an address from the list." if not EMAIL.match(address)
                                   else SEND_AS_DENIED.format(address=address))
    boxes = mailboxes_by_address(session)
    rooms = {a.lower() for a in session.exec(select(Room.address)).all()}  # rooms have addresses too (and take no mail here)
    everyone = f"{EVERYONE_LOCAL}@{domain}".lower()
    count = 0
    for name in ("to", "cc", "bcc"):
        for _, address in split_addresses(getattr(form, name)):
            count += 1
            if not EMAIL.match(address):
                problems.errors.setdefault(name, f"\u201c{address}\u201d isn't a valid email address. Check the address, or pick the person from the suggestions.")
            elif sending and address.lower().endswith("@" + domain.lower()) and address.lower() not in boxes and address.lower() != everyone and address.lower() not in rooms:
                problems.errors.setdefault(name, f"We couldn't find \u201c{address}\u201d in your organization's directory. Check the address, or pick the person from the suggestions.")
    if sending and count == 0:
        problems.errors["to"] = "This message must have at least one recipient."
    if len(form.subject) > MAX_SUBJECT:
        problems.errors["subject"] = f"The subject can be at most {MAX_SUBJECT} characters."
    if form.mode not in MODES:
        problems.errors["mode"] = f"Unknown compose mode \u201c{form.mode}\u201d (use {', '.join(MODES)})."
    if sending and not problems.errors and not form.subject.strip() and not form.confirm_no_subject:
        problems.needs_subject_confirm = True
    return problems


def _display(session: Session, address: str, typed: str, boxes: dict[str, Mailbox]) -> str:
    if typed:
        return typed
    box = boxes.get(address.lower())
    if box is not None:
        return box.display_name
    found = [p for p in directory(session, address, 3) if p["address"] == address.lower()]
    return found[0]["name"] if found else address


def _set_recipients(session: Session, message: Message, form: ComposeForm, boxes: dict[str, Mailbox], *, include_bcc: bool = True) -> None:
    for old in session.exec(select(Recipient).where(Recipient.message_id == message.id)).all():
        session.delete(old)
    pos = 0
    for kind in ("to", "cc", "bcc"):
        if kind == "bcc" and not include_bcc:
            continue
        for typed, address in split_addresses(getattr(form, kind)):
            session.add(Recipient(message_id=message.id, kind=kind, address=address.lower(), name=_display(session, address, typed, boxes), position=pos))
            pos += 1


def _quoted(session: Session, source: Message) -> str:
    rec = recipients_of(session, [source.id]).get(source.id, [])
    return quote_header(source.from_name, source.from_address, source.sent_at,
                        [r.name or r.address for r in rec if r.kind == "to"], [r.name or r.address for r in rec if r.kind == "cc"], source.subject) + source.body_html


def _kept_attachments(session: Session, form: ComposeForm, box: Mailbox) -> list[Attachment]:
    if not form.attachment_ids:
        return []
    rows = session.exec(select(Attachment).where(Attachment.id.in_(form.attachment_ids))).all()
    allowed = {m for m in (form.source_id, form.draft_id) if m}
    out = []
    for a in rows:
        owner = session.get(Message, a.message_id)
        if owner is not None and owner.mailbox_id == box.id and owner.id in allowed:
            out.append(a)
    return out


def copy_attachment(a: Attachment, message_id: int) -> Attachment:
    """The same file on another message copy (a forward, a recipient's copy): bytes and cloud link kept."""
    return Attachment(message_id=message_id, name=a.name, size=a.size, content_type=a.content_type, data=a.data,
                      drive_item_id=a.drive_item_id, is_link=a.is_link)


def _fill(session: Session, box: Mailbox, user: User, form: ComposeForm, clock: WorldClock, message: Message | None) -> Message:
    """Write the form into ``message`` (a draft), creating it when needed."""
    source = own_message(session, box, form.source_id) if form.source_id else None
    unique = sanitize(form.body)
    if message is None:
        message = Message(mailbox_id=box.id, folder_id=folder_of_kind(session, box, "drafts").id, conversation_id="", internet_message_id="",
                          from_address=box.address, from_name=box.display_name, is_draft=True, is_read=True, created_at=clock.now)
    sender = sender_box(session, user, box, form)
    if sender is not None:
        message.from_address, message.from_name = sender.address, sender.display_name
    message.subject = form.subject.strip()
    message.unique_body_html = unique
    message.body_html = unique + (_quoted(session, source) if source else "")
    message.preview = text_preview(unique)
    message.updated_at = clock.now
    if source is None and (form.crm_account_id or form.crm_opportunity_id or form.crm_case_id):
        message.crm_account_id, message.crm_opportunity_id, message.crm_case_id = form.crm_account_id, form.crm_opportunity_id, form.crm_case_id
    if source is not None:
        message.crm_account_id, message.crm_opportunity_id, message.crm_case_id = source.crm_account_id, source.crm_opportunity_id, source.crm_case_id
        if form.mode == "forward":
            message.forward_of_message_id = source.id
        else:
            message.reply_to_message_id = source.id
            message.in_reply_to = source.internet_message_id
            message.conversation_id = source.conversation_id
    session.add(message)
    session.flush()
    if not message.conversation_id:
        message.conversation_id = f"conv-m{message.id}"
    if not message.internet_message_id:
        message.internet_message_id = f"<m{message.id}.{clock.now:%Y%m%d%H%M%S}@{box.address.split('@')[1]}>"
    # Attachments: the draft owns copies of what it keeps from the source.
    kept = _kept_attachments(session, form, box)
    current = session.exec(select(Attachment).where(Attachment.message_id == message.id)).all()
    keep_ids = {a.id for a in kept}
    for a in current:
        if a.id not in keep_ids:
            session.delete(a)
    have = {(a.name, a.size) for a in current if a.id in keep_ids}
    for a in kept:
        if a.message_id != message.id and (a.name, a.size) not in have:
            session.add(copy_attachment(a, message.id))
    session.flush()
    message.has_attachments = session.exec(select(Attachment.id).where(Attachment.message_id == message.id)).first() is not None
    return message


def save_draft(session: Session, box: Mailbox, user: User, form: ComposeForm, clock: WorldClock) -> Message:
    draft = own_message(session, box, form.draft_id) if form.draft_id else None
    if draft is not None and not draft.is_draft:
        draft = None  # already sent (a second tab): save as a new draft
    message = _fill(session, box, user, form, clock, draft)
    _set_recipients(session, message, form, mailboxes_by_address(session))
    session.commit()
    return message


def send(session: Session, box: Mailbox, user: User, form: ComposeForm, clock: WorldClock, domain: str) -> Message:
    """Send a validated form: returns the sender's copy (in Sent Items)."""
    draft = own_message(session, box, form.draft_id) if form.draft_id else None
    if draft is not None and not draft.is_draft:
        draft = None
    boxes = mailboxes_by_address(session)
    message = _fill(session, box, user, form, clock, draft)
    sender = sender_box(session, user, box, form) or box  # validated before: the caller checked Send As
    message.is_draft = False
    message.mailbox_id = sender.id
    message.from_address, message.from_name = sender.address, sender.display_name
    message.folder_id = folder_of_kind(session, sender, "sent").id
    message.sent_at = message.received_at = clock.now
    _set_recipients(session, message, form, boxes)
    session.flush()
    attachments = session.exec(select(Attachment).where(Attachment.message_id == message.id)).all()
    everyone = f"{EVERYONE_LOCAL}@{domain}".lower()
    delivered = {sender.address.lower()}
    replies = []
    for kind in ("to", "cc", "bcc"):
        for _, address in split_addresses(getattr(form, kind)):
            targets = [a for a, b in boxes.items() if b.kind != "shared"] if address.lower() == everyone else [address.lower()]
            for target in targets:
                if target in delivered or target not in boxes:
                    continue  # external addresses leave the company: nothing to deliver here
                delivered.add(target)
                reply = _deliver(session, boxes[target], message, form, attachments, boxes, clock)
                if reply is not None:
                    replies.append(reply)
    session.commit()
    for to_box, address, name, subject, body in replies:  # automatic replies go out once the delivery is done
        owner = session.get(User, to_box.user_id)
        send(session, to_box, owner, ComposeForm(to=f"{name} <{address}>" if name else address, subject=subject, body=body,
                                                 confirm_no_subject=True), clock, domain)
    return message


def _deliver(session: Session, to_box: Mailbox, message: Message, form: ComposeForm, attachments, boxes, clock: WorldClock):  # noqa: ANN202
    copy = Message(
        mailbox_id=to_box.id, folder_id=folder_of_kind(session, to_box, "inbox").id, conversation_id=message.conversation_id,
        internet_message_id=message.internet_message_id, in_reply_to=message.in_reply_to, subject=message.subject,
        body_html=message.body_html, unique_body_html=message.unique_body_html, preview=message.preview,
        from_address=message.from_address, from_name=message.from_name, sent_at=message.sent_at, received_at=clock.now,
        is_read=False, importance=message.importance, has_attachments=bool(attachments), crm_account_id=message.crm_account_id,
        crm_opportunity_id=message.crm_opportunity_id, crm_case_id=message.crm_case_id, created_at=clock.now, updated_at=clock.now,
    )
    session.add(copy)
    session.flush()
    _set_recipients(session, copy, form, boxes, include_bcc=False)
    for a in attachments:
        session.add(copy_attachment(a, copy.id))
    return on_delivery(session, to_box, copy, clock.now)


def prefill(session: Session, box: Mailbox, source: Message, mode: str) -> ComposeForm:
    """The form Reply, Reply all and Forward open with."""
    rec = recipients_of(session, [source.id]).get(source.id, [])
    prefix = "FW: " if mode == "forward" else "RE: "
    subject = source.subject
    for p in ("RE: ", "Re: ", "FW: ", "Fw: ", "FWD: ", "Fwd: "):
        if subject.startswith(p):
            subject = subject[len(p):]
            break
    form = ComposeForm(subject=prefix + subject, mode=mode, source_id=source.id, from_address=box.address)
    me = box.address.lower()

    def fmt(name: str, address: str) -> str:
        return f"{name} <{address}>" if name and name != address else address

    if mode == "forward":
        form.attachment_ids = [a.id for a in session.exec(select(Attachment).where(Attachment.message_id == source.id).order_by(Attachment.id)).all()]
        return form
    if source.from_address.lower() == me:  # replying to one's own sent message: write to its recipients again
        to = [fmt(r.name, r.address) for r in rec if r.kind == "to"]
    else:
        to = [fmt(source.from_name, source.from_address)]
    cc = []
    if mode == "replyall":
        taken = {source.from_address.lower(), me}
        for r in rec:
            if r.kind in ("to", "cc") and r.address.lower() not in taken and fmt(r.name, r.address) not in to:
                taken.add(r.address.lower())
                (to if r.kind == "to" and source.from_address.lower() == me else cc).append(fmt(r.name, r.address))
    form.to = "; ".join(to) + ("; " if to else "")
    form.cc = "; ".join(cc) + ("; " if cc else "")
    return form


def form_from_draft(session: Session, draft: Message) -> ComposeForm:
    rec = recipients_of(session, [draft.id]).get(draft.id, [])

    def join(kind: str) -> str:
        items = [f"{r.name} <{r.address}>" if r.name and r.name != r.address else r.address for r in rec if r.kind == kind]
        return "; ".join(items) + ("; " if items else "")

    source_id = draft.reply_to_message_id or draft.forward_of_message_id
    mode = "forward" if draft.forward_of_message_id else ("reply" if draft.reply_to_message_id else "new")
    return ComposeForm(to=join("to"), cc=join("cc"), bcc=join("bcc"), subject=draft.subject, body=draft.unique_body_html, mode=mode,
                       from_address=draft.from_address,
                       source_id=source_id, draft_id=draft.id,
                       attachment_ids=[a.id for a in session.exec(select(Attachment).where(Attachment.message_id == draft.id).order_by(Attachment.id)).all()])
