"""`sandbox inspect URL`: the elements of a page an oracle step can target, and the step to write."""

from __future__ import annotations

import asyncio
import json
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("inspect", rich_help_panel="Author")
    def inspect_cmd(
        url: str = typer.Argument(..., help="A page of an app: http://crm.localhost/opportunities/3, crm.localhost/leads or crm:/leads."),
        persona: Optional[str] = typer.Option(None, "--persona", "-p", help="Username to sign in as (default: the user a free-form episode of the app signs in)."),
        seed: int = typer.Option(0, "--seed", "-s", help="The world's seed."),
        as_json: bool = typer.Option(False, "--json", help="JSON: a list of {role, name, within, count, step}."),
    ) -> None:
        """Every interactive element of a page with its accessible role and name, the container it is in,
        and the oracle step that targets it (tasks/README.md, Steps)."""
        from sandbox.inspect_page import inspect

        try:
            app_name, title, found = asyncio.run(inspect(url, persona=persona, seed=seed))
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            typer.echo(json.dumps([{**t.target(), "count": t.count, "step": t.step()} for t in found], indent=2))
            return
        typer.echo(f"{app_name}: {title} ({len(found)} elements)")
        for t in found:
            note = f"  # {t.count} alike: add nth" if t.count > 1 else ""
            typer.echo(f"- {t.step()}{note}")
