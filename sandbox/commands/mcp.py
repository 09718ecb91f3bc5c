"""`sandbox mcp`: the apps' tools as an MCP server (stdio or streamable HTTP)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("mcp", rich_help_panel="Apps")
    def mcp(
        task: Optional[str] = typer.Option(None, "--task", "-t", help="Task each new episode works on (HTTP clients may send X-Sandbox-Task)."),
        seed: int = typer.Option(0, "--seed", "-s", help="Seed of a new episode's world (HTTP clients may send X-Sandbox-Seed)."),
        world: Optional[str] = typer.Option(None, "--world", help="Work on this existing world (from `sandbox serve` or `sandbox worlds`) instead of a task's fork."),
        persona: Optional[str] = typer.Option(None, "--persona", "-p", help="With --world: the username the tools act as."),
        apps: Optional[str] = typer.Option(None, "--apps", help="Comma-separated apps whose tools to serve (default: every app)."),
        http: bool = typer.Option(False, "--http", help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio."),
        port: int = typer.Option(8766, "--port", help="Port for --http."),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface for --http."),
        grade: bool = typer.Option(False, "--grade", help="Add the task_verdict tool (for people trying tasks, not for agents under evaluation)."),
        tasks_dir: Optional[Path] = typer.Option(None, "--dir", help="A folder of task files (with the shipped macros)."),
    ) -> None:
        """Serve the apps' tools over MCP: each client works in its own forked world as the task's persona.

        Claude Desktop and other MCP clients start it over stdio: `sandbox mcp --task APP.TASK` (ids from `sandbox tasks`)."""
        from ..mcp_serve import serve_mcp

        if world is not None and persona is None:
            typer.echo("error: --world needs --persona (the user the tools act as)", err=True)
            raise typer.Exit(2)
        if world is None and task is None and not http:
            typer.echo("error: give --task (or --world with --persona); over --http clients may name the task per episode", err=True)
            raise typer.Exit(2)
        only = tuple(a.strip() for a in apps.split(",") if a.strip()) if apps else None
        serve_mcp(task=task, seed=seed, world=world, persona=persona, apps=only, http=http, host=host, port=port, grade=grade, tasks_dir=tasks_dir)
