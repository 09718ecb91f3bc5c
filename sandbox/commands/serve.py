"""`sandbox serve`: the app host for people to browse."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Apps")
    def serve(
        port: int = typer.Option(8765, "--port", "-p", help="Port of the app host (portal at localhost:PORT, apps at <app>.localhost:PORT)."),
        seed: int = typer.Option(0, "--seed", "-s", help="Seed of the world to serve; the same seed always gives the same company."),
        scale: int = typer.Option(1, "--scale", help="Size of the generated world (1 = default)."),
        fresh: bool = typer.Option(False, "--fresh", help="Start from a fresh copy of the world instead of keeping earlier changes."),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
    ) -> None:
        """Start the app host for people to browse, and print the URLs."""
        from ..serve import serve as run

        run(port=port, seed=seed, scale=scale, fresh=fresh, host=host)
