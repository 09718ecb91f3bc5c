"""The viewer's web app: runs (one, or several compared), their episodes step by step, and grading.

URLs: ``/`` is the run (one run), the comparison (several) or the grading queue (grading mode);
``/runs/<key>/`` a run's page; ``/runs/<key>/episodes/<id>`` an episode; ``/side?left=<key>/<id>&
right=<key>/<id>`` two episodes next to each other; ``/rank/<task>`` the ranking of a task's episodes.
"""

from __future__ import annotations

import json
import math
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from sandbox.run.summary import summarize
from sandbox.trajectory import Episode, TrajectoryError, screenshot_name

from . import grading, images
from .compare import compare_rows, filter_rows
from .index import OUTCOMES, SORT_KEYS, Query
from .overlay import cursor_after, shapes
from .runs import RunView, episode_path, load_runs

HERE = Path(__file__).parent
PER_PAGE = (25, 50, 100, 200)


@dataclass
class Options:
    """What the viewer is for: browsing (default) or grading as ``grader``, blind unless ``show_verdict``."""

    grade: bool = False
    grader: str | None = None
    show_verdict: bool = False

    @property
    def blind(self) -> bool:
        return self.grade and not self.show_verdict


@dataclass
class ViewerState:
    runs: list[RunView]
    options: Options

    @property
    def grade(self) -> bool:
        return self.options.grade

    @property
    def grader(self) -> str | None:
        return self.options.grader

    @property
    def blind(self) -> bool:
        return self.options.blind

    def run(self, key: str) -> RunView:
        for rv in self.runs:
            if rv.key == key:
                return rv
        raise HTTPException(404, f"no run {key!r} in this viewer (runs: {', '.join(rv.key for rv in self.runs)})")


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


def episode_context(rv: RunView, ep: Episode) -> dict[str, Any]:
    """What the episode templates draw: each step with its screenshots, overlay and world changes."""
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
            "milestones": list(s.milestones or []),
        })  # fmt: skip
        cursor = cursor_after(s.parsed, cursor)
        prev_shot = after if after is not None else prev_shot
    page = episode_path(rv.key, rec.id)
    return {"rv": rv, "ep": ep, "rec": rec, "steps": steps, "verdict": _verdict(rec.verdict), "milestones": list(rec.milestones or []),
            "initial": "screenshots/0000.png" if ep.screenshot_path(0) else None, "size0": size0, "page": page, "base": page}  # fmt: skip


def create_app(run_paths: Path | str | list[Path | str], *, grade: bool = False, grader: str | None = None, show_verdict: bool = False) -> FastAPI:
    """The viewer for one run folder or several (compared); ``grade`` records ``grader``'s labels."""
    paths = [run_paths] if isinstance(run_paths, (str, Path)) else list(run_paths)
    if grade and not (grader or "").strip():
        raise ValueError("grading needs the grader's name: pass --grader NAME")
    state = ViewerState(load_runs(paths), Options(grade, (grader or "").strip() or None, show_verdict))
    runs = state.runs
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["pct"] = lambda v: f"{100 * float(v or 0):.0f}%"
    templates.env.filters["num"] = _num
    templates.env.filters["js"] = lambda v: json.dumps(v, default=str)
    templates.env.globals["ep_url"] = episode_path
    templates.env.globals["viewer"] = state
    thumbs = images.LRU(1024)
    diffs = images.LRU(128)
    app = FastAPI(title="CUA Sandbox viewer", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.state.viewer = state
    app.state.run = runs[0].run  # the first run (a single-run viewer's only one)
    app.state.index = runs[0].index

    def episode_or_404(rv: RunView, episode_id: str) -> Episode:
        try:
            return rv.run.episode(episode_id)
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

    def url_maker(request: Request, base: str):  # noqa: ANN202
        params = {k: v for k, v in request.query_params.items() if k != "page"}

        def url(**changes: Any) -> str:
            merged = {**params, **{k: str(v) for k, v in changes.items()}}
            return base + "?" + urllib.parse.urlencode({k: v for k, v in merged.items() if v not in ("", None)})

        return url

    def run_page(request: Request, rv: RunView, base: str) -> Response:
        index = rv.index
        index.refresh()
        q = query_from(request)
        rows = index.select(q)
        pages = max(1, math.ceil(len(rows) / q.per))
        page = min(q.page, pages)
        shown = rows[(page - 1) * q.per : page * q.per]
        url = url_maker(request, base)
        human: dict[str, list[Any]] = {}
        for (episode_id, _), label in sorted(rv.labels.latest().items()):
            human.setdefault(episode_id, []).append(label)

        def sort_url(key: str) -> str:
            desc = not (q.sort == key and q.desc) if q.sort == key else key in ("score", "steps", "duration")
            return url(sort=key, dir="desc" if desc else "asc")

        return templates.TemplateResponse(request, "run.html", {
            "rv": rv, "meta": rv.run.meta, "run_path": str(rv.path), "q": q, "rows": shown, "total": len(index.rows), "matched": len(rows),
            "page": page, "pages": pages, "url": url, "sort_url": sort_url, "facets": index.facets(), "base": base,
            "stats": summarize(rows), "running": rv.run.running(), "per_options": PER_PAGE, "human": human,
        })  # fmt: skip

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        if state.grade:
            return grading.queue_page(request, state, templates)
        if len(runs) == 1:
            return run_page(request, runs[0], "/")
        return compare_page(request)

    @app.get("/runs/{key}", include_in_schema=False)
    def run_no_slash(key: str) -> Response:
        return RedirectResponse(f"/runs/{urllib.parse.quote(key, safe='')}/")

    @app.get("/runs/{key}/", response_class=HTMLResponse)
    def run_summary(request: Request, key: str) -> Response:
        rv = state.run(key)
        if state.blind:  # the run page shows the verifier's verdicts: not while grading blind
            return RedirectResponse("/")
        return run_page(request, rv, f"/runs/{urllib.parse.quote(key, safe='')}/")

    @app.get("/compare", response_class=HTMLResponse)
    def compare_page(request: Request) -> Response:
        if state.blind:
            return RedirectResponse("/")
        p = request.query_params
        q, differ = (p.get("q") or "").strip(), p.get("differ") in ("1", "on", "true")
        every_row = compare_rows(runs)
        rows = filter_rows(every_row, q, differ)
        per = _int(p.get("per"), 100) if _int(p.get("per"), 100) in PER_PAGE else 100
        pages = max(1, math.ceil(len(rows) / per))
        page = min(max(1, _int(p.get("page"), 1)), pages)
        every = [rv.index.rows for rv in runs]
        stats = [summarize(r) for r in every]
        groups = {dim: sorted({name for s in stats for name in s["by"][dim]}) for dim in ("app", "difficulty", "tag")}
        return templates.TemplateResponse(request, "compare.html", {
            "meta": {}, "rows": rows[(page - 1) * per : page * per], "matched": len(rows), "total": len(every_row),
            "q": q, "differ": differ, "page": page, "pages": pages, "url": url_maker(request, "/compare"), "stats": stats, "groups": groups,
        })  # fmt: skip

    @app.get("/side", response_class=HTMLResponse)
    def side_by_side(request: Request, left: str, right: str) -> Response:
        panels = []
        for ref in (left, right):
            key, _, episode_id = ref.partition("/")
            if not episode_id:
                raise HTTPException(400, f"{ref!r} is not <run key>/<episode id>")
            rv = state.run(key)
            panels.append(episode_context(rv, episode_or_404(rv, episode_id)))
        return templates.TemplateResponse(request, "side.html", {"panels": panels, "meta": {}, "show_verdict": not state.blind})

    @app.get("/api/results")
    def api_results(request: Request) -> JSONResponse:
        rv = state.run(request.query_params.get("run") or runs[0].key)
        rv.index.refresh()
        q = query_from(request)
        rows = rv.index.select(q)
        return JSONResponse({"run": rv.key, "total": len(rv.index.rows), "matched": len(rows), "summary": summarize(rows)["all"],
                             "results": rows[(q.page - 1) * q.per : q.page * q.per]})  # fmt: skip

    @app.get("/runs/{key}/episodes/{episode_id}", response_class=HTMLResponse)
    def episode_page(request: Request, key: str, episode_id: str) -> Response:
        rv = state.run(key)
        e = episode_context(rv, episode_or_404(rv, episode_id))
        ctx: dict[str, Any] = {"e": e, "meta": rv.run.meta, "show_verdict": not state.blind, "labels": rv.labels.for_episode(episode_id)}
        if state.grade:
            ctx.update(grading.episode_extras(state, rv, episode_id, e["rec"].task))
        else:
            rv.index.refresh()
            ids = [r["id"] for r in rv.index.rows]
            pos = ids.index(episode_id) if episode_id in ids else -1
            ctx["neighbours"] = {"prev": episode_path(key, ids[pos - 1]) if pos > 0 else None,
                                 "next": episode_path(key, ids[pos + 1]) if 0 <= pos < len(ids) - 1 else None}  # fmt: skip
        return templates.TemplateResponse(request, "episode.html", ctx)

    @app.get("/episodes/{rest:path}", include_in_schema=False)
    def first_run_episode(rest: str) -> Response:
        """Episode URLs without a run key address the first run."""
        head, _, tail = rest.partition("/")
        target = episode_path(runs[0].key, head) + ("/" + tail if tail else "")
        return RedirectResponse(target, status_code=307)

    def shot_path(ep: Episode, n: int) -> Path:
        path = ep.screenshot_path(n)
        if path is None:
            raise HTTPException(404, f"no screenshot {n} in episode {ep.path.name}")
        return path

    @app.get("/runs/{key}/episodes/{episode_id}/screenshots/{n}.png")
    def screenshot(key: str, episode_id: str, n: int) -> Response:
        path = shot_path(episode_or_404(state.run(key), episode_id), n)
        return Response(path.read_bytes(), media_type="image/png", headers={"cache-control": "max-age=3600"})

    @app.get("/runs/{key}/episodes/{episode_id}/thumbs/{n}.jpg")
    def thumb(key: str, episode_id: str, n: int) -> Response:
        path = shot_path(episode_or_404(state.run(key), episode_id), n)
        data = thumbs.get((str(path), path.stat().st_mtime_ns), lambda: images.thumbnail(path))
        return Response(data, media_type="image/jpeg", headers={"cache-control": "max-age=3600"})

    @app.get("/runs/{key}/episodes/{episode_id}/diff/{a}/{b}.png")
    def diff(key: str, episode_id: str, a: int, b: int) -> Response:
        ep = episode_or_404(state.run(key), episode_id)
        pa, pb = shot_path(ep, a), shot_path(ep, b)
        share: dict[str, float] = {}

        def make() -> bytes:
            data, ratio = images.difference(pa, pb)
            share["r"] = ratio
            return data

        data = diffs.get((str(pa), str(pb)), make)
        headers = {"cache-control": "max-age=3600"}
        if "r" in share:
            headers["x-changed-share"] = f"{share['r']:.5f}"
        return Response(data, media_type="image/png", headers=headers)

    grading.register(app, state, templates, episode_or_404)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


def serve(run_paths: Path | str | list[Path | str], *, host: str = "127.0.0.1", port: int = 8790, open_browser: bool = False,
          grade: bool = False, grader: str | None = None, show_verdict: bool = False) -> None:  # fmt: skip
    import uvicorn

    paths = [run_paths] if isinstance(run_paths, (str, Path)) else list(run_paths)
    app = create_app(paths, grade=grade, grader=grader, show_verdict=show_verdict)
    url = f"http://{host}:{port}/"
    what = ", ".join(str(Path(p).resolve()) for p in paths)
    mode = f", grading as {grader}" + ("" if show_verdict else " (blind)") if grade else ""
    print(f"viewer for {what} at {url}{mode}  (Ctrl+C stops it)")
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    uvicorn.run(app, host=host, port=port, log_level="warning")
