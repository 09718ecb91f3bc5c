"""`sandbox validate`: prove the verifiers: oracles pass, no-op agents and near-misses fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Evaluate")
    def validate(
        tasks: list[str] = typer.Option([], "--tasks", "-t", help="Selectors, comma-separated or repeated: id globs (crm.*, *close*), tag:GLOB, difficulty:GLOB, category:GLOB, app:GLOB; !sel excludes."),
        seeds: str = typer.Option("0,1,2", "--seeds", "-s", help="Seeds of every template: 0,1,2 or 0-4."),
        workers: int = typer.Option(2, "--workers", "-w", min=1, help="Concurrent episodes on the env pool."),
        repeat: int = typer.Option(1, "--repeat", min=1, help="Run everything this many times; verdicts must not change."),
        quick: bool = typer.Option(False, "--quick", help="Grade the no-op agent and the direct near-misses without a browser (same set-up, changes and verifier)."),
        replay_errors: int = typer.Option(0, "--replay-errors", min=0, help="Play an episode that could not be played (an error, no verdict: e.g. a timeout on a loaded machine) up to N times more before it counts; a wrong verdict is never played again."),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Also write every outcome to this JSON file."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the disagreements and the confusion matrix."),
        tasks_dir: Optional[Path] = typer.Option(None, "--dir", help="Folder of task files (<dir>/<app>/*.yaml), e.g. the studio's drafts; default: the shipped tasks."),
        judge: Optional[str] = typer.Option(None, "--judge", help="Grade judge checks with a model: openai:MODEL[@URL] or anthropic:MODEL[@URL] (options after commas: key=ENV_VAR, images=false, cache=DIR, offline). Default: judge checks are not graded (validate never needs a model).", rich_help_panel="Models"),
        ray: Optional[str] = typer.Option(None, "--ray", help="Play on a Ray cluster: auto (the one started here with `ray start`), local (start one here), or HOST:6379 / ray://HOST:10001. --workers is then per actor.", rich_help_panel="Ray cluster"),
        ray_actors: Optional[int] = typer.Option(None, "--ray-actors", min=1, help="Actors (each a Chromium, an app host and a world store); default: cluster CPUs / --ray-cpus-per-actor.", rich_help_panel="Ray cluster"),
        ray_cpus: Optional[float] = typer.Option(None, "--ray-cpus-per-actor", min=0.01, help="CPUs Ray reserves per actor (default 2).", rich_help_panel="Ray cluster"),
    ) -> None:
        """For every template and seed: the oracle must pass with score 1, a no-op agent and every
        near-miss must fail. Prints a table per template and the verifier's confusion matrix; exits 1
        on any disagreement (or a verdict that changes between repeats)."""
        from rich.console import Console
        from rich.table import Table

        from sandbox.cluster import RayUnavailable, ray_options
        from sandbox.models.setup import models_in_use
        from sandbox.run.select import SelectionError, catalog, parse_seeds, select_tasks
        from tasks.params import InstanceError
        from tasks.registry import TaskLoadError, TaskRegistry
        from tasks.validate import validate as run

        console = Console()
        if tasks_dir is not None:
            reg = TaskRegistry(tasks_dir, strict=False)
        else:
            reg = TaskRegistry(strict=False)
        try:
            reg.load()  # a file that does not load is reported and left out; the others run
            broken = reg.errors
            if broken and not reg.task_ids():
                raise TaskLoadError(broken)
            ids = [t.id for t in select_tasks(catalog(reg), tasks)]
            seed_list = parse_seeds(seeds)
            if ray is None and (ray_actors or ray_cpus):
                raise ValueError("--ray-actors and --ray-cpus-per-actor need --ray (auto, local or a cluster address)")
            cluster = ray_options(ray, actors=ray_actors, cpus_per_actor=ray_cpus)
        except (TaskLoadError, SelectionError, ValueError) as exc:
            console.print(f"[red]error:[/] {exc}")
            raise typer.Exit(2) from None
        if broken:
            console.print(f"[red]{len(broken)} task file(s) did not load and are left out:[/]\n" + "\n".join(f"  {e}" for e in broken), highlight=False)
        console.print(f"validating {len(ids)} templates x seeds {seed_list} ({workers} workers{' per Ray actor' if cluster else ''}{f', {repeat} rounds' if repeat > 1 else ''})")

        def progress(o) -> None:  # noqa: ANN001
            if quiet and o.agrees:
                return
            mark = "[green]ok[/]" if o.agrees else "[red]DISAGREES[/]"
            verdict = "error" if o.error else ("pass" if o.passed else "fail") + f" {o.score:.2f}"
            console.print(f"  {mark} {o.task} seed {o.seed} {o.solution} ({o.kind}): {verdict} [dim]{o.seconds:.1f}s[/]"
                          + (f"\n      [red]{o.error}[/]" if o.error else "")
                          + (f"\n      [yellow]{o.ladder}: {o.reason}[/]" if not o.agrees and not o.error else ""), highlight=False)

        try:
            with models_in_use(judge, None, cluster):
                report = run(reg, ids, seed_list, workers=workers, repeat=repeat, on_outcome=progress, quick=quick, ray=cluster,
                             replay_errors=replay_errors)
        except (InstanceError, RayUnavailable, ValueError) as exc:
            console.print(f"[red]error:[/] {exc}")
            raise typer.Exit(2) from None

        if not quiet:
            for tid, outcomes in report.by_task().items():
                table = Table(title=tid, title_justify="left", show_edge=False)
                table.add_column("solution")
                table.add_column("kind")
                table.add_column("via")
                for s in seed_list:
                    table.add_column(f"seed {s}", justify="center")
                rows: dict[str, dict[int, str]] = {}
                meta: dict[str, tuple[str, str]] = {}
                for o in outcomes:
                    cell = "[red]error[/]" if o.error else (f"{'pass' if o.passed else 'fail'} {o.score:.2f}")
                    if not o.agrees:
                        cell = f"[red]{cell} ✗[/]" if not o.error else cell
                    prev = rows.setdefault(o.solution, {}).get(o.seed)
                    rows[o.solution][o.seed] = cell if prev is None or prev == cell else f"{prev} / {cell}"
                    meta[o.solution] = (o.kind, o.via)
                for name, cells in rows.items():
                    table.add_row(name, *meta[name], *(cells.get(s, "") for s in seed_list))
                console.print(table)

        c = report.confusion()
        matrix = Table(title="Verifier confusion matrix", title_justify="left")
        matrix.add_column("")
        matrix.add_column("verifier passed", justify="right")
        matrix.add_column("verifier failed", justify="right")
        matrix.add_row("should pass (oracle)", f"[green]{c['true_pass']}[/]", f"[red]{c['false_fail']}[/]" if c["false_fail"] else "0")
        matrix.add_row("should fail (no-op, near-misses, adversaries)", f"[red]{c['false_pass']}[/]" if c["false_pass"] else "0", f"[green]{c['true_fail']}[/]")
        console.print(matrix)
        if c["error"]:
            console.print(f"[red]{c['error']} episode(s) could not be played[/] (see the errors above)")
        for r in report.retried:
            console.print(f"[yellow]attempt lost[/] on {r['actor']}: {r['task']} seed {r['seed']} {r['solution']} ({r['error']})"
                          + (", played again" if r["retried"] else ", given up"), highlight=False)
        for task, seed, sol in report.unstable:
            console.print(f"[red]not deterministic[/]: {task} seed {seed} {sol} gave different verdicts between rounds")
        n = len(report.outcomes)
        if json_out is not None:
            json_out.write_text(json.dumps(report.to_dict(), indent=2, default=str))
            console.print(f"outcomes written to {json_out}")
        ladder = [o for o in report.disagreements if not o.error and (o.should_pass or not o.passed)]
        if ladder:
            console.print(f"[red]{len(ladder)} score-ladder violation(s)[/]: " + "; ".join(
                f"{o.task} seed {o.seed} {o.solution}: {o.ladder}" for o in ladder[:10]) + (" ..." if len(ladder) > 10 else ""))
        if report.ok and not broken:
            console.print(f"[green]all {n} episodes agree[/] and the score ladder holds ({report.wall_s:.1f}s)")
            return
        if report.ok:
            console.print(f"all {n} episodes agree ({report.wall_s:.1f}s), but [red]{len(broken)} task file(s) did not load[/] (above)")
            raise typer.Exit(1)
        console.print(f"[red]{len(report.disagreements)} of {n} episodes disagree[/]" + (f", {len(report.unstable)} unstable" if report.unstable else "")
                      + f" ({report.wall_s:.1f}s)")
        raise typer.Exit(1)
