"""Shared by the mail routes: the signed-in user's mailbox and the form's id lists."""

from __future__ import annotations

from fastapi import Request

from ...identity.models import User
from ..mailbox import mailbox_for
from ..models import Mailbox


def box_of(session, user: User) -> Mailbox:  # noqa: ANN001
    return mailbox_for(session, user)


def domain_of(request: Request, box: Mailbox) -> str:
    world = getattr(request.state, "world", None)
    meta = getattr(world, "meta", None)
    return getattr(meta, "domain", "") or box.address.split("@", 1)[1]


def int_list(values: list[str]) -> list[int]:
    return [int(v) for v in values if str(v).isdigit()]


def safe_back(url: str, default: str = "/mail/inbox") -> str:
    return url if url.startswith("/") and not url.startswith("//") else default
