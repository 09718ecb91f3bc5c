"""Ray path: oracle episodes per minute on 1, 2 and 4 Ray actors beside the local single-process pool,
and what the Ray path adds to each episode.

Everything runs on this machine (a single-node Ray started here, one CPU reserved per actor, one
episode at a time per actor), on the same tasks and seeds, in the same process. Per episode, the
driver's round trip (handed out -> its line in results.jsonl) minus the episode's own time (reset,
agent, env, verify, write, measured where it played) is the overhead: for Ray, scheduling the call,
instantiating the task on the actor, packing the trajectory, moving it through the object store and
unpacking it into the run folder; for the local pool, the runner's own bookkeeping. Throughput is
counted from the first episode handed out to the last one back (actor start-up is shown apart).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.stats import summarize
from sandbox.run import BackgroundRuntime, Progress, RunConfig, run

ACTORS = tuple(int(a) for a in os.environ.get("BENCH_RAY_ACTORS", "1,2,4").split(","))
LOCAL_WORKERS = tuple(int(w) for w in os.environ.get("BENCH_RAY_LOCAL_WORKERS", "1,2").split(","))
TASKS = os.environ.get("BENCH_RAY_TASKS", "crm.opportunity-close-won,crm.account-update-phone,crm.lead-rate-hot,desk.incident-hold-awaiting-vendor").split(",")
SEEDS = os.environ.get("BENCH_RAY_SEEDS", "0,1")


class Clock(Progress):
    """The driver's view of each episode: when it was handed out and when its result line was written."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}
        self.rows: list[tuple[str, float, float]] = []  # (id, round trip s, the episode's own s)
        self.first = self.last = 0.0

    def episode_started(self, episode_id: str) -> None:
        now = time.perf_counter()
        self.first = self.first or now
        self.started[episode_id] = now

    def episode_finished(self, record: Any, line: dict[str, Any]) -> None:
        now = time.perf_counter()
        self.last = now
        self.rows.append((record.id, now - self.started.get(record.id, now), record.timings.total))


def _row(table: Table, label: str, clock: Clock, wall: float, results: list[dict[str, Any]]) -> dict[str, float]:
    n = len(clock.rows)
    span = max(clock.last - clock.first, 1e-9)
    over = summarize([max(0.0, rt - own) * 1000 for _, rt, own in clock.rows])
    own = summarize([own * 1000 for _, _, own in clock.rows])
    ok = sum(1 for r in results if r.get("passed"))
    start = wall - span
    table.add_row(label, f"{n} ({ok} passed)", f"{start:.1f}", f"{span:.1f}", f"{60 * n / span:.1f}", f"{own['median'] / 1000:.2f}",
                  f"{over['median']:.0f}", f"{over['p95']:.0f}")  # fmt: skip
    return {"episodes_per_min": 60 * n / span, "overhead_ms": over["median"], "overhead_p95_ms": over["p95"]}


def main() -> None:
    import ray

    from apps_web.world import WorldStore
    from sandbox.cluster import RayOptions
    from tasks.registry import TaskRegistry

    console = Console(width=max(130, Console().width))
    root = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    templates = WorldStore().templates_dir  # reuse built templates
    store = WorldStore(root / "home", templates_dir=templates)
    source = TaskRegistry(store=store)
    table = Table(title=f"Ray path: oracle on {len(TASKS)} tasks x seeds {SEEDS} ({os.cpu_count()} cores, single-node Ray)", title_justify="left")
    for col in ("runner", "episodes", "start s", "span s", "episodes/min", "s/episode", "overhead ms median", "overhead ms p95"):
        table.add_column(col, justify="right")
    common = dict(agent="oracle", tasks=TASKS, seeds=SEEDS, time_limit=180)
    try:
        with BackgroundRuntime(store=store) as env:
            env.run(RunConfig(**common, workers=2, out=root / "warmup"), source=source)  # templates and task instances
            for workers in LOCAL_WORKERS:
                clock = Clock()
                t0 = time.perf_counter()
                result = env.run(RunConfig(**common, workers=workers, out=root / f"local{workers}"), source=source, progress=clock)
                _row(table, f"local pool, {workers} worker{'s' * (workers > 1)}", clock, time.perf_counter() - t0, result.results)
        ray.init(address="local", num_cpus=max(ACTORS), include_dashboard=False, log_to_driver=False, logging_level="WARNING")
        try:
            for actors in ACTORS:
                clock = Clock()
                opts = RayOptions(address="local", actors=actors, cpus_per_actor=1, store=str(root / "nodes"), templates=str(templates))
                t0 = time.perf_counter()
                result = run(RunConfig(**common, workers=1, out=root / f"ray{actors}", ray=opts), source=source, progress=clock)
                _row(table, f"Ray, {actors} actor{'s' * (actors > 1)} x 1 episode", clock, time.perf_counter() - t0, result.results)
        finally:
            ray.shutdown()
        console.print(table)
        console.print("start = until the first episode is handed out (Ray: actors start Chromium and an app host each); span = first episode out\n"
                      "to last one back; overhead = the driver's round trip minus the episode's own time (Ray: scheduling, instantiating\n"
                      "the task on the actor, packing and moving the trajectory, unpacking it; local: the runner's bookkeeping)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
