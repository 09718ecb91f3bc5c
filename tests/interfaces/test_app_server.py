"""The warm server behind `sandbox app`: found by its store, out of the way when it cannot answer
(a dead socket, other source), and gone when idle. The commands it answers are tested in test_shell."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sandbox import app_server

ROOT = Path(__file__).resolve().parents[2]


def test_the_server_is_found_where_the_world_store_is(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from apps_web.world import default_home

    monkeypatch.delenv("SANDBOX_HOME", raising=False)
    assert app_server.home() == default_home()
    monkeypatch.setenv("SANDBOX_HOME", str(tmp_path))
    assert app_server.home() == default_home() == tmp_path
    path = app_server.socket_path(tmp_path)
    assert path != app_server.socket_path(tmp_path / "other") and len(str(path)) < 100  # a Unix socket's path is short


def test_a_dead_or_foreign_socket_is_no_server(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("SANDBOX_HOME", str(tmp_path))
    monkeypatch.delenv(app_server.ENABLED_ENV, raising=False)
    path = app_server.socket_path(tmp_path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # the file stays, nothing listens: a server killed without cleaning up
    dead.close()
    listening = None
    try:
        assert app_server.ask(["tools", "crm"], False) is None  # the command runs in its own process
        assert app_server.stop() == "no app server was running"
        # A socket others could have put there is not talked to, even when something listens on it.
        path.unlink()
        listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listening.bind(str(path))
        listening.listen()
        forger = threading.Thread(target=_forge, args=(listening,), daemon=True)
        forger.start()
        path.parent.chmod(0o777)
        assert app_server.ask(["tools", "crm"], False) is None
    finally:
        path.parent.chmod(0o700)
        if listening is not None:
            listening.close()  # the forger's accept ends
        path.unlink(missing_ok=True)


def _forge(listening: socket.socket) -> None:
    """Answer one command with a forged reply, as a socket planted by someone else would."""
    try:
        conn, _ = listening.accept()
    except OSError:
        return
    with conn:
        conn.makefile("rb").readline()
        conn.sendall(b'{"out": "forged", "err": "", "code": 0}\n')


def _server() -> subprocess.Popen:
    """A server in the test's environment (another environment would make it stale to the test's commands)."""
    proc = subprocess.Popen([sys.executable, "-m", "sandbox.app_server"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = proc.stdout.readline()
    assert line.startswith(b"ready"), proc.communicate(timeout=60)[1].decode()[-2000:]
    return proc


def test_a_server_steps_aside_for_other_source_or_settings_and_stops_when_idle(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("SANDBOX_HOME", str(tmp_path))
    monkeypatch.setenv(app_server.IDLE_ENV, "2")
    monkeypatch.delenv(app_server.ENABLED_ENV, raising=False)
    path = app_server.socket_path(tmp_path)
    # Source changed since it started: it answers that it is stale (nothing runs) and stops.
    proc = _server()
    try:
        assert path.exists()
        answer = app_server._exchange({"argv": ["tools", "crm"], "json": False, "env": {}, "version": "older"})
        assert answer == {"stale": True}
        assert proc.wait(timeout=60) == 0 and not path.exists()
        # A second server for the same store while one runs: it leaves at once.
        proc = _server()
        twin = subprocess.run([sys.executable, "-m", "sandbox.app_server"], cwd=ROOT, capture_output=True, timeout=60)
        assert twin.returncode == 0 and not twin.stdout
        # It answers like the command would, then stops after 2 s without a command.
        reply = app_server.ask(["tools", "crm"], False)
        assert reply is not None and reply.code == 0 and "crm_update_opportunity" in reply.out and "desk_" not in reply.out
        usage = app_server.ask(["crm", "opportunity"], False)
        assert usage is not None and usage.code == 2 and usage.err.startswith("error: usage: sandbox app APP OBJECT VERB")
        # A warm command imports none of the apps (that is the server's work: seconds otherwise).
        light = ("import sys; from sandbox.commands.app import execute; code = execute(['tools', 'crm'], False); "
                 "assert code == 0 and not [m for m in sys.modules if m.startswith('apps_web.')], sorted(sys.modules)")
        client = subprocess.run([sys.executable, "-c", light], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert client.returncode == 0 and "crm_update_opportunity" in client.stdout, client.stderr[-2000:]
        assert proc.wait(timeout=60) == 0 and not path.exists()
        assert b"idle for 2 s: stopping" in proc.stderr.read()
        # Another environment (a judge's settings, say) is another server's: stale, like other source.
        proc = _server()
        monkeypatch.setenv("SANDBOX_JUDGE_MODEL", "another")
        assert app_server.ask(["tools", "crm"], False) is None
        assert proc.wait(timeout=60) == 0 and not path.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            path.unlink(missing_ok=True)
            path.with_suffix(".lock").unlink(missing_ok=True)
            pytest.fail("the server did not stop")


def test_a_usage_error_starts_no_server(tmp_path) -> None:  # noqa: ANN001
    env = {k: v for k, v in os.environ.items() if k != app_server.ENABLED_ENV}
    done = subprocess.run([sys.executable, "-m", "sandbox.cli", "app", "crm"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**env, "SANDBOX_HOME": str(tmp_path)})
    assert done.returncode == 2 and "usage: sandbox app APP OBJECT VERB" in done.stderr, done.stderr
    assert not (tmp_path / app_server.LOG_NAME).exists()  # a start opens the log before the server runs
