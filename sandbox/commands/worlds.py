"""`sandbox worlds`: inspect and clean the world store."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    worlds = typer.Typer(help="Inspect and clean up the world store (templates and live worlds).", no_args_is_help=True)
    app.add_typer(worlds, name="worlds", rich_help_panel="Apps")

    @worlds.command("list")
    def list_worlds() -> None:
        """List live worlds with their seed and company."""
        from rich.console import Console
        from rich.table import Table

        from apps_web.world import WorldStore

        store = WorldStore()
        table = Table(title=f"Worlds in {store.worlds_dir}")
        for col in ("world", "seed", "scale", "company"):
            table.add_column(col)
        for world_id in store.list():
            w = store.get(world_id)
            table.add_row(w.id, str(w.meta.seed), str(w.meta.scale), w.meta.company)
        Console().print(table)

    @worlds.command("create")
    def create(seed: int = typer.Option(0, "--seed", "-s"), scale: int = typer.Option(1, "--scale")) -> None:
        """Fork a new world and print its id and file."""
        from apps_web.world import WorldStore

        w = WorldStore().create(seed=seed, scale=scale)
        typer.echo(f"{w.id}\t{w.path}")

    @worlds.command("cleanup")
    def cleanup(max_age_hours: float = typer.Option(24.0, "--max-age-hours", help="Drop worlds untouched for this long.")) -> None:
        """Drop stale worlds, snapshots and templates of old generator versions."""
        from apps_web.world import WorldStore

        removed = WorldStore().cleanup(max_age_s=max_age_hours * 3600)
        typer.echo(f"removed {removed} file(s)")
