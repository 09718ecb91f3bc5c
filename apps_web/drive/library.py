"""Operations on the drive's items, shared by the pages and the JSON API: create, upload, rename,
move, copy, delete to the recycle bin and restore, share, versions, the activity log, search.

Each raises ``DriveError`` with a message for the person (what was wrong, what to do) on bad input."""

from __future__ import annotations

import json
import mimetypes
import re
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, select

from ..identity.models import User
from . import documents, sheets
from .access import RANK, ancestors, groups_of, role_on, visible_ids
from .models import LINK_SCOPES, ROLES, Activity, Block, Cell, Comment, Item, Link, Share, Sheet, Site, Suggestion, Version

MAX_UPLOAD = 10 * 1024 * 1024  # bytes
BAD_NAME = re.compile(r'["*:<>?/\\|]')
KIND_LABELS = {"folder": "Folder", "document": "Word document", "sheet": "Excel workbook", "file": "File"}
DOC_EXT = {"document": ".docx", "sheet": ".xlsx"}


class DriveError(ValueError):
    pass


def check_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise DriveError("Enter a name.")
    if len(name) > 200:
        raise DriveError("The name is too long: use 200 characters or fewer.")
    if BAD_NAME.search(name) or name in (".", ".."):
        raise DriveError('A name can\'t contain any of these characters: " * : < > ? / \\ |')
    return name


def display_name(item: Item) -> str:
    """The name with the extension Office shows (documents and sheets carry theirs implicitly)."""
    return item.name + DOC_EXT.get(item.kind, "")


def log(session: Session, item: Item, user: User | None, action: str, detail: str, now: datetime) -> None:
    session.add(Activity(item_id=item.id, user_id=user.id if user else None, action=action, detail=detail[:300], at=now))


def children(session: Session, folder: Item) -> list[Item]:
    return list(session.exec(select(Item).where(Item.parent_id == folder.id, Item.deleted_at.is_(None))).all())


def _unique(session: Session, parent: Item, name: str, kind: str, exclude: int | None = None) -> None:
    for other in children(session, parent):
        if other.id != exclude and other.name.lower() == name.lower() and (other.kind == "folder") == (kind == "folder") and DOC_EXT.get(other.kind) == DOC_EXT.get(kind):
            raise DriveError(f"An item named “{name}” already exists in “{parent.name}”. Choose another name.")


def _writable_folder(session: Session, user: User, folder: Item | None) -> Item:
    if folder is None or folder.kind != "folder" or folder.deleted_at is not None:
        raise DriveError("Choose a folder.")
    if RANK[role_on(session, user, folder)] < RANK["edit"]:
        raise DriveError(f"You can't add items to “{folder.name}”: you have view access only.")
    return folder


def create(session: Session, user: User, now: datetime, parent: Item, kind: str, name: str) -> Item:
    if kind not in ("folder", "document", "sheet"):
        raise DriveError("Choose Folder, Word document or Excel workbook.")
    parent = _writable_folder(session, user, parent)
    name = check_name(name)
    _unique(session, parent, name, kind)
    item = Item(site_id=parent.site_id, parent_id=parent.id, name=name, kind=kind, owner_id=user.id, created_at=now, modified_at=now,
                modified_by_id=user.id)
    session.add(item)
    session.flush()
    if kind == "sheet":
        session.add(Sheet(item_id=item.id, name="Sheet1", position=0))
    if kind == "document":
        session.add(Block(item_id=item.id, position=0, style="Normal", text="", runs="[]"))
    if kind != "folder":
        session.add(Version(item_id=item.id, number=1, content=json.dumps(content_snapshot(session, item)), author_id=user.id, created_at=now))
    log(session, item, user, "created", f"Created {KIND_LABELS[kind].lower()} “{name}”", now)
    return item


def upload(session: Session, user: User, now: datetime, parent: Item, filename: str, data: bytes, content_type: str = "") -> Item:
    """An uploaded file: a .docx becomes a document and an .xlsx a workbook (their content read into
    blocks and cells, as OneDrive opens them in Word and Excel); anything else is kept as bytes."""
    parent = _writable_folder(session, user, parent)
    filename = (filename or "").rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    if not filename:
        raise DriveError("Choose a file to upload.")
    if len(data) > MAX_UPLOAD:
        raise DriveError(f"“{filename}” is {len(data) / 1048576:.1f} MB; files up to {MAX_UPLOAD // 1048576} MB can be uploaded here.")
    stem, dot, ext = filename.rpartition(".")
    ext = ext.lower() if dot else ""
    if ext == "docx":
        blocks = documents.from_docx(data)
        item = create(session, user, now, parent, "document", check_name(stem))
        set_document(session, user, now, item, blocks, note="Uploaded", new_version=False)
        item.size = len(data)
        return item
    if ext == "xlsx":
        snap = sheets.from_xlsx(data)
        item = create(session, user, now, parent, "sheet", check_name(stem))
        item.text = sheets.restore(session, item.id, snap)
        item.size = len(data)
        _rewrite_version(session, item)
        return item
    name = check_name(filename)
    _unique(session, parent, name, "file")
    ctype = content_type if content_type and content_type != "application/octet-stream" else (mimetypes.guess_type(name)[0] or "application/octet-stream")
    item = Item(site_id=parent.site_id, parent_id=parent.id, name=name, kind="file", owner_id=user.id, created_at=now, modified_at=now,
                modified_by_id=user.id, size=len(data), content_type=ctype, data=data,
                text=data.decode("utf-8", "replace")[:20000] if ctype.startswith("text/") else "")
    session.add(item)
    session.flush()
    log(session, item, user, "uploaded", f"Uploaded “{name}”", now)
    return item


def export_pdf(session: Session, user: User, now: datetime, doc: Item, name: str) -> Item:
    """Word's Export > Save as PDF: the document as saved, drawn as a PDF into a new file beside it
    (``<name>.pdf``). Its text is kept on the file (search finds it; verifiers read it). A name already
    taken in the folder is refused and nothing is written."""
    if doc.kind != "document":
        raise DriveError("Only Word documents can be saved as PDF.")
    parent = _writable_folder(session, user, session.get(Item, doc.parent_id) if doc.parent_id else None)
    name = check_name(name)
    if not name.lower().endswith(".pdf"):
        name += ".pdf"
    if any(o.kind != "folder" and o.name.lower() == name.lower() for o in children(session, parent)):
        raise DriveError(f"A file named “{name}” already exists in “{parent.name}”. Choose a different name, or rename or delete the existing file first.")
    from .pdf import document_pdf

    data, text = document_pdf(name[:-4], documents.load(session, doc.id))
    item = Item(site_id=parent.site_id, parent_id=parent.id, name=name, kind="file", owner_id=user.id, created_at=now, modified_at=now,
                modified_by_id=user.id, size=len(data), content_type="application/pdf", data=data, text=text,
                crm_account_id=doc.crm_account_id, crm_opportunity_id=doc.crm_opportunity_id)
    session.add(item)
    session.flush()
    log(session, item, user, "created", f"Saved as PDF from “{display_name(doc)}”", now)
    log(session, doc, user, "exported", f"Saved as PDF: “{name}”", now)
    return item


def _rewrite_version(session: Session, item: Item) -> None:
    v = session.exec(select(Version).where(Version.item_id == item.id, Version.number == item.version)).first()
    if v is not None:
        v.content = json.dumps(content_snapshot(session, item))


def rename(session: Session, user: User, now: datetime, item: Item, name: str) -> None:
    name = check_name(name)
    if name == item.name:
        return
    if item.parent_id is None:
        raise DriveError("The top folder of a library can't be renamed.")
    _unique(session, session.get(Item, item.parent_id), name, item.kind, exclude=item.id)
    old, item.name = item.name, name
    item.modified_at, item.modified_by_id = now, user.id
    log(session, item, user, "renamed", f"Renamed “{old}” to “{name}”", now)


def move(session: Session, user: User, now: datetime, item: Item, target: Item) -> None:
    target = _writable_folder(session, user, target)
    if item.parent_id is None:
        raise DriveError("The top folder of a library can't be moved.")
    if any(a.id == item.id for a in ancestors(session, target)):
        raise DriveError(f"“{item.name}” can't be moved into itself or one of its subfolders.")
    if target.id == item.parent_id:
        raise DriveError(f"“{item.name}” is already in “{target.name}”.")
    _unique(session, target, item.name, item.kind)
    item.parent_id = target.id
    _set_site(session, item, target.site_id)
    log(session, item, user, "moved", f"Moved to “{target.name}”", now)


def _set_site(session: Session, item: Item, site_id: int) -> None:
    item.site_id = site_id
    if item.kind == "folder":
        for child in session.exec(select(Item).where(Item.parent_id == item.id)).all():
            _set_site(session, child, site_id)


def copy(session: Session, user: User, now: datetime, item: Item, target: Item, name: str | None = None) -> Item:
    target = _writable_folder(session, user, target)
    if any(a.id == item.id for a in ancestors(session, target)):
        raise DriveError(f"“{item.name}” can't be copied into itself.")
    name = name or item.name
    taken = {c.name.lower() for c in children(session, target) if c.kind == item.kind}
    if name.lower() in taken:
        stem = name
        n = 1
        while name.lower() in taken:
            name = f"{stem} ({n})"
            n += 1
    new = Item(site_id=target.site_id, parent_id=target.id, name=name, kind=item.kind, owner_id=user.id, created_at=now, modified_at=now,
               modified_by_id=user.id, size=item.size, content_type=item.content_type, data=item.data, text=item.text,
               crm_account_id=item.crm_account_id, crm_opportunity_id=item.crm_opportunity_id)
    session.add(new)
    session.flush()
    if item.kind == "document":
        documents.store(session, new.id, documents.load(session, item.id))
    elif item.kind == "sheet":
        sheets.restore(session, new.id, sheets.snapshot(session, item.id))
    elif item.kind == "folder":
        for child in children(session, item):
            copy(session, user, now, child, new)
    if item.kind in ("document", "sheet"):
        session.add(Version(item_id=new.id, number=1, content=json.dumps(content_snapshot(session, new)), author_id=user.id, created_at=now))
    log(session, new, user, "copied", f"Copied from “{item.name}”", now)
    return new


def delete(session: Session, user: User, now: datetime, item: Item) -> None:
    if item.parent_id is None:
        raise DriveError("The top folder of a library can't be deleted.")
    item.deleted_at, item.deleted_by_id = now, user.id
    log(session, item, user, "deleted", f"Deleted “{item.name}” (moved to the recycle bin)", now)


def restore(session: Session, user: User, now: datetime, item: Item) -> None:
    if item.deleted_at is None:
        raise DriveError(f"“{item.name}” is not in the recycle bin.")
    parent = session.get(Item, item.parent_id) if item.parent_id else None
    if parent is not None and parent.deleted_at is not None:
        raise DriveError(f"Restore the folder “{parent.name}” first: “{item.name}” was in it.")
    if parent is not None:
        try:
            _unique(session, parent, item.name, item.kind, exclude=item.id)
        except DriveError:
            raise DriveError(f"An item named “{item.name}” is already in “{parent.name}”. Rename that one, then restore this.") from None
    item.deleted_at, item.deleted_by_id = None, None
    log(session, item, user, "restored", f"Restored “{item.name}” from the recycle bin", now)


def recycle_bin(session: Session, user: User) -> list[Item]:
    """Deleted items the user deleted or owns (only the top of a deleted folder is listed)."""
    rows = session.exec(select(Item).where(Item.deleted_at.is_not(None), or_(Item.deleted_by_id == user.id, Item.owner_id == user.id))
                        .order_by(Item.deleted_at.desc(), Item.id)).all()
    return list(rows)


# -- sharing -------------------------------------------------------------------------------------
def share(session: Session, user: User, now: datetime, item: Item, role: str, user_ids: list[int], groups: list[str]) -> list[Share]:
    if role not in ROLES:
        raise DriveError("Choose Can view or Can edit.")
    if not user_ids and not groups:
        raise DriveError("Enter a name or a group to share with.")
    known_groups = set(session.exec(select(User.department).where(User.active, User.department != "")).all())
    added = []
    for uid in user_ids:
        person = session.get(User, uid)
        if person is None or not person.active:
            raise DriveError("That person isn't in the directory. Pick someone from the list.")
    for g in groups:
        if g not in known_groups:
            raise DriveError(f"There is no group named “{g}”. Pick a group from the list.")
    existing = session.exec(select(Share).where(Share.item_id == item.id)).all()
    for uid in user_ids:
        if uid == item.owner_id:
            continue
        row = next((s for s in existing if s.user_id == uid), None)
        if row is None:
            row = Share(item_id=item.id, user_id=uid, role=role, created_at=now, created_by_id=user.id)
        elif row.role == role:
            continue
        row.role = role
        session.add(row)
        added.append(row)
    for g in groups:
        row = next((s for s in existing if s.group_name == g), None)
        if row is None:
            row = Share(item_id=item.id, group_name=g, role=role, created_at=now, created_by_id=user.id)
        elif row.role == role:
            continue
        row.role = role
        session.add(row)
        added.append(row)
    names = [session.get(User, uid).name for uid in user_ids] + list(groups)
    log(session, item, user, "shared", f"Shared with {', '.join(names)} ({'can edit' if role == 'edit' else 'can view'})", now)
    return added


def unshare(session: Session, user: User, now: datetime, item: Item, share_id: int) -> None:
    row = session.get(Share, share_id)
    if row is None or row.item_id != item.id:
        raise DriveError("That person or group no longer has access.")
    who = row.group_name or (session.get(User, row.user_id).name if row.user_id else "")
    session.delete(row)
    log(session, item, user, "unshared", f"Stopped sharing with {who}", now)


# -- sharing links ------------------------------------------------------------------------------
def link_label(link: Link, company: str) -> str:
    """OneDrive's description of a link: "People in Contoso with the link can edit"."""
    who = f"People in {company} with the link" if link.scope == "organization" else "Specific people"
    return f"{who} can {'edit' if link.role == 'edit' else 'view'}"


def create_link(session: Session, user: User, now: datetime, item: Item, scope: str, role: str, user_ids: list[int], company: str) -> Link:
    """Copy link with its settings. The same settings give the same link again (as OneDrive reuses an
    organisation link); a link for specific people grants them access at once."""
    if scope not in LINK_SCOPES:
        raise DriveError("Choose who the link works for.")
    if role not in ROLES:
        raise DriveError("Choose Can view or Can edit.")
    people = []
    if scope == "people":
        if not user_ids:
            raise DriveError("Enter a name to share the link with. A link for specific people works only for the people you add.")
        for uid in user_ids:
            person = session.get(User, uid)
            if person is None or not person.active:
                raise DriveError("That person isn't in the directory. Pick someone from the list.")
            people.append(person)
    link = None
    if scope == "organization":
        link = session.exec(select(Link).where(Link.item_id == item.id, Link.scope == scope, Link.role == role)).first()
    if link is None:
        n = session.exec(select(func.count()).select_from(Link)).one()
        import hashlib

        token = hashlib.sha256(f"{item.id}:{n}:{scope}:{role}:{now.isoformat()}".encode()).hexdigest()[:16]
        link = Link(item_id=item.id, token=token, scope=scope, role=role, created_by_id=user.id, created_at=now)
        session.add(link)
        session.flush()
        log(session, item, user, "link", f"Created a link: {link_label(link, company)}", now)
    existing = session.exec(select(Share).where(Share.item_id == item.id)).all()
    for person in people:
        if person.id == item.owner_id:
            continue
        row = next((x for x in existing if x.user_id == person.id), None)
        if row is None:
            session.add(Share(item_id=item.id, user_id=person.id, role=role, created_at=now, created_by_id=user.id, link_id=link.id))
        elif RANK[row.role] < RANK[role]:
            row.role, row.link_id = role, link.id
            session.add(row)
    if people:
        log(session, item, user, "shared", f"Shared a link with {', '.join(p.name for p in people)} ({'Can edit' if role == 'edit' else 'Can view'})", now)
    return link


def remove_link(session: Session, user: User, now: datetime, item: Item, link_id: int, company: str) -> None:
    link = session.get(Link, link_id)
    if link is None or link.item_id != item.id:
        raise DriveError("That link no longer exists.")
    for row in session.exec(select(Share).where(Share.link_id == link.id)).all():
        session.delete(row)  # who had access only through the link loses it, as in OneDrive
    session.flush()
    session.delete(link)
    log(session, item, user, "link", f"Removed the link: {link_label(link, company)}", now)


def open_link(session: Session, user: User, now: datetime, token: str, company: str) -> Item:
    """Someone opens a sharing link: a link for the organisation grants its access to them (unless they
    already have as much); a link for specific people works only for them. Logged in the activity."""
    link = session.exec(select(Link).where(Link.token == token)).first()
    item = session.get(Item, link.item_id) if link else None
    if link is None or item is None or item.deleted_at is not None:
        raise DriveError("This link has been removed or the item it points to has been deleted.")
    have = role_on(session, user, item)
    if link.scope == "people":
        invited = session.exec(select(Share).where(Share.link_id == link.id, Share.user_id == user.id)).first()
        if invited is None and have is None:
            raise PermissionError("This link only works for the people it was shared with. Ask the owner to share it with you.")
    elif RANK[have] < RANK[link.role]:
        row = session.exec(select(Share).where(Share.item_id == item.id, Share.user_id == user.id)).first()
        if row is None:
            row = Share(item_id=item.id, user_id=user.id, role=link.role, created_at=now, created_by_id=link.created_by_id, link_id=link.id)
        row.role, row.link_id = link.role, link.id
        session.add(row)
    log(session, item, user, "link-opened", f"Opened the link: {link_label(link, company)}", now)
    return item


def access_list(session: Session, item: Item) -> list[dict[str, Any]]:
    """Who has access: the owner, then entries on this item, then those inherited from folders above."""
    out = []
    owner = session.get(User, item.owner_id)
    out.append({"id": None, "name": owner.name, "detail": owner.email, "role": "owner", "inherited_from": None, "kind": "user"})
    for anc in ancestors(session, item):
        for s in session.exec(select(Share).where(Share.item_id == anc.id).order_by(Share.id)).all():
            if s.user_id:
                u = session.get(User, s.user_id)
                out.append({"id": s.id, "name": u.name, "detail": u.email, "role": s.role, "inherited_from": None if anc.id == item.id else anc.name, "kind": "user"})
            else:
                out.append({"id": s.id, "name": s.group_name, "detail": "Group", "role": s.role, "inherited_from": None if anc.id == item.id else anc.name, "kind": "group"})
    return out


# -- content, versions ----------------------------------------------------------------------------
def content_snapshot(session: Session, item: Item) -> dict[str, Any]:
    if item.kind == "document":
        return {"blocks": documents.load(session, item.id)}
    if item.kind == "sheet":
        return sheets.snapshot(session, item.id)
    return {}


def set_document(session: Session, user: User, now: datetime, item: Item, blocks: list[dict[str, Any]], note: str = "", new_version: bool = True) -> None:
    blocks = documents.normalize(blocks)
    if blocks == documents.load(session, item.id):
        return
    item.text = documents.store(session, item.id, blocks)
    item.size = len(item.text.encode())
    touch(session, user, now, item, note or "Edited", new_version)


def touch(session: Session, user: User, now: datetime, item: Item, note: str, new_version: bool = True) -> None:
    """A content change: modified stamps, a new version, and the activity log. A document's every save
    is a version; a workbook's cell edits by one editor on one day of the world clock coalesce into
    one version, as Excel's autosave does."""
    item.modified_at, item.modified_by_id = now, user.id
    session.flush()
    snap = json.dumps(content_snapshot(session, item))
    last = session.exec(select(Version).where(Version.item_id == item.id).order_by(Version.number.desc())).first()
    if new_version and (last is None or item.kind != "sheet" or last.author_id != user.id or last.created_at is None or last.created_at.date() != now.date() or last.note.startswith("Restored")):
        item.version = (last.number if last else 0) + 1
        session.add(Version(item_id=item.id, number=item.version, content=snap, size=len(snap), author_id=user.id, created_at=now, note=note[:200]))
    elif last is not None:
        last.content, last.size, last.created_at = snap, len(snap), now
    recent = session.exec(select(Activity).where(Activity.item_id == item.id).order_by(Activity.id.desc())).first()
    if not (recent and recent.action == "edited" and recent.user_id == user.id and recent.at and recent.at.date() == now.date()):
        log(session, item, user, "edited", note, now)


def restore_version(session: Session, user: User, now: datetime, item: Item, number: int) -> None:
    v = session.exec(select(Version).where(Version.item_id == item.id, Version.number == number)).first()
    if v is None:
        raise DriveError(f"Version {number} doesn't exist.")
    if number == item.version:
        raise DriveError(f"Version {number} is already the current version.")
    snap = json.loads(v.content)
    if item.kind == "document":
        item.text = documents.store(session, item.id, snap["blocks"])
    elif item.kind == "sheet":
        item.text = sheets.restore(session, item.id, snap)
    else:
        raise DriveError("Only documents and workbooks keep versions.")
    item.modified_at, item.modified_by_id = now, user.id
    last = session.exec(select(func.max(Version.number)).where(Version.item_id == item.id)).one() or 0
    item.version = last + 1
    session.add(Version(item_id=item.id, number=item.version, content=v.content, size=v.size, author_id=user.id, created_at=now,
                        note=f"Restored version {number}"))
    log(session, item, user, "restored", f"Restored version {number}", now)


def versions(session: Session, item: Item) -> list[Version]:
    return list(session.exec(select(Version).where(Version.item_id == item.id).order_by(Version.number.desc())).all())


def activity(session: Session, item: Item, limit: int = 50) -> list[Activity]:
    return list(session.exec(select(Activity).where(Activity.item_id == item.id).order_by(Activity.at.desc(), Activity.id.desc()).limit(limit)).all())


def suggestions(session: Session, item: Item, status: str | None = "open") -> list[Suggestion]:
    q = select(Suggestion).where(Suggestion.item_id == item.id)
    if status:
        q = q.where(Suggestion.status == status)
    return list(session.exec(q.order_by(Suggestion.block_position, Suggestion.offset, Suggestion.id)).all())


def suggest(session: Session, user: User, now: datetime, item: Item, block_position: int, offset: int, anchor: str, text: str) -> Suggestion:
    """Record a tracked change against the saved paragraph (its anchor must be there)."""
    blocks = documents.load(session, item.id)
    if not 0 <= block_position < len(blocks):
        raise DriveError("That paragraph isn't in the saved document. Save, then suggest again.")
    if blocks[block_position]["style"] == documents.TABLE:
        raise DriveError("Suggestions can't be made in a table yet. Edit the cell, or comment on its text.")
    if anchor == text:
        raise DriveError("The suggestion doesn't change anything.")
    para = documents.block_text(blocks[block_position])
    if documents.locate(para, offset, anchor) != offset or (not anchor and not text):
        raise DriveError("The selected text wasn't found in the saved document. Save, then suggest again.")
    s = Suggestion(item_id=item.id, block_position=block_position, offset=offset, anchor=anchor[:2000], text=text[:2000], author_id=user.id, created_at=now)
    session.add(s)
    log(session, item, user, "suggested", f"Suggested: {describe(s)}"[:300], now)
    session.flush()
    return s


def describe(s: Suggestion) -> str:
    if not s.anchor:
        return f"Insert “{s.text}”"
    if not s.text:
        return f"Delete “{s.anchor}”"
    return f"Replace “{s.anchor}” with “{s.text}”"


def resolve_suggestion(session: Session, user: User, now: datetime, item: Item, s: Suggestion, accept: bool) -> None:
    """Accept (write the change into its paragraph, shifting the later suggestions of that paragraph)
    or reject (leave the text) an open suggestion."""
    if s.status != "open":
        raise DriveError("That suggestion was already " + s.status + ".")
    if accept:
        blocks = documents.load(session, item.id)
        if s.block_position >= len(blocks):
            raise DriveError("The text this suggestion changes is no longer in the document. Reject it instead.")
        b = blocks[s.block_position]
        if b["style"] == documents.TABLE:
            raise DriveError("The text this suggestion changes is no longer in the document. Reject it instead.")
        at = documents.locate(documents.block_text(b), s.offset, s.anchor)
        if at is None:
            raise DriveError("The text this suggestion changes is no longer in the document. Reject it instead.")
        b["runs"] = documents.splice(b["runs"], at, at + len(s.anchor), s.text)
        delta = len(s.text) - len(s.anchor)
        for other in suggestions(session, item):
            if other.id != s.id and other.block_position == s.block_position and other.offset >= at + len(s.anchor):
                other.offset += delta
                session.add(other)
        set_document(session, user, now, item, blocks, note="Accepted a suggestion")
    s.status, s.resolved_by_id, s.resolved_at = ("accepted" if accept else "rejected"), user.id, now
    session.add(s)
    log(session, item, user, "accepted" if accept else "rejected", f"{'Accepted' if accept else 'Rejected'}: {describe(s)}"[:300], now)


def comments(session: Session, item: Item) -> list[Comment]:
    return list(session.exec(select(Comment).where(Comment.item_id == item.id).order_by(Comment.id)).all())


# -- listings ----------------------------------------------------------------------------------
SORTS = {"name": Item.name, "modified": Item.modified_at, "size": Item.size}


def sort_items(items: list[Item], sort: str, direction: str) -> list[Item]:
    key = {"name": lambda i: (i.kind != "folder", i.name.lower()),
           "modified": lambda i: (i.kind != "folder", i.modified_at or datetime.min, i.name.lower()),
           "size": lambda i: (i.kind != "folder", i.size, i.name.lower())}.get(sort)
    if key is None:
        raise DriveError("Sort by name, modified or size.")
    out = sorted(items, key=key, reverse=direction == "desc")
    return sorted(out, key=lambda i: i.kind != "folder")  # folders first either way, as OneDrive lists them


def shared_with_me(session: Session, user: User) -> list[Item]:
    groups = groups_of(user)
    ids = {s.item_id for s in session.exec(select(Share)).all() if s.user_id == user.id or (s.group_name and s.group_name in groups)}
    if not ids:
        return []
    rows = session.exec(select(Item).where(Item.id.in_(ids), Item.deleted_at.is_(None), Item.owner_id != user.id)).all()
    return [i for i in rows if i.parent_id is not None]


def recent(session: Session, user: User, limit: int = 30) -> list[Item]:
    """Files the user created, edited or opened most recently (from the activity log)."""
    acts = session.exec(select(Activity.item_id, func.max(Activity.at)).where(Activity.user_id == user.id).group_by(Activity.item_id)
                        .order_by(func.max(Activity.at).desc(), Activity.item_id.desc()).limit(limit * 2)).all()
    ids = [a[0] for a in acts]
    if not ids:
        return []
    by_id = {i.id: i for i in session.exec(select(Item).where(Item.id.in_(ids), Item.deleted_at.is_(None), Item.kind != "folder")).all()}
    visible = visible_ids(session, user)
    return [by_id[i] for i in ids if i in by_id and i in visible][:limit]


def search(session: Session, user: User, q: str, limit: int = 100) -> list[Item]:
    q = q.strip()
    if not q:
        return []
    like = f"%{q}%"
    rows = session.exec(select(Item).where(Item.deleted_at.is_(None), Item.parent_id.is_not(None), or_(Item.name.ilike(like), Item.text.ilike(like)))
                        .order_by(Item.modified_at.desc(), Item.id)).all()
    visible = visible_ids(session, user)
    return [i for i in rows if i.id in visible][:limit]


def path_of(session: Session, item: Item) -> list[Item]:
    return list(reversed(ancestors(session, item)))


def site_root(session: Session, site: Site) -> Item:
    return session.get(Item, site.root_id)


def personal_site(session: Session, user: User) -> Site | None:
    return session.exec(select(Site).where(Site.kind == "personal", Site.owner_id == user.id)).first()


def cells_of(session: Session, item: Item) -> list[Cell]:
    return list(session.exec(select(Cell).where(Cell.item_id == item.id).order_by(Cell.sheet_id, Cell.row, Cell.col)).all())
