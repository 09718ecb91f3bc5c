"""Shared by the drive routes: the page frame's context (libraries in the left rail), safe redirects."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from sqlmodel import Session, select

from ...identity.models import User
from ...ui import render
from ..access import visible_roots
from ..library import personal_site
from ..models import Site


def sites_for(session: Session, user: User, visible: set[int] | None = None) -> list[Site]:
    """The team sites and data rooms the user can open (the left rail's "Sites")."""
    sites = list(session.exec(select(Site).where(Site.kind != "personal").order_by(Site.kind, Site.name)).all())
    visible = visible_roots(session, user, sites) if visible is None else visible
    return [s for s in sites if s.root_id in visible]


def company_of(request: Request) -> str:
    """The organisation's name (the world's company), as sharing links name it."""
    meta = getattr(getattr(request.state, "world", None), "meta", None)
    return getattr(meta, "company", "") or "your organization"


def page(request: Request, session: Session, user: User, template: str, status_code: int = 200, visible: set[int] | None = None, **ctx: Any):
    """``visible``: the ids the user can see, when the route has them already (they cost a walk of every item)."""
    return render(request, template, status_code=status_code, my_site=personal_site(session, user), sites=sites_for(session, user, visible),
                  company=company_of(request), **ctx)


def safe_back(url: str, default: str = "/my") -> str:
    return url if url.startswith("/") and not url.startswith("//") else default


def int_list(values) -> list[int]:  # noqa: ANN001
    return [int(v) for v in values if str(v).isdigit()]
