"""Runner overhead: oracle episodes per minute with 1, 4 and 8 workers, and where the time goes.

Each episode's wall time is split into the browser side (reset: world fork, context and first page;
env: executing actions, settling, observing, the app host serving), the oracle finding its targets on
the page (browser round trips too), verifying, writing the trajectory, and the rest (scheduling,
the runner's own work). "Outside the browser" is verify + write + the rest.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sandbox.run import BackgroundRuntime, RunConfig, catalog

WORKERS = tuple(int(w) for w in os.environ.get("BENCH_RUNNER_WORKERS", "1,4,8").split(","))
EPISODES = int(os.environ.get("BENCH_RUNNER_EPISODES", "16"))  # per worker setting (fewer for 1 worker)


def main() -> None:
    from apps_web.world import WorldStore
    from tasks.registry import TaskRegistry

    console = Console(width=max(150, Console().width))
    root = Path(tempfile.mkdtemp(prefix="bench-runner-"))
    store = WorldStore(root / "home", templates_dir=WorldStore().templates_dir)  # reuse built templates
    source = TaskRegistry(store=store)
    tasks = [t.id for t in catalog(source)]
    seeds_needed = max(1, -(-EPISODES // len(tasks)))
    table = Table(title=f"Runner: oracle over {len(tasks)} tasks ({os.cpu_count()} cores)", title_justify="left")
    for col in ("workers", "episodes", "cut", "wall s", "episodes/min", "s/episode", "steps/s", "browser", "oracle", "verify", "write", "rest",
                "outside browser"):  # fmt: skip
        table.add_column(col, justify="right")
    try:
        with BackgroundRuntime(store=store) as env:
            # Warm-up: world templates and the task instances of every seed used below.
            env.run(RunConfig(agent="oracle", tasks=tasks[:EPISODES], seeds=f"0-{seeds_needed - 1}", workers=4, out=root / "warmup", time_limit=120), source=source)
            for workers in WORKERS:
                n = EPISODES if workers > 1 else max(4, EPISODES // 2)
                chosen = tasks[:n] if n <= len(tasks) else tasks
                seeds = f"0-{max(0, -(-n // len(tasks)) - 1)}"
                t0 = time.perf_counter()
                result = env.run(RunConfig(agent="oracle", tasks=chosen, seeds=seeds, workers=workers, out=root / f"w{workers}", time_limit=120), source=source)
                wall = time.perf_counter() - t0
                rows = result.results
                from sandbox.trajectory import load_run

                run = load_run(result.out)
                parts = {"browser": 0.0, "oracle": 0.0, "verify": 0.0, "write": 0.0, "rest": 0.0}
                steps = 0
                for r in rows:
                    t = run.episode(r["id"]).record.timings
                    parts["browser"] += t.reset + t.env
                    parts["oracle"] += t.agent
                    parts["verify"] += t.verify
                    parts["write"] += t.write
                    parts["rest"] += max(0.0, t.total - (t.reset + t.env + t.agent + t.verify + t.write))
                    steps += r["steps"]
                total = sum(parts.values()) or 1.0
                ok = sum(1 for r in rows if r["passed"])
                share = lambda k: f"{100 * parts[k] / total:.1f}%"  # noqa: E731
                outside = 100 * (parts["verify"] + parts["write"] + parts["rest"]) / total
                cut = sum(1 for r in rows if r["end_reason"] == "time_limit")
                table.add_row(str(workers), f"{len(rows)} ({ok} passed)", str(cut), f"{wall:.1f}", f"{60 * len(rows) / wall:.1f}", f"{sum(r['duration_s'] for r in rows) / len(rows):.2f}",
                              f"{steps / wall:.1f}", share("browser"), share("oracle"), share("verify"), share("write"), share("rest"), f"{outside:.1f}%")  # fmt: skip
        console.print(table)
        console.print("browser = reset + executing/settling/observing actions (incl. the app host); oracle = finding targets on the live page;\n"
                      "cut = episodes stopped by the 120 s time limit (their stalled call counts where it stalled)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
