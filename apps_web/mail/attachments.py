"""Attachments of a message being written: a file from the computer (its bytes stored on the
attachment row), a cloud file from the drive attached as a copy (its bytes, a document exported as
.docx and a workbook as .xlsx, as OneDrive downloads them) or shared as a link (no bytes: the drive
item's id); and the content a download returns.

The drive is another app: it is used when its tables exist, and a world without it simply offers no
cloud files.
"""

from __future__ import annotations

import mimetypes

from sqlalchemy import text
from sqlmodel import Session, select

from ..identity.models import User
from .models import Attachment, Message

MAX_ATTACHMENT = 25 * 1024 * 1024  # bytes: Outlook on the web's limit for a file attached from the computer
MAX_CLOUD_FILES = 50


class AttachmentError(ValueError):
    """A file that can't be attached, with what to do instead."""


def _refresh(session: Session, message: Message) -> None:
    session.flush()
    message.has_attachments = session.exec(select(Attachment.id).where(Attachment.message_id == message.id)).first() is not None
    session.add(message)


def add_upload(session: Session, draft: Message, filename: str, data: bytes, content_type: str = "") -> Attachment:
    name = (filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name:
        raise AttachmentError("Choose a file to attach.")
    if len(data) > MAX_ATTACHMENT:
        raise AttachmentError(f"\u201c{name}\u201d is {len(data) / 1048576:.1f} MB, which is larger than the {MAX_ATTACHMENT // 1048576} MB "
                              "that can be attached to a message. Share it from OneDrive as a link instead.")
    ctype = content_type if content_type and content_type != "application/octet-stream" else (mimetypes.guess_type(name)[0] or "application/octet-stream")
    att = Attachment(message_id=draft.id, name=name[:255], size=len(data), content_type=ctype[:120], data=data)
    session.add(att)
    _refresh(session, draft)
    return att


# -- cloud files (the drive) ------------------------------------------------------------------------------
def has_drive(session: Session) -> bool:
    return session.execute(text("select 1 from sqlite_master where type = 'table' and name = 'drive_item'")).first() is not None


def cloud_files(session: Session, user: User, q: str = "") -> list[dict]:
    """The drive files ``user`` can open (their own and those shared with them), newest first,
    whose name contains ``q``."""
    if not has_drive(session):
        return []
    from ..drive.access import visible_ids
    from ..drive.library import display_name
    from ..drive.models import Item, Site

    ids = visible_ids(session, user)
    query = select(Item).where(Item.id.in_(ids), Item.kind != "folder", Item.deleted_at.is_(None))
    q = q.strip()
    if q.lower().endswith((".docx", ".xlsx")):  # documents and workbooks are named without the extension Office shows
        q = q[:-5]
    if q:
        query = query.where(Item.name.ilike(f"%{q}%"))
    items = session.exec(query.order_by(Item.modified_at.desc(), Item.id.desc()).limit(MAX_CLOUD_FILES)).all()
    sites = {s.id: s for s in session.exec(select(Site).where(Site.id.in_({i.site_id for i in items}))).all()} if items else {}
    out = []
    for i in items:
        site = sites.get(i.site_id)
        place = "My files" if site is not None and site.kind == "personal" and site.owner_id == user.id else (site.name if site else "")
        out.append({"id": i.id, "name": display_name(i), "place": place, "modified": i.modified_at, "size": i.size, "kind": i.kind})
    return out


def add_cloud(session: Session, user: User, draft: Message, item_id: int, how: str) -> Attachment:
    """Attach drive item ``item_id`` to the draft as a copy (``how`` = "copy") or a link ("link")."""
    if how not in ("copy", "link"):
        raise AttachmentError(f"Unknown way to attach \u201c{how}\u201d (use copy or link).")
    if not has_drive(session):
        raise AttachmentError("There are no cloud files in this organization.")
    from ..drive.access import role_on
    from ..drive.library import display_name
    from ..drive.models import Item

    item = session.get(Item, item_id)
    if item is None or item.kind == "folder" or item.deleted_at is not None or role_on(session, user, item) is None:
        raise AttachmentError("This file might not exist or you don't have permission to share it. Choose another file.")
    name = display_name(item)
    if how == "link":
        att = Attachment(message_id=draft.id, name=name, size=item.size, content_type=item.content_type or _type_of(item.kind, name),
                         drive_item_id=item.id, is_link=True)
    else:
        data, ctype = drive_bytes(session, item)
        if len(data) > MAX_ATTACHMENT:
            raise AttachmentError(f"\u201c{name}\u201d is too large to attach as a copy. Share it as a link instead.")
        att = Attachment(message_id=draft.id, name=name, size=len(data), content_type=ctype, data=data, drive_item_id=item.id)
    session.add(att)
    _refresh(session, draft)
    return att


def _type_of(kind: str, name: str) -> str:
    return {"document": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "sheet": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}.get(kind) or mimetypes.guess_type(name)[0] or "application/octet-stream"


def drive_bytes(session: Session, item) -> tuple[bytes, str]:  # noqa: ANN001
    """A drive file's bytes as its download gives them."""
    if item.kind == "document":
        from ..drive.documents import load, to_docx

        return to_docx(load(session, item.id), item.name), _type_of("document", "")
    if item.kind == "sheet":
        from ..drive.sheets import snapshot, to_xlsx

        return to_xlsx(snapshot(session, item.id)), _type_of("sheet", "")
    return item.data or b"", item.content_type or "application/octet-stream"


# -- downloads -----------------------------------------------------------------------------------------------
def content(att: Attachment, message: Message) -> tuple[bytes, str]:
    """What downloading ``att`` gives: its stored bytes; for the world's generated history (names and
    sizes only) a small document rendered from the message it came with, so every attachment opens."""
    if att.data is not None:
        return att.data, att.content_type
    lines = [att.name, f"From: {message.from_name} <{message.from_address}>", f"Subject: {message.subject}",
             f"Sent: {message.sent_at:%m/%d/%Y %I:%M %p}" if message.sent_at else ""]
    if att.content_type == "application/pdf" or att.name.lower().endswith(".pdf"):
        return _pdf([line for line in lines if line]), "application/pdf"
    if att.content_type.startswith("image/"):
        return _png(lines), "image/png"
    return ("\n".join(lines) + "\n").encode(), "text/plain; charset=utf-8"


def _pdf(lines: list[str]) -> bytes:
    """A one-page PDF with ``lines`` in Helvetica (hand-written objects and cross-reference table)."""
    def esc(s: str) -> str:
        return s.encode("latin-1", "replace").decode("latin-1").replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    stream = "BT /F1 12 Tf 72 740 Td 16 TL " + " ".join(f"({esc(line)}) '" for line in lines) + " ET"
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
               f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = b"%PDF-1.4\n", []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode() + b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def _png(lines: list[str]) -> bytes:
    import io

    from PIL import Image, ImageDraw

    img = Image.new("RGB", (640, 24 + 22 * len(lines)), "white")
    draw = ImageDraw.Draw(img)
    for n, line in enumerate(lines):
        draw.text((16, 12 + 22 * n), line, fill="black")
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()



def cloud_path(session: Session, att: Attachment) -> str:
    """The drive page a cloud link opens (Word for a document, Excel for a workbook, else the file)."""
    row = session.execute(text("select kind from drive_item where id = :i"), {"i": att.drive_item_id}).first() if has_drive(session) else None
    kind = row[0] if row else "file"
    return {"document": f"/doc/{att.drive_item_id}", "sheet": f"/sheet/{att.drive_item_id}"}.get(kind, f"/files/{att.drive_item_id}")
