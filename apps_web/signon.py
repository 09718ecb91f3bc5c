"""Single sign-on between the portal and the apps: the portal's hand-off (``/_sso``) and signing out
everywhere (every app clears its own session cookie in turn)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from .deps import in_episode
from .identity.session import SESSION_COOKIE, WORLD_COOKIE
from .registry import AppSpec
from .ui import app_url, portal_url, render


def _next_app(host: Any, name: str | None) -> AppSpec | None:
    """The app after ``name`` (the first app for ``None``) in the host's order: sign-out visits each."""
    names = [spec.name for spec in host.specs]
    i = 0 if name is None else names.index(name) + 1 if name in names else len(names)
    return host.specs[i] if i < len(names) else None


def signed_out_redirect(request: Request, after: str | None) -> RedirectResponse:
    """Front-channel sign-out: the next app clears its own session cookie (cookies belong to one
    host name each), the last hands over to the portal's signed-out page. So a signed-out browser
    holds no session cookie anywhere, whatever the host process remembers."""
    nxt = _next_app(request.app.state.host, after)
    if nxt is None:
        return RedirectResponse(portal_url(request, "/signin?signed_out=1"), status_code=303)
    return RedirectResponse(app_url(request, nxt.name, "/_signout"), status_code=303)


def _local_path(target: str) -> str:
    """A path on the same app to go to after sign-in; never another host, never the hand-off itself."""
    if not target.startswith("/") or target.startswith("//") or target.startswith("/_sso"):
        return "/"
    return target


def _app_signout(request: Request, response: Response) -> None:
    """The app's own sign-out work (``AppSpec.on_signout``), while its session is still valid."""
    hook = getattr(request.app.state.spec, "on_signout", None)
    if hook is not None:
        hook(request, response)


def sign_on_router() -> APIRouter:
    """Every app accepts the portal's sign-in hand-off and signs out everywhere."""
    router = APIRouter(include_in_schema=False)

    @router.get("/_sso")
    def sso(request: Request, t: str = "", next: str = "/") -> Response:
        host = request.app.state.host
        spec: AppSpec = request.app.state.spec
        target = _local_path(next)
        data = host.signer.load_sso_token(t)
        world = getattr(request.state, "world", None)
        # An episode's world is fixed by its header: a hand-off to another world cannot sign in there.
        wrong_world = data is not None and in_episode(request) and world is not None and data.world_id != world.id
        if data is None or data.sid in host.revoked or wrong_world:
            # A page, not a redirect to sign-in: an already signed-in portal would hand the same
            # broken link back, and the browser would go round until it gives up.
            retry = portal_url(request, "/signin?next=" + quote(app_url(request, spec.name, target), safe=""))
            return render(request, "ui/sso_error.html", status_code=400, retry=retry)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(SESSION_COOKIE, host.signer.session_value(data.username, data.world_id, data.sid), httponly=True, samesite="lax")
        response.set_cookie(WORLD_COOKIE, data.world_id, httponly=True, samesite="lax")
        return response

    @router.get("/signout")
    def signout(request: Request) -> Response:
        host = request.app.state.host
        data = host.signer.load_session(request.cookies.get(SESSION_COOKIE))
        response = RedirectResponse(portal_url(request, "/signout"), status_code=303)
        _app_signout(request, response)
        if data is not None:
            host.revoked.add(data.sid)
        response.delete_cookie(SESSION_COOKIE)
        return response

    @router.get("/_signout")
    def signed_out(request: Request) -> Response:
        """One stop of the sign-out round (see :func:`signed_out_redirect`)."""
        host = request.app.state.host
        data = host.signer.load_session(request.cookies.get(SESSION_COOKIE))
        response = signed_out_redirect(request, request.app.state.spec.name)
        _app_signout(request, response)
        if data is not None:
            host.revoked.add(data.sid)
        response.delete_cookie(SESSION_COOKIE)
        return response

    return router


__all__ = ["sign_on_router", "signed_out_redirect"]
