"""Shared fixtures: a world store, a live app host on a free port, and Chromium from our launcher."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn

# tests/ has no __init__.py, so pytest puts tests/ on sys.path and tests/tasks/ would shadow the real
# `tasks` package as a namespace package under a plain `pytest` run; put the project root first.
_ROOT = Path(__file__).resolve().parent.parent
if sys.path[:1] != [str(_ROOT)]:
    sys.path.insert(0, str(_ROOT))
if getattr(sys.modules.get("tasks"), "__file__", "") is None:
    del sys.modules["tasks"]

from apps_web import registry as app_registry
from apps_web.host import Host, create_host
from apps_web.identity import WORLD_COOKIE, browser_cookies
from apps_web.world import World, WorldStore
from sandbox.browser import launch_sync

ROOT = Path(__file__).resolve().parent.parent
# Templates are immutable and keyed by generator version: share them across runs and test workers.
TEMPLATES = Path(os.environ.get("SANDBOX_TEST_TEMPLATES", ROOT / "var" / "test-templates"))
SECRET = "test-secret"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` (minutes each: the validation of the task templates, the fuzzer)
    run first, so that the test workers end together instead of one of them finishing a long test
    alone at the end (the workers take the next test in collection order when they are free)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: otherwise as collected


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> WorldStore:
    return WorldStore(tmp_path_factory.mktemp("sandbox-home"), templates_dir=TEMPLATES)


@pytest.fixture(scope="session")
def registry(store: WorldStore):  # noqa: ANN201
    """The shipped task templates, bound to the session's world store."""
    from tasks.registry import TaskRegistry

    return TaskRegistry(store=store)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LiveHost:
    """A real app host served by uvicorn in a background thread."""

    app: Host
    store: WorldStore
    port: int
    secret: str

    def url(self, app: str | None = None, path: str = "/") -> str:
        host = f"{app}.localhost" if app else "localhost"
        return f"http://{host}:{self.port}{path}"

    def world(self, seed: int = 0) -> World:
        return self.store.create(seed=seed)

    def new_context(self, browser, world: World, username: str | None = None, **kwargs):  # noqa: ANN001
        """An episode's browser context: bound to ``world`` by header, optionally signed in as ``username``."""
        context = browser.new_context(extra_http_headers={"X-Sandbox-World": world.id}, viewport={"width": 1280, "height": 800}, **kwargs)
        if username:
            apps = [s.name for s in self.app.state.specs]
            context.add_cookies(browser_cookies(self.secret, username, world.id, self.port, apps))
        return context

    def person_context(self, browser, world: World, **kwargs):  # noqa: ANN001
        """A person's browser (as with ``sandbox serve``): the world chosen by cookie, nobody signed in."""
        context = browser.new_context(viewport={"width": 1280, "height": 800}, **kwargs)
        origins = [self.url()] + [self.url(s.name) for s in self.app.state.specs]
        context.add_cookies([{"name": WORLD_COOKIE, "value": world.id, "url": o, "httpOnly": True, "sameSite": "Lax"} for o in origins])
        return context


def start_host(app: Host, store: WorldStore) -> tuple[LiveHost, uvicorn.Server, threading.Thread]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the app host did not start")
        time.sleep(0.01)
    return LiveHost(app=app, store=store, port=port, secret=SECRET), server, thread


@pytest.fixture(scope="session")
def live_host(store: WorldStore):
    host, server, thread = start_host(create_host(store, secret=SECRET, apps=app_registry.discover()), store)
    yield host
    server.should_exit = True
    thread.join(timeout=5)


@pytest.fixture(scope="session")
def browser(playwright):  # noqa: ANN001 - overrides pytest-playwright's fixture to use our launcher
    b = launch_sync(playwright)
    yield b
    b.close()


# Assertions wait for the real condition; a generous bound keeps them steady on a loaded 2-core machine.
from playwright.sync_api import expect as _expect  # noqa: E402

_expect.set_options(timeout=15_000)
