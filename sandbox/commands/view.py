"""`sandbox view`: the trajectory viewer for a run folder."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Evaluate")
    def view(
        run_dir: Path = typer.Argument(..., exists=True, file_okay=False, help="A run folder (with results.jsonl), as written by `sandbox run`."),
        port: int = typer.Option(8790, "--port", "-p", help="Port of the viewer."),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
        open_browser: bool = typer.Option(False, "--open", help="Open the page in the default browser."),
    ) -> None:
        """Browse a run: summary, episodes, and every step's screenshot with its action drawn on it."""
        from sandbox.trajectory import TrajectoryError
        from sandbox.viewer import serve

        try:
            serve(run_dir, host=host, port=port, open_browser=open_browser)
        except TrajectoryError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
