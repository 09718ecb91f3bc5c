"""The file pages: My files, folders, Shared with me, Recent, Recycle bin, search, and the actions
of the command bar (new, upload, download, rename, move, copy, delete, restore, share, versions)."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import RedirectResponse, Response
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...identity.models import User
from ...ui import redirect
from .. import library as lib
from ..access import require, role_on
from ..documents import DocumentError
from ..models import ROLE_LABELS, Item, Link, Site
from ..sheets import SheetError
from .common import company_of, page, safe_back

router = APIRouter()
ERRORS = (lib.DriveError, DocumentError, SheetError)


def open_url(item: Item) -> str:
    return {"folder": f"/folders/{item.id}", "document": f"/doc/{item.id}", "sheet": f"/sheet/{item.id}"}.get(item.kind, f"/files/{item.id}")


def _listing(request, session, user, clock, *, title: str, items: list[Item], folder: Item | None = None, view: str = "folder", sort: str = "name",
             direction: str = "asc", query: str = "", crumbs: list[Item] | None = None, role: str | None = None):  # noqa: ANN001
    try:
        items = lib.sort_items(items, sort, direction) if view in ("folder",) else items
    except lib.DriveError:
        items = lib.sort_items(items, "name", "asc")
    owners = {u.id: u for u in session.exec(select(User).where(User.id.in_({i.modified_by_id or i.owner_id for i in items} | {i.owner_id for i in items}))).all()} if items else {}
    site = session.get(Site, folder.site_id) if folder else None
    parents = {p.id: p.name for p in session.exec(select(Item).where(Item.id.in_({i.parent_id for i in items if i.parent_id}))).all()} if items else {}
    chosen = request.query_params.get("layout")
    layout = chosen if chosen in LAYOUTS else request.cookies.get(LAYOUT_COOKIE, "list")
    layout = layout if layout in LAYOUTS else "list"
    from ..access import visible_ids

    visible = visible_ids(session, user)  # once for the Move/Copy targets and the left rail's sites
    response = page(request, session, user, "drive/list.html", visible=visible, layout=layout, parents=parents,
                    target_folders=target_folders(session, user, visible), title=title, items=items, folder=folder, view=view, sort=sort, direction=direction,
                query=query, crumbs=crumbs or [], owners=owners, role=role, site=site, open_url=open_url, display_name=lib.display_name,
                kind_labels=lib.KIND_LABELS)
    if chosen in LAYOUTS:  # the view option is remembered, as OneDrive does
        response.set_cookie(LAYOUT_COOKIE, chosen, samesite="lax")
    return response


LAYOUTS = ("list", "tiles")
LAYOUT_COOKIE = "drive_layout"


@router.get("/")
def home() -> RedirectResponse:
    return RedirectResponse("/my", status_code=303)


@router.get("/my")
def my_files(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, sort: str = "name", dir: str = "asc"):
    site = lib.personal_site(session, user)
    if site is None:
        raise HTTPException(404, "You don't have a OneDrive yet. Ask IT to set one up.")
    return folder_page(request, session, user, clock, site.root_id, sort, dir)


@router.get("/folders/{folder_id}")
def folder_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, folder_id: int, sort: str = "name", dir: str = "asc"):
    folder, role = require(session, user, folder_id)
    if folder.kind != "folder":
        return RedirectResponse(open_url(folder), status_code=303)
    site = session.get(Site, folder.site_id)
    _log_view(session, site, folder, user, clock)
    crumbs = lib.path_of(session, folder)
    title = "My files" if site.kind == "personal" and folder.parent_id is None and site.owner_id == user.id else (site.name if folder.parent_id is None else folder.name)
    return _listing(request, session, user, clock, title=title, items=lib.children(session, folder), folder=folder, sort=sort,
                    direction=dir if dir in ("asc", "desc") else "asc", crumbs=crumbs, role=role)


def _log_view(session, site: Site, item: Item, user, clock) -> None:  # noqa: ANN001
    """A data room writes every view to its access log."""
    if site is not None and site.restricted:
        lib.log(session, item, user, "viewed", "Viewed in the data room", clock.now)
        session.commit()


@router.get("/sites/{site_id}")
def site_page(request: Request, session: SessionDep, user: CurrentUser, site_id: int):
    site = session.get(Site, site_id)
    if site is None:
        raise HTTPException(404, "This site doesn't exist or you don't have access to it.")
    return RedirectResponse(f"/folders/{site.root_id}", status_code=303)


@router.get("/shared")
def shared(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    items = sorted(lib.shared_with_me(session, user), key=lambda i: (i.modified_at is None, i.modified_at), reverse=True)
    return _listing(request, session, user, clock, title="Shared with me", items=items, view="shared")


@router.get("/recent")
def recent(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    return _listing(request, session, user, clock, title="Recent", items=lib.recent(session, user), view="recent")


@router.get("/recycle")
def recycle(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep):
    return _listing(request, session, user, clock, title="Recycle bin", items=lib.recycle_bin(session, user), view="recycle")


@router.get("/search")
def search(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, q: str = ""):
    return _listing(request, session, user, clock, title=f"Results for “{q.strip()}”" if q.strip() else "Search", items=lib.search(session, user, q),
                    view="search", query=q)


@router.get("/files/{item_id}")
def file_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int):
    item, role = require(session, user, item_id)
    if item.kind != "file":
        return RedirectResponse(open_url(item), status_code=303)
    _log_view(session, session.get(Site, item.site_id), item, user, clock)
    return page(request, session, user, "drive/file.html", item=item, role=role, crumbs=lib.path_of(session, item), display_name=lib.display_name,
                preview=preview_kind(item))


# The image formats a browser shows, by their first bytes (a file whose bytes don't match its type is
# not previewed: "We can't preview this file").
IMAGE_MAGIC = {"image/png": (b"\x89PNG\r\n\x1a\n",), "image/jpeg": (b"\xff\xd8\xff",), "image/gif": (b"GIF87a", b"GIF89a"), "image/webp": (b"RIFF",)}
IMAGE_EXTS = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}


def image_type(item: Item) -> str | None:
    ctype = item.content_type if item.content_type in IMAGE_MAGIC else IMAGE_EXTS.get("." + item.name.rsplit(".", 1)[-1].lower() if "." in item.name else "")
    return ctype


def preview_kind(item: Item) -> str:
    """How the file page shows the file: "image", "pdf", "text", "broken" (a PDF or image whose bytes
    aren't one) or "none" (a type with no preview)."""
    data = item.data or b""
    if item.content_type == "application/pdf" or item.name.lower().endswith(".pdf"):
        return "pdf" if data[:1024].lstrip().startswith(b"%PDF-") else "broken"
    ctype = image_type(item)
    if ctype:
        ok = data.startswith(IMAGE_MAGIC[ctype]) and (ctype != "image/webp" or data[8:12] == b"WEBP")
        return "image" if ok else "broken"
    if item.content_type.startswith("text/"):
        return "text"
    return "none"


@router.get("/files/{item_id}/content")
def content(session: SessionDep, user: CurrentUser, item_id: int):
    """The file's bytes shown inline (the preview's image or PDF); other types are downloaded."""
    item, _role = require(session, user, item_id)
    kind = preview_kind(item) if item.kind == "file" else "none"
    if kind not in ("image", "pdf"):
        raise HTTPException(404, "There's no preview for this file.")
    ctype = "application/pdf" if kind == "pdf" else image_type(item)
    return Response(item.data or b"", media_type=ctype, headers={"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox",
                                                               "Cache-Control": "private, max-age=0"})


@router.get("/s/{token}")
def open_link(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, token: str):
    """A sharing link opened: the access it gives is granted (and logged), then the file opens."""
    try:
        item = lib.open_link(session, user, clock.now, token, company_of(request))
    except lib.DriveError as exc:
        raise HTTPException(404, str(exc)) from None
    except PermissionError as exc:
        raise HTTPException(403, f"You need permission to access this item. {exc}") from None
    session.commit()
    return RedirectResponse(open_url(item), status_code=303)


@router.get("/files/{item_id}/details")
def details(request: Request, session: SessionDep, user: CurrentUser, item_id: int):
    """The details pane: who has access, links giving access, version history, activity."""
    item, role = require(session, user, item_id)
    people = {u.id: u for u in session.exec(select(User)).all()}
    company = company_of(request)
    links = [{"id": k.id, "label": lib.link_label(k, company), "url": f"{str(request.base_url).rstrip('/')}/s/{k.token}"}
             for k in session.exec(select(Link).where(Link.item_id == item.id).order_by(Link.id)).all()]
    from ..access import visible_ids

    visible = visible_ids(session, user)
    return page(request, session, user, "drive/details.html", visible=visible, item=item, role=role, crumbs=lib.path_of(session, item), access=lib.access_list(session, item), links=links,
                versions=lib.versions(session, item) if item.kind in ("document", "sheet") else [], activity=lib.activity(session, item), people=people,
                role_labels=ROLE_LABELS, open_url=open_url, display_name=lib.display_name, target_folders=target_folders(session, user, visible), view="details")


def target_folders(session, user, ids: set[int] | None = None) -> list[tuple[Item, str]]:  # noqa: ANN001
    """Folders the user can add to (Move to / Copy to), each with its path."""
    from ..access import visible_ids

    ids = visible_ids(session, user) if ids is None else ids
    folders = session.exec(select(Item).where(Item.kind == "folder", Item.deleted_at.is_(None), Item.id.in_(ids))).all()
    sites = {s.id: s for s in session.exec(select(Site)).all()}
    by_id = {f.id: f for f in folders}
    out = []
    for f in folders:
        if role_on(session, user, f) not in ("owner", "edit"):
            continue
        parts, cur = [], f
        while cur is not None and cur.parent_id is not None:
            parts.append(cur.name)
            cur = by_id.get(cur.parent_id) or session.get(Item, cur.parent_id)
        site = sites[f.site_id]
        top = "My files" if site.kind == "personal" and site.owner_id == user.id else site.name
        out.append((f, " / ".join([top, *reversed(parts)])))
    return sorted(out, key=lambda x: (not x[1].startswith("My files"), x[1].lower()))


def _groups(session) -> list[str]:  # noqa: ANN001
    return sorted({d for d in session.exec(select(User.department).where(User.active)).all() if d})


@router.get("/files/{item_id}/download")
def download(session: SessionDep, user: CurrentUser, item_id: int):
    item, _role = require(session, user, item_id)
    if item.kind == "folder":
        raise HTTPException(400, "Folders can't be downloaded here: open the folder and download its files.")
    if item.kind == "document":
        from ..documents import load, to_docx

        data, ctype = to_docx(load(session, item.id), item.name), "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    elif item.kind == "sheet":
        from ..charts import for_export
        from ..sheets import snapshot, to_xlsx

        data, ctype = to_xlsx(snapshot(session, item.id), charts=for_export(session, item.id)), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    else:
        data, ctype = item.data or b"", item.content_type or "application/octet-stream"
    name = lib.display_name(item)
    return Response(data, media_type=ctype, headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}"})


def _folder_or_error(session, user, folder_id: int) -> Item:  # noqa: ANN001
    folder, _ = require(session, user, folder_id)
    return folder


@router.post("/folders/{folder_id}/new")
def new_item(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, folder_id: int, kind: str = Form(""), name: str = Form("")):
    folder = _folder_or_error(session, user, folder_id)
    try:
        item = lib.create(session, user, clock.now, folder, kind, name)
    except ERRORS as exc:
        return redirect(request, f"/folders/{folder_id}", toast=str(exc), kind="error")
    session.commit()
    if item.kind == "folder":
        return redirect(request, f"/folders/{folder_id}", toast=f"Created folder “{item.name}”.")
    return redirect(request, open_url(item))


@router.post("/folders/{folder_id}/upload")
async def upload(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, folder_id: int, files: list[UploadFile] = File(default=[])):
    folder = _folder_or_error(session, user, folder_id)
    done = []
    for f in files:
        if not f.filename:
            continue
        data = await f.read(lib.MAX_UPLOAD + 1)
        try:
            done.append(lib.upload(session, user, clock.now, folder, f.filename, data, f.content_type or ""))
        except ERRORS as exc:
            session.rollback()
            return redirect(request, f"/folders/{folder_id}", toast=f"Couldn't upload “{f.filename}”. {exc}", kind="error")
    if not done:
        return redirect(request, f"/folders/{folder_id}", toast="Choose a file to upload.", kind="error")
    session.commit()
    return redirect(request, f"/folders/{folder_id}", toast=f"Uploaded {len(done)} item{'s' if len(done) != 1 else ''} to {folder.name}.")


@router.post("/files/{item_id}/{action}")
async def item_action(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, action: str):
    form = await request.form()
    back = safe_back(str(form.get("back", "")), "/my")
    need = "view" if action == "copy" else "owner" if action in ("share", "unshare", "link", "unlink") else "edit"
    item, role = require(session, user, item_id, "view", deleted_ok=action == "restore")
    if action in ("share", "unshare", "link", "unlink") and role not in ("owner", "edit"):
        raise HTTPException(403, "Only people who can edit this item can share it.")
    if need == "edit" and role == "view":
        raise HTTPException(403, "You have view access to this item. Ask the owner for edit access to change it.")
    try:
        toast = _do(session, user, clock, item, action, form, company_of(request))
    except ERRORS as exc:
        session.rollback()
        return redirect(request, back, toast=str(exc), kind="error")
    session.commit()
    if action == "link":
        back = f"/files/{item.id}/details"
    if action in ("delete",) and back.startswith((f"/doc/{item.id}", f"/sheet/{item.id}", f"/files/{item.id}")):
        back = f"/folders/{item.parent_id}"
    return redirect(request, back, toast=toast)


def _target(session, user, form) -> Item:  # noqa: ANN001
    tid = str(form.get("target", ""))
    if not tid.isdigit():
        raise lib.DriveError("Choose a folder.")
    target = session.get(Item, int(tid))
    if target is None or role_on(session, user, target) is None:
        raise lib.DriveError("Choose a folder.")
    return target


def _do(session, user, clock, item: Item, action: str, form, company: str = "") -> str:  # noqa: ANN001
    now = clock.now
    if action == "link":
        users = [int(v) for v in form.getlist("user_id") if str(v).isdigit()]
        link = lib.create_link(session, user, now, item, str(form.get("scope", "")), str(form.get("role", "")), users, company)
        return f"Link copied. {lib.link_label(link, company)}."
    if action == "unlink":
        lid = str(form.get("link_id", ""))
        lib.remove_link(session, user, now, item, int(lid) if lid.isdigit() else -1, company)
        return "Link removed. People who got access through it no longer have it."
    if action == "rename":
        old = item.name
        lib.rename(session, user, now, item, str(form.get("name", "")))
        return f"Renamed “{old}” to “{item.name}”."
    if action == "move":
        target = _target(session, user, form)
        lib.move(session, user, now, item, target)
        return f"Moved “{item.name}” to {target.name}."
    if action == "copy":
        target = _target(session, user, form)
        new = lib.copy(session, user, now, item, target)
        return f"Copied “{item.name}” to {target.name} as “{new.name}”."
    if action == "delete":
        lib.delete(session, user, now, item)
        return f"Deleted “{item.name}”. You can restore it from the recycle bin."
    if action == "restore":
        lib.restore(session, user, now, item)
        return f"Restored “{item.name}”."
    if action == "share":
        users = [int(v) for v in form.getlist("user_id") if str(v).isdigit()]
        groups = [str(v) for v in form.getlist("group") if str(v)]
        lib.share(session, user, now, item, str(form.get("role", "")), users, groups)
        return f"Shared “{item.name}”."
    if action == "unshare":
        sid = str(form.get("share_id", ""))
        lib.unshare(session, user, now, item, int(sid) if sid.isdigit() else -1)
        return "Access removed."
    if action == "restore-version":
        n = str(form.get("version", ""))
        lib.restore_version(session, user, now, item, int(n) if n.isdigit() else -1)
        return f"Restored version {n} of “{item.name}”."
    raise HTTPException(404, f"Unknown action “{action}”.")


@router.get("/folders-picker")
def folders_picker(session: SessionDep, user: CurrentUser, q: str = ""):
    """The Move to / Copy to dialog's type-ahead: folders the user can edit."""
    from ..access import visible_ids

    ids = visible_ids(session, user)
    rows = session.exec(select(Item).where(Item.kind == "folder", Item.deleted_at.is_(None), Item.name.ilike(f"%{q.strip()}%")).order_by(Item.name)).all()
    out = []
    for f in rows:
        if f.id in ids and role_on(session, user, f) in ("owner", "edit"):
            site = session.get(Site, f.site_id)
            out.append({"id": f.id, "label": f.name if f.parent_id else site.name, "sublabel": site.name})
        if len(out) >= 20:
            break
    return out


@router.get("/people")
def people(session: SessionDep, user: CurrentUser, q: str = ""):
    """The share dialog's type-ahead: people and groups of the directory."""
    q = q.strip().lower()
    out = []
    for g in _groups(session):
        if q and q in g.lower():
            out.append({"id": f"g:{g}", "label": g, "sublabel": "Group"})
    for u in session.exec(select(User).where(User.active).order_by(User.last_name, User.first_name)).all():
        if not q or q in u.name.lower() or q in u.email.lower() or q in u.username.lower():
            out.append({"id": f"u:{u.id}", "label": u.name, "sublabel": f"{u.title} \u00b7 {u.email}"})
        if len(out) >= 12:
            break
    return out
