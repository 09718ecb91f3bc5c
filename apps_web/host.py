"""The app host: one ASGI app serving the portal and every cloned app, chosen by Host name.

``localhost:<port>`` is the portal (sign-in, launcher, worlds); ``<app>.localhost:<port>`` is an
app. Every request runs against one world, chosen by the ``X-Sandbox-World`` header (set by the
environment on the episode's browser context), else the ``sbx_world`` cookie (people browsing),
else the host's default world.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any, Awaitable, Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import registry
from .deps import NoWorld, NotSignedIn
from .identity.session import SESSION_COOKIE, WORLD_COOKIE, Signer
from .registry import AppSpec
from .ui import STATIC_DIR, STATIC_PREFIX, make_environment, make_templates, portal_url, render, signin_url
from .world import WorldStore
from .worlds import WORLD_HEADER, InvalidWorldId, UnknownWorld, WorldResolver

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]
PORTAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
NO_WORLD_PATHS = ("/_ui/static/", "/static/", "/healthz", "/favicon.ico")


@dataclass
class HostState:
    """Shared by the portal and every app of one host process."""

    store: WorldStore
    signer: Signer
    secret: str
    specs: tuple[AppSpec, ...]
    default_world: str | None = None
    sandbox_mode: bool = True
    revoked: set[str] = field(default_factory=set)
    resolver: WorldResolver = field(init=False)

    def __post_init__(self) -> None:
        self.resolver = WorldResolver(self.store)


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

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if wants_json(request):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))
        _attach_user(request)
        if getattr(request.state, "user", None) is None and request.app.state.spec is not None and getattr(request.state, "world", None) is not None:
            # Like a real app, nothing but the sign-in page is shown to someone signed out.
            return RedirectResponse(signin_url(request), status_code=303)
        template = "ui/not_found.html" if exc.status_code == 404 else "ui/http_error.html"
        return render(request, template, status_code=exc.status_code, status=exc.status_code, detail=exc.detail)


def _attach_user(request: Request) -> None:
    """Best effort: show the signed-in user in the header of an error page."""
    from sqlmodel import Session, select

    from .identity.models import User

    world = getattr(request.state, "world", None)
    host: HostState = request.app.state.host
    data = host.signer.load_session(request.cookies.get(SESSION_COOKIE))
    if world is None or data is None or data.world_id != world.id or data.sid in host.revoked:
        return
    with Session(world.engine) as session:
        request.state.user = session.exec(select(User).where(User.username == data.username)).first()


def _sso_router():
    """Every app accepts the portal's sign-in hand-off and signs out everywhere."""
    from fastapi import APIRouter

    router = APIRouter(include_in_schema=False)

    @router.get("/_sso")
    def sso(request: Request, t: str = "", next: str = "/") -> Response:
        host: HostState = request.app.state.host
        data = host.signer.load_sso_token(t)
        if data is None:
            return RedirectResponse(signin_url(request), status_code=303)
        target = next if next.startswith("/") and not next.startswith("//") else "/"
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(SESSION_COOKIE, host.signer.session_value(data.username, data.world_id, data.sid), httponly=True, samesite="lax")
        response.set_cookie(WORLD_COOKIE, data.world_id, httponly=True, samesite="lax")
        return response

    @router.get("/signout")
    def signout(request: Request) -> Response:
        host: HostState = request.app.state.host
        data = host.signer.load_session(request.cookies.get(SESSION_COOKIE))
        if data is not None:
            host.revoked.add(data.sid)
        response = RedirectResponse(portal_url(request, "/signout"), status_code=303)
        response.delete_cookie(SESSION_COOKIE)
        return response

    return router


def build_app(spec: AppSpec, state: HostState) -> FastAPI:
    app = FastAPI(title=spec.title, docs_url="/api/docs", openapi_url="/api/openapi.json", redoc_url=None)
    app.state.host = state
    app.state.spec = spec
    app.state.templates = make_templates(spec.templates_dir)
    if spec.templates_setup is not None:
        spec.templates_setup(app.state.templates.env)
    app.mount(STATIC_PREFIX, StaticFiles(directory=STATIC_DIR), name="ui-static")
    if spec.static_dir.exists():
        app.mount("/static", StaticFiles(directory=spec.static_dir), name="static")
    app.include_router(_sso_router())
    app.include_router(spec.router())
    install_error_handlers(app)
    return app


class Host:
    """ASGI entry point: dispatch by Host name, select the world, then hand over to the app."""

    def __init__(self, state: HostState) -> None:
        from .portal import build_portal

        self.state = state
        self.portal = build_portal(state)
        self.apps: dict[str, FastAPI] = {spec.name: build_app(spec, state) for spec in state.specs}
        self._error_env = make_environment()

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] not in ("http", "websocket"):
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        hostname = _hostname(headers.get("host", "localhost"))
        if hostname in PORTAL_HOSTS:
            target: ASGIApp = self.portal
        elif hostname.endswith(".localhost") and hostname[: -len(".localhost")] in self.apps:
            target = self.apps[hostname[: -len(".localhost")]]
        else:
            names = ", ".join(f"{s.name}.localhost" for s in self.state.specs) or "none installed"
            await self._error(scope, send, 404, "No such app", f"Nothing is served at {hostname!r}. Apps here: {names}; the portal is at localhost.")
            return
        state = scope.setdefault("state", {})
        state["world"] = None
        if not scope.get("path", "/").startswith(NO_WORLD_PATHS):
            world_id = headers.get(WORLD_HEADER)
            named = world_id is not None
            if world_id is None:
                world_id = _cookie(headers.get("cookie", ""), WORLD_COOKIE) or self.state.default_world
            if world_id is not None:
                try:
                    state["world"] = self.state.resolver.resolve(world_id.strip())
                except InvalidWorldId as exc:
                    await self._error(scope, send, 400, "Malformed world id", str(exc))
                    return
                except UnknownWorld as exc:
                    source = "the X-Sandbox-World header" if named else "your browser's world cookie"
                    await self._error(scope, send, 404, "World not found", f"{exc} (named by {source}). Start a new world from the portal.", portal=True)
                    return
        await target(scope, receive, send)

    async def _lifespan(self, receive: Callable, send: Callable) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _error(self, scope: Scope, send: Callable, status: int, title: str, message: str, portal: bool = False) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4000 + status})
            return
        path = scope.get("path", "")
        if path.startswith("/api/") or "application/json" in headers.get("accept", ""):
            body = json.dumps({"detail": message}).encode()
            ctype = b"application/json"
        else:
            port = headers.get("host", "")
            port = port[port.rfind(":"):] if ":" in port else ""
            html = self._error_env.get_template("ui/error.html").render(
                status=status, title=title, message=message, apps=self.state.specs,
                portal_home=f"http://localhost{port}/", show_portal=portal, sandbox_mode=self.state.sandbox_mode,
            )
            body, ctype = html.encode(), b"text/html; charset=utf-8"
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def _hostname(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if ":" in host else host


def _cookie(header: str, name: str) -> str | None:
    if not header:
        return None
    jar = SimpleCookie()
    try:
        jar.load(header)
    except Exception:  # malformed cookie header: ignore it like a browser would
        return None
    morsel = jar.get(name)
    return morsel.value if morsel else None


def create_host(store: WorldStore | None = None, *, secret: str | None = None, default_world: str | None = None, sandbox_mode: bool = True, apps: tuple[AppSpec, ...] | None = None) -> Host:
    """The host ASGI app. ``secret`` signs sessions; pass it to mint cookies for personas."""
    secret = secret or secrets.token_hex(32)
    state = HostState(
        store=store or WorldStore(),
        signer=Signer(secret),
        secret=secret,
        specs=apps if apps is not None else registry.discover(),
        default_world=default_world,
        sandbox_mode=sandbox_mode,
    )
    return Host(state)


__all__ = ["Host", "HostState", "build_app", "create_host", "install_error_handlers", "wants_json"]
