"""Who may do what with a drive item: the owner, and the sharing entries on the item or any folder
above it (for the user, or for a group they belong to: their department). Enforced on every route."""

from __future__ import annotations

from fastapi import HTTPException
from sqlmodel import Session, select

from ..identity.models import User
from .models import Item, Share, Site

RANK = {None: 0, "view": 1, "edit": 2, "owner": 3}


def groups_of(user: User) -> set[str]:
    return {user.department} if user.department else set()


def ancestors(session: Session, item: Item) -> list[Item]:
    """The item and the folders above it, nearest first."""
    chain, seen = [item], {item.id}
    while chain[-1].parent_id is not None and chain[-1].parent_id not in seen:
        parent = session.get(Item, chain[-1].parent_id)
        if parent is None:
            break
        seen.add(parent.id)
        chain.append(parent)
    return chain


def role_on(session: Session, user: User, item: Item) -> str | None:
    """"owner", "edit", "view" or None."""
    chain = ancestors(session, item)
    site = session.get(Site, item.site_id)
    if any(i.owner_id == user.id for i in chain) or (site is not None and site.owner_id == user.id):
        return "owner"
    ids = [i.id for i in chain]
    groups = groups_of(user)
    best = None
    for share in session.exec(select(Share).where(Share.item_id.in_(ids))).all():
        if share.user_id == user.id or (share.group_name and share.group_name in groups):
            if RANK[share.role] > RANK[best]:
                best = share.role
    return best


def require(session: Session, user: User, item_id: int, need: str = "view", *, deleted_ok: bool = False) -> tuple[Item, str]:
    """The item and the user's role on it; 404 when they may not see it (as OneDrive says: the item
    might not exist or you don't have access), 403 when they may see but not change it."""
    item = session.get(Item, item_id)
    role = role_on(session, user, item) if item is not None else None
    if item is None or role is None or (item.deleted_at is not None and not deleted_ok):
        raise HTTPException(404, "This item might not exist or is no longer available. It may have been deleted, or you don't have permission to view it.")
    if RANK[role] < RANK[need]:
        raise HTTPException(403, "You have view access to this item. Ask the owner for edit access to change it.")
    return item, role


def visible_roots(session: Session, user: User, sites: list[Site]) -> set[int]:
    """The top folders of ``sites`` the user can see: the ones :func:`visible_ids` would hold, found
    without walking every item. A top folder has nothing above it, so it is visible exactly when that
    walk starts from it: the user owns it or its site, or it is shared with them or their group."""
    roots = {s.root_id for s in sites if s.root_id is not None}
    if not roots:
        return set()
    groups = groups_of(user)
    owned = {iid for iid, owner in session.exec(select(Item.id, Item.owner_id).where(Item.id.in_(roots))).all() if owner == user.id}
    owned |= {s.root_id for s in sites if s.owner_id == user.id and s.root_id in roots}
    shared = {sh.item_id for sh in session.exec(select(Share).where(Share.item_id.in_(roots))).all()
              if sh.user_id == user.id or (sh.group_name and sh.group_name in groups)}
    return owned | shared


def visible_ids(session: Session, user: User) -> set[int]:
    """Every item the user can see (owned, or under a folder shared with them or their group)."""
    rows = session.exec(select(Item.id, Item.parent_id, Item.owner_id, Item.site_id)).all()
    owned_sites = set(session.exec(select(Site.id).where(Site.owner_id == user.id)).all())
    children: dict[int | None, list[int]] = {}
    for iid, parent, _owner, _site in rows:
        children.setdefault(parent, []).append(iid)
    groups = groups_of(user)
    roots = {iid for iid, _p, owner, site in rows if owner == user.id or site in owned_sites}
    roots |= {s.item_id for s in session.exec(select(Share)).all() if s.user_id == user.id or (s.group_name and s.group_name in groups)}
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        iid = stack.pop()
        if iid in seen:
            continue
        seen.add(iid)
        stack.extend(children.get(iid, ()))
    return seen
