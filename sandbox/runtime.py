"""The shared machinery of many episodes: one Playwright, one Chromium, one app host, one world store.

An env owns a runtime unless it is given one; a pool shares one runtime among all its episodes.
Starting one costs about a second (Chromium and the host start in parallel); episodes then cost
only a context each.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from apps_web.registry import AppSpec
from apps_web.world import WorldStore

from .apphost import AppHost, HostMode
from .context import Blackhole, BrowserSettings, EpisodeContext, bind_context, prepare_context

if TYPE_CHECKING:  # pragma: no cover
    from playwright.async_api import Browser, Playwright

    from apps_web.world import World


# The app's stylesheets and scripts, read from a page's DOM (performance entries are no use: the pinned
# page clock replaces `performance`). Fonts follow from the stylesheets (see context.warm_document).
STATIC_ASSETS_JS = """() => [...document.querySelectorAll('link[rel=stylesheet][href], link[rel=preload][href], script[src]')]
  .map(e => new URL(e.href || e.src, location.href))
  .filter(u => u.origin === location.origin && (u.pathname.startsWith('/_ui/static/') || u.pathname.startsWith('/static/')))
  .map(u => u.pathname + u.search)"""


def default_apps(*extra: str | AppSpec) -> tuple[AppSpec, ...]:
    """Every installed app, plus the named extras (``"playground"`` adds the test pages)."""
    from apps_web import registry

    specs = list(registry.discover())
    names = {s.name for s in specs}
    for item in extra:
        spec = item if isinstance(item, AppSpec) else _extra_app(item)
        if spec is not None and spec.name not in names:
            specs.append(spec)
            names.add(spec.name)
    return tuple(specs)


def _extra_app(name: str) -> AppSpec | None:
    if name == "playground":
        from .playground import PLAYGROUND

        return PLAYGROUND
    return None


@dataclass
class Runtime:
    """Playwright + Chromium + app host + world store, shared by every episode that uses it."""

    store: WorldStore
    host: AppHost
    playwright: Playwright
    browser: Browser
    blackhole: Blackhole
    spare_contexts: int = 1
    _owns_host: bool = True
    _closed: bool = field(default=False, repr=False)
    _spares: dict[Any, list[asyncio.Future]] = field(default_factory=dict, repr=False)
    _background: set[asyncio.Future] = field(default_factory=set, repr=False)
    assets: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    @classmethod
    async def start(
        cls,
        *,
        store: WorldStore | None = None,
        apps: tuple[AppSpec, ...] | None = None,
        host: AppHost | None = None,
        host_mode: HostMode = "process",
        secret: str | None = None,
        headless: bool = True,
        browser_args: tuple[str, ...] = (),
        spare_contexts: int = 1,
    ) -> Runtime:
        """Start Chromium and (unless ``host`` is given) the app host, concurrently."""
        from playwright.async_api import async_playwright

        from .browser import launch

        store = store or (host.store if host is not None else WorldStore())
        owns_host = host is None
        host_job = (
            asyncio.to_thread(AppHost.start, store, secret=secret, apps=apps, mode=host_mode)
            if host is None
            else None
        )
        pw = await async_playwright().start()
        try:
            if host_job is not None:
                browser, host = await asyncio.gather(launch(pw, headless=headless, extra_args=browser_args), host_job)
            else:
                browser = await launch(pw, headless=headless, extra_args=browser_args)
        except BaseException:
            await pw.stop()
            raise
        assert host is not None
        return cls(
            store=store, host=host, playwright=pw, browser=browser, blackhole=Blackhole(),
            spare_contexts=spare_contexts, _owns_host=owns_host,
        )

    @property
    def closed(self) -> bool:
        return self._closed

    def app_names(self) -> tuple[str, ...]:
        return self.host.app_names

    def process_ids(self) -> dict[str, list[int]]:
        """Process ids of the browser (with its renderers) and of the app host, for memory accounting."""
        import psutil

        out: dict[str, list[int]] = {"browser": [], "host": []}
        proc = getattr(self.browser, "_sbx_pid", None)
        if proc is None:
            # Chromium is a child of Playwright's driver: find the browser process by its arguments.
            me = psutil.Process()
            for child in me.children(recursive=True):
                try:
                    if "chrom" in child.name().lower() and "--type=" not in " ".join(child.cmdline()):
                        proc = child.pid
                        break
                except psutil.Error:
                    continue
        if proc is not None:
            try:
                root = psutil.Process(proc)
                out["browser"] = [root.pid] + [c.pid for c in root.children(recursive=True)]
            except psutil.Error:
                pass
        if self.host.pid is not None:
            out["host"] = [self.host.pid]
        return out

    # -- contexts ----------------------------------------------------------------------------------------
    async def context_for(
        self, world: World, username: str | None, settings: BrowserSettings, app: str | None = None,
        interfaces: tuple[str, ...] = ("gui",), storage_state: dict[str, Any] | None = None,
    ) -> EpisodeContext:
        """A never used context bound to ``world`` and ``username``: a prepared spare if one is ready.

        Creating a context and its page (a renderer process), and the first load of an app's static
        files, are the slowest parts of a reset, so a spare for the same app is prepared in the
        background after each one is taken (see :func:`sandbox.context.prepare_context`). The caller
        starts that with :meth:`refill` once its start page is shown: preparing a spare while the
        start page loads slows the load by about half on a 2-core machine.

        With ``storage_state`` (a resumed checkpoint's cookies and localStorage) the context is made
        for it (no spare: a spare is made empty) and ``username`` is left to those cookies.
        """
        ec = None
        key = (settings, app)
        spares = self._spares.get(key) if storage_state is None else None
        while spares and ec is None:
            try:
                ec = await spares.pop(0)
            except Exception:
                ec = None
        if ec is None:
            ec = await prepare_context(self.browser, self.host, settings, self.blackhole, world.clock.now, storage_state=storage_state)
        try:
            await bind_context(ec, self.host, world, username, settings, interfaces)
        except BaseException:
            await ec.close()
            raise
        return ec

    def refill(self, settings: BrowserSettings, app: str | None = None) -> None:
        """Start preparing spare contexts for ``app`` (up to ``spare_contexts``), in the background."""
        key = (settings, app)
        spares = self._spares.setdefault(key, [])
        while not self._closed and len(spares) < self.spare_contexts:
            spares.append(asyncio.ensure_future(prepare_context(
                self.browser, self.host, settings, self.blackhole, warm_app=app, warm_paths=self.assets.get(app, ()),
            )))

    async def start_page_shown(self, page: Any, settings: BrowserSettings, app: str) -> None:
        """An episode's start page is on screen: learn the app's static files from the first one (for
        warming spares), then start preparing the next spare."""
        if app not in self.assets:  # recorded even when empty: read once per app
            self.assets[app] = tuple(dict.fromkeys(await page.evaluate(STATIC_ASSETS_JS)))
        self.refill(settings, app)

    def later(self, coro: Any) -> None:
        """Run clean-up work (closing an episode) in the background; awaited when the runtime closes."""
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def idle(self) -> None:
        """Wait for the background clean-up started so far (closed episodes, dropped worlds)."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)
        for spares in self._spares.values():
            for spare in spares:
                try:
                    await (await spare).close()
                except Exception:
                    pass
        self._spares.clear()
        try:
            await self.browser.close()
        except Exception:
            pass
        try:
            await self.playwright.stop()
        except Exception:
            pass
        self.blackhole.close()
        if self._owns_host:
            try:
                await asyncio.to_thread(self.host.close)
            except RuntimeError:  # interpreter shutdown: no new threads, stop the host from here
                self.host.close()

    async def __aenter__(self) -> Runtime:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


__all__ = ["Runtime", "default_apps"]
