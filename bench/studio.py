"""Studio input-to-screen latency: from an input event sent by the studio page to the frame that shows
its effect arriving back in that page (median and p95), beside a floor measured in the same run.

A person's browser (Chromium, driven by Playwright) opens the studio on the playground's counter page
(a big block whose colour encodes a number). Each click on "Increment", and each key typed into its
text box, adds one; the studio page times, in its own clock, the moment it sent the input and the
moment it drew the first frame whose block has the new colour. The floor is the same click done
directly on the sandboxed page, timed to the screencast frame that follows it (the browser's share).

Run: ``python -m bench studio`` (``STUDIO_BENCH_N`` sets the samples per kind, default 40).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
import time
from pathlib import Path

from bench.stats import summarize

N = int(os.environ.get("STUDIO_BENCH_N", "40"))
# A person looks at the result before the next input; "paced" runs leave this much time between an
# input's frame and the next input (the studio screenshots the step meanwhile), "burst" runs none.
PACE_MS = int(os.environ.get("STUDIO_BENCH_PACE_MS", "200"))
BUTTON = (520, 30)  # the playground counter's "Increment" button, viewport pixels
TEXTBOX = (520, 230)  # its text box: every input event increments too
PROBE = (12, 12)  # inside the coloured block, clear of its digits

HOOK_JS = """
([px, py]) => {
  window.__lat = [];
  window.__want = null;
  window.__studioSent = (ev) => {
    if ((ev.type === 'down' || ev.type === 'key') && window.__want !== null && !window.__sentAt) window.__sentAt = ev.t;
  };
  window.__studioOnFrame = (ctx) => {
    if (window.__want === null || !window.__sentAt) return;
    const d = ctx.getImageData(px, py, 1, 1).data;
    const n = window.__want;
    if (Math.abs(d[0] - (n & 255)) <= 6 && Math.abs(d[1] - ((n >> 8) & 255)) <= 6) {
      window.__lat.push(performance.now() - window.__sentAt);
      window.__want = null; window.__sentAt = 0;
    }
  };
}
"""


def _serve(app) -> tuple[object, threading.Thread, int]:  # noqa: ANN001
    import socket

    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the studio did not start")
        time.sleep(0.02)
    return server, thread, port


def _measure(page, kind: str, start: int, pace_ms: int) -> list[float]:  # noqa: ANN001
    """N inputs of one kind; returns their input-to-screen latencies (ms) as the page measured them."""
    view = page.get_by_label("Live view of the sandboxed browser").bounding_box()
    scale = view["width"] / 1280
    at = lambda p: (view["x"] + p[0] * scale, view["y"] + p[1] * scale)  # noqa: E731
    page.evaluate("window.__lat = []")
    n = start
    if kind == "key":
        page.mouse.click(*at(TEXTBOX))  # focus the text box (no change of the counter)
    for i in range(N):
        n += 1
        if pace_ms:
            page.wait_for_timeout(pace_ms)  # the simulated person's pace between inputs, not a wait for the page
        page.evaluate(f"window.__want = {n}; window.__sentAt = 0")
        if kind == "click":
            page.mouse.click(*at(BUTTON))
        else:
            page.keyboard.press("a")
        page.wait_for_function(f"window.__lat.length >= {i + 1}", timeout=30_000)
    return page.evaluate("window.__lat")


async def _floor(studio, session) -> list[float]:  # noqa: ANN001
    """Click on the sandboxed page directly and wait for the screencast frame showing it: the same
    browser work without the studio page, HTTP, the recorder and settling."""
    page = session.episode.page
    out = []
    for _ in range(N):
        t = time.perf_counter()
        frame = session.live.next_frame()
        await page.mouse.click(*BUTTON)
        await asyncio.wait_for(frame, 30)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    from playwright.sync_api import sync_playwright

    from sandbox.browser import launch_sync
    from sandbox.studio.server import StudioOptions, create_app

    tmp = Path(tempfile.mkdtemp(prefix="bench-studio-"))
    app = create_app(StudioOptions(out_dir=tmp / "runs", extra_apps=("playground",)))
    server, thread, port = _serve(app)
    studio = app.state.studio
    try:
        with sync_playwright() as p:
            browser = launch_sync(p)
            page = browser.new_page(viewport={"width": 1720, "height": 1000})
            page.goto(f"http://localhost:{port}/")
            form = page.get_by_role("form", name="Explore a world")
            form.get_by_label("App").select_option("playground")
            form.get_by_label("Start page").fill("/counter")
            form.get_by_role("button", name="Explore").click()
            page.wait_for_url("**/sessions/**")
            page.get_by_label("Address").filter(has_text="/counter").wait_for()
            page.evaluate(HOOK_JS, list(PROBE))
            results = {
                "click, paced": _measure(page, "click", 0, PACE_MS),
                "key, paced": _measure(page, "key", N, PACE_MS),
                "click, burst": _measure(page, "click", 2 * N, 0),
                "key, burst": _measure(page, "key", 3 * N, 0),
            }
            sid = page.url.rsplit("/", 1)[-1]
            session = studio.sessions[sid]
            floor = asyncio.run_coroutine_threadsafe(_floor(studio, session), studio.loop).result(120)
            frames = session.live.frames
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    f = summarize(floor)
    print(f"{'input-to-screen (ms)':<38}{'median':>8}{'p95':>8}{'n':>5}{'x floor':>9}")
    for name, samples in results.items():
        s = summarize(samples)
        print(f"{name:<38}{s['median']:8.1f}{s['p95']:8.1f}{s['n']:5d}{s['median'] / f['median']:9.2f}")
    print(f"{'floor: raw click -> screencast frame':<38}{f['median']:8.1f}{f['p95']:8.1f}{f['n']:5d}")
    print(f"paced: {PACE_MS} ms between a frame and the next input (a person's pace); burst: none")
    print(f"target: median <= 100 ms; screencast frames received: {frames}; machine: {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
