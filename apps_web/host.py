"""The app host: one ASGI app serving the portal and every cloned app, chosen by Host name.

``localhost:<port>`` is the portal (sign-in, launcher, worlds); ``<app>.localhost:<port>`` is an
app. Every request runs against one world, chosen by the ``X-Sandbox-World`` header (set by the
environment on the episode's browser context), else the ``sbx_world`` cookie (people browsing),
else the host's default world.

A request that names its world by header comes from an episode: there the host refuses whatever
would let an agent leave its world or its persona (world controls, signing in, the interactive API
docs) and never shows a world's id or seed.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any, Awaitable, Callable

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from . import registry
from .deps import refuse_in_episode
from .errors import install_error_handlers, wants_json
from .identity.session import WORLD_COOKIE, Signer
from .registry import AppSpec
from .signon import sign_on_router, signed_out_redirect
from .ui import STATIC_DIR, STATIC_PREFIX, make_environment, make_templates
from .world import WorldStore
from .worlds import INTERFACES_HEADER, WORLD_HEADER, InvalidWorldId, UnknownWorld, WorldResolver

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]
PORTAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
API_PREFIX = "/api/"
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


SWAGGER = f"{STATIC_PREFIX}/vendor/swagger-ui"
DOCS_PATH = "/api/docs"
OPENAPI_PATH = "/api/openapi.json"


def _docs_router(spec: AppSpec):
    """The interactive API docs (Swagger UI) from the UI kit's vendored copy: no CDN, so they work
    offline and inside the sandbox's network fence. Not served to episodes: an agent uses the apps."""
    from fastapi import APIRouter

    router = APIRouter(include_in_schema=False)
    refuse = refuse_in_episode(
        "Opening the interactive API documentation",
        "it is meant for people exploring the apps, not for agents in an episode. The apps' own pages work as usual.",
    )

    @router.get(DOCS_PATH, dependencies=[refuse])
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=OPENAPI_PATH, title=f"{spec.title} API", oauth2_redirect_url=f"{DOCS_PATH}/oauth2-redirect",
            swagger_js_url=f"{SWAGGER}/swagger-ui-bundle.js", swagger_css_url=f"{SWAGGER}/swagger-ui.css",
            swagger_favicon_url=f"{SWAGGER}/favicon-32x32.png",
            swagger_ui_parameters={"validatorUrl": None},  # the default validator is an outside service
        )

    @router.get(f"{DOCS_PATH}/oauth2-redirect", dependencies=[refuse])
    def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    return router


def build_app(spec: AppSpec, state: HostState) -> FastAPI:
    app = FastAPI(title=spec.title, docs_url=None, openapi_url=OPENAPI_PATH, redoc_url=None)
    app.state.host = state
    app.state.spec = spec
    app.state.templates = make_templates(spec.templates_dir)
    if spec.templates_setup is not None:
        spec.templates_setup(app.state.templates.env)
    app.mount(STATIC_PREFIX, StaticFiles(directory=STATIC_DIR), name="ui-static")
    if spec.static_dir.exists():
        app.mount("/static", StaticFiles(directory=spec.static_dir), name="static")
    app.include_router(sign_on_router())
    app.include_router(_docs_router(spec))
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
        episode = WORLD_HEADER in headers
        if episode and _api_page_refused(headers, scope.get("path", "/")):
            await self._error(scope, send, 403, "Not available in this task",
                              "This task is worked through the app's pages: its API cannot be opened in the browser.")
            return
        state["episode"] = episode
        if not scope.get("path", "/").startswith(NO_WORLD_PATHS):
            world_id = headers.get(WORLD_HEADER)
            if world_id is None:
                world_id = _cookie(headers.get("cookie", ""), WORLD_COOKIE) or self.state.default_world
            if world_id is not None:
                try:
                    state["world"] = self.state.resolver.resolve(world_id.strip())
                except InvalidWorldId as exc:
                    if episode:  # an agent sees neither world ids nor how to make worlds
                        await self._error(scope, send, 400, "World unavailable", "This episode's world could not be selected (malformed world id), so its apps cannot be shown.")
                    else:
                        await self._error(scope, send, 400, "Malformed world id", str(exc))
                    return
                except UnknownWorld as exc:
                    if episode:
                        await self._error(scope, send, 404, "World unavailable", "This episode's world does not exist (never created, or dropped), so its apps cannot be shown.")
                    else:
                        await self._error(scope, send, 404, "World not found", f"{exc} (named by your browser's world cookie). Start a new world from the portal.", portal=True)
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


def _api_page_refused(headers: dict[str, str], path: str) -> bool:
    """An episode without tools navigating the browser to an API address."""
    if not path.startswith(API_PREFIX) or path.startswith(DOCS_PATH) or headers.get("sec-fetch-mode") != "navigate":
        return False  # (the API docs have their own refusal page in episodes)
    interfaces = {i.strip() for i in headers.get(INTERFACES_HEADER, "gui").split(",")}
    return "tools" not in interfaces


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


__all__ = ["Host", "HostState", "build_app", "create_host", "install_error_handlers", "signed_out_redirect", "wants_json"]
