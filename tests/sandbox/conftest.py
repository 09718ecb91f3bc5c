"""Fixtures for the runtime tests: one Chromium + app host (with the playground) per test session."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import numpy as np
import pytest

from sandbox.gym_env import SandboxEnv
from sandbox.loop import background_loop
from sandbox.runtime import Runtime, default_apps


@pytest.fixture(scope="session")
def sbx_runtime(store):  # noqa: ANN001 - `store` is the session WorldStore of tests/conftest.py
    loop = background_loop()
    runtime = loop.run(Runtime.start(store=store, apps=default_apps("playground")))
    yield runtime
    loop.run(runtime.close())


@pytest.fixture
def make_env(sbx_runtime) -> Callable[..., SandboxEnv]:  # noqa: ANN001
    """Make sync envs on the session runtime; they are closed after the test."""
    envs: list[SandboxEnv] = []

    def make(app: str = "playground", start_url: str = "/", instruction: str = "test", **kwargs: Any) -> SandboxEnv:
        env = SandboxEnv(app, start_url, instruction, runtime=sbx_runtime, **kwargs)
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()


def js(env: SandboxEnv, expression: str) -> Any:
    """Evaluate in the page the agent sees (test-side inspection, not an agent action)."""
    return env.run(env.core.page.evaluate(expression))


def events(env: SandboxEnv, kind: str | None = None) -> list[dict]:
    log = js(env, "window.sbxLog || []")
    return [e for e in log if kind is None or e["kind"] == kind]


def element(info: dict, name: str, role: str | None = None) -> dict:
    found = [e for e in info["elements"] if e["name"] == name and (role is None or e["role"] == role)]
    assert found, f"no element named {name!r} in {[(e['role'], e['name']) for e in info['elements']]}"
    return found[0]


def center(el: dict) -> tuple[int, int]:
    x, y, w, h = el["bbox"]
    return x + w // 2, y + h // 2


def pixel(obs: dict, x: int, y: int) -> tuple[int, int, int]:
    return tuple(int(v) for v in np.asarray(obs["screenshot"])[y, x])


@pytest.fixture
def helpers() -> Any:
    class H:
        pass

    h = H()
    h.js, h.events, h.element, h.center, h.pixel = js, events, element, center, pixel
    return h


class ModelAPIStandIn:
    """A real local HTTP server standing in for a model provider's API: every POST is recorded
    (path, headers, JSON body) and answered with what ``answer(path, body)`` returns: a status, a
    JSON object and extra headers."""

    def __init__(self, answer: Callable[[str, dict[str, Any]], tuple[int, dict[str, Any], dict[str, str]]]) -> None:
        self.requests: list[dict[str, Any]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                api.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                status, data, headers = answer(self.path, body)
                raw = json.dumps(data).encode()
                self.send_response(status)
                for k, v in {**headers, "content-type": "application/json", "content-length": str(len(raw))}.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
