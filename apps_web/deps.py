"""Dependencies injected into every app's routes: the world, a database session, the user, the clock."""

from __future__ import annotations

from typing import Annotated, Iterator

from fastapi import Depends, Request
from sqlmodel import Session, select

from .identity.models import User
from .identity.session import SESSION_COOKIE
from .worlds import WorldHandle
from .world import WorldClock


class NotSignedIn(Exception):
    """Raised by CurrentUser; the host answers with a redirect to sign-in (or 401 for the API)."""


class NoWorld(Exception):
    """The request reached a route that needs a world, but none was selected."""


def get_world(request: Request) -> WorldHandle:
    world = getattr(request.state, "world", None)
    if world is None:
        raise NoWorld()
    return world


WorldDep = Annotated[WorldHandle, Depends(get_world)]


def get_session(world: WorldDep) -> Iterator[Session]:
    with Session(world.engine) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


def get_clock(world: WorldDep) -> WorldClock:
    return world.clock


ClockDep = Annotated[WorldClock, Depends(get_clock)]


def optional_user(request: Request, session: SessionDep, world: WorldDep) -> User | None:
    host = request.app.state.host
    data = host.signer.load_session(request.cookies.get(SESSION_COOKIE))
    if data is None or data.world_id != world.id or data.sid in host.revoked:
        return None
    user = session.exec(select(User).where(User.username == data.username)).first()
    if user is None or not user.active:
        return None
    request.state.user = user
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]


def current_user(user: OptionalUser) -> User:
    if user is None:
        raise NotSignedIn()
    return user


CurrentUser = Annotated[User, Depends(current_user)]

__all__ = [
    "ClockDep",
    "CurrentUser",
    "NoWorld",
    "NotSignedIn",
    "OptionalUser",
    "SessionDep",
    "WorldDep",
    "current_user",
    "get_clock",
    "get_session",
    "get_world",
    "optional_user",
]
