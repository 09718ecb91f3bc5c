"""The OpenEnv server app: OpenEnv's own HTTP + WebSocket server (``openenv-core``) over CUA Sandbox.

Routes (OpenEnv's protocol): ``/ws`` (a session: reset, step, state, close), ``/reset`` and
``/step`` (stateless HTTP), ``/state``, ``/schema``, ``/metadata``, ``/health``, and OpenEnv's
``/mcp`` (unused: the apps' tools are the ``tool_call`` action here, and ``sandbox mcp`` serves them
over MCP). ``uvicorn sandbox.env_server.app:app`` serves it with settings from the environment
(``SANDBOX_ENV_MAX_SESSIONS``, ``SANDBOX_TASKS_DIR``); ``sandbox env-server`` with options.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from openenv.core.env_server import ConcurrencyConfig, create_fastapi_app

from .environment import Hub, SandboxEnvironment
from .models import SandboxAction, SandboxObservation

DEFAULT_MAX_SESSIONS = 8


class _QuietWebSocketEnd:
    """OpenEnv's session handler closes the socket after the client has already left (its own close
    message, then its disconnect); Starlette 1.x raises for that. Nothing is left to tell the client."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        from starlette.websockets import WebSocketDisconnect
        from uvicorn.protocols.utils import ClientDisconnected

        try:
            await self.app(scope, receive, send)
        except (WebSocketDisconnect, ClientDisconnected):
            pass


def create_app(*, max_sessions: int = DEFAULT_MAX_SESSIONS, tasks_dir: Path | None = None, store: Any = None,
               source: Any = None, runtime_options: dict[str, Any] | None = None) -> FastAPI:
    """The FastAPI app; its runtime (Chromium, app host) starts and stops with the app."""
    if max_sessions < 1:
        raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
    hub = Hub(source=source, store=store, tasks_dir=tasks_dir, runtime_options=runtime_options)
    app = create_fastapi_app(
        partial(SandboxEnvironment, hub), SandboxAction, SandboxObservation,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions),
    )
    app.title = "CUA Sandbox (OpenEnv)"
    app.add_middleware(_QuietWebSocketEnd)
    app.router.on_startup.append(hub.start)
    app.router.on_shutdown.append(hub.close)
    app.state.hub = hub
    return app


def app_from_environment() -> FastAPI:
    tasks = os.environ.get("SANDBOX_TASKS_DIR")
    return create_app(max_sessions=int(os.environ.get("SANDBOX_ENV_MAX_SESSIONS", DEFAULT_MAX_SESSIONS)),
                      tasks_dir=Path(tasks) if tasks else None)


def __getattr__(name: str) -> Any:
    if name == "app":  # made on first use: `uvicorn sandbox.env_server.app:app`
        globals()["app"] = value = app_from_environment()
        return value
    raise AttributeError(name)


__all__ = ["DEFAULT_MAX_SESSIONS", "app_from_environment", "create_app"]
