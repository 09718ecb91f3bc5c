"""Playing one episode: an agent against a live episode, recorded step by step as a trajectory."""

from __future__ import annotations

import asyncio
import time
import traceback
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from sandbox.agents.base import TaskBrief, agent_name, call, normalize_step
from sandbox.trajectory import AgentInfo, EpisodeRecord, EpisodeWriter, StepRecord, episode_name

from .select import TaskInfo, flat_tags


def jsonable(value: Any) -> Any:
    """An agent's raw action as JSON data (pydantic models dumped, bytes summarized)."""
    from verifiers.verdict import jsonable as _jsonable

    if hasattr(value, "to_dict"):
        return value.to_dict()
    return _jsonable(value)


def _changes(diff: Any) -> dict[str, Any] | None:
    if diff is None or getattr(diff, "is_empty", False):
        return None
    return diff.model_dump(mode="json") if hasattr(diff, "model_dump") else diff


def new_record(spec: Any, agent: AgentInfo, *, source: str = "agent", time_limit: float | None = None) -> EpisodeRecord:
    meta = spec.metadata or {}
    return EpisodeRecord(
        id=episode_name(spec.id, spec.seed), task=spec.id, seed=spec.seed, source=source, agent=agent,
        instruction=spec.instruction, app=spec.app, difficulty=meta.get("difficulty"), tags=list(flat_tags(meta.get("tags"))),
        start_url=spec.start_url, max_steps=spec.max_steps, time_limit=time_limit,
    )  # fmt: skip


async def play(
    runtime: Any,
    spec: Any,
    agent: Any,
    writer: EpisodeWriter,
    *,
    time_limit: float | None = None,
    actions: list[Any] | None = None,
    on_step: Callable[[int], None] | None = None,
) -> EpisodeRecord:
    """Run ``agent`` (or replay ``actions``) on ``spec``; every step goes to ``writer``; returns the
    finished record. Exceptions of the agent or the env end the episode as an ``error`` outcome."""
    from apps_web.world.digest import DIGEST_KEY
    from sandbox.episode import Episode
    from sandbox.observe import ObserveOptions

    rec = writer.record
    t = rec.timings
    t_start = time.perf_counter()
    episode = None
    verdict = None
    end_reason = "running"
    error: str | None = None
    phase = "reset"  # what the episode was doing, for the record when the time limit cuts it short

    @contextmanager
    def spent(bucket: str) -> Iterator[None]:
        """Add the block's time to a timing bucket, also when it is cut short (time limit, error)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            setattr(t, bucket, getattr(t, bucket) + time.perf_counter() - start)

    async def body() -> None:
        nonlocal episode, verdict, end_reason, phase
        with spent("reset"):
            episode, obs, info = await Episode.open(runtime, spec, observe=ObserveOptions(screenshot="png", tools=spec.allows_tools))
        rec.viewport = {"width": episode.screen_size[0], "height": episode.screen_size[1]}
        rec.world = episode.world.meta.extra.get(DIGEST_KEY)
        tw = time.perf_counter()
        writer.screenshot(0, obs.get("screenshot"))
        t.write += time.perf_counter() - tw
        if actions is None:
            brief = TaskBrief(task=spec.id, seed=spec.seed, instruction=spec.instruction, start_url=info.get("url"),
                              viewport=episode.screen_size, max_steps=spec.max_steps, spec=spec, env=episode)  # fmt: skip
            with spent("agent"):
                await call(agent, "reset", brief)
        for n in range(1, spec.max_steps + 1):
            phase = f"the agent choosing action {n}"
            ta = time.perf_counter()
            with spent("agent"):
                if actions is None:
                    out = normalize_step(await call(agent, "act", obs))
                else:
                    out = normalize_step(actions[n - 1] if n <= len(actions) else None)
            if out is None:
                end_reason = "agent_done"
                break
            phase = f"the env executing action {n} ({_brief(out.action)})"
            te = time.perf_counter()
            with spent("env"):
                res = await episode.step(out.action)
            obs, info = res.observation, res.info
            tw = time.perf_counter()
            timing = {"agent_ms": round((te - ta) * 1000, 2), **{k: round(v, 2) for k, v in (info.get("timing") or {}).items()}}
            writer.step(
                StepRecord(
                    step=n, action=jsonable(out.raw if out.raw is not None else out.action), parsed=info.get("action"),
                    thought=out.thought, url=info.get("url"), title=obs.get("title"), error=info.get("error"),
                    reward=float(res.reward or 0.0), terminated=res.terminated, truncated=res.truncated,
                    blocked=[str(b) for b in info.get("blocked_requests") or []], changes=_changes(info.get("changes")), timing=timing,
                    tool_result=info.get("tool_result"), milestones=_reached_at(info.get("milestones"), n),
                    coworkers=info.get("coworkers") or None,
                ),
                screenshot=obs.get("screenshot"),
            )  # fmt: skip
            t.write += time.perf_counter() - tw
            if on_step:
                on_step(n)
            if res.terminated or res.truncated:
                verdict = info.get("verdict")
                if res.truncated and not res.terminated:
                    end_reason = "max_steps"
                else:
                    end_reason = "report_infeasible" if episode.infeasible_reason is not None else "answer"
                break
        else:
            end_reason = "max_steps"

    try:
        if time_limit:
            async with asyncio.timeout(time_limit):
                await body()
        else:
            await body()
    except TimeoutError:
        end_reason = "time_limit"
        rec.cut_during = phase
    except Exception as exc:  # the agent or the env failed: the episode ends as an error, the run goes on
        error = f"{type(exc).__name__}: {exc}"
        rec.error_trace = traceback.format_exc(limit=8)
        end_reason = "error"
    finally:
        if actions is None:
            try:
                await call(agent, "close")
            except Exception:
                pass
    try:
        if episode is not None and error is None and verdict is None:
            tv = time.perf_counter()
            verdict = await episode.verify()
            t.verify = time.perf_counter() - tv
    finally:
        if episode is not None:
            await episode.close()
    t.total = time.perf_counter() - t_start
    for key in ("reset", "agent", "env", "verify", "write", "total"):
        setattr(t, key, round(getattr(t, key), 4))
    return writer.finish(
        verdict=verdict.model_dump(mode="json") if hasattr(verdict, "model_dump") else verdict,
        answer=episode.answer if episode is not None else None, error=error, end_reason=end_reason,
        milestones=(episode.milestones or None) if episode is not None else None,
    )  # fmt: skip


def _reached_at(milestones: list[dict[str, Any]] | None, step: int) -> list[str] | None:
    """The names of the milestones first reached at ``step`` (None when none was)."""
    names = [m["name"] for m in milestones or () if m.get("reached") and m.get("step") == step]
    return names or None


async def play_task(
    runtime: Any,
    source: Any,
    task: TaskInfo,
    seed: int,
    *,
    info: AgentInfo,
    make_agent: Callable[[], Any],
    writer_for: Callable[[EpisodeRecord], EpisodeWriter],
    max_steps: int | None = None,
    time_limit: float | None = None,
    started: Callable[[str], None] | None = None,
) -> EpisodeRecord:
    """One (task, seed) item of a run: instantiate the task, play the agent, return the finished
    record (a task that cannot be set up for this seed is an ``error`` episode). The same on the
    local pool and on a cluster node."""
    if started:
        started(episode_name(task.id, seed))
    try:
        spec = await asyncio.to_thread(source.get, task.id, seed)
    except Exception as exc:  # a task that cannot be instantiated for this seed: an error episode
        rec = EpisodeRecord(id=episode_name(task.id, seed), task=task.id, seed=seed, agent=info, app=task.app,
                            difficulty=task.difficulty, tags=list(task.tags))  # fmt: skip
        return writer_for(rec).finish(error=f"the task could not be set up: {type(exc).__name__}: {exc}")
    if max_steps:
        spec = spec.replace(max_steps=max_steps)
    agent = make_agent()
    rec = new_record(spec, info, time_limit=time_limit)
    rec.tags = rec.tags or list(task.tags)
    rec.difficulty = rec.difficulty or task.difficulty
    writer = writer_for(rec)
    try:
        return await play(runtime, spec, agent, writer, time_limit=time_limit)
    except BaseException:
        writer.close()  # cancelled (Ctrl+C): the folder stays .partial for --resume
        raise


def _brief(action: Any) -> str:
    data = action.to_dict() if hasattr(action, "to_dict") else action
    text = str(data)
    return text if len(text) <= 120 else text[:117] + "..."


def agent_info(agent: Any, spec: str | None = None, options: dict[str, Any] | None = None) -> AgentInfo:
    safe = {k: v for k, v in (options or {}).items() if "key" not in k.lower() and "secret" not in k.lower()}
    return AgentInfo(name=agent_name(agent), spec=spec, model=getattr(agent, "model", None), config=safe)
