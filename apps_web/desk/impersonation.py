"""Impersonation: an admin acts as another user in the desk, as ServiceNow's "Impersonate user".

The sign-in session stays the admin's: the sandbox's persona rule reads the signed-in user, and an
episode's persona cannot change by impersonating. What is impersonated is a row of
``desk_impersonation`` (who, whom, from when; an open row is the impersonation in force, and
verifiers read it there) bound to the browser's desk session by a signed cookie naming the row and
the session id, so another session of the same admin does not carry it over; signing out (the
desk's own Sign out, or the sign-out round another app starts) ends it (:func:`on_signout`).
"""

from __future__ import annotations

from datetime import datetime

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeSerializer
from sqlmodel import Session, select

from ..identity.models import User
from ..identity.session import SESSION_COOKIE
from .models import Impersonation

COOKIE = "desk_impersonation"


def _serializer(request: Request) -> URLSafeSerializer:
    return URLSafeSerializer(request.app.state.host.secret, salt="desk-impersonation")


def _sid(request: Request) -> str | None:
    data = request.app.state.host.signer.load_session(request.cookies.get(SESSION_COOKIE))
    return data.sid if data is not None else None


def active(request: Request, session: Session, real: User) -> Impersonation | None:
    """The impersonation in force for this request's session, if any."""
    raw = request.cookies.get(COOKIE)
    if not raw:
        return None
    try:
        data = _serializer(request).loads(raw)
    except BadSignature:
        return None
    if not isinstance(data, dict) or data.get("s") != _sid(request):
        return None
    row = session.get(Impersonation, data.get("i")) if isinstance(data.get("i"), int) else None
    if row is None or row.ended_at is not None or row.impersonator_id != real.id:
        return None
    from .acl import roles_of

    return row if "admin" in roles_of(session, real.id) else None


def start(request: Request, response: Response, session: Session, real: User, target: User, now: datetime) -> Impersonation:
    """End the admin's open impersonations and start one of ``target``; the cookie binds it to the session."""
    finish_all(session, real, now)
    row = Impersonation(impersonator_id=real.id, user_id=target.id, started_at=now)
    session.add(row)
    session.flush()
    response.set_cookie(COOKIE, _serializer(request).dumps({"s": _sid(request), "i": row.id}), httponly=True, samesite="lax")
    return row


def finish_all(session: Session, real: User, now: datetime) -> None:
    for row in session.exec(select(Impersonation).where(Impersonation.impersonator_id == real.id, Impersonation.ended_at.is_(None))).all():
        row.ended_at = now
        session.add(row)


def on_signout(request: Request, response: Response) -> None:
    """Signing out while impersonating ends the impersonation: its row is closed at the world's now
    and the cookie dropped (the desk's ``AppSpec.on_signout``)."""
    if request.cookies.get(COOKIE) is None:
        return
    response.delete_cookie(COOKIE)
    world = getattr(request.state, "world", None)
    host = request.app.state.host
    data = host.signer.load_session(request.cookies.get(SESSION_COOKIE))
    if world is None or data is None or data.world_id != world.id:  # revoked already when another app started the round
        return
    with Session(world.engine) as session:
        real = session.exec(select(User).where(User.username == data.username)).first()
        row = active(request, session, real) if real is not None else None
        if row is None:
            return
        clock = session.connection().exec_driver_sql("SELECT value FROM sandbox_meta WHERE key = 'clock'").scalar_one()
        row.ended_at = datetime.fromisoformat(clock)
        session.add(row)
        session.commit()


def recent(session: Session, real: User, limit: int = 5) -> list[User]:
    """The users the admin impersonated last (the dialog's Recent Impersonations), newest first."""
    rows = session.exec(select(Impersonation.user_id).where(Impersonation.impersonator_id == real.id).order_by(Impersonation.id.desc())).all()
    ids = list(dict.fromkeys(rows))[:limit]
    people = {u.id: u for u in session.exec(select(User).where(User.id.in_(ids))).all()} if ids else {}
    return [people[i] for i in ids if i in people]


__all__ = ["COOKIE", "active", "finish_all", "on_signout", "recent", "start"]
