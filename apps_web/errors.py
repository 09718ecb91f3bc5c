"""Error handling shared by the portal and every app: sign-in redirects, refusals inside episodes,
and errors rendered in the app's own look (JSON for the API)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from .deps import NotInEpisode, NotSignedIn, NoWorld
from .identity.session import SESSION_COOKIE
from .ui import portal_url, render, signin_url


class TitledError(StarletteHTTPException):
    """An HTTP error whose page has the product's own heading ("Insufficient Privileges") instead of
    the generic one; API clients get the detail as with any error."""

    def __init__(self, status_code: int, detail: str, title: str) -> None:
        super().__init__(status_code, detail)
        self.title = title


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def install_error_handlers(app: FastAPI) -> None:
    """Sign-in redirects, and 404/errors rendered in the app's own look (JSON for the API)."""

    @app.exception_handler(NotSignedIn)
    async def _not_signed_in(request: Request, _exc: NotSignedIn) -> Response:
        if wants_json(request):
            return JSONResponse({"detail": "not signed in: sign in at the portal first"}, status_code=401)
        return RedirectResponse(signin_url(request), status_code=303)

    @app.exception_handler(NoWorld)
    async def _no_world(request: Request, _exc: NoWorld) -> Response:
        if wants_json(request):
            return JSONResponse({"detail": "no world selected: send the X-Sandbox-World header"}, status_code=409)
        if request.app.state.spec is None:  # the portal itself offers to start one
            return render(request, "ui/no_world.html", status_code=409)
        return RedirectResponse(portal_url(request, "/"), status_code=303)

    @app.exception_handler(NotInEpisode)
    async def _not_in_episode(request: Request, exc: NotInEpisode) -> Response:
        # Pages (forms, links, the docs) get a page; API clients get JSON.
        if "text/html" not in request.headers.get("accept", ""):
            return JSONResponse({"detail": str(exc)}, status_code=403)
        _attach_user(request)
        signed_out = getattr(request.state, "user", None) is None and request.url.path == "/signin"
        return render(request, "ui/refused.html", status_code=403, action=exc.action, why=exc.why, signed_out=signed_out)

    @app.exception_handler(OverflowError)
    async def _out_of_range(request: Request, _exc: OverflowError) -> Response:
        # A number beyond the database's 64-bit integers (an id, a count) names nothing: the
        # request is refused whatever route read it, and nothing was written.
        return await _http_error(request, StarletteHTTPException(422, "A number in the request is too large (whole numbers go up to 9223372036854775807)."))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if wants_json(request):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))
        _attach_user(request)
        if getattr(request.state, "user", None) is None and request.app.state.spec is not None and getattr(request.state, "world", None) is not None:
            # Like a real app, nothing but the sign-in page is shown to someone signed out.
            return RedirectResponse(signin_url(request), status_code=303)
        template = "ui/not_found.html" if exc.status_code == 404 else "ui/http_error.html"
        title, detail = getattr(exc, "title", None), exc.detail
        if title and isinstance(detail, str) and detail.startswith(f"{title}: "):
            detail = detail[len(title) + 2:]  # the heading says it already
        return render(request, template, status_code=exc.status_code, status=exc.status_code, detail=detail, title=title)


def _attach_user(request: Request) -> None:
    """Best effort: show the signed-in user in the header of an error page."""
    from sqlmodel import Session, select

    from .identity.models import User

    world = getattr(request.state, "world", None)
    host = request.app.state.host
    data = host.signer.load_session(request.cookies.get(SESSION_COOKIE))
    if world is None or data is None or data.world_id != world.id or data.sid in host.revoked:
        return
    with Session(world.engine) as session:
        user = session.exec(select(User).where(User.username == data.username)).first()
    request.state.user = user if user is not None and user.active else None


__all__ = ["install_error_handlers", "wants_json"]
