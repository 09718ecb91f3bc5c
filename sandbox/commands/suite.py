"""`sandbox suite`: the main job (`make run`): the oracle and a baseline over the whole task suite."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Evaluate")
    def suite(
        seeds: str = typer.Option("0", "--seeds", "-s", help="Seeds of every task: 0-4, 1,3,7..."),
        workers: int = typer.Option(4, "--workers", "-w", min=1, help="Concurrent episodes."),
        baseline: str = typer.Option("noop", "--baseline", "-b", help="The agent to compare with the oracle (noop, random, ...)."),
        tasks: list[str] = typer.Option([], "--tasks", "-t", help="Task selectors (default: every task)."),
        out: Optional[Path] = typer.Option(None, "--out", help="Folder of the two runs (default runs/suite-<time>)."),
        resume: bool = typer.Option(False, "--resume", help="Continue the runs in --out."),
    ) -> None:
        """Run the oracle and a baseline over the suite, print the table, and how to open the viewer.

        Exits 1 when the oracle fails a task or the no-op baseline passes one (a broken task)."""
        import asyncio
        import datetime as _dt

        from rich.console import Console
        from rich.table import Table

        from sandbox.run import RunConfig, run_async, summarize
        from sandbox.run.progress import RichProgress

        console = Console()
        root = out or Path("runs") / f"suite-{_dt.datetime.now():%Y%m%d-%H%M%S}"
        results = {}
        for agent in ("oracle", baseline):
            console.rule(f"[bold]{agent}")
            config = RunConfig(agent=agent, tasks=list(tasks), seeds=seeds, workers=workers, out=root / agent.replace(":", "-"), resume=resume)
            results[agent] = asyncio.run(run_async(config, progress=RichProgress(console, show_episodes=False)))

        oracle, base = summarize(results["oracle"].results), summarize(results[baseline].results)
        table = Table(title=f"Suite: {oracle['all']['n']} episodes (seeds {seeds})", title_justify="left")
        for col in ("", "episodes", "oracle success", "oracle score", f"{baseline} success", f"{baseline} score", "oracle steps", "oracle ms/step"):
            table.add_column(col, justify="left" if not col else "right")

        def row(name: str, a: dict, b: dict | None) -> None:
            b = b or {"success": 0.0, "score": 0.0}
            table.add_row(name, str(a["n"]), f"{100 * a['success']:.0f}%", f"{a['score']:.2f}", f"{100 * b['success']:.0f}%", f"{b['score']:.2f}",
                          f"{a['steps']:.1f}", f"{a['ms_per_step']:.0f}")  # fmt: skip

        row("all", oracle["all"], base["all"])
        for dim in ("app", "difficulty"):
            for name, block in oracle["by"][dim].items():
                row(f"{dim} {name}", block, base["by"][dim].get(name))
        console.print(table)
        bad_oracle = [r for r in results["oracle"].results if not r["passed"]]
        bad_base = [r for r in results[baseline].results if r["passed"]] if baseline == "noop" else []
        for r in bad_oracle:
            console.print(f"[red]oracle failed[/] {r['task']} seed {r['seed']}: {r.get('reason')}")
        for r in bad_base:
            console.print(f"[red]noop passed[/] {r['task']} seed {r['seed']}: the task is solved by doing nothing")
        console.print(f"compare the runs in the viewer: [bold]sandbox view {root / 'oracle'} {root / baseline.replace(':', '-')}[/]")
        if bad_oracle or bad_base:
            raise typer.Exit(1)
