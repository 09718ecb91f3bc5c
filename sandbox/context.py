"""One BrowserContext per episode: bound to its world, signed in, deterministic, fenced to the app host.

- every request carries ``X-Sandbox-World: <world id>`` (the agent can neither see nor change it);
- the persona's session cookies are set for the portal and every app before the first request;
- viewport, locale, timezone, reduced motion and device scale are fixed; the page clock is pinned to
  the world clock;
- requests to anything but the app host (``localhost``/``*.localhost`` on its port) are refused by
  the browser itself: the context's proxy is a closed local port and only the app host bypasses it.
  Unlike request interception this keeps the HTTP cache on (fonts and CSS are not fetched again on
  every page) and costs nothing per request. Refused requests are logged (``blocked_requests``).

A fresh context per episode: no cookies, storage or history can leak from one episode to the next.
Contexts are never recycled; instead the runtime keeps a *spare* one prepared ahead of time (context,
page and CDP session created, the app's public stylesheets, scripts and fonts loaded by a warm
document, no world, nobody signed in) and binds it to the next episode's world and persona at reset
(:func:`prepare_context`, :func:`bind_context`).
"""

from __future__ import annotations

import asyncio
import html
import socket
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from apps_web.identity import browser_cookies
from apps_web.worlds import INTERFACES_HEADER, WORLD_HEADER

from .settle import TRACKER_JS

if TYPE_CHECKING:  # pragma: no cover
    from playwright.async_api import Browser, BrowserContext

    from apps_web.world import World

    from .apphost import AppHost


@dataclass(frozen=True)
class BrowserSettings:
    """How every episode's browser looks and behaves."""

    viewport: tuple[int, int] = (1280, 800)
    locale: str = "en-US"
    timezone: str = "UTC"
    reduced_motion: bool = True
    device_scale_factor: float = 1.0
    pin_clock: bool = True  # Date.now() in the page returns the world's frozen "now"
    block_external: bool = True
    typing: str = "keys"  # "keys": a key event per character; "insert": one input event (faster, no key events)

    def __post_init__(self) -> None:
        w, h = self.viewport
        if not (isinstance(w, int) and isinstance(h, int) and 100 <= w <= 7680 and 100 <= h <= 4320):
            raise ValueError(f"viewport must be (width, height) in pixels, between 100 and 7680x4320, got {self.viewport!r}")
        if self.typing not in ("keys", "insert"):
            raise ValueError(f"typing must be 'keys' or 'insert', got {self.typing!r}")


class Blackhole:
    """A local port that is bound but never listens: connections to it are refused at once."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]

    def close(self) -> None:
        self._sock.close()


@dataclass
class BlockedLog:
    """Requests the context refused, drained by the episode after every step."""

    host: AppHost
    entries: list[dict[str, Any]] = field(default_factory=list)

    def on_failed(self, request: Any) -> None:
        url = request.url
        if url.startswith(("data:", "blob:", "about:")) or self.host.is_own_url(url):
            return
        self.entries.append({"url": url, "method": request.method, "resource_type": request.resource_type})

    def drain(self) -> list[dict[str, Any]]:
        out, self.entries = self.entries, []
        return out


def context_options(host: AppHost, settings: BrowserSettings, blackhole: Blackhole | None) -> dict[str, Any]:
    """Options of every episode context (the world and the persona are bound later, see :func:`bind_context`)."""
    w, h = settings.viewport
    opts: dict[str, Any] = {
        "viewport": {"width": w, "height": h},
        "screen": {"width": w, "height": h},
        "device_scale_factor": settings.device_scale_factor,
        "locale": settings.locale,
        "timezone_id": settings.timezone,
        "reduced_motion": "reduce" if settings.reduced_motion else "no-preference",
        "color_scheme": "light",
        "service_workers": "block",
        "accept_downloads": True,  # saved to the episode's files (sandbox.files) for upload_file
    }
    if settings.block_external and blackhole is not None:
        # Only the app host bypasses the dead proxy; Playwright adds "<-loopback>" so that other
        # loopback ports are proxied (refused) too.
        opts["proxy"] = {"server": f"http://127.0.0.1:{blackhole.port}", "bypass": f"localhost:{host.port},*.localhost:{host.port}"}
    return opts


def _utc(now: datetime) -> datetime:
    return now.replace(tzinfo=timezone.utc) if now.tzinfo is None else now  # world clocks are naive UTC


@dataclass
class EpisodeContext:
    """A fresh context with its first page, ready before the episode's world is known."""

    context: BrowserContext
    page: Any
    watch: Any  # settle.PageWatch of the page
    blocked: BlockedLog
    clock: datetime | None  # the time the page clock is pinned to

    async def close(self) -> None:
        try:
            await self.context.close()
        except Exception:
            pass


# A same-site document on an app's host that needs no world and no session: the kit's stylesheet.
WARM_PATH = "/_ui/static/ui.css"
FONTS_READY_JS = "() => document.fonts.ready.then(() => true)"


def warm_document(paths: tuple[str, ...]) -> str:
    """A page that uses the app's stylesheets, scripts and every font weight, so the renderer has them
    parsed, compiled and decoded before the start page loads (about 45 ms off every reset's first page)."""
    css = "".join(f'<link rel="stylesheet" href="{html.escape(p)}">' for p in paths if p.split("?")[0].endswith(".css"))
    js = "".join(f'<script src="{html.escape(p)}" defer></script>' for p in paths if p.split("?")[0].endswith(".js"))
    text = "".join(f'<p style="font-weight:{w}">Aa {w} <i>Aa</i></p>' for w in (400, 500, 600, 700))
    return f"<!doctype html><html><head>{css}{js}</head><body>{text}</body></html>"


async def prepare_context(
    browser: Browser,
    host: AppHost,
    settings: BrowserSettings,
    blackhole: Blackhole | None,
    clock: datetime | None = None,
    *,
    warm_app: str | None = None,
    warm_paths: tuple[str, ...] = (),
    storage_state: dict[str, Any] | None = None,
) -> EpisodeContext:
    """A new, never used context and page: the tracker installed, the clock pinned, nobody signed in.

    With ``warm_app``, the page is first opened on that app's host (a static file: no world, no
    session) and ``warm_paths`` (the app's static assets) are loaded by a warm document
    (:func:`warm_document`), so the episode's start page needs no new renderer process and finds its
    CSS, scripts and fonts cached and parsed. Only public static files are used this way, the same
    for every episode (the kit's scripts keep no state in storage or cookies).
    With ``storage_state``
    (Playwright's cookies and localStorage, e.g. a resumed checkpoint's), the context starts with it.
    """
    from apps_web.world import DEFAULT_CLOCK

    from .settle import PageWatch

    options = context_options(host, settings, blackhole)
    if storage_state is not None:
        options["storage_state"] = storage_state
    context = await browser.new_context(**options)
    blocked = BlockedLog(host)
    context.on("requestfailed", blocked.on_failed)
    pinned = _utc(clock or DEFAULT_CLOCK) if settings.pin_clock else None
    try:
        jobs = [context.add_init_script(TRACKER_JS)]
        if pinned is not None:
            jobs.append(context.clock.set_fixed_time(pinned))
        await asyncio.gather(*jobs)
        page = await context.new_page()
        watch = await PageWatch.attach(page)
        if warm_app is not None:
            await page.goto(host.url(warm_app, WARM_PATH), wait_until="load")
            if warm_paths:
                # Written into the same-origin document: no world, nobody signed in.
                await page.set_content(warm_document(warm_paths), wait_until="load")
                await page.evaluate(FONTS_READY_JS)
    except BaseException:
        await context.close()
        raise
    return EpisodeContext(context=context, page=page, watch=watch, blocked=blocked, clock=pinned)


async def bind_context(ec: EpisodeContext, host: AppHost, world: World, username: str | None, settings: BrowserSettings,
                       interfaces: tuple[str, ...] = ("gui",)) -> None:
    """Bind a prepared context to its episode: the world and interface headers, the persona's cookies,
    the world clock. An episode without tools gets no API pages in its address bar (the host refuses them)."""
    headers = {WORLD_HEADER: world.id, INTERFACES_HEADER: ",".join(interfaces)}
    jobs = [ec.context.set_extra_http_headers(headers)]
    if username:
        jobs.append(ec.context.add_cookies(browser_cookies(host.secret, username, world.id, host.port, host.app_names)))
    if settings.pin_clock and ec.clock != _utc(world.clock.now):
        ec.clock = _utc(world.clock.now)
        jobs.append(ec.context.clock.set_fixed_time(ec.clock))
    await asyncio.gather(*jobs)


def signed_in_users(cookies: list[dict[str, Any]], host: AppHost, world: World) -> set[str]:
    """Who the app host sees signed in to ``world`` through these browser cookies: the users of the
    valid session cookies on the portal and the apps (the identity's own decoding), active in the world.

    Signing out clears the session cookie of the portal and of every app (front-channel sign-out,
    see ``apps_web.signon``), so a signed-out browser has none left.
    """
    from apps_web.identity import SESSION_COOKIE, Signer

    signer = Signer(host.secret)
    names = set()
    for cookie in cookies:
        domain = str(cookie.get("domain", "")).lstrip(".")
        if cookie.get("name") != SESSION_COOKIE or not (domain == "localhost" or domain.endswith(".localhost")):
            continue
        data = signer.load_session(cookie.get("value"))
        if data is not None and data.world_id == world.id:
            names.add(data.username)
    if names:
        marks = ",".join("?" * len(names))
        names = {row[0] for row in world.query(f"SELECT username FROM identity_user WHERE active AND username IN ({marks})", *sorted(names))}
    return names


async def final_user_of(context: BrowserContext, host: AppHost, world: World, persona: str | None) -> str | None:
    """The user signed in at an episode's end: ``""`` for nobody, someone other than ``persona`` if
    any origin is signed in as them (that is what a persona check must see), ``None`` if the
    browser can no longer tell (its context is closed)."""
    try:
        cookies = await context.cookies()
    except Exception:
        return None
    users = signed_in_users(cookies, host, world)
    others = sorted(users - {persona})
    return others[0] if others else persona if persona in users else ""


__all__ = [
    "Blackhole", "BlockedLog", "BrowserSettings", "EpisodeContext", "bind_context", "context_options",
    "final_user_of", "prepare_context", "signed_in_users",
]
