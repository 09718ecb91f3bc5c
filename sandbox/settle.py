"""Waiting after an action for what it set in motion, and nothing longer.

After each action the page is *settled* before it is observed:

1. queued tasks run (a form submission, a ``setTimeout(0)``, a message): one task hop in the page;
2. the page's own requests finish: ``fetch``/XHR calls and the body reads that follow them are
   counted in the page by :data:`TRACKER_JS`, and the wait ends when the count drops to zero and the
   page's continuation has run (no polling: the counter resolves waiters);
3. if the action started a navigation (the Navigation API's ``navigate`` event for a cross-document
   destination, or a commit seen by CDP), the new document must commit and fire ``load``, and its
   web fonts must be ready;
4. a fresh frame: the CDP screenshot that follows always renders a new frame of the current DOM.

In the common case (an in-page change, nothing in flight) all of this is one round trip: a state
check after one task hop (:meth:`PageWatch.settle_capture`). Each wait is bounded (``SettleBudget``);
hitting a bound is reported, never an error.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from .actions.model import DEFAULT_ACTION_SECONDS

# Runs in every document of an episode before the page's own scripts. It only observes: counts the
# page's fetch/XHR requests (and the body reads that follow a fetch) and remembers cross-document
# navigations the page starts. ``window.__sbx`` is non-enumerable so page code does not trip on it.
SHORT_TIMER_MS = 10

TRACKER_JS = r"""
(() => {
  const SHORT_TIMER_MS = __SHORT__;
  if (window.__sbx) return;
  const s = { pending: 0, nav: null, waiters: [] };
  Object.defineProperty(window, '__sbx', { value: s, enumerable: false });
  const setTimeout0 = window.setTimeout.bind(window);
  s.hop = () => new Promise((resolve) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => resolve();
    c.port2.postMessage(0);
  });
  s.sleep = (ms) => new Promise((resolve) => setTimeout0(resolve, ms));
  const release = () => {
    if (s.pending > 0) s.pending--;
    if (s.pending === 0) s.waiters.splice(0).forEach((f) => f());
  };
  // Release after one more task, so the page's own continuation (which renders) has run first.
  const later = () => { s.hop().then(release); };
  const fetch0 = window.fetch;
  if (fetch0) {
    window.fetch = function fetch(...args) {
      s.pending++;
      let p;
      try { p = fetch0.apply(this, args); } catch (e) { later(); throw e; }
      p.then(later, later);
      return p;
    };
  }
  if (window.Response) {
    for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
      const read = Response.prototype[name];
      if (!read) continue;
      Response.prototype[name] = function (...args) {
        s.pending++;
        let p;
        try { p = read.apply(this, args); } catch (e) { later(); throw e; }
        p.then(later, later);
        return p;
      };
    }
  }
  // Work deferred with a short timer (the setTimeout(0) idiom) is pending like a request.
  const timers = new Set();
  window.setTimeout = function setTimeout(fn, ms, ...args) {
    const delay = ms === undefined ? 0 : Number(ms);
    if (typeof fn !== 'function' || !(delay <= SHORT_TIMER_MS)) return setTimeout0(fn, ms, ...args);
    s.pending++;
    const id = setTimeout0(() => {
      timers.delete(id);
      try { fn.apply(this, args); } finally { later(); }
    }, ms);
    timers.add(id);
    return id;
  };
  const clearTimeout0 = window.clearTimeout.bind(window);
  window.clearTimeout = function clearTimeout(id) {
    if (timers.delete(id)) release();
    return clearTimeout0(id);
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    s.pending++;
    this.addEventListener('loadend', later, { once: true });
    try { return send.apply(this, args); } catch (e) { later(); throw e; }
  };
  if (window.navigation) {
    navigation.addEventListener('navigate', (e) => {
      if (!e.destination.sameDocument && !e.downloadRequest) s.nav = e;
    });
  }
})();
""".replace("__SHORT__", str(SHORT_TIMER_MS))

# The state after an action, once the tasks it queued have run (one task hop: a form submission
# starts its navigation in a task of its own). If nothing is in flight, the page is settled.
CHECK_JS = r"""
(async (consume) => {
  const s = window.__sbx;
  if (s) await s.hop();
  const out = { url: location.href, title: document.title, ready: document.readyState,
                fonts: !document.fonts || document.fonts.status === 'loaded' };
  if (!s) return { ...out, nav: false, pending: 0, tracked: false };
  const nav = !!(s.nav && !s.nav.defaultPrevented);
  if (consume) s.nav = null;  // reported to the settling that follows an action, once
  return { ...out, nav, pending: s.pending, tracked: true };
})
"""

# Evaluated after an action: let queued tasks run, wait (bounded) for the page's requests, report.
SETTLE_JS = r"""
(async (budgetMs) => {
  const s = window.__sbx;
  const report = (extra) => ({ url: location.href, title: document.title, ready: document.readyState, ...extra });
  if (!s) return report({ nav: false, pending: 0, timedOut: false, tracked: false });
  await s.hop();
  let timedOut = false;
  if (!s.nav && s.pending > 0) {
    const idle = new Promise((resolve) => s.waiters.push(() => resolve(true)));
    timedOut = !(await Promise.race([idle, s.sleep(budgetMs).then(() => false)]));
  }
  if (!s.nav && document.fonts && document.fonts.status !== 'loaded') {
    await Promise.race([document.fonts.ready, s.sleep(budgetMs)]);
  }
  const nav = !!(s.nav && !s.nav.defaultPrevented);
  s.nav = null;  // reported once: a navigation that ends without a new document is not reported again
  return report({ nav, pending: s.pending, timedOut, tracked: true });
})
"""


@dataclass(frozen=True)
class SettleBudget:
    """Upper bounds of a step (seconds): the action itself, then the waits after it.

    An action running past ``action`` is cut and the cut is reported (``info["cut"]`` and
    ``last_action_error``); the waits after it end at their bounds and say so (``info["settle"]``).
    """

    requests: float = 5.0  # the page's fetch/XHR requests
    navigation: float = 15.0  # a navigation to commit and load
    action: float = DEFAULT_ACTION_SECONDS  # the action: clicks, typing, key presses, drags, waits, goto's own load

    def __post_init__(self) -> None:
        for name in ("requests", "navigation", "action"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
                raise ValueError(f"SettleBudget.{name} must be a positive number of seconds, got {value!r}")


@dataclass
class SettleResult:
    url: str = ""
    title: str = ""
    navigated: bool = False
    timed_out: bool = False
    pending: int = 0
    ms: float = 0.0
    detail: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Mark:
    """Where a page stood before an action: compared afterwards to see what the action started."""

    commits: int
    stops: int
    downloads: int
    opened: int = 0


class PageWatch:
    """Per-page state for settling: a CDP session with main-frame commit, load and stop counters."""

    def __init__(self, page: Any, cdp: Any) -> None:
        self.page = page
        self.cdp = cdp
        self.commits = 0  # cross-document commits of the main frame
        self.stops = 0  # the main frame stopped loading (also when a navigation ends without commit)
        self.downloads = 0
        self.opened = 0  # new windows the page asked for (target=_blank links, window.open...)
        self.loaded = True  # the current document fired load
        self.closed = False
        self._changed = asyncio.Event()
        cdp.on("Page.frameNavigated", self._on_frame_navigated)
        cdp.on("Page.loadEventFired", self._on_load)
        cdp.on("Page.frameStoppedLoading", self._on_stopped)
        cdp.on("Page.windowOpen", self._on_window_open)
        page.on("download", self._on_download)
        page.on("close", self._on_close)

    @classmethod
    async def attach(cls, page: Any) -> PageWatch:
        cdp = await page.context.new_cdp_session(page)
        watch = cls(page, cdp)
        await cdp.send("Page.enable")
        return watch

    # -- events --------------------------------------------------------------------------------------
    def _main(self, frame_id: str | None) -> bool:
        main = getattr(self, "_main_id", None)
        return main is None or frame_id == main

    def _on_frame_navigated(self, event: dict) -> None:
        frame = event.get("frame", {})
        if frame.get("parentId") or event.get("type", "Navigation") != "Navigation":
            return
        self._main_id = frame.get("id")
        self.commits += 1
        self.loaded = False
        self._changed.set()

    def _on_load(self, _event: dict) -> None:
        self.loaded = True
        self._changed.set()

    def _on_stopped(self, event: dict) -> None:
        if self._main(event.get("frameId")):
            self.stops += 1
            self._changed.set()

    def _on_window_open(self, _event: dict) -> None:
        self.opened += 1
        self._changed.set()

    def _on_download(self, *_: Any) -> None:
        self.downloads += 1
        self._changed.set()

    def _on_close(self, *_: Any) -> None:
        self.closed = True
        self._changed.set()

    def mark(self) -> Mark:
        return Mark(self.commits, self.stops, self.downloads, self.opened)

    # -- waits ---------------------------------------------------------------------------------------
    async def _wait_until(self, predicate: Any, deadline: float) -> bool:
        while not predicate():
            if self.closed:
                return False
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except asyncio.TimeoutError:
                return predicate()
        return True

    async def evaluate(self, expression: str, *, await_promise: bool = False) -> Any:
        """Evaluate in the page's main world through CDP; raises ``PageGone`` if the document went away."""
        try:
            result = await self.cdp.send(
                "Runtime.evaluate",
                {"expression": expression, "awaitPromise": await_promise, "returnByValue": True},
            )
        except Exception as exc:  # navigation destroyed the context, or the page closed
            raise PageGone(str(exc)) from None
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "error")
            if "destroyed" in text or "navigated" in text:
                raise PageGone(text)
            raise RuntimeError(f"in-page script failed: {text}")
        return result.get("result", {}).get("value")

    async def settle(self, mark: Mark, budget: SettleBudget = SettleBudget(), *, first: dict | None = None) -> SettleResult:
        """Wait until what the action started is finished (see the module docstring).

        ``first`` is a :meth:`check` already made after the action (its navigation flag is consumed
        by reading it, so it must be passed on).
        """
        t0 = time.perf_counter()
        out = SettleResult()
        start = mark
        deadline = time.monotonic() + budget.navigation
        requests_ms = int(budget.requests * 1000)
        info: dict | None = None
        for attempt in range(8):  # a navigation, then at most a few more that its pages start by themselves
            if attempt == 0 and first is not None and first["nav"]:
                info = first
            else:
                try:
                    info = await self.evaluate(f"({SETTLE_JS})({requests_ms})", await_promise=True)
                except PageGone:
                    info = None
            if self.closed:
                out.detail.append("the page closed")
                break
            same_document = info is not None and not info["nav"] and self.commits == mark.commits
            if same_document and info["ready"] == "complete":
                if info["timedOut"]:
                    out.timed_out = True
                    out.detail.append(f"{info['pending']} request(s) of the page still running after {budget.requests:g} s")
                break
            if same_document:  # the document itself is still loading: wait for its load event
                ok = await self._wait_until(lambda: self.loaded or self.commits > mark.commits, deadline)
            else:  # a navigation: a new document must commit and load, unless it ends without commit
                ok = await self._wait_until(
                    lambda: (self.commits > mark.commits and self.loaded)
                    or (self.commits == mark.commits and (self.stops > mark.stops or self.downloads > mark.downloads)),
                    deadline,
                )
            if not ok:
                out.timed_out = True
                out.detail.append(f"the page did not finish loading within {budget.navigation:g} s")
                break
            if self.commits == mark.commits and (self.downloads > mark.downloads or self.stops > mark.stops) and not same_document:
                out.detail.append("the navigation ended without a new page (a download or an empty response)")
                mark = self.mark()
                continue
            mark = self.mark()  # the new document is loaded: settle it in turn
        out.navigated = self.commits > start.commits
        if info is None or self.commits != mark.commits or info.get("nav"):
            try:
                info = await self.evaluate(f"({SETTLE_JS})(0)", await_promise=True)
            except PageGone:
                info = None
        if info is not None:
            out.url, out.title, out.pending = info["url"], info["title"], info["pending"]
        else:
            out.url = self.page.url
        out.ms = (time.perf_counter() - t0) * 1000
        return out

    # -- settle, then capture: one round trip when nothing is in flight ---------------------------------
    async def check(self, *, consume: bool = False) -> dict | None:
        """The page's state right now (no waiting); None if the document is going away.

        ``consume`` marks a navigation request as seen (only the settling after an action does that).
        """
        try:
            return await self.evaluate(f"({CHECK_JS})({'true' if consume else 'false'})", await_promise=True)
        except PageGone:
            return None

    def _clean(self, info: dict | None, mark: Mark) -> bool:
        return (
            info is not None and not info["nav"] and info["pending"] == 0 and info["ready"] == "complete"
            and info["fonts"] and self.commits == mark.commits and self.opened == mark.opened and not self.closed
        )

    async def settle_capture(
        self, mark: Mark, budget: SettleBudget = SettleBudget(), *, capture: bool = True, fast: bool = True,
    ) -> tuple[SettleResult, bytes | None]:
        """Settle after an action, then take the screenshot that shows its effect.

        One state check (after a task hop) answers the common case: nothing in flight (no navigation,
        request, short timer, font load or new tab), so the next frame shows the action's effect.
        Otherwise the page is settled first (:meth:`settle`). The capture is only asked for once the
        page is settled: a capture racing a navigation can wait forever for a frame of the replaced
        document, and a frame rendered before a queued task ran would be stale.
        """
        from .observe import capture_png

        t0 = time.perf_counter()
        info = await self.check(consume=True)
        if self._clean(info, mark):
            result = SettleResult(url=info["url"], title=info["title"], pending=0)
        elif self.opened > mark.opened and info is not None and not info["nav"] and info["pending"] == 0:
            result = SettleResult(url=info["url"], title=info["title"])  # a new tab: the episode follows it
            result.ms = (time.perf_counter() - t0) * 1000
            return result, None
        else:
            result = await self.settle(mark, budget, first=info)
        png = await capture_png(self.cdp, fast=fast) if capture and not self.closed else None
        result.ms = (time.perf_counter() - t0) * 1000
        return result, png

    async def detach(self) -> None:
        try:
            await self.cdp.detach()
        except Exception:
            pass


class PageGone(RuntimeError):
    """The document an evaluation ran in went away (navigation or close)."""


__all__ = ["Mark", "PageGone", "PageWatch", "SETTLE_JS", "SettleBudget", "SettleResult", "TRACKER_JS"]
