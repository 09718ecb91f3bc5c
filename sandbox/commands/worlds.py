"""`sandbox worlds`: inspect and clean the world store."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    worlds = typer.Typer(help="Inspect and clean up the world store (templates and live worlds).", no_args_is_help=True)
    app.add_typer(worlds, name="worlds", rich_help_panel="Apps")

    @worlds.command("list")
    def list_worlds() -> None:
        """List live worlds with their seed, company and owner (the process using it, if any)."""
        from rich.console import Console
        from rich.table import Table

        from apps_web.world import WorldStore

        store = WorldStore()
        table = Table(title=f"Worlds in {store.worlds_dir}")
        for col in ("world", "seed", "scale", "company", "owner"):
            table.add_column(col)
        for world_id in store.list():
            w = store.get(world_id)
            table.add_row(w.id, str(w.meta.seed), str(w.meta.scale), w.meta.company, _owner_text(store, world_id))
        console = Console()
        console.print(table)
        if orphaned := store.orphans():
            console.print(f"{len(orphaned)} orphan world(s) (their process was killed): remove them with [bold]sandbox worlds orphans --clean[/]")

    @worlds.command("orphans")
    def orphans(clean: bool = typer.Option(False, "--clean", help="Remove the orphans instead of only listing them.")) -> None:
        """Worlds left behind by killed processes (their owner no longer runs): list them, or remove them."""
        from apps_web.world import WorldStore

        store = WorldStore()
        found = store.remove_orphans() if clean else store.orphans()
        for world_id in found:
            record = store.owner(world_id)
            typer.echo(f"{world_id}\t{'removed' if clean else f'owner {record.describe()} is gone' if record else 'no owner'}")
        if clean:
            typer.echo(f"removed {len(found)} orphan world(s) from {store.worlds_dir}")
        elif found:
            typer.echo(f"{len(found)} orphan world(s) in {store.worlds_dir}: remove them with `sandbox worlds orphans --clean`")
        else:
            typer.echo(f"no orphan worlds in {store.worlds_dir}")

    @worlds.command("create")
    def create(seed: int = typer.Option(0, "--seed", "-s"), scale: int = typer.Option(1, "--scale")) -> None:
        """Fork a new world and print its id and file."""
        from apps_web.world import WorldStore

        w = WorldStore().create(seed=seed, scale=scale, owned=False)
        typer.echo(f"{w.id}\t{w.path}")

    @worlds.command("cleanup")
    def cleanup(max_age_hours: float = typer.Option(24.0, "--max-age-hours", help="Drop worlds untouched for this long.")) -> None:
        """Drop stale worlds, snapshots and templates of old generator versions."""
        from apps_web.world import WorldStore

        removed = WorldStore().cleanup(max_age_s=max_age_hours * 3600)
        typer.echo(f"removed {removed} file(s)")


def _owner_text(store, world_id: str) -> str:  # noqa: ANN001 - a WorldStore
    record = store.owner(world_id)
    if record is None:
        return "kept (no owner)"
    return f"{record.describe()}, running" if record.alive() else f"orphan ({record.describe()} is gone)"
