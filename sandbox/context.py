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
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from datetime import timezone
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from apps_web.identity import browser_cookies
from apps_web.worlds import WORLD_HEADER

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


def _cookie_state(host: AppHost, world: World, username: str) -> dict[str, Any]:
    """browser_cookies() as a storage state, so the context starts signed in (no extra round trip)."""
    cookies = []
    for c in browser_cookies(host.secret, username, world.id, host.port, host.app_names):
        cookies.append({
            "name": c["name"], "value": c["value"], "domain": urlsplit(c["url"]).hostname, "path": "/",
            "expires": -1, "httpOnly": c.get("httpOnly", False), "secure": False, "sameSite": c.get("sameSite", "Lax"),
        })
    return {"cookies": cookies, "origins": []}


def context_options(host: AppHost, world: World, username: str | None, settings: BrowserSettings, blackhole: Blackhole | None) -> dict[str, Any]:
    w, h = settings.viewport
    opts: dict[str, Any] = {
        "viewport": {"width": w, "height": h},
        "screen": {"width": w, "height": h},
        "device_scale_factor": settings.device_scale_factor,
        "locale": settings.locale,
        "timezone_id": settings.timezone,
        "reduced_motion": "reduce" if settings.reduced_motion else "no-preference",
        "color_scheme": "light",
        "extra_http_headers": {WORLD_HEADER: world.id},
        "service_workers": "block",
        "accept_downloads": False,
    }
    if username:
        opts["storage_state"] = _cookie_state(host, world, username)
    if settings.block_external and blackhole is not None:
        # Only the app host bypasses the dead proxy; Playwright adds "<-loopback>" so that other
        # loopback ports are proxied (refused) too.
        opts["proxy"] = {"server": f"http://127.0.0.1:{blackhole.port}", "bypass": f"localhost:{host.port},*.localhost:{host.port}"}
    return opts


async def open_context(
    browser: Browser,
    host: AppHost,
    world: World,
    username: str | None,
    settings: BrowserSettings,
    blackhole: Blackhole | None,
) -> tuple[BrowserContext, BlockedLog]:
    """A new context for one episode, with the page tracker installed and the clock pinned."""
    import asyncio

    context = await browser.new_context(**context_options(host, world, username, settings, blackhole))
    blocked = BlockedLog(host)
    context.on("requestfailed", blocked.on_failed)
    jobs = [context.add_init_script(TRACKER_JS)]
    if settings.pin_clock:
        now = world.clock.now
        if now.tzinfo is None:  # world clocks are naive UTC
            now = now.replace(tzinfo=timezone.utc)
        jobs.append(context.clock.set_fixed_time(now))
    try:
        await asyncio.gather(*jobs)
    except BaseException:
        await context.close()
        raise
    return context, blocked


__all__ = ["Blackhole", "BlockedLog", "BrowserSettings", "context_options", "open_context"]
