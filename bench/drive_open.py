"""Opening large files in the drive's editors, and a cell edit with recalculation, against raw floors
measured in the same run (interleaved, so machine load hits both alike):

- open a 2,000-cell workbook (100 rows x 20 columns, a SUM per row) and a 20-page document (pages as
  the PDF export lays them out) with an env ``goto`` step (navigation, settle, screenshot) vs a raw
  Playwright ``goto`` of a static HTML page of the same byte size + ``Page.captureScreenshot``
  (target: at most 1.5x); and, in the same rounds, a raw ``goto`` of the editor's own URL + screenshot
  in a plain context signed in to the world, which splits the ratio into what the page costs the
  browser and what the env's step adds to it;
- a cell edit: type a number into a cell a SUM depends on (untimed), then the timed ``Enter`` step
  until the SUM cell shows the new total, vs the in-page step floor of ``bench/env.py`` (raw
  ``mouse.click`` + ``Page.captureScreenshot``; target: at most 1.25x); and, in the same rounds, vs
  a raw click whose change comes back from one request to the same host (the playground counter's
  fetch increment, no delay, until the counter shows it, + screenshot). The edit must wait for its
  save (the world's change set and the verdict are read after it), which the in-page floor has no
  room for; the request floor shows what the edit costs beyond that one round trip. The same edit
  raw (the signed-in plain context on the same workbook) splits the ratio, as for the opens.

The files are written through the drive's JSON API into the bench's own world.
``python -m bench drive_open`` (``SANDBOX_BENCH_QUICK=1`` for a shorter run).
"""

from __future__ import annotations

import asyncio
import http.server
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from apps_web.world import WorldStore, default_home

from .env import INC, INC_FETCH, interleave_all
from .stats import summarize

ROWS, COLS = 100, 20  # 2,000 cells: 19 numbers and a SUM per row
PAGES = 20
EDIT = "cell edit with recalculation (Enter until the SUM shows it)"
SUM_CHANGED = "([sel, old]) => document.querySelector(sel).textContent.trim() !== old"  # wait_for_function


def _col(n: int) -> str:
    return chr(ord("A") + n - 1)


def sheet_edits() -> list[dict[str, str]]:
    edits = []
    for r in range(1, ROWS + 1):
        for c in range(1, COLS):
            edits.append({"sheet": "Sheet1", "ref": f"{_col(c)}{r}", "input": str((r * 37 + c * 11) % 900 + 100)})
        edits.append({"sheet": "Sheet1", "ref": f"{_col(COLS)}{r}", "input": f"=SUM(A{r}:{_col(COLS - 1)}{r})"})
    return edits


def document_blocks() -> list[dict[str, Any]]:
    """Headings and paragraphs until the PDF layout counts 20 pages."""
    from apps_web.drive.pdf import document_pdf

    words = ("the supplier shall deliver each order within the agreed lead time and keep records of every shipment for audit by the "
             "customer on reasonable notice during business hours").split()
    blocks: list[dict[str, Any]] = [{"style": "Title", "runs": [{"text": "Master services agreement"}]}]
    n = 0
    while True:
        for _ in range(10):
            n += 1
            if n % 6 == 1:
                blocks.append({"style": "Heading 1", "runs": [{"text": f"{n // 6 + 1}. Section {n // 6 + 1}"}]})
            text = " ".join(words[(n + k) % len(words)] for k in range(70)).capitalize() + "."
            blocks.append({"style": "Normal", "runs": [{"text": text[:120]}, {"text": text[120:160], "bold": True}, {"text": text[160:]}]})
        data, _text = document_pdf("bench", blocks)
        if data.count(b"/Type /Page ") >= PAGES:
            return blocks


class _Static:
    """A static page of a given size, served by a plain HTTP server in a thread."""

    def __init__(self) -> None:
        self.pages: dict[str, bytes] = {}
        pages = self.pages

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                body = pages.get(self.path.split("?")[0], b"")
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def add(self, path: str, size: int, rows: int) -> str:
        """A page of about ``size`` bytes: a table of ``rows`` rows of text."""
        head = b"<!doctype html><html><head><meta charset=utf-8><title>static</title></head><body><table>"
        tail = b"</table></body></html>"
        per = max(20, (size - len(head) - len(tail)) // rows)
        row = b"<tr><td>" + b"x" * (per - 19) + b"</td></tr>\n"
        body = head + row * rows
        body += b"<!--" + b"-" * max(0, size - len(body) - len(tail) - 7) + b"-->" + tail
        self.pages[path] = body
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def run(console: Console) -> None:
    import httpx

    from apps_web.identity import SESSION_COOKIE, browser_cookies, session_cookie
    from apps_web.worlds import WORLD_HEADER
    from sandbox.env import make_async_env
    from sandbox.observe import ObserveOptions, capture_png
    from sandbox.runtime import Runtime, default_apps

    root = Path(tempfile.mkdtemp(prefix="bench-drive-open-"))
    store = WorldStore(root, templates_dir=default_home() / "templates")
    store.template(0)
    runtime = await Runtime.start(store=store, apps=default_apps("playground"))
    static = _Static()
    results: dict[str, tuple[list[float], list[float]]] = {}
    same_page: dict[str, list[float]] = {}  # the opens' raw goto of the same page
    request_floor: list[float] = []  # the edit's raw click answered by one request
    sizes: dict[str, int] = {}
    try:
        host = runtime.host
        env = make_async_env("drive", "/my", "bench", runtime=runtime, observe=ObserveOptions(screenshot="png"), max_steps=100_000)
        await env.reset(seed=0)
        world_id, username = env.episode.world.id, env.episode.username
        api = httpx.AsyncClient(base_url=f"http://127.0.0.1:{host.port}", timeout=120, headers={
            "Host": f"drive.localhost:{host.port}", "X-Sandbox-World": world_id, "Accept": "application/json",
            "Cookie": f"{SESSION_COOKIE}={session_cookie(host.secret, username, world_id)}"})
        folder = (await api.get("/api/items")).json()["folder"]["id"]

        async def create(kind: str, name: str) -> int:
            r = await api.post("/api/items", json={"parent_id": folder, "kind": kind, "name": name})
            assert r.status_code == 201, r.text
            return r.json()["id"]

        sheet = await create("sheet", "Bench 2000 cells")
        r = await api.patch(f"/api/sheets/{sheet}/cells", json={"edits": sheet_edits()})
        assert r.status_code == 200, r.text
        doc = await create("document", "Bench 20 pages")
        r = await api.put(f"/api/documents/{doc}", json={"blocks": document_blocks()})
        assert r.status_code == 200, r.text

        # -- floors: a raw page in a plain context --------------------------------------------------------
        plain = await runtime.browser.new_context(viewport={"width": 1280, "height": 800})
        raw = await plain.new_page()
        raw_cdp = await plain.new_cdp_session(raw)
        # The same page, raw: a plain context signed in to the same world, a raw goto of the editor's URL
        # and a screenshot. env / this is what the env's step adds to the page; this / the static floor
        # is what the page itself costs the browser beyond a page of its size.
        signed = await runtime.browser.new_context(viewport={"width": 1280, "height": 800},
                                                   extra_http_headers={WORLD_HEADER: world_id})
        await signed.add_cookies(browser_cookies(host.secret, username, world_id, host.port, host.app_names))
        same = await signed.new_page()
        same_cdp = await signed.new_cdp_session(same)
        for label, path, rows in (("sheet", f"/sheet/{sheet}", ROWS), ("document", f"/doc/{doc}", 400)):
            html = (await api.get(path, headers={"Accept": "text/html"})).content
            sizes[label] = len(html)
            url = static.add(f"/{label}.html", len(html), rows)

            async def floor_open(url: str = url) -> None:
                await raw.goto(url)
                await capture_png(raw_cdp)

            async def same_open(url: str = host.url("drive", path)) -> None:
                await same.goto(url)
                await capture_png(same_cdp)

            async def env_open(path: str = path) -> None:
                await env.step({"action": "goto", "url": path})

            floor, raw_same, subject = await interleave_all(floor_open, same_open, env_open)
            results[f"open {label}"] = (floor, subject)
            same_page[f"open {label}"] = raw_same

        # -- a cell edit with recalculation ------------------------------------------------------------------
        await raw.goto(host.url("playground", "/counter?n=0&delay=0"))

        async def floor_click() -> None:
            await raw.mouse.click(*INC)
            await capture_png(raw_cdp)

        # The request floor: the counter's fetch increment, timed from the click until the counter shows
        # the answer (a mutation observer armed before the click) and the screenshot.
        arm = ("() => { window.__shown = new Promise((done) => new MutationObserver(done)"
               ".observe(document.getElementById('block'), {childList: true, characterData: true, subtree: true})); }")

        async def floor_request() -> float:
            await raw.evaluate(arm)
            t = time.perf_counter()
            await raw.mouse.click(*INC_FETCH)
            await raw.evaluate("window.__shown.then(() => true)")
            await capture_png(raw_cdp)
            return (time.perf_counter() - t) * 1000

        await env.step({"action": "goto", "url": f"/sheet/{sheet}"})
        page = env.episode.page
        total_cell = page.locator(f"td[data-ref='{_col(COLS)}1']")
        box = await page.locator("td[data-ref='B1']").bounding_box()
        value = [500]

        async def env_edit() -> float:
            value[0] += 1
            await env.step({"action": "left_click", "x": round(box["x"] + box["width"] / 2), "y": round(box["y"] + box["height"] / 2)})
            await env.step({"action": "type", "text": str(value[0])})
            before = await total_cell.inner_text()
            t = time.perf_counter()
            await env.step({"action": "key", "key": "Return"})
            # until the SUM shows the new total (normally already in the step's screenshot)
            await page.wait_for_function(SUM_CHANGED,
                                         arg=[f"td[data-ref='{_col(COLS)}1']", before.strip()], timeout=10_000)
            return (time.perf_counter() - t) * 1000

        # The same edit, raw: the signed-in plain context on the same workbook (its own row, so each page
        # sees its SUM change), Enter by Playwright until the SUM shows it, and a screenshot.
        await same.goto(host.url("drive", f"/sheet/{sheet}"))
        raw_cell = await same.locator("td[data-ref='B2']").bounding_box()
        raw_sum = f"td[data-ref='{_col(COLS)}2']"

        async def same_edit() -> float:
            value[0] += 1
            await same.mouse.click(raw_cell["x"] + raw_cell["width"] / 2, raw_cell["y"] + raw_cell["height"] / 2)
            await same.keyboard.type(str(value[0]))
            before = (await same.locator(raw_sum).inner_text()).strip()
            t = time.perf_counter()
            await same.keyboard.press("Enter")
            await same.wait_for_function(SUM_CHANGED,
                                         arg=[raw_sum, before], timeout=10_000)
            await capture_png(same_cdp)
            return (time.perf_counter() - t) * 1000

        floor, request_floor, edits, raw_edits = await interleave_all(floor_click, floor_request, env_edit, same_edit)
        results[EDIT] = (floor, edits)
        same_page[EDIT] = raw_edits
        await api.aclose()
        await plain.close()
        await signed.close()
        await env.close()
    finally:
        static.close()
        await runtime.close()
        shutil.rmtree(root, ignore_errors=True)

    table = Table(title="Drive: opening large files and a cell edit (ms; floors raw Playwright, same run)")
    for col in ("measure", "median", "p95", "floor median", "floor p95", "ratio", "target", "same page raw median [p95]", "env / same page"):
        table.add_column(col, justify="left" if col in ("measure", "target") else "right")
    targets = {"open sheet": 1.5, "open document": 1.5, EDIT: 1.25}
    rows = list(results.items())
    if request_floor:  # the same edits against the floor with one request (no target of its own)
        rows.append((EDIT + ", vs a click answered by one request", (request_floor, results[EDIT][1])))
    for name, (floor, subject) in rows:
        s, f = summarize(subject), summarize(floor)
        limit = targets.get(name)
        ratio = s["median"] / f["median"]
        label = name + (f" ({ROWS * COLS:,} cells, {sizes['sheet']:,} B)" if name == "open sheet" else f" ({PAGES} pages, {sizes['document']:,} B)" if name == "open document" else "")
        raw_same = summarize(same_page[name]) if name in same_page else None
        shown = f"{ratio:.2f}x" if limit is None else f"[{'green' if ratio <= limit else 'red'}]{ratio:.2f}x[/]"
        table.add_row(label, f"{s['median']:.1f}", f"{s['p95']:.1f}", f"{f['median']:.1f}", f"{f['p95']:.1f}",
                      shown, f"<= {limit}x" if limit else "-",
                      f"{raw_same['median']:.1f} [{raw_same['p95']:.1f}]" if raw_same else "", f"{s['median'] / raw_same['median']:.2f}x" if raw_same else "")
    console.print(table)
    console.print("same page raw: a raw goto of the editor's own URL and a screenshot, in a plain context signed in to the "
                  "same world. floor -> same page raw is what the page costs the browser beyond a static page of its size; "
                  "same page raw -> env is what the env's step (settle, observation) adds.")


def main() -> None:
    asyncio.run(run(Console(width=160)))


if __name__ == "__main__":
    main()
