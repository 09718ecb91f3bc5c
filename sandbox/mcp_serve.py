"""Running the MCP server (`sandbox mcp`): the host, the task registry and the transport."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from apps_web.host import create_host
from apps_web.world import WorldStore

from .mcp_server import EpisodeFactory, Episodes, build_server


def make_server(*, store: WorldStore, task: str | None = None, seed: int = 0, world: str | None = None, persona: str | None = None,
                apps: tuple[str, ...] | None = None, grade: bool = False, tasks_dir: Path | None = None) -> tuple[Any, Episodes]:
    """The MCP server and its episodes, on ``store``."""
    from tasks.registry import TaskRegistry, TASKS_DIR

    host = create_host(store)
    registry = TaskRegistry(tasks_dir or TASKS_DIR, store=store)
    known = {s.name for s in host.state.specs}
    unknown = sorted(set(apps or ()) - known)
    if unknown:
        raise SystemExit(f"error: no app {', '.join(unknown)} (apps: {', '.join(sorted(known))})")

    def spec_for(task_id: str | None, seed_: int | None):  # noqa: ANN202
        if task_id is None:
            return None
        return registry.get(registry.resolve_id(task_id), seed if seed_ is None else seed_)

    instruction = None
    if task is not None:
        instruction = spec_for(task, seed).instruction  # an unknown task fails at start, not at the first call
    factory = EpisodeFactory(host=host, spec_for=spec_for, world_id=world, persona=persona, apps=apps)
    episodes = Episodes(factory, grade=grade)
    return build_server(episodes, default_task=task, default_seed=seed, task_instruction=instruction), episodes


def serve_mcp(*, task: str | None, seed: int, world: str | None, persona: str | None, apps: tuple[str, ...] | None,
              http: bool, host: str, port: int, grade: bool, tasks_dir: Path | None) -> None:
    store = WorldStore()
    server, episodes = make_server(store=store, task=task, seed=seed, world=world, persona=persona, apps=apps, grade=grade, tasks_dir=tasks_dir)
    if http:
        import uvicorn

        print(f"MCP (streamable HTTP) at http://{host}:{port}/mcp", flush=True)
        uvicorn.run(server.streamable_http_app(host=host), host=host, port=port, log_level="warning")
        asyncio.run(episodes.close())
        return

    async def stdio() -> None:
        from mcp.server.stdio import stdio_server

        try:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        finally:
            await episodes.close()

    asyncio.run(stdio())
