"""`sandbox corpus`: build a corpus of proven task instances, its data card, and its dataset export."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tasks.corpus.policy import DEFAULT_FULL_SEEDS


def register(app: typer.Typer) -> None:
    corpus = typer.Typer(help="Build a corpus of proven task instances (templates x seeds), its data card and a dataset export.",
                         no_args_is_help=True)
    app.add_typer(corpus, name="corpus", rich_help_panel="Evaluate")

    @corpus.command("build")
    def build(
        out: Path = typer.Option(..., "--out", "-o", help="The corpus folder (created; an existing one is resumed)."),
        seeds: str = typer.Option(..., "--seeds", "-s", help="Seeds of every template: 0-99 or 0,1,2."),
        tasks: list[str] = typer.Option([], "--tasks", "-t", help="Selectors, comma-separated or repeated: id globs (crm.*), tag:GLOB, difficulty:GLOB, category:GLOB, app:GLOB; !sel excludes. Default: every template."),
        workers: int = typer.Option(2, "--workers", "-w", min=1, help="Concurrent episodes on the env pool."),
        full_seeds: int = typer.Option(DEFAULT_FULL_SEEDS, "--full-seeds", min=0, help="A template's first N kept seeds also play every near-miss and generic adversary in the browser."),
        limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Prove at most this many new instances in this run (run again to go on)."),
        ray: Optional[str] = typer.Option(None, "--ray", help="Play on a Ray cluster: auto (the one started here with `ray start`), local (start one here), or HOST:6379 / ray://HOST:10001. --workers is then per actor."),
        ray_actors: Optional[int] = typer.Option(None, "--ray-actors", min=1, help="Actors (each a Chromium, an app host and a world store); default: cluster CPUs / --ray-cpus-per-actor."),
        tasks_dir: Optional[Path] = typer.Option(None, "--dir", help="Folder of task files (<dir>/<app>/*.yaml); default: the shipped tasks."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Only failures and the summary."),
    ) -> None:
        """Draw every selected template at every seed, drop instances that repeat a lower seed's, prove
        the rest (oracle passes, no-op and wrong solutions fail) and append each to OUT/instances.jsonl
        (failures to OUT/failures.jsonl) as it is decided; then write the data card. Re-running resumes:
        what is in OUT is skipped. Exits 1 when an instance failed."""
        from rich.console import Console

        import asyncio
        import signal

        from sandbox.run.select import SelectionError, catalog, parse_seeds, select_tasks
        from tasks.corpus.build import Policy, build_async
        from tasks.registry import TaskLoadError, TaskRegistry, default_registry

        console = Console()
        if tasks_dir is not None and not tasks_dir.is_dir():
            console.print(f"[red]error:[/] no folder {tasks_dir}")
            raise typer.Exit(2)
        reg = TaskRegistry(tasks_dir) if tasks_dir is not None else default_registry()
        try:
            reg.load()
            ids = [t.id for t in select_tasks(catalog(reg), tasks)]
            seed_list = parse_seeds(seeds)
        except (TaskLoadError, SelectionError) as exc:
            console.print(f"[red]error:[/] {exc}")
            raise typer.Exit(2) from None
        engine = {}
        if ray is not None:
            from sandbox.cluster import ray_options

            try:
                engine["ray"] = ray_options(ray, actors=ray_actors)
            except ValueError as exc:
                console.print(f"[red]error:[/] --ray: {exc}")
                raise typer.Exit(2) from None
        elif ray_actors:
            console.print("[red]error:[/] --ray-actors needs --ray (auto, local or a cluster address)")
            raise typer.Exit(2)
        console.print(f"corpus {out}: {len(ids)} templates x seeds {seeds} ({workers} workers; full proof at the first {full_seeds} seed(s) of each template)")

        def event(kind: str, rec: dict) -> None:
            if kind == "failed":
                console.print(f"  [red]failed[/] {rec['id']} seed {rec['seed']}: {'; '.join(rec['reasons'])[:400]}", highlight=False)
            elif not quiet and kind == "proven":
                console.print(f"  [green]proven[/] {rec['id']} seed {rec['seed']} ({rec['proof']['level']}, {len(rec['proof']['solutions'])} episodes, "
                              f"{rec.get('seconds', 0):.1f}s)", highlight=False)
            elif not quiet:
                console.print(f"  [dim]duplicate {rec['id']} seed {rec['seed']} = seed {rec['same_as']}[/]", highlight=False)

        def stop(_signum: int, _frame: object) -> None:
            raise KeyboardInterrupt  # a kill (SIGTERM) stops like Ctrl-C: in-flight instances are dropped, the rest kept

        signal.signal(signal.SIGTERM, stop)
        try:
            result = asyncio.run(build_async(reg, ids, seed_list, out, workers=workers, policy=Policy(full_seeds), limit=limit,
                                                       on_event=event, selection=",".join(tasks) or None, **engine))
        except KeyboardInterrupt:
            console.print(f"[yellow]interrupted[/]: the decided instances are in {out}; run the same command again to go on")
            raise typer.Exit(130) from None
        console.print(f"{result.proven} proven, {result.failed} failed, {result.duplicates} duplicates, {result.skipped} already done"
                      + (f" ({result.stale} decided with an older template or world, played again)" if result.stale else "") + "; "
                      f"{result.episodes} episodes in {result.prove_s:.0f}s ({result.per_minute():.1f} instances/min; drawing {result.render_s:.0f}s)")
        console.print(f"card: {out / 'CARD.md'}")
        if result.failed:
            raise typer.Exit(1)

    @corpus.command("card")
    def card(corpus_dir: Path = typer.Argument(..., help="A corpus folder (sandbox corpus build --out DIR).")) -> None:
        """Regenerate DIR/card.json and DIR/CARD.md from the folder's records (also during a build)."""
        from tasks.corpus import CorpusDir, CorpusError, write_card

        try:
            data = write_card(CorpusDir(corpus_dir))
        except CorpusError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"{data['instances']} instances of {data['templates_with_instances']} templates, {data['failed']} failed, "
                   f"{data['duplicates']} duplicates: {corpus_dir / 'CARD.md'}")

    @corpus.command("export")
    def export(
        corpus_dir: Path = typer.Argument(..., help="A corpus folder."),
        out: Path = typer.Argument(..., help="The dataset folder to write (data/ and README.md)."),
        fmt: str = typer.Option("hf", "--format", help="hf: a Hugging Face dataset folder (parquet, or JSONL without pyarrow, and a dataset card)."),
    ) -> None:
        """Export the proven instances as a dataset: OUT/data/train-*.parquet and OUT/README.md (the Hub's
        YAML header and the data card). Load it with datasets.load_dataset(OUT)."""
        from tasks.corpus import CorpusError
        from tasks.corpus.dataset import export as run

        try:
            info = run(corpus_dir, out, format=fmt)
        except CorpusError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"{info['rows']} rows written to {info['data']} ({info['format']}) and {out / 'README.md'}")
