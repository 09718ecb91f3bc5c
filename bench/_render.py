"""The server-side render benchmark every app's ``*_render`` module runs: each page of the app,
in-process through httpx's ASGI transport (no sockets, no browser), signed in with a session cookie,
so the numbers are routing + queries + templates only. The verdict is on CPU time: in-process there
is no I/O to wait for, so on an idle machine wall time equals CPU time, and on a shared machine only
wall time is inflated by other load."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Callable

import httpx
from rich.console import Console
from rich.table import Table

from .stats import load_note, summarize

TARGET_MS = 20.0
SECRET = "bench-secret"
ROOT = Path(__file__).resolve().parent.parent

Pages = list[tuple[str, str]]  # (name, path) with real record ids of the world


async def measure(client: httpx.AsyncClient, path: str, repeat: int, warmup: int) -> tuple[int, list[float], list[float]]:
    """Wall-clock and process-CPU milliseconds per request."""
    status = 0
    for _ in range(warmup):
        status = (await client.get(path)).status_code
    if status >= 400:
        return status, [], []
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        response = await client.get(path)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        status = response.status_code
    return status, wall, cpu


def run(title: str, host_name: str, user_sql: str, pages: Callable[[sqlite3.Connection, int], Pages], *,
        repeat: int, warmup: int) -> None:
    """Render every page of ``pages(conn, user_id)`` on ``host_name`` (e.g. "desk.localhost"), signed in
    as the first user ``user_sql`` selects (``SELECT id, username ...``), seed 0 at scale 1."""
    asyncio.run(_run(title, host_name, user_sql, pages, repeat, warmup))


async def _run(title: str, host_name: str, user_sql: str, pages: Callable[[sqlite3.Connection, int], Pages],
               repeat: int, warmup: int) -> None:
    from apps_web import registry
    from apps_web.host import create_host
    from apps_web.identity import SESSION_COOKIE, session_cookie
    from apps_web.world import WorldStore

    console = Console(width=max(Console().width, 150))
    home = Path(tempfile.mkdtemp(prefix="bench-render-"))
    templates = Path(os.environ.get("SANDBOX_TEST_TEMPLATES", ROOT / "var" / "test-templates"))
    try:
        store = WorldStore(home, templates_dir=templates)
        world = store.create(seed=0)
        conn = world.connect()
        try:
            user_id, username = conn.execute(user_sql).fetchone()
            todo = pages(conn, user_id)
        finally:
            conn.close()
        host = create_host(store, secret=SECRET, apps=registry.discover())
        transport = httpx.ASGITransport(app=host, raise_app_exceptions=False)  # a broken page is a row, not a crash
        cookies = {SESSION_COOKIE: session_cookie(SECRET, username, world.id)}
        table = Table(title=f"{title} server-side render (seed 0, scale 1, signed in as {username}; {repeat} runs each)")
        for col in ("page", "path", "status", "KB", "median ms", "p95 ms", "cpu median ms", "verdict"):
            table.add_column(col, justify="left" if col in ("page", "path", "verdict") else "right")
        slow = missing = 0
        async with httpx.AsyncClient(transport=transport, base_url=f"http://{host_name}", headers={"X-Sandbox-World": world.id},
                                     cookies=cookies) as client:
            for name, path in todo:
                try:
                    status, samples, cpu = await measure(client, path, repeat, warmup)
                except Exception as exc:  # noqa: BLE001 - keep measuring the other pages
                    status, samples, cpu = 0, [], []
                    console.print(f"[red]{path}: {type(exc).__name__}: {exc}[/]")
                if not samples:
                    missing += 1
                    table.add_row(name, path, str(status), "", "", "", "", "[yellow]missing[/]" if status == 404 else f"[red]error {status or ''}[/]")
                    continue
                size = len((await client.get(path)).content) / 1024
                s, c = summarize(samples), summarize(cpu)
                ok = c["median"] <= TARGET_MS
                slow += not ok
                table.add_row(name, path, str(status), f"{size:.0f}", f"{s['median']:.1f}", f"{s['p95']:.1f}", f"{c['median']:.1f}",
                              "[green]ok[/]" if ok else "[red]slow[/]")
        console.print(table)
        console.print(f"target: median <= {TARGET_MS:.0f} ms of CPU per page; {slow} slow, {missing} missing or failing ({load_note()})")
    finally:
        shutil.rmtree(home, ignore_errors=True)
