"""The viewer's web app: a run's summary and episode list, and each episode step by step."""

from __future__ import annotations

import math
import urllib.parse
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from sandbox.trajectory import Episode, RunDir, TrajectoryError, load_run, screenshot_name

from . import images
from sandbox.run.summary import summarize

from .index import OUTCOMES, SORT_KEYS, Query, ResultsIndex
from .overlay import cursor_after, shapes

HERE = Path(__file__).parent
PER_PAGE = (25, 50, 100, 200)


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default


def _num(value: Any, digits: int = 2) -> str:
    try:
        return f"{float(value):.{digits}f}"
    except (TypeError, ValueError):
        return ""


def _verdict(data: dict[str, Any] | None) -> dict[str, Any]:
    """The verdict with every field present (an older or hand-written file may lack some)."""
    if not data:
        return {}
    from verifiers import Verdict

    try:
        return Verdict.model_validate(data).model_dump(mode="json")
    except ValueError:
        return data


def changes_rows(changes: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A world diff (WorldDiff JSON) as rows for a table: table, key, op, and field: before -> after."""
    rows: list[dict[str, Any]] = []
    for table, diff in ((changes or {}).get("tables") or {}).items():
        keys = diff.get("key_columns") or ["id"]

        def key_of(row: dict[str, Any]) -> Any:
            return row.get(keys[0]) if len(keys) == 1 else tuple(row.get(k) for k in keys)

        for row in diff.get("added") or []:
            rows.append({"table": table, "key": key_of(row), "op": "added", "fields": [(k, None, v) for k, v in row.items()]})
        for upd in diff.get("updated") or []:
            before, after = upd.get("before") or {}, upd.get("after") or {}
            rows.append({"table": table, "key": upd.get("key"), "op": "updated",
                         "fields": [(f, before.get(f), after.get(f)) for f in upd.get("fields") or []]})  # fmt: skip
        for row in diff.get("removed") or []:
            rows.append({"table": table, "key": key_of(row), "op": "removed", "fields": [(k, v, None) for k, v in row.items()]})
    return rows


def create_app(run_path: Path | str) -> FastAPI:
    """The viewer for one run folder."""
    run: RunDir = load_run(run_path)
    index = ResultsIndex(run.results_path)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["pct"] = lambda v: f"{100 * float(v or 0):.0f}%"
    templates.env.filters["num"] = _num
    templates.env.filters["js"] = lambda v: __import__("json").dumps(v, default=str)
    thumbs = images.LRU(1024)
    diffs = images.LRU(128)
    app = FastAPI(title="CUA Sandbox viewer", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.state.run = run
    app.state.index = index

    def episode_or_404(episode_id: str) -> Episode:
        try:
            return run.episode(episode_id)
        except TrajectoryError as exc:
            raise HTTPException(404, str(exc)) from None

    def query_from(request: Request) -> Query:
        p = request.query_params
        sort = p.get("sort") or "finished"
        return Query(
            q=(p.get("q") or "").strip(), outcome=p.get("outcome") if p.get("outcome") in OUTCOMES else "",
            app=p.get("app") or "", difficulty=p.get("difficulty") or "", tag=p.get("tag") or "",
            min_score=_float(p.get("min_score")), max_score=_float(p.get("max_score")),
            sort=sort if sort in SORT_KEYS else "finished", desc=p.get("dir") == "desc",
            page=max(1, _int(p.get("page"), 1)), per=_int(p.get("per"), 50) if _int(p.get("per"), 50) in PER_PAGE else 50,
        )  # fmt: skip

    @app.get("/", response_class=HTMLResponse)
    def summary(request: Request) -> Response:
        index.refresh()
        q = query_from(request)
        rows = index.select(q)
        pages = max(1, math.ceil(len(rows) / q.per))
        page = min(q.page, pages)
        shown = rows[(page - 1) * q.per : page * q.per]
        params = {k: v for k, v in request.query_params.items() if k != "page"}

        def url(**changes: Any) -> str:
            merged = {**params, **{k: str(v) for k, v in changes.items()}}
            return "/?" + urllib.parse.urlencode({k: v for k, v in merged.items() if v not in ("", None)})

        def sort_url(key: str) -> str:
            desc = not (q.sort == key and q.desc) if q.sort == key else key in ("score", "steps", "duration")
            return url(sort=key, dir="desc" if desc else "asc")

        return templates.TemplateResponse(request, "run.html", {
            "meta": run.meta, "run_path": str(run.path), "q": q, "rows": shown, "total": len(index.rows), "matched": len(rows),
            "page": page, "pages": pages, "url": url, "sort_url": sort_url, "facets": index.facets(),
            "stats": summarize(rows), "running": run.running(), "per_options": PER_PAGE,
        })  # fmt: skip

    @app.get("/api/results")
    def api_results(request: Request) -> JSONResponse:
        index.refresh()
        q = query_from(request)
        rows = index.select(q)
        return JSONResponse({"total": len(index.rows), "matched": len(rows), "summary": summarize(rows)["all"],
                             "results": rows[(q.page - 1) * q.per : q.page * q.per]})  # fmt: skip

    @app.get("/episodes/{episode_id}", response_class=HTMLResponse)
    def episode_page(request: Request, episode_id: str) -> Response:
        ep = episode_or_404(episode_id)
        rec = ep.record
        size0 = images.png_size(ep.path / "screenshots" / "0000.png") or tuple((rec.viewport or {}).get(k, d) for k, d in (("width", 1280), ("height", 800)))
        steps = []
        cursor: tuple[int, int] | None = None
        prev_shot: int | None = 0 if ep.screenshot_path(0) else None
        size = size0
        for s in ep.steps:
            before = prev_shot
            after = s.step if s.screenshot else None
            if before is not None:
                size = images.png_size(ep.path / screenshot_name(before)) or size
            steps.append({
                "n": s.step, "rec": s, "before": before, "after": after,
                "overlay": shapes(s.parsed, size[0], size[1], cursor), "size": size,
                "changes": changes_rows(s.changes), "action_name": (s.parsed or {}).get("action") or "invalid",
            })  # fmt: skip
            cursor = cursor_after(s.parsed, cursor)
            prev_shot = after if after is not None else prev_shot
        verdict = _verdict(rec.verdict)
        index.refresh()
        ids = [r["id"] for r in index.rows]
        pos = ids.index(episode_id) if episode_id in ids else -1
        neighbours = {"prev": ids[pos - 1] if pos > 0 else None, "next": ids[pos + 1] if 0 <= pos < len(ids) - 1 else None}
        return templates.TemplateResponse(request, "episode.html", {
            "ep": ep, "rec": rec, "steps": steps, "verdict": verdict, "initial": "screenshots/0000.png" if ep.screenshot_path(0) else None,
            "size0": size0, "neighbours": neighbours, "meta": run.meta,
        })  # fmt: skip

    def shot_path(ep: Episode, n: int) -> Path:
        path = ep.screenshot_path(n)
        if path is None:
            raise HTTPException(404, f"no screenshot {n} in episode {ep.path.name}")
        return path

    @app.get("/episodes/{episode_id}/screenshots/{n}.png")
    def screenshot(episode_id: str, n: int) -> Response:
        path = shot_path(episode_or_404(episode_id), n)
        return Response(path.read_bytes(), media_type="image/png", headers={"cache-control": "max-age=3600"})

    @app.get("/episodes/{episode_id}/thumbs/{n}.jpg")
    def thumb(episode_id: str, n: int) -> Response:
        path = shot_path(episode_or_404(episode_id), n)
        data = thumbs.get((str(path), path.stat().st_mtime_ns), lambda: images.thumbnail(path))
        return Response(data, media_type="image/jpeg", headers={"cache-control": "max-age=3600"})

    @app.get("/episodes/{episode_id}/diff/{a}/{b}.png")
    def diff(episode_id: str, a: int, b: int) -> Response:
        ep = episode_or_404(episode_id)
        pa, pb = shot_path(ep, a), shot_path(ep, b)
        key = (str(pa), str(pb))
        share: dict[str, float] = {}

        def make() -> bytes:
            data, ratio = images.difference(pa, pb)
            share["r"] = ratio
            return data

        data = diffs.get(key, make)
        headers = {"cache-control": "max-age=3600"}
        if "r" in share:
            headers["x-changed-share"] = f"{share['r']:.5f}"
        return Response(data, media_type="image/png", headers=headers)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


def serve(run_path: Path | str, *, host: str = "127.0.0.1", port: int = 8790, open_browser: bool = False) -> None:
    import uvicorn

    app = create_app(run_path)
    url = f"http://{host}:{port}/"
    print(f"viewer for {Path(run_path).resolve()} at {url}  (Ctrl+C stops it)")
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    uvicorn.run(app, host=host, port=port, log_level="warning")
