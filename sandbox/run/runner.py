"""The evaluation runner: many episodes of one agent, concurrently over one Chromium and one app host.

Every episode is written as a trajectory folder under ``<out>/episodes``; ``results.jsonl`` gets a line
as each one finishes. ``resume=True`` continues a run: finished episodes are skipped, unfinished ones
(a crash, a kill) are moved to ``aborted/`` and played again, and the worlds of killed episodes
(whose process no longer runs) are removed from the world store.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sandbox.agents import load_agent
from sandbox.trajectory import EpisodeRecord, RunDir, episode_name

from .episode import agent_info, play_task
from .select import TaskInfo, catalog, parse_seeds, select_tasks


@dataclass
class RunConfig:
    agent: str = "oracle"
    agent_options: dict[str, Any] = field(default_factory=dict)
    tasks: list[str] = field(default_factory=list)  # selectors; empty: every task
    seeds: str | list[int] = "0"
    workers: int = 4
    max_steps: int | None = None
    time_limit: float | None = 600.0
    out: Path | None = None
    resume: bool = False
    name: str | None = None
    # Play on a Ray cluster: a sandbox.cluster.RayOptions, or its address ("auto", "local",
    # HOST:6379, ray://HOST:10001). ``workers`` is then the episodes each actor plays at once.
    ray: Any = None

    def out_dir(self) -> Path:
        if self.out is not None:
            return Path(self.out)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        return Path("runs") / f"{self.agent.replace(':', '-').replace('/', '-')}-{stamp}"


@dataclass
class RunResult:
    out: Path
    results: list[dict[str, Any]]  # every finished episode of the run (earlier sessions included)
    new: int  # episodes played by this call
    skipped: int  # finished earlier, skipped by resume
    wall_s: float
    interrupted: bool = False
    orphans_removed: list[str] = field(default_factory=list)  # worlds of killed episodes, removed by resume

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.get("passed"))


class Progress:
    """Callbacks of a run (the CLI shows them with rich; tests and benches may ignore them)."""

    def start(self, total: int, skipped: int) -> None: ...

    def episode_started(self, episode_id: str) -> None: ...

    def episode_finished(self, record: EpisodeRecord, line: dict[str, Any]) -> None: ...

    def episode_retried(self, episode_id: str, reason: str) -> None:
        """An attempt at the episode was lost with its Ray actor; it is played again elsewhere."""

    def close(self) -> None: ...


def _models() -> dict[str, Any]:
    """The models the run's episodes use (``sandbox run --judge`` / ``--coworkers``), for the run's meta."""
    from sandbox.coworkers.model import default_model
    from verifiers.judge import default_judge

    judge, mates = default_judge(), default_model()
    out: dict[str, Any] = {}
    if judge is not None:
        out["judge"] = getattr(judge, "name", None) or type(judge).__name__
    if mates is not None:
        out["coworkers"] = f"model:{mates.name}"
    return out


def plan(config: RunConfig, source: Any) -> list[tuple[TaskInfo, int]]:
    """The (task, seed) pairs of a run, in order."""
    tasks = select_tasks(catalog(source), config.tasks)
    seeds = parse_seeds(config.seeds)
    return [(t, s) for t in tasks for s in seeds]


async def run_async(
    config: RunConfig,
    *,
    source: Any = None,
    runtime: Any = None,
    progress: Progress | None = None,
    agent_factory: Callable[[], Any] | None = None,
) -> RunResult:
    """Run the configured episodes; reuses ``runtime`` if given (else starts and stops one).

    With ``config.ray`` the episodes play on a Ray cluster's actors instead (``runtime`` unused), into
    the same run folder."""
    from sandbox.cluster.options import ray_options

    cluster = ray_options(config.ray)
    if source is None:
        from tasks.registry import TaskRegistry, default_registry, plain_ids

        named = plain_ids(config.tasks)  # `--tasks ID,...`: only those files are read and checked
        source = TaskRegistry.for_tasks(named) if named else default_registry()
    progress = progress or Progress()
    pairs = plan(config, source)
    factory = agent_factory or (lambda: load_agent(config.agent, config.agent_options))
    probe = factory()  # fail fast on a bad agent spec or a missing API key, before any browser starts
    info = agent_info(probe, config.agent, config.agent_options)
    out = config.out_dir()
    meta = {
        "name": config.name, "agent": info.name, "agent_spec": config.agent, "agent_config": info.config,
        "tasks": config.tasks or ["*"], "seeds": config.seeds if isinstance(config.seeds, str) else ",".join(map(str, config.seeds)),
        "workers": config.workers, "max_steps": config.max_steps, "time_limit": config.time_limit, "episodes": len(pairs),
        "ray": {"address": cluster.address} if cluster else None,  # the actors are added once they run
        **_models(),
    }  # fmt: skip
    if config.resume:
        before = RunDir(out).meta.get("agent_spec")
        if before and before != config.agent:
            raise ValueError(f"{out} holds a run of agent {before!r}; resuming it with {config.agent!r} would mix agents")
    run = RunDir.create(out, meta, resume=config.resume)
    orphans: list[str] = []
    if config.resume and cluster is None:  # a killed run never dropped its episodes' worlds: nothing owns them now
        # (on a cluster every actor removes the orphans of its node's store when it starts)
        from apps_web.world import WorldStore

        store = runtime.store if runtime is not None else WorldStore()
        orphans = await asyncio.to_thread(store.remove_orphans)
    done = run.finished_ids()
    todo = [(t, s) for t, s in pairs if episode_name(t.id, s) not in done]
    skipped = len(pairs) - len(todo)
    progress.start(len(pairs), skipped)
    t0 = time.perf_counter()
    own_runtime = runtime is None
    interrupted = False
    queue: asyncio.Queue[tuple[TaskInfo, int]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    first_agent = [probe]

    def make_agent() -> Any:
        return first_agent.pop() if first_agent else factory()

    async def worker() -> None:
        while True:
            try:
                task, seed = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            finished = await play_task(runtime, source, task, seed, info=info, make_agent=make_agent, writer_for=run.episode_writer,
                                       max_steps=config.max_steps, time_limit=config.time_limit, started=progress.episode_started)  # fmt: skip
            progress.episode_finished(finished, run.add_result(finished))

    try:
        if cluster is not None:
            from .cluster import run_on_cluster

            own_runtime = False
            if todo:
                await run_on_cluster(config, cluster, run, todo, info, progress, agent_factory)
        elif own_runtime and todo:
            from sandbox.runtime import Runtime

            runtime = await Runtime.start()
        if todo and cluster is None:
            await asyncio.gather(*(worker() for _ in range(max(1, min(config.workers, len(todo))))))
    except (KeyboardInterrupt, asyncio.CancelledError):
        interrupted = True
        raise
    finally:
        if own_runtime and runtime is not None:
            await runtime.close()
        wall = time.perf_counter() - t0
        run.update_meta(status="interrupted" if interrupted else "finished", finished_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                        wall_s=round(wall, 2))  # fmt: skip
        progress.close()
    results = list(run.results())
    return RunResult(out=out, results=results, new=len(todo), skipped=skipped, wall_s=wall, interrupted=interrupted, orphans_removed=orphans)


def run(config: RunConfig, **kwargs: Any) -> RunResult:
    """Synchronous :func:`run_async`."""
    return asyncio.run(run_async(config, **kwargs))
