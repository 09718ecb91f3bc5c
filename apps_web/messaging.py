"""What the world's people exchange with the persona, app by app: the contract between an app's
co-worker adapter (``apps_web/<app>/coworker.py``) and the co-worker engine (``sandbox.coworkers``).

An app that carries requests between people (mail, chat, approvals) declares
``AppSpec(messaging=factory)``; the factory returns an object with

- ``inbound(conn, diff, persona_id) -> list[Request]``: the requests the persona made in one step's
  change set (who asked whom, the text, where to answer);
- ``deliver(conn, reply) -> dict``: writes a co-worker's reply into the world as that person (a mail
  in the same thread, a chat message in the same conversation, an approval decided with comments);
- optionally ``send(conn, message) -> dict``: writes a scheduled message of the task (someone writes
  to the persona at a given world time).

``conn`` is a sqlite3 connection to the world; the adapter writes through it and the engine commits,
so the change log records every row (verifiers see them, authored by the co-worker).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

RequestKind = Literal["message", "approval"]


class _Stored:
    """JSON form of a request or reply (kept in the engine's checkpoint state): ISO times, lists."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)  # type: ignore[call-overload]
        d["at"] = self.at.isoformat()  # type: ignore[attr-defined]
        d["to"] = list(self.to)  # type: ignore[attr-defined]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Any:
        return cls(**{**d, "at": datetime.fromisoformat(d["at"]), "to": tuple(d["to"])})


@dataclass(frozen=True)
class Request(_Stored):
    """One request of the persona to one or more people."""

    app: str
    kind: RequestKind
    sender: str  # username
    to: tuple[str, ...]  # usernames addressed
    text: str
    at: datetime
    ref: dict[str, Any] = field(default_factory=dict)  # where to answer (the adapter's own keys)
    subject: str = ""
    amount: float | None = None  # a record's own amount (an approval of a priced item), if any
    amount_unit: str | None = None  # "%" for a percentage (a discount); None: money


@dataclass(frozen=True)
class Reply(_Stored):
    """A co-worker's answer to a request, written at ``at`` (world time)."""

    app: str
    actor: str  # username of the co-worker who writes
    to: tuple[str, ...]  # usernames answered
    text: str
    at: datetime
    ref: dict[str, Any] = field(default_factory=dict)
    subject: str = ""
    decision: str = "answer"  # the policy's decision (answer, clarify, approve, refuse, ...)
    verdict: Literal["approved", "rejected"] | None = None  # for approval records


@dataclass(frozen=True)
class Outbound:
    """A message a task schedules: ``sender`` writes to ``to`` (or into ``conversation``)."""

    app: str
    sender: str
    text: str
    at: datetime
    to: tuple[str, ...] = ()
    conversation: str | int | None = None
    subject: str = ""


class Adapter(Protocol):
    def inbound(self, conn: Any, diff: Any, persona_id: int) -> list[Request]: ...

    def deliver(self, conn: Any, reply: Reply) -> dict[str, Any]: ...


def user_ids(conn: Any, usernames: list[str] | tuple[str, ...]) -> dict[str, int]:
    """username -> id for the given users (unknown names are left out)."""
    if not usernames:
        return {}
    marks = ",".join("?" * len(usernames))
    rows = conn.execute(f"SELECT id, username FROM identity_user WHERE username IN ({marks})", list(usernames)).fetchall()
    return {r[1]: r[0] for r in rows}


def usernames_of(conn: Any, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {r[0]: r[1] for r in conn.execute(f"SELECT id, username FROM identity_user WHERE id IN ({marks})", list(ids)).fetchall()}


def session_on(conn: Any) -> Any:
    """A SQLModel session writing through ``conn`` (a sqlite3 connection), so an adapter can reuse its
    app's own service functions; the changes are committed with the connection."""
    from sqlalchemy.pool import StaticPool
    from sqlmodel import Session, create_engine

    engine = create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool)
    return Session(engine)


__all__ = ["Adapter", "Outbound", "Reply", "Request", "session_on", "user_ids", "usernames_of"]
