"""The warm process behind `sandbox app`: one app host kept in memory, so that a shell agent's commands
answer in a fraction of a second instead of importing and building the apps on every call.

- A command first asks the server of its world store (``SANDBOX_HOME``) over a Unix socket in a
  private folder of the temp directory. The server runs the same code as the command
  (:func:`sandbox.commands.app.run`) for the caller's episode (``SANDBOX_WORLD``, ``SANDBOX_PERSONA``,
  ...), and answers with its output and exit code.
- With no server answering, the command runs in its own process, as it always could, and then starts
  a server in the background for the next one (``SANDBOX_APP_SERVER=0`` turns that off).
- The server stops after ``SANDBOX_APP_IDLE`` seconds without a command (900), on `sandbox app stop`,
  or when a command comes from other source or another environment (its episode's variables aside):
  that command is told so before anything runs, runs in its own process, and starts a fresh server.

This module is imported by every `sandbox app` command before it knows whether a server answers: it
imports nothing of the apps until it serves.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import select
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENABLED_ENV = "SANDBOX_APP_SERVER"
IDLE_ENV = "SANDBOX_APP_IDLE"
IDLE_SECONDS = 900.0
PACKAGES = ("sandbox", "apps_web", "tasks", "verifiers")  # the source a server runs
# Variables a command passes with each message (its episode) and a shell changes between commands: the
# rest of the environment (a judge's model and key, the store, ...) must be the server's own.
EPISODE_VARS = frozenset({"SANDBOX_WORLD", "SANDBOX_PERSONA", "SANDBOX_TASK", "SANDBOX_SEED", "SANDBOX_START"})
SHELL_VARS = frozenset({"_", "PWD", "OLDPWD", "SHLVL", "COLUMNS", "LINES"})
LOG_NAME = "app-server.log"

log = logging.getLogger("sandbox.app_server")


@dataclass(frozen=True)
class Reply:
    out: str
    err: str
    code: int


def home() -> Path:
    """The world store's folder: the rule of ``apps_web.world.default_home``, without importing the world's
    models (a test holds the two to the same answer)."""
    env = os.environ.get("SANDBOX_HOME")
    return Path(env) if env else Path.home() / ".cache" / "cua-sandbox"


def socket_path(store_home: Path) -> Path:
    """The server's socket for a world store: in a folder of the temp directory only this user can
    enter (a socket's path must stay short), named after the store's resolved path."""
    key = hashlib.sha256(str(store_home.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"cua-sandbox-{os.getuid()}" / f"app-{key}.sock"


def source_version() -> str:
    """The source files' names, sizes and modification times, and the environment less the episode's
    variables: a server started from other source or settings must not answer (a few ms)."""
    h = hashlib.sha256()
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for root in (spec.submodule_search_locations or []) if spec else []:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for f in sorted(filenames):
                    if f.endswith(".py"):
                        st = os.stat(os.path.join(dirpath, f))
                        h.update(f"{dirpath}/{f}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for k, v in sorted(os.environ.items()):
        if k not in EPISODE_VARS and k not in SHELL_VARS:
            h.update(f"{k}={v}\0".encode())
    return h.hexdigest()[:16]


def _private(folder: Path) -> bool:
    """Only this user can reach the sockets in ``folder``: neither side talks through one another user
    could have put there."""
    st = folder.stat()
    return st.st_uid == os.getuid() and not st.st_mode & 0o077


def _enabled() -> bool:
    return os.environ.get(ENABLED_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def _exchange(message: dict[str, Any]) -> dict[str, Any] | None:
    """Send one message to the server; its answer, or None when none is listening. A server that goes
    away after taking the message is an error (the command may have run): never run twice."""
    path = socket_path(home())
    if not path.exists() or not _private(path.parent):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:  # a socket left by a server that is gone
        sock.close()
        return None
    with sock:
        sock.sendall(json.dumps(message).encode() + b"\n")
        chunks = []
        while chunk := sock.recv(1 << 16):
            chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except ValueError:  # nothing, or half an answer
        return {"out": "", "err": f"error: the app server stopped while running the command (see {home() / LOG_NAME}); "
                                  "check the episode's state before running it again", "code": 1}


def ask(args: list[str], as_json: bool) -> Reply | None:
    """The server's answer to a command, or None: no server (or one from other source), run it here."""
    if not _enabled():
        return None
    env = {k: v for k, v in os.environ.items() if k in EPISODE_VARS}
    answer = _exchange({"argv": args, "json": as_json, "env": env, "version": source_version()})
    if answer is None or answer.get("stale"):
        return None
    return Reply(answer.get("out", ""), answer.get("err", ""), int(answer.get("code", 1)))


def stop() -> str:
    """Stop the store's server: what happened, in a sentence."""
    answer = _exchange({"stop": True})
    if not answer or "stopped" not in answer:
        return "no app server was running"
    return f"stopped the app server (pid {answer['stopped']}; it answered {answer['answered']} commands)"


def start_in_background() -> None:
    """Start a server for the store, detached, unless one runs (it checks) or servers are turned off."""
    _spawn(wait=False)


def start_and_wait(timeout: float = 120.0) -> bool:
    """Start a server and wait until it listens (its first line on standard output): whether it does."""
    return _spawn(wait=True, timeout=timeout)


def _spawn(*, wait: bool, timeout: float = 120.0) -> bool:
    store_home = home()
    if not _enabled():
        return False
    store_home.mkdir(parents=True, exist_ok=True)  # as the server's world store would
    with open(store_home / LOG_NAME, "ab") as logs:
        proc = subprocess.Popen([sys.executable, "-m", "sandbox.app_server"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE if wait else logs, stderr=logs, start_new_session=True, close_fds=True)
    if not wait:
        return True
    with proc.stdout:
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        # EOF instead: another server holds the store (it may be starting), or this one failed (in the log)
        return bool(ready) and proc.stdout.readline().startswith(b"ready")


def serve(store_home: Path, idle: float) -> int:
    """Run the store's server until it is idle for ``idle`` seconds, stopped, or outdated. Returns at once
    when another server holds the store (it is starting or running)."""
    path = socket_path(store_home)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _private(path.parent):
        raise SystemExit(f"{path.parent} is not this user's alone (owner {path.parent.stat().st_uid}, mode "
                         f"{path.parent.stat().st_mode & 0o777:o}): the app server will not listen there")
    lock_path = path.with_suffix(".lock")
    lock = _lock(lock_path)
    if lock is None:
        return 0
    try:
        _run_server(store_home, path, idle)
    finally:
        lock_path.unlink(missing_ok=True)  # still holding the lock: no one can be waiting on this file
        lock.close()
    return 0


def _lock(lock_path: Path) -> Any:
    """The store's lock file, opened and locked; None when another server holds it."""
    for _ in range(3):
        lock = open(lock_path, "a")  # noqa: SIM115 - held for the server's life
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            return None
        try:
            if os.stat(lock_path).st_ino == os.fstat(lock.fileno()).st_ino:
                return lock
        except FileNotFoundError:
            pass
        lock.close()  # a stopping server removed the file after we opened it: lock the current one
    return None


def _run_server(store_home: Path, path: Path, idle: float) -> None:
    version = source_version()
    t0 = time.perf_counter()
    from apps_web.host import create_host
    from apps_web.tools import host_tools
    from apps_web.world import WorldStore

    host = create_host(WorldStore(store_home))
    host_tools(host)  # the tool list is built once, here
    log.info("app server for %s ready in %.1f s (pid %d)", store_home, time.perf_counter() - t0, os.getpid())
    asyncio.run(_serve(path, host, version, idle, store_home / LOG_NAME))


async def _serve(path: Path, host: Any, version: str, idle: float, log_file: Path) -> None:
    from .commands.app import run
    from .shell_tools import ShellError

    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    quiet = asyncio.Event()  # no command in hand
    quiet.set()
    busy = answered = 0
    last = loop.time()

    async def command(message: dict[str, Any]) -> dict[str, Any]:
        lines: dict[bool, list[str]] = {False: [], True: []}

        def echo(text: Any, err: bool = False) -> None:
            lines[err].append(str(text))

        try:
            code = await run(list(message["argv"]), bool(message.get("json")), dict(message.get("env") or {}), echo, host=host)
        except ShellError as exc:
            lines[True].append(f"error: {exc}")
            code = 2
        except Exception as exc:  # noqa: BLE001 - one command's failure is its own; the server goes on
            log.exception("sandbox app %s", " ".join(message.get("argv", [])))
            lines[True].append(f"error: {type(exc).__name__}: {exc} (the traceback is in {log_file})")
            code = 1
        return {"out": "\n".join(lines[False]), "err": "\n".join(lines[True]), "code": code}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal busy, last, answered
        busy += 1
        quiet.clear()
        try:
            message = json.loads(await reader.readline() or b"{}")
            if message.get("stop"):
                answer: dict[str, Any] = {"stopped": os.getpid(), "answered": answered}
                stopping.set()
            elif message.get("version") != version:
                answer = {"stale": True}  # nothing ran: the caller runs the command itself
                log.info("a command from other source or another environment: stopping")
                stopping.set()
            else:
                answer = await command(message)
                answered += 1
            writer.write(json.dumps(answer).encode() + b"\n")
            await writer.drain()
        except (ConnectionError, json.JSONDecodeError) as exc:
            log.warning("a client went away or sent garbage: %s", exc)
        finally:
            writer.close()
            busy -= 1
            last = loop.time()
            if not busy:
                quiet.set()

    if path.exists() or path.is_symlink():
        path.unlink()  # left by a server that died: we hold the lock, so it is no one's
    server = await asyncio.start_unix_server(handle, path=str(path))
    os.chmod(path, 0o600)
    print(f"ready {os.getpid()}", flush=True)  # to the command waiting for it (start_and_wait), or the log
    with open(os.devnull, "wb") as null:  # no later output can break on a closed pipe
        os.dup2(null.fileno(), sys.stdout.fileno())
    try:
        while not stopping.is_set():
            remaining = idle - (loop.time() - last)
            if remaining <= 0:
                if busy == 0:
                    log.info("idle for %.0f s: stopping", idle)
                    break
                await quiet.wait()  # a command outlasting the idle time: count from its end
                continue
            try:
                await asyncio.wait_for(stopping.wait(), timeout=remaining)
            except asyncio.TimeoutError:
                pass
    finally:
        path.unlink(missing_ok=True)  # new commands run on their own from here
        server.close()
        await quiet.wait()  # the commands already taken finish and answer
        await server.wait_closed()


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s app-server %(levelname)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # the tool calls' requests: one line each
    idle = float(os.environ.get(IDLE_ENV, IDLE_SECONDS))
    raise SystemExit(serve(home(), idle))


if __name__ == "__main__":
    main()
