"""Dependencies injected into every app's routes: the world, a database session, the user, the clock."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
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


class NotInEpisode(Exception):
    """The request comes from an episode (it names its world by header) and asked for something an
    agent must not do there: change worlds, sign in, read the interactive API docs. The host answers
    403 with a page saying so."""

    def __init__(self, action: str, why: str) -> None:
        super().__init__(f"{action} is not allowed in an episode: {why}")
        self.action = action
        self.why = why


def in_episode(request: Request) -> bool:
    """Whether the request belongs to an episode: the runtime names its world with the header."""
    return bool(getattr(request.state, "episode", False))


def refuse_in_episode(action: str, why: str):  # noqa: ANN201 - a FastAPI dependency
    """A dependency that refuses the route inside an episode (people browsing are not affected)."""

    def guard(request: Request) -> None:
        if in_episode(request):
            raise NotInEpisode(action, why)

    return Depends(guard)


def get_world(request: Request) -> WorldHandle:
    world = getattr(request.state, "world", None)
    if world is None:
        raise NoWorld()
    return world


WorldDep = Annotated[WorldHandle, Depends(get_world)]


def get_session(request: Request, world: WorldDep) -> Iterator[Session]:
    with Session(world.engine) as session:
        if world.stale:  # written since its clock was read: the environment may have moved the clock
            world = _read_clock(request, world, session)
        session.info["now"] = world.clock.now  # who and when of this request's writes, for apps that record history
        yield session


def _read_clock(request: Request, world: WorldHandle, session: Session) -> WorldHandle:
    """The world with its clock as stored now, read on the request's own connection (a new connection
    parses the whole schema; this one does anyway for the request's queries)."""
    value = session.connection().exec_driver_sql("SELECT value FROM sandbox_meta WHERE key = 'clock'").scalar_one()
    clock = datetime.fromisoformat(value)
    resolver = getattr(getattr(request.app.state, "host", None), "resolver", None)  # the host's HostState
    fresh = resolver.refreshed(world, clock) if resolver is not None else replace(world, meta=replace(world.meta, clock=clock), stale=False)
    request.state.world = fresh
    return fresh


SessionDep = Annotated[Session, Depends(get_session)]


def get_clock(request: Request, session: SessionDep) -> WorldClock:
    return get_world(request).clock  # after the session, which reads the clock when it may have moved


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
    session.info["user_id"] = user.id
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
    "NotInEpisode",
    "NotSignedIn",
    "OptionalUser",
    "SessionDep",
    "WorldDep",
    "current_user",
    "get_clock",
    "get_session",
    "get_world",
    "in_episode",
    "optional_user",
    "refuse_in_episode",
]


MAX_ROW_ID = 2**63 - 1  # SQLite's integers are 64-bit: a larger id names no row (and cannot be bound)


def row_id(value: object) -> int | None:
    """``value`` as a row id, or None when it cannot name a row (not a whole number, or out of range)."""
    try:
        n = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return n if -MAX_ROW_ID <= n <= MAX_ROW_ID else None
