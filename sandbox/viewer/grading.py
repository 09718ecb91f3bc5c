"""Grading mode: the queue of episodes to grade, each episode's label, and ranking a task's episodes.

Labels go to the labels.jsonl of the episode's own run (``sandbox.trajectory.LabelStore``). A ranking
of a task's episodes spans every run the viewer shows: each episode's label gets its place in it and
the ranking's id.
"""

from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING, Any, Callable

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field, ValidationError

from sandbox.trajectory import Label, rank_labels, utc_now
from sandbox.trajectory.labels import first_error

from .runs import RunView, episode_path

if TYPE_CHECKING:
    from .app import ViewerState


class LabelIn(BaseModel):
    run: str
    episode: str
    passed: bool | None = None
    score: float | None = None
    comment: str | None = None


class RankIn(BaseModel):
    task: str
    order: list[str] = Field(min_length=1)  # "<run key>/<episode id>", best first


def queue(state: ViewerState) -> list[tuple[RunView, dict[str, Any]]]:
    """Every episode of every run in grading order: by task, seed, then run."""
    items = []
    for i, rv in enumerate(state.runs):
        rv.index.refresh()
        items.extend((str(r.get("task", "")), int(r.get("seed") or 0), r["id"], i, rv, r) for r in rv.index.rows)
    items.sort(key=lambda t: t[:4])
    return [(rv, r) for *_, rv, r in items]


def rank_path(task: str) -> str:
    return "/rank/" + urllib.parse.quote(task, safe="")


def episode_extras(state: ViewerState, rv: RunView, episode_id: str, task: str) -> dict[str, Any]:
    """The grading panel's context: the grader's label, the neighbours in the queue, the task's size."""
    items = queue(state)
    keys = [(q.key, r["id"]) for q, r in items]
    pos = keys.index((rv.key, episode_id)) if (rv.key, episode_id) in keys else -1
    url = lambda i: episode_path(*keys[i]) if 0 <= i < len(keys) else None  # noqa: E731
    return {
        "mine": rv.labels.for_grader(state.grader).get(episode_id),
        "neighbours": {"prev": url(pos - 1) if pos > 0 else None, "next": url(pos + 1) if pos >= 0 else None},
        "position": pos + 1, "queue_length": len(items), "rank_url": rank_path(task),
        "task_count": sum(1 for _, r in items if r.get("task") == task),
    }  # fmt: skip


def queue_page(request: Request, state: ViewerState, templates: Any) -> Response:
    items = queue(state)
    mine = {rv.key: rv.labels.for_grader(state.grader) for rv in state.runs}
    groups: dict[str, list[dict[str, Any]]] = {}
    for rv, r in items:
        groups.setdefault(str(r.get("task", "")), []).append({"rv": rv, "row": r, "label": mine[rv.key].get(r["id"]), "url": episode_path(rv.key, r["id"])})
    graded = sum(1 for g in groups.values() for it in g if it["label"] and it["label"].judged)
    first = next((it["url"] for g in groups.values() for it in g if not (it["label"] and it["label"].judged)), None)
    return templates.TemplateResponse(request, "grade.html", {
        "meta": state.runs[0].run.meta if len(state.runs) == 1 else {}, "groups": groups, "graded": graded, "total": len(items),
        "first_ungraded": first, "rank_path": rank_path, "show_verdict": not state.blind,
    })  # fmt: skip


def _last_shot(rv: RunView, episode_id: str, steps: int) -> int | None:
    try:
        ep = rv.run.episode(episode_id)
    except ValueError:
        return None
    for n in range(steps, -1, -1):
        if ep.screenshot_path(n):
            return n
    return None


def register(app: FastAPI, state: ViewerState, templates: Any, episode_or_404: Callable[[RunView, str], Any]) -> None:
    def grader() -> str:
        if not state.grade or not state.grader:
            raise HTTPException(403, "this viewer is not grading: start it with `sandbox view RUN --grade --grader NAME` to record labels")
        return state.grader

    @app.post("/api/label")
    def add_label(body: LabelIn) -> JSONResponse:
        name = grader()
        rv = state.run(body.run)
        rv.index.refresh()
        if body.episode not in rv.index.by_id:
            episode_or_404(rv, body.episode)  # 404 unless the folder exists (an episode still running)
        fields = {k: getattr(body, k) for k in ("passed", "score", "comment") if k in body.model_fields_set}
        try:
            label = rv.labels.add(body.episode, name, **fields)
        except ValidationError as exc:
            raise HTTPException(422, f"label not saved: {first_error(exc)}") from None
        return JSONResponse(label.model_dump(mode="json"))

    @app.post("/api/rank")
    def rank(body: RankIn) -> JSONResponse:
        name = grader()
        if len(set(body.order)) != len(body.order):
            raise HTTPException(422, "the ranking names an episode twice")
        by_run: dict[str, dict[str, int]] = {}
        for place, ref in enumerate(body.order, 1):
            key, _, episode_id = ref.partition("/")
            rv = state.run(key)
            rv.index.refresh()
            row = rv.index.by_id.get(episode_id)
            if row is None:
                raise HTTPException(404, f"no episode {episode_id!r} in run {key!r}")
            if row.get("task") != body.task:
                raise HTTPException(422, f"{ref} is an episode of {row.get('task')}, not of {body.task}")
            by_run.setdefault(key, {})[episode_id] = place
        ranking = f"{body.task}@{name}@{utc_now()}"
        for key, ranks in by_run.items():
            rv = state.run(key)
            rv.labels.append(rank_labels(name, ranks, rv.labels.for_grader(name), ranking))
        return JSONResponse({"ranking": ranking, "ranked": len(body.order)})

    @app.get("/rank/{task}", response_class=HTMLResponse)
    def rank_page(request: Request, task: str) -> Response:
        name = grader()
        items = []
        for rv, r in queue(state):
            if r.get("task") != task:
                continue
            label: Label | None = rv.labels.for_grader(name).get(r["id"])
            try:
                answer = rv.run.episode(r["id"]).record.answer
            except ValueError:
                answer = None
            items.append({"rv": rv, "row": r, "label": label, "key": f"{rv.key}/{r['id']}", "url": episode_path(rv.key, r["id"]),
                          "shot": _last_shot(rv, r["id"], int(r.get("steps") or 0)), "answer": answer})  # fmt: skip
        if not items:
            raise HTTPException(404, f"no episode of task {task!r} in this viewer")
        items.sort(key=lambda it: (it["label"] is None or it["label"].rank is None, it["label"].rank if it["label"] and it["label"].rank else 0))
        ranked = any(it["label"] and it["label"].rank for it in items)
        return templates.TemplateResponse(request, "rank.html", {
            "meta": {}, "task": task, "items": items, "ranked": ranked, "show_verdict": not state.blind,
        })  # fmt: skip
