"""`sandbox env-server`: every task as an OpenEnv environment over HTTP and WebSocket."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("env-server", rich_help_panel="Apps")
    def env_server(
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (0.0.0.0 in a container)."),
        port: int = typer.Option(8000, "--port", "-p", help="Port of the server (OpenEnv's default is 8000)."),
        tasks_dir: Optional[Path] = typer.Option(None, "--tasks-dir", help="A folder of task files (default: the shipped tasks)."),
        max_sessions: int = typer.Option(8, "--max-sessions", min=1, help="Concurrent WebSocket sessions (each its own episode)."),
    ) -> None:
        """Serve OpenEnv's protocol (reset, step, state, schema, health; a session per WebSocket).

        Trainers connect with OpenEnv's clients and reset with task_id (any registered task) or app, and seed."""
        try:
            from ..env_server.app import create_app
        except ModuleNotFoundError as exc:
            from ..env_server import MISSING

            typer.echo(f"error: {MISSING} ({exc})", err=True)
            raise typer.Exit(2) from None
        import uvicorn

        web = create_app(max_sessions=max_sessions, tasks_dir=tasks_dir)
        typer.echo(f"OpenEnv server at http://{host}:{port} (WebSocket sessions at ws://{host}:{port}/ws)")
        uvicorn.run(web, host=host, port=port, log_level="warning", ws_max_size=100 * 1024 * 1024)
