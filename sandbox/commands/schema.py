"""`sandbox schema`: the world's tables, columns, picklists and relations, for task authors."""

from __future__ import annotations

import json
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("schema", rich_help_panel="Author")
    def schema(
        app_name: Optional[str] = typer.Argument(None, metavar="[APP]", help="One app's tables (and the users they refer to); default: every table."),
        as_json: bool = typer.Option(False, "--json", help="JSON: a list of {table, app, columns, rows}."),
        seed: int = typer.Option(0, "--seed", "-s", help="Row counts from this seed's world."),
    ) -> None:
        """Every table, column, type, picklist value and relation of the world, generated from the models.

        Task files name these tables and columns in their params, set-up and verifiers."""
        from apps_web.schema import as_text, describe
        from apps_web.world import WorldStore

        try:
            tables = describe(app_name, WorldStore().template(seed))
        except KeyError as exc:
            typer.echo(f"error: {exc.args[0]}", err=True)
            raise typer.Exit(2) from None
        typer.echo(json.dumps(tables, indent=2) if as_json else as_text(tables), nl=not as_json)
