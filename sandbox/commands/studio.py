"""`sandbox studio`: record demonstrations and draft tasks in the browser."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Data")
    def studio(
        port: int = typer.Option(8780, "--port", "-p", help="Port of the studio page (http://localhost:PORT/)."),
        out: Path = typer.Option(Path("var/studio"), "--out", "-o", help="Run folder the recordings are written to (open it with `sandbox view`)."),
        drafts: Path = typer.Option(None, "--drafts", help="Folder for task drafts (default: OUT/drafts); never the shipped task set."),
        headed: bool = typer.Option(False, "--headed", help="Also offer headed recording: a Chromium window on this desktop, used directly (needs a display)."),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
        tasks_dir: Path = typer.Option(None, "--dir", help="Folder of task files (<dir>/<app>/*.yaml) to record, e.g. drafts; it sees the shipped macros. Default: the shipped tasks."),
    ) -> None:
        """Open the demonstration studio: pick a task or a world, drive the sandboxed browser from a
        live view, and record every input as a trajectory step; draft tasks from free exploration."""
        import os

        from ..studio.server import StudioOptions, serve

        if headed and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            raise typer.BadParameter("headed recording needs a desktop (DISPLAY or WAYLAND_DISPLAY is not set)", param_hint="--headed")
        tasks = None
        if tasks_dir is not None:
            from tasks.registry import TaskLoadError, TaskRegistry

            if not tasks_dir.is_dir():
                raise typer.BadParameter(f"no folder {tasks_dir}", param_hint="--dir")
            tasks = TaskRegistry(tasks_dir)
            try:
                tasks.load()
            except TaskLoadError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(2) from None
        serve(port=port, host=host, options=StudioOptions(out_dir=out, drafts_dir=drafts, headed=headed, tasks=tasks))
