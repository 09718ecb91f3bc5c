"""`sandbox run`: evaluate an agent on the task suite, in parallel, with trajectories for every episode."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Evaluate")
    def run(
        agent: str = typer.Option("oracle", "--agent", "-a", help="oracle, noop, random, anthropic, openai, or package.module:Class."),
        agent_opt: list[str] = typer.Option([], "--agent-opt", "-o", help="Agent constructor option key=value (repeatable), e.g. -o model=claude-sonnet-4-5."),
        tasks: list[str] = typer.Option([], "--tasks", "-t", help="Task selectors, comma-separated or repeated: id globs (crm.*), tag:GLOB, difficulty:GLOB, category:GLOB, app:GLOB; !selector excludes."),
        seeds: str = typer.Option("0", "--seeds", "-s", help="Seeds: 0-4, 1,3,7 or 0-2,10."),
        workers: int = typer.Option(4, "--workers", "-w", min=1, help="Concurrent episodes (one Chromium, one app host)."),
        max_steps: Optional[int] = typer.Option(None, "--max-steps", min=1, help="Step limit per episode (default: each task's own)."),
        time_limit: float = typer.Option(600.0, "--time-limit", min=0, help="Seconds per episode before it is cut short (0: none)."),
        out: Optional[Path] = typer.Option(None, "--out", help="Run folder (default runs/<agent>-<time>)."),
        resume: bool = typer.Option(False, "--resume", help="Continue the run in --out: skip finished episodes, redo unfinished ones."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No line per episode, only the bar and the summary."),
        judge: Optional[str] = typer.Option(None, "--judge", help="Grade judge checks with a model: openai:MODEL[@URL] or anthropic:MODEL[@URL] (options after commas: key=ENV_VAR, images=false, cache=DIR, offline). Default: judge checks are not graded.", rich_help_panel="Models"),
        coworkers: str = typer.Option("policy", "--coworkers", help="Who decides the co-workers' replies: policy (deterministic), or model:openai:MODEL[@URL] / model:anthropic:MODEL[@URL] (checked against the policy; replies cached).", rich_help_panel="Models"),
        ray: Optional[str] = typer.Option(None, "--ray", help="Play on a Ray cluster: auto (the one started here with `ray start`), local (start one here), or HOST:6379 / ray://HOST:10001. --workers is then per actor.", rich_help_panel="Ray cluster"),
        ray_actors: Optional[int] = typer.Option(None, "--ray-actors", min=1, help="Actors (each a Chromium, an app host and a world store); default: cluster CPUs / --ray-cpus-per-actor.", rich_help_panel="Ray cluster"),
        ray_cpus: Optional[float] = typer.Option(None, "--ray-cpus-per-actor", min=0.01, help="CPUs Ray reserves per actor (default 2).", rich_help_panel="Ray cluster"),
    ) -> None:
        """Run an agent over tasks x seeds; write trajectories, results.jsonl and a summary table."""
        import asyncio

        from rich.console import Console

        from sandbox.agents import AgentLoadError, parse_options
        from sandbox.models.setup import models_in_use, models_summary
        from sandbox.cluster import RayUnavailable, ray_options
        from sandbox.run import RunConfig, SelectionError, run_async, summary_tables
        from sandbox.run.progress import RichProgress
        from sandbox.trajectory import RunExists

        console = Console()
        try:
            config = RunConfig(agent=agent, agent_options=parse_options(agent_opt), tasks=list(tasks), seeds=seeds, workers=workers,
                               max_steps=max_steps, time_limit=time_limit or None, out=out, resume=resume,
                               ray=ray_options(ray, actors=ray_actors, cpus_per_actor=ray_cpus))  # fmt: skip
            if ray is None and (ray_actors or ray_cpus):
                raise ValueError("--ray-actors and --ray-cpus-per-actor need --ray (auto, local or a cluster address)")
            with models_in_use(judge, coworkers, config.ray):
                result = asyncio.run(run_async(config, progress=RichProgress(console, show_episodes=not quiet)))
        except (AgentLoadError, SelectionError, RunExists, RayUnavailable, ValueError) as exc:
            console.print(f"[red]error:[/] {exc}")
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            console.print(f"[yellow]interrupted[/]: finished episodes are kept; continue with [bold]sandbox run --resume --out {config.out_dir()}[/]")
            raise typer.Exit(130) from None
        if result.orphans_removed:
            console.print(f"removed {len(result.orphans_removed)} world(s) left by killed episodes")
        for table in summary_tables(result.results, title=f"{agent} on {len(result.results)} episodes"):
            console.print(table)
        if judge or coworkers != "policy":
            console.print(f"models: {models_summary()}")
        console.print(f"results: {result.out / 'results.jsonl'}   ({result.new} played, {result.skipped} skipped, {result.wall_s:.1f}s)")
        console.print(f"view:    [bold]sandbox view {result.out}[/]")
