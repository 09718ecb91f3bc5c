"""Turns sent mails into rows: one message copy per mailbox (the sender's Sent Items, each internal
recipient's Inbox), recipient and attachment rows, with read, flag and filing state that fits the
message's age."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from html import escape
from typing import Any

from ...world.seeding import SeedContext
from ..delivery import EVERYONE_LOCAL, quote_header, text_preview
from ..models import FOLDER_KINDS, FOLDER_NAMES
from .text import fmt_day
from .world import CrmData, Person

CUSTOM_FOLDERS = ["Customers", "Projects", "Receipts", "Team", "Follow-ups", "Training"]


@dataclass
class Mail:
    """One sent message, before it is copied into mailboxes."""

    sender: Person
    to: list[Person]
    subject: str
    unique_html: str
    sent_at: datetime
    cc: list[Person] = field(default_factory=list)
    bcc: list[Person] = field(default_factory=list)
    attachments: list[tuple[str, int, str]] = field(default_factory=list)
    parent: "Mail | None" = None
    conversation: str = ""
    imid: str = ""
    body_html: str = ""
    importance: str = "normal"
    kind: str = "other"  # deal | case | internal | it | announcement | newsletter
    account_id: int | None = None
    opportunity_id: int | None = None
    case_id: int | None = None
    categories: str = ""
    unread_bias: float = 0.0  # raises the chance the recipient has not read it yet
    preview: str = ""


class MailBuilder:
    def __init__(self, ctx: SeedContext, people: list[Person], crm: CrmData) -> None:
        self.ctx = ctx
        self.now = ctx.clock.now
        self.people = people
        self.by_user = {p.user_id: p for p in people}
        self.by_address = {p.address: p for p in people}
        self.crm = crm
        self.domain = ctx.domain
        self.rng = ctx.random("mail.delivery")
        self.mailboxes: list[dict[str, Any]] = []
        self.folders: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []
        self.recipients: list[dict[str, Any]] = []
        self.attachments: list[dict[str, Any]] = []
        self.mails: list[Mail] = []
        self.box_of: dict[str, int] = {}  # address -> mailbox id
        self.folder_of: dict[tuple[int, str], int] = {}  # (mailbox id, kind or custom name) -> folder id
        self.custom: dict[int, list[str]] = {}
        self._conv = 0
        frng = ctx.random("mail.folders")
        for p in people:
            box = len(self.mailboxes) + 1
            self.mailboxes.append({"id": box, "user_id": p.user_id, "address": p.address, "display_name": p.name})
            self.box_of[p.address] = box
            for pos, kind in enumerate(FOLDER_KINDS):
                self._folder(box, FOLDER_NAMES[kind], kind, pos)
            names = frng.sample(CUSTOM_FOLDERS, frng.randint(0, 3))
            self.custom[box] = sorted(names)
            for pos, name in enumerate(sorted(names)):
                self._folder(box, name, "custom", 10 + pos)
        self.everyone = Person(address=f"{EVERYONE_LOCAL}@{self.domain}", name="All Employees", first="all")

    def _folder(self, box: int, name: str, kind: str, pos: int) -> None:
        fid = len(self.folders) + 1
        self.folders.append({"id": fid, "mailbox_id": box, "name": name, "kind": kind, "position": pos})
        self.folder_of[(box, kind if kind != "custom" else name)] = fid

    # -- composing -----------------------------------------------------------------------------------
    def send(self, mail: Mail) -> Mail | None:
        """Record ``mail`` if it was sent before the world's now (a thread stops at the clock)."""
        if mail.sent_at >= self.now:
            return None
        if mail.parent is not None:
            mail.conversation = mail.parent.conversation
            mail.body_html = mail.unique_html + quote_header(
                mail.parent.sender.name, mail.parent.sender.address, mail.parent.sent_at,
                [p.name for p in mail.parent.to], [p.name for p in mail.parent.cc], mail.parent.subject,
            ) + mail.parent.body_html
        else:
            self._conv += 1
            mail.conversation = f"conv-{self._conv:05d}"
            mail.body_html = mail.unique_html
        mail.imid = f"<{len(self.mails) + 1:06d}.{mail.sent_at:%Y%m%d%H%M%S}@{mail.sender.address.split('@')[1]}>"
        self.mails.append(mail)
        return mail

    def reply(self, parent: Mail, sender: Person, unique_html: str, delay_h: float, *, reply_all: bool = True,
              attachments: list[tuple[str, int, str]] | None = None, **extra: Any) -> Mail | None:
        to = [parent.sender] if parent.sender.address != sender.address else list(parent.to)
        cc = [p for p in parent.to + parent.cc if p.address not in {sender.address} | {t.address for t in to}] if reply_all else []
        subject = parent.subject if parent.subject.lower().startswith("re:") else f"RE: {parent.subject}"
        mail = Mail(sender=sender, to=to, cc=cc, subject=subject, unique_html=unique_html,
                    sent_at=self.later(parent.sent_at, delay_h), parent=parent, attachments=attachments or [],
                    kind=parent.kind, account_id=parent.account_id, opportunity_id=parent.opportunity_id, case_id=parent.case_id, **extra)
        return self.send(mail)

    def later(self, t: datetime, hours: float) -> datetime:
        """About ``hours`` after ``t``, moved into working hours (8:00-18:00, Monday to Friday)."""
        out = t + timedelta(minutes=int(hours * 60) + self.rng.randint(3, 50))
        while out.weekday() >= 5 or not 8 <= out.hour < 18:
            out = (out + timedelta(days=1)).replace(hour=8, minute=self.rng.randint(0, 59)) if out.hour >= 18 or out.weekday() >= 5 else out.replace(hour=8, minute=self.rng.randint(0, 59))
        return out.replace(microsecond=0)

    def when(self, rng: random.Random, lo_days: float, hi_days: float) -> datetime:
        """A working-hours moment between ``hi_days`` and ``lo_days`` days before now."""
        t = self.now - timedelta(seconds=rng.randint(int(lo_days * 86400), int(hi_days * 86400)))
        t = t.replace(hour=rng.randint(8, 17), minute=rng.randint(0, 59), second=rng.randint(0, 59), microsecond=0)
        while t.weekday() >= 5:
            t -= timedelta(days=1)
        return t if t < self.now else self.now - timedelta(hours=rng.randint(1, 20))

    def signature_of(self, p: Person) -> str:
        lines = [escape(p.name)] + [escape(x) for x in ((f"{p.title} | {p.company}" if p.title else p.company), p.phone) if x]
        return '<p class="signature">' + "<br>".join(lines) + "</p>"

    # -- copies --------------------------------------------------------------------------------------
    def finish(self) -> None:
        for mail in self.mails:
            mail.preview = text_preview(mail.unique_html)
            self._copies(mail)

    def _copies(self, mail: Mail) -> None:
        if mail.sender.address in self.box_of:
            self._copy(mail, self.box_of[mail.sender.address], "sent", read=True, with_bcc=True)
        seen = {mail.sender.address}
        for p in mail.to + mail.cc + mail.bcc:
            targets = [q.address for q in self.people] if p.address == self.everyone.address else [p.address]
            for address in targets:
                if address in seen or address not in self.box_of:
                    continue
                seen.add(address)
                box = self.box_of[address]
                self._copy(mail, box, self._inbox_folder(mail, box), read=self._read(mail), with_bcc=p in mail.bcc)

    def _read(self, mail: Mail) -> bool:
        age = (self.now - mail.sent_at).total_seconds() / 86400
        p = 0.3 if age < 1.5 else 0.7 if age < 7 else 0.94
        if mail.kind == "newsletter":
            p -= 0.25
        return self.rng.random() >= 1 - max(0.05, p - mail.unread_bias)

    def _inbox_folder(self, mail: Mail, box: int) -> str:
        age = (self.now - mail.sent_at).days
        r = self.rng.random()
        if mail.kind == "newsletter" and r < 0.06:
            return "deleted"
        if mail.kind == "it" and age > 10 and r < 0.2:
            return "deleted"
        if age > 21 and r < 0.12:
            return "archive"
        custom = self.custom.get(box) or []
        if age > 7 and custom and r > 0.9:
            fitting = {"deal": ["Customers", "Follow-ups"], "case": ["Customers"], "internal": ["Team", "Projects"],
                       "announcement": ["Team"], "it": ["Training"]}.get(mail.kind, [])
            names = [n for n in fitting if n in custom]
            if names:
                return names[0]
        return "inbox"

    def _copy(self, mail: Mail, box: int, folder: str, *, read: bool, with_bcc: bool) -> None:
        mid = len(self.messages) + 1
        flagged = folder == "inbox" and mail.kind in ("deal", "case", "internal") and self.rng.random() < 0.05
        self.messages.append({
            "id": mid, "mailbox_id": box, "folder_id": self.folder_of[(box, folder)], "conversation_id": mail.conversation,
            "internet_message_id": mail.imid, "in_reply_to": mail.parent.imid if mail.parent else None,
            "subject": mail.subject, "body_html": mail.body_html, "unique_body_html": mail.unique_html,
            "preview": mail.preview, "from_address": mail.sender.address, "from_name": mail.sender.name,
            "sent_at": mail.sent_at, "received_at": mail.sent_at, "is_read": read, "is_flagged": flagged, "is_draft": False,
            "importance": mail.importance, "categories": mail.categories, "has_attachments": bool(mail.attachments),
            "crm_account_id": mail.account_id, "crm_opportunity_id": mail.opportunity_id, "crm_case_id": mail.case_id,
            "reply_to_message_id": None, "forward_of_message_id": None, "created_at": mail.sent_at, "updated_at": mail.sent_at,
        })
        pos = 0
        for kind, people in (("to", mail.to), ("cc", mail.cc), ("bcc", mail.bcc if with_bcc else [])):
            for p in people:
                self.recipients.append({"id": len(self.recipients) + 1, "message_id": mid, "kind": kind, "address": p.address, "name": p.name, "position": pos})
                pos += 1
        for name, size, ctype in mail.attachments:
            self.attachments.append({"id": len(self.attachments) + 1, "message_id": mid, "name": name, "size": size, "content_type": ctype})


def day(d: Any) -> str:
    return fmt_day(d if not isinstance(d, str) else datetime.fromisoformat(d))
