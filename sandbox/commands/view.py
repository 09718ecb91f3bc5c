"""`sandbox view`: the trajectory viewer for one run folder, or several compared, and grading them."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Evaluate")
    def view(
        run_dirs: list[Path] = typer.Argument(..., exists=True, file_okay=False, help="Run folders (with results.jsonl), as written by `sandbox run`; two or more are compared."),
        port: int = typer.Option(8790, "--port", "-p", help="Port of the viewer."),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
        open_browser: bool = typer.Option(False, "--open", help="Open the page in the default browser."),
        grade: bool = typer.Option(False, "--grade", help="Grading mode: record your verdict, score, comment and ranks in each run's labels.jsonl."),
        grader: Optional[str] = typer.Option(None, "--grader", help="Your name, stored with every label (required with --grade)."),
        show_verdict: bool = typer.Option(False, "--show-verdict", help="Show the verifier's verdict while grading (hidden by default so it does not anchor you)."),
    ) -> None:
        """Browse runs: summary, episodes, and every step's screenshot with its action drawn on it.

        With several runs: each run's verdict and score per task and seed side by side. With --grade:
        label the episodes (keys p, f, n) and rank each task's episodes by dragging."""
        from sandbox.trajectory import TrajectoryError
        from sandbox.viewer import serve

        if grader and not grade:
            typer.echo("error: --grader names who grades; add --grade to record labels", err=True)
            raise typer.Exit(2)
        if grade and not (grader or "").strip():
            typer.echo("error: grading needs your name for the labels: add --grader NAME", err=True)
            raise typer.Exit(2)
        try:
            serve(run_dirs, host=host, port=port, open_browser=open_browser, grade=grade, grader=grader, show_verdict=show_verdict)
        except TrajectoryError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
