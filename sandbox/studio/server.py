"""The studio's web app: choose a task or a world, record in the live view, finish, draft tasks.

Transport: the live view is one streaming HTTP response per viewer (``/api/sessions/<id>/stream``)
carrying length-prefixed messages (JPEG or PNG frames and JSON events); input events and commands are
POSTs. That is as fast as a WebSocket on localhost and needs no WebSocket library in the server.

Message framing on the stream: 1 byte kind (``F`` = frame, ``J`` = JSON), 4 bytes big-endian
length, payload.
"""

from __future__ import annotations

import asyncio
import struct
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

import orjson
from fastapi import FastAPI, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from .session import SessionError, StudioSession

HERE = Path(__file__).parent
FRAME, JSON = b"F", b"J"


def _packet(kind: bytes, payload: bytes) -> bytes:
    return kind + struct.pack(">I", len(payload)) + payload


@dataclass
class StudioOptions:
    """Where recordings and drafts go, what can be recorded, and how the browser runs."""

    out_dir: Path = Path("var/studio")
    drafts_dir: Path | None = None  # default: <out_dir>/drafts
    tasks: Any = None  # a TaskSource with summaries() (tasks.registry.TaskRegistry); default: the shipped tasks
    extra_apps: tuple[str, ...] = ()  # e.g. ("playground",) for the benchmark
    host: Any = None  # an AppHost to use instead of starting one
    store: Any = None  # a WorldStore (default: the host's, or the default store)
    host_mode: str = "process"
    headed: bool = False  # offer headed recording (needs a display)
    runtime: Any = None  # a started Runtime to use (tests); the app then does not close it
    frame_format: str = "jpeg"  # of the live view; "png" gives exact pixels (benchmarks) for more bytes

    def __post_init__(self) -> None:
        self.out_dir = Path(self.out_dir)
        self.drafts_dir = Path(self.drafts_dir) if self.drafts_dir is not None else self.out_dir / "drafts"


@dataclass
class Studio:
    options: StudioOptions
    runtime: Any = None
    headed_runtime: Any = None
    run: Any = None
    sessions: dict[str, StudioSession] = field(default_factory=dict)
    loop: asyncio.AbstractEventLoop | None = None  # the loop that owns the browser objects
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def tasks(self) -> Any:
        if self.options.tasks is None:
            from tasks.registry import TaskRegistry

            self.options.tasks = TaskRegistry(store=self.runtime.store if self.runtime else None)
        return self.options.tasks

    async def start(self) -> None:
        from sandbox.runtime import Runtime, default_apps
        from sandbox.trajectory import RunDir

        self.loop = asyncio.get_running_loop()
        if self.run is None:
            self.run = RunDir.create(self.options.out_dir, {"kind": "studio"}, resume=True)
        if self.options.runtime is not None:
            self.runtime = self.options.runtime
        else:
            self.runtime = await Runtime.start(
                store=self.options.store, host=self.options.host, apps=default_apps(*self.options.extra_apps),
                host_mode=self.options.host_mode,
            )  # fmt: skip

    async def stop(self) -> None:
        for session in list(self.sessions.values()):
            await session.close()
        self.sessions.clear()
        if self.headed_runtime is not None:
            await self.headed_runtime.close()
        if self.runtime is not None and self.options.runtime is None:
            await self.runtime.close()

    async def runtime_for(self, mode: str) -> Any:
        if mode != "headed":
            return self.runtime
        async with self._lock:
            if self.headed_runtime is None:
                from sandbox.runtime import Runtime

                # The same app host and store, a visible browser of its own, with no spare contexts
                # prepared in the background (each would be another window over the person's).
                self.headed_runtime = await Runtime.start(store=self.runtime.store, host=self.runtime.host, headless=False, spare_contexts=0)
        return self.headed_runtime

    def spec_for(self, form: dict[str, Any]) -> Any:
        seed = int(form.get("seed") or 0)
        task = (form.get("task") or "").strip()
        if task:
            return self.tasks.get(task, seed)
        from sandbox.spec import default_app, free_spec

        app = (form.get("app") or default_app()).strip()
        start = (form.get("start_url") or "/").strip() or "/"
        persona = (form.get("persona") or "").strip() or None
        instruction = (form.get("instruction") or "").strip() or f"Explore the {app} app and do something worth teaching."
        return free_spec(app, start, instruction, persona=persona, seed=seed)

    async def open_session(self, form: dict[str, Any]) -> StudioSession:
        mode = form.get("mode") or "live"
        if mode not in ("live", "headed"):
            raise SessionError(f"mode must be live or headed, not {mode!r}")
        if mode == "headed" and not self.options.headed:
            raise SessionError("headed recording is off: start the studio with --headed on a machine with a desktop")
        spec = self.spec_for(form)
        runtime = await self.runtime_for(mode)
        from .live import LiveView

        session = StudioSession(
            runtime=runtime, spec=spec, run=self.run, mode=mode, demonstrator=form.get("demonstrator") or "human",
            live=LiveView(self.options.frame_format),
        )  # fmt: skip
        await session.start()
        self.sessions[session.id] = session
        return session

    def session(self, sid: str) -> StudioSession:
        session = self.sessions.get(sid)
        if session is None:
            raise HTTPException(404, f"no recording {sid!r} is open in this studio")
        return session


def create_app(options: StudioOptions | None = None) -> FastAPI:
    options = options or StudioOptions()
    studio = Studio(options)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await studio.start()
        try:
            yield
        finally:
            await studio.stop()

    app = FastAPI(title="CUA Sandbox studio", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.studio = studio
    app.mount("/studio-static", StaticFiles(directory=str(HERE / "static")), name="static")
    templates = Jinja2Templates(directory=str(HERE / "templates"))

    def page(request: Request, name: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"studio": studio, **ctx}, status_code=status_code)

    # -- pages -------------------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request, error: str = "") -> HTMLResponse:
        try:
            tasks = studio.tasks.summaries()
        except Exception as exc:  # a broken task file must not take the studio down
            tasks, error = [], error or f"tasks did not load: {exc}"
        recordings = list(studio.run.results())[::-1][:50]
        return page(
            request, "index.html", tasks=tasks, recordings=recordings, apps=studio.runtime.host.app_names,
            open_sessions=list(studio.sessions.values()), error=error, headed=options.headed,
        )  # fmt: skip

    @app.post("/sessions")
    async def new_session(request: Request) -> Response:
        form = dict(await request.form())
        try:
            session = await studio.open_session(form)
        except (SessionError, LookupError, ValueError) as exc:
            return page(request, "error.html", status_code=400, message=str(exc))
        return RedirectResponse(f"/sessions/{session.id}", status_code=303)

    @app.get("/sessions/{sid}", response_class=HTMLResponse)
    def session_page(request: Request, sid: str) -> HTMLResponse:
        session = studio.session(sid)
        return page(request, "record.html", session=session, state=session.state())

    # -- the live view -----------------------------------------------------------------------------
    @app.get("/api/sessions/{sid}/state")
    async def state(sid: str) -> JSONResponse:
        return JSONResponse(studio.session(sid).state())

    @app.get("/api/sessions/{sid}/stream")
    async def stream(sid: str) -> StreamingResponse:
        session = studio.session(sid)
        sub = session.live.subscribe()

        async def body() -> AsyncIterator[bytes]:
            try:
                yield _packet(JSON, orjson.dumps(session.state()))
                while not sub.closed:
                    messages, frame = await sub.next()
                    chunk = b"".join(_packet(JSON, m) for m in messages)
                    if frame is not None:
                        chunk += _packet(FRAME, frame)
                    if chunk:
                        yield chunk
            finally:
                session.live.unsubscribe(sub)

        return StreamingResponse(body(), media_type="application/octet-stream", headers={"Cache-Control": "no-store"})

    @app.get("/api/sessions/{sid}/frame")
    async def frame(sid: str) -> Response:
        data = await studio.session(sid).live.snapshot()
        if data is None:
            raise HTTPException(404, "no frame yet")
        media = "image/png" if data[:4] == b"\x89PNG" else "image/jpeg"
        return Response(data, media_type=media, headers={"Cache-Control": "no-store"})

    @app.post("/api/sessions/{sid}/input")
    async def inputs(sid: str, request: Request) -> JSONResponse:
        session = studio.session(sid)
        data = orjson.loads(await request.body() or b"[]")
        events = data if isinstance(data, list) else [data]
        try:
            queued = session.submit(events)
        except ValidationError as exc:
            return JSONResponse({"error": f"malformed input event: {exc.errors()[0]['msg']}"}, status_code=422)
        except SessionError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        return JSONResponse({"queued": queued})

    async def _command(sid: str, kind: str, payload: Any = None) -> JSONResponse:
        session = studio.session(sid)
        try:
            return JSONResponse(await session.command(kind, payload))
        except SessionError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)

    @app.post("/api/sessions/{sid}/annotate")
    async def annotate(sid: str, request: Request) -> JSONResponse:
        return await _command(sid, "annotate", orjson.loads(await request.body() or b"{}"))

    @app.post("/api/sessions/{sid}/undo")
    async def undo(sid: str) -> JSONResponse:
        return await _command(sid, "undo")

    @app.post("/api/sessions/{sid}/restart")
    async def restart(sid: str) -> JSONResponse:
        return await _command(sid, "restart")

    @app.post("/api/sessions/{sid}/finish")
    async def finish(sid: str, request: Request) -> JSONResponse:
        return await _command(sid, "finish", orjson.loads(await request.body() or b"{}"))

    @app.post("/api/sessions/{sid}/close")
    async def close(sid: str) -> JSONResponse:
        session = studio.sessions.pop(sid, None)
        if session is not None:
            await session.close()
        return JSONResponse({"closed": sid})

    # -- recordings and drafts ---------------------------------------------------------------------
    @app.get("/recordings/{episode_id}/screenshots/{index}.png")
    def screenshot(episode_id: str, index: int) -> Response:
        from sandbox.trajectory import TrajectoryError

        try:
            data = studio.run.episode(episode_id).screenshot(index)
        except TrajectoryError as exc:
            raise HTTPException(404, str(exc)) from None
        if data is None:
            raise HTTPException(404, f"episode {episode_id} has no screenshot {index}")
        return Response(data, media_type="image/png")

    @app.get("/recordings/{episode_id}/draft", response_class=HTMLResponse)
    def draft_page(request: Request, episode_id: str) -> HTMLResponse:
        from .draft import DraftError, draft_from_episode

        try:
            draft = draft_from_episode(studio.run.episode(episode_id), store=studio.runtime.store)
        except (DraftError, LookupError, ValueError) as exc:
            return page(request, "error.html", status_code=400, message=str(exc))
        return page(request, "draft.html", episode_id=episode_id, draft=draft, saved=None, problems=[])

    @app.post("/recordings/{episode_id}/draft", response_class=HTMLResponse)
    def draft_save(request: Request, episode_id: str, yaml_text: str = Form(..., alias="yaml"), instruction: str = Form("")) -> HTMLResponse:
        from .draft import DraftError, draft_from_episode, save_draft

        try:
            draft = draft_from_episode(studio.run.episode(episode_id), store=studio.runtime.store)
        except (DraftError, LookupError, ValueError) as exc:
            return page(request, "error.html", status_code=400, message=str(exc))
        saved, problems = save_draft(yaml_text, options.drafts_dir, instruction=instruction, labels=draft.labels)
        draft.yaml = yaml_text if problems else saved.read_text()
        return page(request, "draft.html", episode_id=episode_id, draft=draft, saved=saved, problems=problems,
                    status_code=400 if problems else 200)  # fmt: skip

    # The trajectory viewer shares this web UI: its episode pages (/episodes/...) serve the recordings.
    from sandbox.trajectory import RunDir
    from sandbox.viewer import create_app as create_viewer

    studio.run = RunDir.create(options.out_dir, {"kind": "studio"}, resume=True)
    app.mount("/", create_viewer(options.out_dir), name="viewer")
    return app


def serve(*, port: int = 8780, host: str = "127.0.0.1", options: StudioOptions | None = None) -> None:
    import uvicorn
    from rich.console import Console

    console = Console()
    console.print(f"[bold]CUA Sandbox studio[/bold] at http://localhost:{port}/  (recordings in {(options or StudioOptions()).out_dir})")
    uvicorn.run(create_app(options), host=host, port=port, log_level="warning")


__all__ = ["Studio", "StudioOptions", "create_app", "serve"]
