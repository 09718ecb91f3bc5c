"""The page ServiceNow shows when an ACL refuses a page, a form or a list."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from ...ui import render
from ..acl import DENIED_PAGE


def denied(request: Request, what: str = "") -> Response:
    return render(request, "desk/denied.html", status_code=403, message=DENIED_PAGE, what=what)
