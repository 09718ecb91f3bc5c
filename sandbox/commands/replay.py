"""`sandbox replay`: play a recorded episode again in a fresh world and compare the verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Evaluate")
    def replay(
        episode: Path = typer.Argument(..., exists=True, file_okay=False, help="An episode folder (runs/<run>/episodes/<task>__s<seed>)."),
        out: Optional[Path] = typer.Option(None, "--out", help="Write the replay's trajectory here (default: a temporary folder)."),
    ) -> None:
        """Replay an episode's recorded actions in a fresh world; exit 1 if the verdict differs."""
        from rich.console import Console

        from sandbox.replay import replay as run_replay
        from sandbox.trajectory import TrajectoryError

        console = Console()
        try:
            result = run_replay(episode, out=out)
        except (TrajectoryError, FileExistsError, ValueError) as exc:
            console.print(f"[red]error:[/] {exc}")
            raise typer.Exit(2) from None

        def line(v: dict | None) -> str:
            return "no verdict" if not v else f"{'PASSED' if v.get('passed') else 'FAILED'} score {float(v.get('score', 0)):.2f}: {v.get('reason', '')}"

        console.print(f"original: {line(result.original)}")
        console.print(f"replay:   {line(result.replayed)}  ({result.record.steps} steps, {result.record.timings.total:.1f}s)")
        if result.world_changed:
            console.print(f"[yellow]note[/] {result.world_changed}")
        if result.same:
            console.print("[green]same verdict[/]")
        else:
            for d in result.differences:
                console.print(f"[red]differs[/] {d}")
            raise typer.Exit(1)
