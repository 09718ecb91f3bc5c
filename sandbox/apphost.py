"""The app host for episodes: one uvicorn server on a free port, in a child process or a thread.

By default the host runs in a child process (``python -m sandbox.apphost``) so that server-side
rendering uses the machine's other core instead of competing with the environment for the GIL. The
child shares the ``WorldStore`` root with the environment (worlds are files), binds its own socket on
a free port and reports it on stdout; the parent then waits on ``/healthz``. The child dies with its
parent (``PR_SET_PDEATHSIG`` on Linux) and stops cleanly (SIGTERM, uvicorn's graceful shutdown) on
``close()``.

``mode="thread"`` serves from a thread of the current process: slower under load, but cheap to start
and handy in tests.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from apps_web.registry import AppSpec
from apps_web.world import WorldStore

HostMode = Literal["process", "thread"]
START_TIMEOUT_S = 180.0  # importing every app and building its first world takes seconds alone, minutes on a machine at load 40


class AppHostError(RuntimeError):
    """The app host could not start (the message carries the child's error if there was one)."""


def _bind() -> socket.socket:
    # IPPROTO_TCP named, not left 0: asyncio turns Nagle off only on sockets whose proto says TCP, and
    # with Nagle on, a keep-alive request waits ~40 ms for the client's delayed ACK between the
    # answer's head and its body
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    sock.set_inheritable(True)
    return sock


def _config(app: Any) -> Any:
    import uvicorn

    return uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="on", timeout_keep_alive=30, server_header=False,
    )


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: the kernel signals us when the parent dies
        except OSError:  # pragma: no cover - not glibc
            pass


def _app_ref(spec: AppSpec) -> str:
    """How the host process finds an app again: its registry name, or ``module:attribute``."""
    import importlib

    from apps_web import registry

    if registry.get(spec.name) is spec:
        return spec.name
    module_name = getattr(spec.router, "__module__", "") or ""
    parts = module_name.split(".")
    for i in range(len(parts), 0, -1):
        module = sys.modules.get(".".join(parts[:i])) or importlib.import_module(".".join(parts[:i]))
        for attr, value in vars(module).items():
            if value is spec:
                return f"{module.__name__}:{attr}"
    raise AppHostError(
        f"app {spec.name!r} cannot be found by the host process: define its AppSpec at module level "
        "(e.g. APP = AppSpec(...)) in the module of its router, or use mode='thread'"
    )


def _load_app(ref: str) -> AppSpec:
    import importlib

    from apps_web import registry

    if ":" not in ref:
        spec = registry.get(ref)
        if spec is None:
            raise AppHostError(f"no app named {ref!r} is installed")
        return spec
    module, attr = ref.split(":", 1)
    return getattr(importlib.import_module(module), attr)


def freeze_startup_heap() -> None:
    """Leave the objects of start-up (every app's routes, models, templates: 300,000 objects) out of
    the garbage collector's full passes, which otherwise stop the host's every episode for about
    150 ms (200 ms under load) each time one runs. Only for a process of our own: the host's child,
    ``sandbox serve``."""
    import gc

    gc.collect()
    gc.freeze()


def _child_main() -> None:
    """Entry point of the host process (``python -m sandbox.apphost``): config as JSON on stdin."""
    _die_with_parent()
    config = json.loads(sys.stdin.readline())
    try:
        import uvicorn

        from apps_web.host import create_host

        store = WorldStore(config["root"], templates_dir=config["templates_dir"])
        apps = tuple(_load_app(ref) for ref in config["apps"])
        app = create_host(store, secret=config["secret"], apps=apps)
        sock = _bind()
        server = uvicorn.Server(_config(app))
    except BaseException as exc:  # report start-up failures to the parent instead of dying silently
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
        raise SystemExit(1) from None
    freeze_startup_heap()
    print(json.dumps({"port": sock.getsockname()[1]}), flush=True)
    server.run(sockets=[sock])


def _readline(proc: subprocess.Popen, timeout: float) -> str:
    """The child's first stdout line, or "" if it exits or stays silent for ``timeout`` seconds."""
    import selectors

    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            raise AppHostError(f"the app host did not report its port within {timeout:.0f} s")
    return proc.stdout.readline()


def _wait_healthy(port: int, deadline: float, exited: Callable[[float], bool]) -> None:
    """Block until the host answers ``/healthz``. Its socket listens before the port is reported, so
    the request waits in the backlog until the server accepts it: normally one request. After a
    failed one, wait (briefly) on the host's exit rather than sleep, and ask again."""
    url = f"http://127.0.0.1:{port}/healthz"
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            with urllib.request.urlopen(url, timeout=remaining) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if exited(min(0.1, max(remaining, 0.0))):
            raise AppHostError("the app host exited during start-up")
    raise AppHostError(f"the app host did not answer {url} within {START_TIMEOUT_S:.0f} s")


def _process_exited(proc: subprocess.Popen, timeout: float) -> bool:
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def _thread_exited(thread: threading.Thread, timeout: float) -> bool:
    thread.join(timeout)
    return not thread.is_alive()


@dataclass
class AppHost:
    """A running app host: ``url(app, path)`` for pages, ``close()`` to stop it."""

    port: int
    secret: str
    store: WorldStore
    apps: tuple[AppSpec, ...]
    mode: HostMode
    _process: Any = field(default=None, repr=False)
    _server: Any = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _sock: socket.socket | None = field(default=None, repr=False)

    @classmethod
    def start(
        cls,
        store: WorldStore | None = None,
        *,
        secret: str | None = None,
        apps: tuple[AppSpec, ...] | None = None,
        mode: HostMode = "process",
    ) -> AppHost:
        """Start a host (blocking until it answers ``/healthz``)."""
        from apps_web import registry

        store = store or WorldStore()
        secret = secret or secrets.token_hex(32)
        apps = tuple(apps) if apps is not None else registry.discover()
        if mode == "process":
            return cls._start_process(store, secret, apps)
        if mode == "thread":
            return cls._start_thread(store, secret, apps)
        raise ValueError(f"mode must be 'process' or 'thread', got {mode!r}")

    @classmethod
    def _start_process(cls, store: WorldStore, secret: str, apps: tuple[AppSpec, ...]) -> AppHost:
        # A plain subprocess (not multiprocessing): nothing of the caller's __main__ is re-imported,
        # so scripts without an `if __name__ == "__main__"` guard work too.
        config = {
            "root": str(store.root), "templates_dir": str(store.templates_dir), "secret": secret,
            "apps": [_app_ref(spec) for spec in apps],
        }
        env = dict(os.environ)
        paths = [p for p in sys.path if p and os.path.isdir(p)]
        env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        proc = subprocess.Popen(
            [sys.executable, "-m", "sandbox.apphost"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, close_fds=True,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(config) + "\n")
            proc.stdin.close()
            line = _readline(proc, START_TIMEOUT_S)
            message = json.loads(line) if line.strip() else {"error": f"exit code {proc.poll()}"}
            if "error" in message:
                raise AppHostError(f"the app host failed to start: {message['error']}")
            host = cls(port=int(message["port"]), secret=secret, store=store, apps=apps, mode="process", _process=proc)
            _wait_healthy(host.port, deadline, lambda t: _process_exited(proc, t))
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        return host

    @classmethod
    def _start_thread(cls, store: WorldStore, secret: str, apps: tuple[AppSpec, ...]) -> AppHost:
        import uvicorn

        from apps_web.host import create_host

        sock = _bind()
        server = uvicorn.Server(_config(create_host(store, secret=secret, apps=apps)))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="sandbox-apphost", daemon=True)
        thread.start()
        port = sock.getsockname()[1]
        host = cls(port=port, secret=secret, store=store, apps=apps, mode="thread", _server=server, _thread=thread, _sock=sock)
        _wait_healthy(port, time.monotonic() + START_TIMEOUT_S, lambda t: _thread_exited(thread, t))
        return host

    # -- addresses ---------------------------------------------------------------------------------
    @property
    def app_names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.apps)

    def origin(self, app: str | None = None) -> str:
        return f"http://{app}.localhost:{self.port}" if app else f"http://localhost:{self.port}"

    def url(self, app: str | None = None, path: str = "/") -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.origin(app) + (path if path.startswith("/") else "/" + path)

    def is_own_url(self, url: str) -> bool:
        """Whether ``url`` points at this host (``localhost`` or ``<name>.localhost`` on its port)."""
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return False
        host = (parts.hostname or "").lower()
        return parts.scheme in ("http", "https") and port == self.port and (host == "localhost" or host.endswith(".localhost"))

    @property
    def pid(self) -> int | None:
        """The host's process id (``None`` when it runs in a thread of this process)."""
        return self._process.pid if self._process is not None else None

    @property
    def alive(self) -> bool:
        if self._process is not None:
            return self._process.poll() is None
        return self._thread is not None and self._thread.is_alive()

    # -- shutdown ----------------------------------------------------------------------------------
    def close(self, timeout: float = 5.0) -> None:
        """Stop the host: SIGTERM (uvicorn's graceful shutdown), then SIGKILL after ``timeout``."""
        if self._process is not None:
            proc, self._process = self._process, None
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout)
            if proc.stdout is not None:
                proc.stdout.close()
        if self._server is not None:
            server, self._server = self._server, None
            server.should_exit = True
            if self._thread is not None:
                self._thread.join(timeout)
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> AppHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    _child_main()

__all__ = ["AppHost", "AppHostError", "HostMode"]
