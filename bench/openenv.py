"""OpenEnv server: one step over WebSocket (`sandbox env-server` in its own process, OpenEnv's client)
against the same step in process (``AsyncSandboxEnv``), interleaved so machine load hits both alike.

The step: a click on an empty part of the CRM's accounts list + a PNG screenshot (an in-page step).
``python -m bench openenv`` (``SANDBOX_BENCH_QUICK=1`` for a shorter run). Target: within 1.15x.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import socket

import httpx

from .stats import summarize

QUICK = bool(os.environ.get("SANDBOX_BENCH_QUICK"))
N = 30 if QUICK else 100
CLICK = {"action": "left_click", "x": 1200, "y": 780}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def run() -> None:
    from openenv.core import GenericEnvClient

    from sandbox.env import make_async_env
    from sandbox.observe import ObserveOptions

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "sandbox.cli", "env-server", "--port", str(port), "--max-sessions", "2"])
    try:
        async with httpx.AsyncClient() as http:
            deadline = time.monotonic() + 180
            while True:
                try:
                    if (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the OpenEnv server did not start")
                await asyncio.sleep(0.2)
        local = make_async_env("crm", "/accounts", observe=ObserveOptions(screenshot="png"))
        await local.reset(seed=0)
        async with GenericEnvClient(base_url=f"http://127.0.0.1:{port}", message_timeout_s=120) as remote:
            await remote.reset(app="crm", start_url="/accounts", seed=0)
            floor, ws = [], []
            for i in range(N + 5):
                t = time.perf_counter()
                await local.step(CLICK)
                a = (time.perf_counter() - t) * 1000
                t = time.perf_counter()
                await remote.step(CLICK)
                b = (time.perf_counter() - t) * 1000
                if i >= 5:
                    floor.append(a)
                    ws.append(b)
        await local.close()
    finally:
        server.terminate()
        server.wait(30)
    f, w = summarize(floor), summarize(ws)
    print(f"in-process step   median {f['median']:.1f} ms  p95 {f['p95']:.1f} ms  (n={f['n']})")
    print(f"OpenEnv WS step   median {w['median']:.1f} ms  p95 {w['p95']:.1f} ms  ratio {w['median'] / f['median']:.2f}x (target 1.15x)")


def main() -> None:
    asyncio.run(run())
