"""Portal routes. Sign-in hands the session to apps through a short-lived signed token (SSO)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, FastAPI, Form, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlmodel import Session, select

from ..deps import CurrentUser, NotInEpisode, OptionalUser, SessionDep, WorldDep, in_episode, refuse_in_episode
from ..errors import install_error_handlers
from ..identity.models import User
from ..identity.passwords import DEFAULT_PASSWORD, verify_password
from ..identity.session import SESSION_COOKIE, WORLD_COOKIE, SessionData
from ..signon import signed_out_redirect
from ..ui import STATIC_DIR, STATIC_PREFIX, make_templates, redirect, render
from ..worlds import UnknownWorld

TEMPLATES = Path(__file__).parent / "templates"

# Inside an episode the world and the signed-in user are the environment's to choose (see host.py).
WORLD_CONTROLS = (
    "Changing worlds",
    "an episode runs in the one world prepared for it. Resetting it or starting another one is turned off; "
    "undo a change in the app where you made it.",
)
SIGN_IN = (
    "Signing in",
    "an episode runs as the user it was started for. Signing in again, or as someone else, is turned off.",
)


def _safe_next(request: Request, target: str) -> tuple[str | None, str]:
    """(app name or None for the portal, path) for a post-sign-in target; anything else -> portal home."""
    host = request.app.state.host
    if target.startswith("/") and not target.startswith("//"):
        return None, target
    parts = urlsplit(target)
    name = (parts.hostname or "").removesuffix(".localhost")
    if parts.scheme in ("http", "https") and (parts.hostname or "").endswith(".localhost") and any(s.name == name for s in host.specs):
        return name, (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return None, "/"


def _signed_in_response(request: Request, session: SessionData, target: str) -> Response:
    host = request.app.state.host
    app_name, path = _safe_next(request, target)
    if path.startswith("/_sso"):  # a hand-off link as the target would hand itself on forever
        path = "/"
    if app_name is None:
        response = RedirectResponse(path, status_code=303)
    else:
        from ..ui import app_url

        token = host.signer.sso_token(session)
        response = RedirectResponse(app_url(request, app_name, f"/_sso?t={token}&next={quote(path, safe='')}"), status_code=303)
    response.set_cookie(SESSION_COOKIE, host.signer.session_value(session.username, session.world_id, session.sid), httponly=True, samesite="lax")
    response.set_cookie(WORLD_COOKIE, session.world_id, httponly=True, samesite="lax")
    return response


def _router() -> APIRouter:
    router = APIRouter()

    @router.get("/healthz", include_in_schema=False)
    def healthz() -> dict:
        return {"ok": True}

    @router.get("/")
    def home(request: Request, user: OptionalUser, world: WorldDep) -> Response:
        if user is None:
            return RedirectResponse("/signin", status_code=303)
        return render(request, "portal/launcher.html", world_meta=world.meta)

    @router.get("/signin")
    def signin_page(request: Request, world: WorldDep, user: OptionalUser, next: str = "/") -> Response:
        if user is not None:  # already signed in: hand the session to the app at once, like an IdP
            data = request.app.state.host.signer.load_session(request.cookies.get(SESSION_COOKIE))
            return _signed_in_response(request, data, next)
        if in_episode(request):
            raise NotInEpisode(*SIGN_IN)
        with Session(world.engine) as session:
            samples = session.exec(select(User).where(User.active == True).order_by(User.id).limit(6)).all()  # noqa: E712
        return render(request, "portal/signin.html", next=next, error=None, username="", samples=samples, default_password=DEFAULT_PASSWORD, world_meta=world.meta)

    @router.post("/signin", dependencies=[refuse_in_episode(*SIGN_IN)])
    def signin(request: Request, world: WorldDep, username: Annotated[str, Form()] = "", password: Annotated[str, Form()] = "", next: Annotated[str, Form()] = "/") -> Response:
        with Session(world.engine) as session:
            user = session.exec(select(User).where(User.username == username.strip().lower())).first()
            ok = user is not None and user.active and verify_password(password, user.password_hash)
            samples = session.exec(select(User).where(User.active == True).order_by(User.id).limit(6)).all()  # noqa: E712
        if not ok:
            error = "Enter your username and password." if not username or not password else "Your username or password is incorrect."
            return render(request, "portal/signin.html", status_code=401 if username and password else 422, next=next, error=error, username=username, samples=samples, default_password=DEFAULT_PASSWORD, world_meta=world.meta)
        import secrets

        return _signed_in_response(request, SessionData(username=user.username, world_id=world.id, sid=secrets.token_hex(8)), next)

    @router.get("/signout")
    def signout(request: Request) -> Response:
        host = request.app.state.host
        data = host.signer.load_session(request.cookies.get(SESSION_COOKIE))
        if data is not None:
            host.revoked.add(data.sid)
        response = signed_out_redirect(request, None)  # each app clears its own cookie in turn
        response.delete_cookie(SESSION_COOKIE)
        return response

    @router.get("/profile")
    def profile(request: Request, user: CurrentUser) -> Response:
        return render(request, "portal/profile.html", errors={}, values=user)

    @router.post("/profile")
    def update_profile(request: Request, user: CurrentUser, session: SessionDep, title: Annotated[str, Form()] = "", phone: Annotated[str, Form()] = "") -> Response:
        """People keep their own title and phone up to date; every app shows them."""
        errors = {}
        title, phone = title.strip(), phone.strip()
        if len(title) > 120:
            errors["title"] = "Title can't be longer than 120 characters."
        if phone and not all(ch.isdigit() or ch in " +-().x" for ch in phone):
            errors["phone"] = "Use digits, spaces and + - ( ) only."
        if errors:
            return render(request, "portal/profile.html", status_code=422, errors=errors, values={"title": title, "phone": phone, "name": user.name, "email": user.email})
        db_user = session.get(User, user.id)
        db_user.title, db_user.phone = title, phone
        session.add(db_user)
        session.commit()
        return redirect(request, "/profile", toast="Your profile was saved.")

    @router.post("/worlds/new", dependencies=[refuse_in_episode(*WORLD_CONTROLS)])
    def new_world(request: Request, seed: Annotated[int, Form(ge=0, le=10**9)] = 0) -> Response:
        host = request.app.state.host
        world = host.store.create(seed=seed, owned=False)  # kept for people, like the served world
        response = RedirectResponse("/signin", status_code=303)
        response.set_cookie(WORLD_COOKIE, world.id, httponly=True, samesite="lax")
        response.delete_cookie(SESSION_COOKIE)
        return response

    @router.post("/worlds/reset", dependencies=[refuse_in_episode(*WORLD_CONTROLS)])
    def reset_world(request: Request, user: OptionalUser, world: WorldDep) -> Response:
        """A fresh copy of the current world's seed; the person stays signed in."""
        host = request.app.state.host
        fresh = host.store.create(seed=world.meta.seed, scale=world.meta.scale, owned=False)
        # The served world stays, and so does a world a running process owns (an episode's).
        if world.id != host.default_world and host.store.owner(world.id) is None:
            try:
                host.store.drop(world.id)
            except UnknownWorld:
                pass
        if user is None:
            response = RedirectResponse("/signin", status_code=303)
            response.set_cookie(WORLD_COOKIE, fresh.id, httponly=True, samesite="lax")
            return response
        import secrets

        return _signed_in_response(request, SessionData(username=user.username, world_id=fresh.id, sid=secrets.token_hex(8)), "/")

    return router


def build_portal(state) -> FastAPI:  # noqa: ANN001 - HostState, imported lazily to avoid a cycle

    app = FastAPI(title="CUA Sandbox portal", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.host = state
    app.state.spec = None
    app.state.templates = make_templates(TEMPLATES)
    app.mount(STATIC_PREFIX, StaticFiles(directory=STATIC_DIR), name="ui-static")
    app.include_router(_router())
    install_error_handlers(app)
    return app
