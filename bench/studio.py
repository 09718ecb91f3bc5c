"""Studio input-to-screen latency: from an input event sent by the studio page to the frame that shows
its effect arriving back in that page (median and p95), beside a floor measured in the same run.

A person's browser (Chromium, driven by Playwright) opens the studio on the playground's counter page
(a big block whose colour encodes a number). Each click on "Increment", and each key typed into its
text box, adds one; the studio page times, in its own clock, the moment it sent the input and the
moment it drew the first frame whose block has the new colour. The floor is the same click done
directly on the sandboxed page, timed to the screencast frame that follows it (the browser's share);
a floor sample precedes every studio sample, so both see the same load.

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
    if (ev.type === 'up' && window.__want !== null && !window.__upAt) window.__upAt = ev.t;
  };
  window.__studioOnFrame = (ctx) => {
    if (window.__want === null || !window.__sentAt) return;
    const d = ctx.getImageData(px, py, 1, 1).data;
    const n = window.__want;
    if (d[0] === (n & 255) && d[1] === ((n >> 8) & 255)) {
      const now = performance.now();
      window.__lat.push([now - window.__sentAt, window.__upAt ? now - window.__upAt : null]);
      window.__want = null; window.__sentAt = 0; window.__upAt = 0;
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


def _measure(page, kind: str, start: int, pace_ms: int, floor) -> tuple[list[float], int]:  # noqa: ANN001
    """N inputs of one kind, each after a floor sample (``floor(kind, n)``: the same input sent to the
    sandboxed page directly, so both see the same load); returns the latencies (ms) as the page
    measured them, and the counter's value."""
    view = page.get_by_label("Live view of the sandboxed browser").bounding_box()
    scale = view["width"] / 1280
    at = lambda p: (view["x"] + p[0] * scale, view["y"] + p[1] * scale)  # noqa: E731
    page.evaluate("window.__lat = []")
    n = start
    if kind == "key":
        page.mouse.click(*at(TEXTBOX))  # focus the text box (no change of the counter)
    floor.ready(kind)  # the studio has forwarded that: the floor's own inputs land in the same place
    for i in range(N):
        if pace_ms:  # both the floor's input and ours come after the same pause (an idle page wakes up slower)
            page.wait_for_timeout(pace_ms)  # the simulated person's pace between inputs, not a wait for the page
        floor(kind, n + 1)
        n += 2  # the floor's raw click, then ours
        if pace_ms:
            page.wait_for_timeout(pace_ms)
        page.evaluate(f"window.__want = {n}; window.__sentAt = 0; window.__upAt = 0")
        if kind == "click":
            page.mouse.click(*at(BUTTON))
        else:
            page.keyboard.press("a")
        page.wait_for_function(f"window.__lat.length >= {i + 1}", timeout=30_000)
    return page.evaluate("window.__lat"), n


def _shows(frame: bytes, n: int) -> bool:
    """Whether a (PNG) frame's counter block has exactly the colour of ``n``."""
    import io

    from PIL import Image

    r, g, _b = Image.open(io.BytesIO(frame)).convert("RGB").getpixel(PROBE)
    return r == (n & 255) and g == ((n >> 8) & 255)


async def _floor_once(session, kind: str, n: int) -> float:  # noqa: ANN001
    """Click (or press a key) on the sandboxed page directly and wait for the screencast frame showing
    its effect (counter ``n``): the browser's share, without the studio page, HTTP, recorder, settling."""
    t = time.perf_counter()
    frame = session.live.next_frame()
    if kind == "click":
        await session.episode.page.mouse.click(*BUTTON)
    else:
        await session.episode.page.keyboard.press("a")
    while not _shows(await asyncio.wait_for(frame, 30), n):
        frame = session.live.next_frame()
    return (time.perf_counter() - t) * 1000


def main() -> None:
    from playwright.sync_api import sync_playwright

    from sandbox.browser import launch_sync
    from sandbox.studio.server import StudioOptions, create_app

    tmp = Path(tempfile.mkdtemp(prefix="bench-studio-"))
    # PNG frames: exact colours, so no frame is mistaken for its neighbour's (JPEG is the default; its
    # frames are smaller and encode faster, so these figures are on the safe side).
    app = create_app(StudioOptions(out_dir=tmp / "runs", extra_apps=("playground",), frame_format="png"))
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
            session = studio.sessions[page.url.rsplit("/", 1)[-1]]
            floor: list[float] = []

            on_loop = lambda coro: asyncio.run_coroutine_threadsafe(coro, studio.loop).result(60)  # noqa: E731

            def floor_sample(kind: str, n: int) -> None:
                floor.append(on_loop(_floor_once(session, kind, n)))

            floor_sample.ready = lambda kind: kind != "key" or on_loop(session.episode.page.wait_for_function(
                "document.activeElement && document.activeElement.id === 'typed'"))

            results, n = {}, 0
            for name, kind, pace in (("click", "click", PACE_MS), ("key", "key", PACE_MS),
                                     ("click", "click", 0), ("key", "key", 0)):  # fmt: skip
                samples, n = _measure(page, kind, n, pace, floor_sample)
                mode = "paced" if pace else "burst"
                if kind == "click":
                    results[f"click from press, {mode}"] = [a for a, _ in samples]
                    results[f"click from release, {mode}"] = [b for _, b in samples if b is not None]
                else:
                    results[f"key, {mode}"] = [a for a, _ in samples]
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
    print(f"{'floor: raw input -> screencast frame':<38}{f['median']:8.1f}{f['p95']:8.1f}{f['n']:5d}")
    print(f"paced: {PACE_MS} ms between a frame and the next input (a person's pace; the floor's too); burst: none")
    print(f"target: median <= 100 ms; screencast frames received: {frames}; machine: {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
