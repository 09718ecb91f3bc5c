"""The shared UI kit: one enterprise look for every app (templates, CSS, JS, icons, filters)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from ..identity.session import FLASH_COOKIE

UI_DIR = Path(__file__).parent
TEMPLATES_DIR = UI_DIR / "templates"
STATIC_DIR = UI_DIR / "static"
STATIC_PREFIX = "/_ui/static"


# -- URLs between the portal and the apps --------------------------------------------------------
def _port_suffix(request: Request) -> str:
    host = request.headers.get("host", "localhost")
    return host[host.rfind(":"):] if ":" in host and not host.endswith("]") else ""


def portal_url(request: Request, path: str = "/") -> str:
    return f"{request.url.scheme}://localhost{_port_suffix(request)}{path}"


def app_url(request: Request, name: str, path: str = "/") -> str:
    return f"{request.url.scheme}://{name}.localhost{_port_suffix(request)}{path}"


def signin_url(request: Request) -> str:
    return portal_url(request, "/signin?next=" + quote(str(request.url), safe=""))


# -- filters -------------------------------------------------------------------------------------
def money(value: Any, digits: int = 0) -> str:
    if value is None or value == "":
        return ""
    v = float(value)
    sign = "-" if v < 0 else ""
    return f"{sign}${abs(v):,.{digits}f}"


def compact_money(value: Any) -> str:
    if value is None:
        return ""
    v = float(value)
    for div, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(v) >= div:
            return f"${v / div:,.1f}{suffix}".replace(".0" + suffix, suffix)
    return f"${v:,.0f}"


def number(value: Any, digits: int = 0) -> str:
    if value is None or value == "":
        return ""
    return f"{float(value):,.{digits}f}"


def _as_dt(value: Any) -> datetime | date | None:
    if value is None or value == "":
        return None
    if isinstance(value, (date, datetime)):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def fmt_date(value: Any) -> str:
    v = _as_dt(value)
    return f"{v:%b} {v.day}, {v.year}" if v else ""


def fmt_datetime(value: Any) -> str:
    v = _as_dt(value)
    if not isinstance(v, datetime):
        return fmt_date(value)
    hour = v.hour % 12 or 12
    return f"{v:%b} {v.day}, {v.year}, {hour}:{v:%M} {'AM' if v.hour < 12 else 'PM'}"


def iso_date(value: Any) -> str:
    v = _as_dt(value)
    return v.strftime("%Y-%m-%d") if v else ""


def icon(name: str, cls: str = "", label: str = "") -> Markup:
    aria = f' role="img" aria-label="{label}"' if label else ' aria-hidden="true"'
    return Markup(f'<svg class="icon {cls}"{aria} focusable="false"><use href="#i-{name}"></use></svg>')


def make_environment(*template_dirs: Path) -> Environment:
    loaders = [FileSystemLoader(str(d)) for d in template_dirs if d.exists()]
    loaders.append(FileSystemLoader(str(TEMPLATES_DIR)))
    env = Environment(loader=ChoiceLoader(loaders), autoescape=select_autoescape(default=True), trim_blocks=True, lstrip_blocks=True)
    env.filters.update(money=money, compact_money=compact_money, number=number, date=fmt_date, datetime=fmt_datetime, iso_date=iso_date)
    env.globals.update(portal_url=portal_url, app_url=app_url, icon=icon, static_prefix=STATIC_PREFIX)
    return env


def make_templates(*template_dirs: Path) -> Jinja2Templates:
    return Jinja2Templates(env=make_environment(*template_dirs))


# -- rendering, flash messages (toasts) and redirects ----------------------------------------------
def render(request: Request, template: str, status_code: int = 200, **context: Any) -> Response:
    """Render a page of the current app with the kit's standard context."""
    state = request.app.state
    host = state.host
    flash = host.signer.load_flash(request.cookies.get(FLASH_COOKIE))
    ctx = {
        "request": request,
        "app": getattr(state, "spec", None),
        "apps": host.specs,
        "user": getattr(request.state, "user", None),
        "world": getattr(request.state, "world", None),
        "sandbox_mode": host.sandbox_mode,
        "episode": bool(getattr(request.state, "episode", False)),  # an agent's request: no world ids, no world controls
        "flash": flash,
        **context,
    }
    response = state.templates.TemplateResponse(request, template, ctx, status_code=status_code)
    if flash is not None:
        response.delete_cookie(FLASH_COOKIE)
    return response


def redirect(request: Request, url: str, *, toast: str | None = None, link: str | None = None, link_text: str | None = None, kind: str = "success") -> RedirectResponse:
    """A 303 redirect that shows a toast on the next page (as a real CRM does after saving)."""
    response = RedirectResponse(url, status_code=303)
    if toast:
        payload = {"text": toast, "kind": kind, "link": link, "link_text": link_text}
        response.set_cookie(FLASH_COOKIE, request.app.state.host.signer.flash_value(payload), httponly=True, samesite="lax")
    return response


__all__ = [
    "STATIC_DIR",
    "STATIC_PREFIX",
    "TEMPLATES_DIR",
    "app_url",
    "compact_money",
    "fmt_date",
    "fmt_datetime",
    "icon",
    "iso_date",
    "make_environment",
    "make_templates",
    "money",
    "number",
    "portal_url",
    "redirect",
    "render",
    "signin_url",
]
