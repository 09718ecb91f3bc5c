"""`sandbox agreement`: how well the verifier agrees with the people who graded the runs in the viewer."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Evaluate")
    def agreement(
        run_dirs: list[Path] = typer.Argument(..., exists=True, file_okay=False, help="Run folders with results.jsonl and labels.jsonl (graded with `sandbox view RUN --grade`)."),
        grader: Optional[str] = typer.Option(None, "--grader", help="Only this grader's labels (default: every grader's, each label one judgement)."),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
        viewer_url: str = typer.Option("http://127.0.0.1:8790", "--viewer-url", help="Where `sandbox view` on the same runs serves (for the links)."),
    ) -> None:
        """Accuracy, Cohen's kappa and Kendall's tau of the verifier against human labels, per task template
        and overall, and every disagreement with a link to the episode in the viewer."""
        from sandbox.viewer.agreement import AgreementError, render, report

        try:
            rep = report(run_dirs, grader=grader, base_url=viewer_url)
        except AgreementError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            import json

            typer.echo(json.dumps(rep, indent=2))
            return
        from rich.console import Console

        render(rep, Console())
