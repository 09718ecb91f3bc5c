"""Granting and removing roles (the user form's Roles related list; admins only)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from ..identity.models import User
from .acl import CONTAINS, ROLES
from .common import displays
from .models import UserRole


def user_roles(session: Session, user_id: int) -> list[dict]:
    """The user's roles as the related list shows them: granted ones, then those they contain."""
    rows = session.exec(select(UserRole).where(UserRole.user_id == user_id).order_by(UserRole.role)).all()
    names = displays(session, "sys_user", {r.granted_by_id for r in rows})
    out = [{"id": r.id, "role": r.role, "description": ROLES.get(r.role, ""), "inherited": False,
            "granted_by": names.get(r.granted_by_id, ""), "created": r.created_at} for r in rows]
    granted = {r.role for r in rows}
    implied = sorted({c for r in rows for c in CONTAINS.get(r.role, ()) if c != r.role} - granted)
    out += [{"id": None, "role": c, "description": ROLES.get(c, ""), "inherited": True, "granted_by": "", "created": None} for c in implied]
    return out


def grant(session: Session, user: User, role: str, by: User, now: datetime) -> str | None:
    """Grant ``role``; returns an error message (nothing changed) or None."""
    if role not in ROLES:
        return f"'{role}' is not a role: choose one of {', '.join(ROLES)}."
    if not user.active:
        return f"{user.name} is inactive: activate the user before granting roles."
    if session.exec(select(UserRole).where(UserRole.user_id == user.id, UserRole.role == role)).first() is not None:
        return f"{user.name} already has the {role} role."
    session.add(UserRole(user_id=user.id, role=role, granted_by_id=by.id, created_at=now))
    return None


def revoke(session: Session, user: User, row_id: int | None, by: User) -> tuple[str | None, str | None]:
    """Remove a granted role; returns (role removed, error message)."""
    row = session.get(UserRole, row_id) if row_id is not None else None
    if row is None or row.user_id != user.id:
        return None, "That role is not granted to this user (an inherited role goes with the role that contains it)."
    if row.role == "admin" and row.user_id == by.id:
        return None, "You cannot remove your own admin role: another administrator must do it."
    session.delete(row)
    return row.role, None
