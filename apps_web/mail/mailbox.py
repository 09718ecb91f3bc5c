"""A user's mailbox: folders with unread counts, message lists, conversations, the directory, and
the operations the command bar and the API share (move, delete, flag, read)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from fastapi import HTTPException
from sqlalchemy import case, delete, func, text
from sqlmodel import Session, select

from ..deps import row_id
from ..identity.models import User
from ..world import WorldClock
from .models import FOLDER_KINDS, FOLDER_NAMES, Attachment, Folder, Mailbox, MailboxMember, Message, Recipient

PAGE_SIZE = 50
# URL slugs of the well-known folders (Outlook on the web's own); user folders use their id.
SLUGS = {"inbox": "inbox", "drafts": "drafts", "sent": "sentitems", "archive": "archive", "deleted": "deleteditems", "junk": "junkemail"}
KIND_OF_SLUG = {v: k for k, v in SLUGS.items()}
MAX_FOLDER_NAME = 120


@dataclass
class FolderView:
    folder: Folder
    unread: int
    total: int
    base: str = "/mail"  # "/mail/<address>" for a shared mailbox's folders

    @property
    def slug(self) -> str:
        return folder_slug(self.folder)

    @property
    def url(self) -> str:
        return f"{self.base}/{self.slug}"

    @property
    def badge(self) -> int:
        """The number Outlook shows beside a folder: unread items, or every draft in Drafts."""
        return self.total if self.folder.kind == "drafts" else self.unread


def folder_slug(folder: Folder) -> str:
    return SLUGS.get(folder.kind) or str(folder.id)


def mailbox_for(session: Session, user: User) -> Mailbox:
    """The user's mailbox (made on first use for someone added to the directory after the world was built)."""
    box = session.exec(select(Mailbox).where(Mailbox.user_id == user.id)).first()
    if box is not None:
        return box
    box = Mailbox(user_id=user.id, address=user.email.lower(), display_name=user.name)
    session.add(box)
    session.flush()
    for pos, kind in enumerate(FOLDER_KINDS):
        session.add(Folder(mailbox_id=box.id, name=FOLDER_NAMES[kind], kind=kind, position=pos))
    session.commit()
    return box


def box_base(box: Mailbox) -> str:
    """Where a mailbox's pages live: ``/mail`` for one's own, ``/mail/<address>`` for a shared one
    (as Outlook on the web opens a shared mailbox)."""
    return f"/mail/{box.address}" if box.kind == "shared" else "/mail"


def shared_boxes(session: Session, user: User, *, send_as: bool = False) -> list[Mailbox]:
    """The shared mailboxes ``user`` is a member of (Full Access; Send As when asked), by name."""
    member = select(MailboxMember.mailbox_id).where(MailboxMember.user_id == user.id,
                                                    (MailboxMember.send_as if send_as else MailboxMember.full_access).is_(True))
    return list(session.exec(select(Mailbox).where(Mailbox.kind == "shared", Mailbox.id.in_(member)).order_by(Mailbox.display_name)).all())


def box_by_address(session: Session, user: User, address: str) -> Mailbox:
    """A mailbox ``user`` may open by its address: their own, or a shared one they are a member of."""
    box = session.exec(select(Mailbox).where(Mailbox.address == (address or "").lower())).first()
    if box is not None and (box.user_id == user.id or box.id in {b.id for b in shared_boxes(session, user)}):
        return box
    raise HTTPException(status_code=404, detail=f"You don't have permission to open the mailbox \u201c{address}\u201d. "
                                                "Ask its owner or your administrator for access.")


def reachable_message(session: Session, user: User, message_id: int | None) -> tuple[Mailbox, Message]:
    """A message of the user's own mailbox or of a shared mailbox they are a member of, with its mailbox."""
    rid = row_id(message_id) if message_id is not None else None
    message = session.get(Message, rid) if rid is not None else None
    box = session.get(Mailbox, message.mailbox_id) if message is not None else None
    if box is None or not (box.user_id == user.id or (box.kind == "shared" and box.id in {b.id for b in shared_boxes(session, user)})):
        raise HTTPException(status_code=404, detail="This message doesn't exist or has been permanently deleted.")
    return box, message


def folder_views(session: Session, box: Mailbox) -> list[FolderView]:
    counts = {
        fid: (unread or 0, total)
        for fid, unread, total in session.execute(
            select(Message.folder_id, func.sum(case((Message.is_read.is_(False), 1), else_=0)), func.count())
            .where(Message.mailbox_id == box.id).group_by(Message.folder_id)
        )
    }
    folders = session.exec(select(Folder).where(Folder.mailbox_id == box.id).order_by(Folder.position, Folder.name)).all()
    return [FolderView(f, *counts.get(f.id, (0, 0)), base=box_base(box)) for f in folders]


def folder_of_kind(session: Session, box: Mailbox, kind: str) -> Folder:
    folder = session.exec(select(Folder).where(Folder.mailbox_id == box.id, Folder.kind == kind)).first()
    if folder is None:  # a mailbox always has its well-known folders; recreate one that went missing
        folder = Folder(mailbox_id=box.id, name=FOLDER_NAMES[kind], kind=kind, position=FOLDER_KINDS.index(kind))
        session.add(folder)
        session.flush()
    return folder


def folder_from_slug(session: Session, box: Mailbox, slug: str) -> Folder:
    if slug in KIND_OF_SLUG:
        return folder_of_kind(session, box, KIND_OF_SLUG[slug])
    folder = session.get(Folder, int(slug)) if slug.isdigit() else None
    if folder is None or folder.mailbox_id != box.id:
        raise HTTPException(status_code=404, detail="This folder doesn't exist. It may have been deleted.")
    return folder


def own_message(session: Session, box: Mailbox, message_id: int) -> Message:
    rid = row_id(message_id)
    message = session.get(Message, rid) if rid is not None else None
    if message is None or message.mailbox_id != box.id:
        raise HTTPException(status_code=404, detail="This message doesn't exist or has been permanently deleted.")
    return message


def order_newest(query):
    return query.order_by(func.coalesce(Message.sent_at, Message.updated_at).desc(), Message.id.desc())


def list_page(session: Session, box: Mailbox, where: list, page: int) -> tuple[list[Message], int]:
    base = select(Message).where(Message.mailbox_id == box.id, *where)
    total = session.execute(select(func.count()).select_from(base.subquery())).scalar() or 0
    rows = session.exec(order_newest(base).offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)).all()
    return list(rows), total


def conversation(session: Session, box: Mailbox, message: Message, deleted_id: int) -> list[Message]:
    """The messages of ``message``'s conversation in this mailbox, newest first (Deleted Items only
    when the open message is itself deleted)."""
    query = select(Message).where(Message.mailbox_id == box.id, Message.conversation_id == message.conversation_id, Message.is_draft.is_(False))
    if message.folder_id != deleted_id:
        query = query.where(Message.folder_id != deleted_id)
    rows = list(session.exec(order_newest(query)).all())
    if message not in rows:
        rows.insert(0, message)
    return rows


def recipients_of(session: Session, ids: Iterable[int]) -> dict[int, list[Recipient]]:
    out: dict[int, list[Recipient]] = {}
    ids = list(ids)
    if ids:
        for r in session.exec(select(Recipient).where(Recipient.message_id.in_(ids)).order_by(Recipient.message_id, Recipient.position)).all():
            out.setdefault(r.message_id, []).append(r)
    return out


def attachments_of(session: Session, ids: Iterable[int]) -> dict[int, list[Attachment]]:
    out: dict[int, list[Attachment]] = {}
    ids = list(ids)
    if ids:
        for a in session.exec(select(Attachment).where(Attachment.message_id.in_(ids)).order_by(Attachment.id)).all():
            out.setdefault(a.message_id, []).append(a)
    return out


# -- directory: colleagues and the CRM's contacts ---------------------------------------------------
def directory(session: Session, q: str, limit: int = 10) -> list[dict[str, str]]:
    """People whose name or address contains ``q``: colleagues first, then customers from the CRM."""
    q = (q or "").strip().lower()
    if not q:
        return []
    like = f"%{q}%"
    out = [
        {"name": f"{first} {last}", "address": email.lower(), "detail": title or ""}
        for first, last, email, title in session.execute(text(
            "select first_name, last_name, email, title from identity_user where active and "
            "(lower(first_name || ' ' || last_name) like :q or lower(email) like :q) order by last_name, first_name limit :n"), {"q": like, "n": limit})
    ]
    if len(out) < limit:  # the company's shared mailboxes (support@, billing@...)
        out += [{"name": name, "address": address.lower(), "detail": "Shared mailbox"} for name, address in session.execute(text(
            "select display_name, address from mail_mailbox where kind = 'shared' and (lower(display_name) like :q or lower(address) like :q) "
            "order by display_name limit :n"), {"q": like, "n": limit - len(out)})]
    if len(out) < limit and _has_table(session, "crm_contact"):
        out += [
            {"name": f"{first} {last}", "address": email.lower(), "detail": account or ""}
            for first, last, email, account in session.execute(text(
                "select c.first_name, c.last_name, c.email, a.name from crm_contact c left join crm_account a on a.id = c.account_id "
                "where c.email is not null and (lower(coalesce(c.first_name, '') || ' ' || c.last_name) like :q or lower(c.email) like :q) "
                "order by c.last_name, c.first_name limit :n"), {"q": like, "n": limit - len(out)})
        ]
    return out


def _has_table(session: Session, name: str) -> bool:
    return session.execute(text("select 1 from sqlite_master where type = 'table' and name = :n"), {"n": name}).first() is not None


# -- command bar operations ----------------------------------------------------------------------------
def move(session: Session, messages: list[Message], folder: Folder, clock: WorldClock) -> int:
    for m in messages:
        m.folder_id = folder.id
        m.updated_at = clock.now
    return len(messages)


def purge(session: Session, messages: list[Message]) -> int:
    """Delete for good (what Delete does in Deleted Items)."""
    ids = [m.id for m in messages]
    if ids:
        session.execute(delete(Recipient).where(Recipient.message_id.in_(ids)))
        session.execute(delete(Attachment).where(Attachment.message_id.in_(ids)))
        session.execute(delete(Message).where(Message.id.in_(ids)))
    return len(ids)


def set_flag(messages: list[Message], flagged: bool, clock: WorldClock) -> None:
    for m in messages:
        if m.is_flagged != flagged:
            m.is_flagged = flagged
            m.updated_at = clock.now


def set_read(messages: list[Message], read: bool, clock: WorldClock) -> None:
    for m in messages:
        if m.is_read != read:
            m.is_read = read
            m.updated_at = clock.now


def create_folder(session: Session, box: Mailbox, name: str) -> tuple[Folder | None, str | None]:
    name = " ".join((name or "").split())
    if not name:
        return None, "Enter a name for the new folder."
    if len(name) > MAX_FOLDER_NAME:
        return None, f"A folder name can be at most {MAX_FOLDER_NAME} characters."
    if any(f.name.lower() == name.lower() for f in session.exec(select(Folder).where(Folder.mailbox_id == box.id)).all()):
        return None, f"A folder named \u201c{name}\u201d already exists. Choose a different name."
    top = session.execute(select(func.max(Folder.position)).where(Folder.mailbox_id == box.id)).scalar() or 0
    folder = Folder(mailbox_id=box.id, name=name, kind="custom", position=max(top + 1, 10))
    session.add(folder)
    session.flush()
    return folder, None
