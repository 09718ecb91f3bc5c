"""The app host for episodes: a child process (default) or a thread, on a free port, stopped cleanly."""

from __future__ import annotations

import json
import urllib.request

import pytest

from apps_web.registry import AppSpec
from sandbox.apphost import AppHost, AppHostError
from sandbox.runtime import default_apps


def get(url: str, host: str | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"Host": host} if host else {})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, resp.read()


@pytest.mark.parametrize("mode", ["process", "thread"])
def test_host_serves_and_stops(store, mode):  # noqa: ANN001
    host = AppHost.start(store, secret="s", apps=default_apps("playground"), mode=mode)
    try:
        assert host.alive and host.port > 0
        assert (host.pid is not None) == (mode == "process")
        assert get(f"http://127.0.0.1:{host.port}/healthz")[0] == 200
        status, body = get(f"http://127.0.0.1:{host.port}/page2", f"playground.localhost:{host.port}")
        assert status == 200 and b"Page two" in body
        world = store.create(0)
        req = urllib.request.Request(
            f"http://127.0.0.1:{host.port}/whoami",
            headers={"Host": f"playground.localhost:{host.port}", "X-Sandbox-World": world.id},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert json.loads(resp.read())["world"] == world.id  # the host reads worlds this process forks
        assert host.url("crm", "/accounts") == f"http://crm.localhost:{host.port}/accounts"
        assert host.is_own_url(f"http://crm.localhost:{host.port}/x") and host.is_own_url(f"http://localhost:{host.port}/")
        assert not host.is_own_url(f"http://crm.localhost:{host.port + 1}/") and not host.is_own_url("https://example.com/")
        assert not host.is_own_url(f"http://127.0.0.1:{host.port}/") and not host.is_own_url("javascript:1")
    finally:
        host.close()
    assert not host.alive
    with pytest.raises(OSError):
        get(f"http://127.0.0.1:{host.port}/healthz")


def test_unreachable_app_spec_is_refused(store):  # noqa: ANN001
    from pathlib import Path

    local = AppSpec(name="local", title="L", description="", icon="", package_dir=Path("."), router=lambda: None)
    with pytest.raises(AppHostError, match="cannot be found by the host process"):
        AppHost.start(store, apps=(local,), mode="process")


def test_host_connections_send_without_waiting_for_acks():
    """The host's socket is served by asyncio (as uvicorn serves it): its connections must have Nagle
    off, or every keep-alive request from a client that delays its ACKs (Python's http.client, httpx's
    sync client) waits about 40 ms between the answer's head and its body."""
    import asyncio
    import socket

    from sandbox.apphost import _bind

    async def accepted_nodelay() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        server = await asyncio.get_running_loop().create_server(Probe, sock=_bind())
        port = server.sockets[0].getsockname()[1]
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            return await asyncio.wait_for(seen, 10)
        finally:
            writer.close()
            server.close()

    # in a thread of its own: a sync Playwright test before it in this worker leaves a loop running here
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(asyncio.run, accepted_nodelay()).result(timeout=30) != 0
