"""CRM pages: server-side render time of every main page at the default scale (target: median <= 20 ms).

The host is called in-process through httpx's ASGI transport (no sockets, no browser), signed in as
a sales rep with a session cookie, so the numbers are routing + queries + templates only. Pages that
are not built yet answer 404 and are reported as missing.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from apps_web import registry
from apps_web.host import create_host
from apps_web.identity import SESSION_COOKIE, session_cookie
from apps_web.world import WorldStore

from .stats import summarize

TARGET_MS = 20.0
SECRET = "bench-secret"
ROOT = Path(__file__).resolve().parent.parent


def _pages(world) -> list[tuple[str, str]]:
    """(name, path) of every main page, with real record ids of this world."""
    from apps_web.crm.reports import REPORTS

    conn = world.connect()
    try:
        word = conn.execute("SELECT name FROM crm_account ORDER BY id LIMIT 1").fetchone()
        query = word[0].split()[0] if word else "a"
        objects = [("accounts", "crm_account"), ("contacts", "crm_contact"), ("leads", "crm_lead"),
                   ("opportunities", "crm_opportunity"), ("cases", "crm_case"), ("activities", "crm_activity")]
        middle = {}
        for path, table in objects:
            row = conn.execute(f"SELECT id FROM {table} ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM {table})").fetchone()
            if row:
                middle[path] = row[0]
        opp = conn.execute("SELECT opportunity_id FROM crm_opportunity_line_item ORDER BY id LIMIT 1").fetchone()
        quote = conn.execute("SELECT id FROM crm_quote ORDER BY id LIMIT 1").fetchone()
    finally:
        conn.close()
    pages = [("home", "/")]
    pages += [(f"list {path}", f"/{path}") for path, _t in objects if path != "activities"]  # activities: record pages only
    singular = {"accounts": "account", "contacts": "contact", "leads": "lead", "opportunities": "opportunity", "cases": "case", "activities": "activity"}
    pages += [(f"record {singular[path]}", f"/{path}/{rid}") for path, rid in middle.items()]
    pages += [("board (all)", "/opportunities/board"), ("board (mine)", "/opportunities/board?scope=mine"), ("reports list", "/reports")]
    pages += [(f"report {rid}", f"/reports/{rid}") for rid in REPORTS]
    pages += [("report CSV (pipeline)", "/reports/pipeline-by-stage-and-owner.csv"), ("search", f"/search?q={query}")]
    if opp:  # the sales process pages
        pages += [("opportunity with products", f"/opportunities/{opp[0]}?tab=related"), ("add products", f"/opportunities/{opp[0]}/products/add"),
                  ("edit products", f"/opportunities/{opp[0]}/products/edit")]
    if quote:
        pages += [("quote", f"/quotes/{quote[0]}"), ("quote PDF", f"/quotes/{quote[0]}/pdf"), ("items to approve", "/approvals")]
    return pages


async def _measure(client: httpx.AsyncClient, path: str, repeat: int, warmup: int) -> tuple[int, list[float], list[float]]:
    """Wall-clock and process-CPU milliseconds per request (CPU time is what other load on a
    shared machine cannot inflate much; wall time is what a client waits)."""
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


async def _run(repeat: int, warmup: int) -> None:
    console = Console(width=max(Console().width, 150))
    home = Path(tempfile.mkdtemp(prefix="bench-crm-"))
    templates = Path(os.environ.get("SANDBOX_TEST_TEMPLATES", ROOT / "var" / "test-templates"))
    try:
        store = WorldStore(home, templates_dir=templates)
        world = store.create(seed=0)
        conn = world.connect()
        username = conn.execute("SELECT username FROM identity_user WHERE role = 'sales_rep' ORDER BY id").fetchone()[0]
        conn.close()
        host = create_host(store, secret=SECRET, apps=registry.discover())
        transport = httpx.ASGITransport(app=host, raise_app_exceptions=False)  # a broken page is a row, not a crash
        cookies = {SESSION_COOKIE: session_cookie(SECRET, username, world.id)}
        headers = {"X-Sandbox-World": world.id}
        table = Table(title=f"CRM server-side render (seed 0, scale 1, signed in as {username}; {repeat} runs each)")
        for col in ("page", "path", "status", "KB", "median ms", "p95 ms", "cpu median ms", "verdict"):
            table.add_column(col, justify="left" if col in ("page", "path", "verdict") else "right")
        slow = missing = 0
        async with httpx.AsyncClient(transport=transport, base_url="http://crm.localhost", headers=headers, cookies=cookies) as client:
            for name, path in _pages(world):
                try:
                    status, samples, cpu = await _measure(client, path, repeat, warmup)
                except Exception as exc:  # noqa: BLE001 - keep measuring the other pages
                    status, samples, cpu = 0, [], []
                    console.print(f"[red]{path}: {type(exc).__name__}: {exc}[/]")
                if not samples:
                    missing += 1
                    table.add_row(name, path, str(status), "", "", "", "", "[yellow]missing[/]" if status == 404 else f"[red]error {status or ''}[/]")
                    continue
                size = len((await client.get(path)).content) / 1024
                s = summarize(samples)
                # Judged on CPU time: in-process there is no I/O to wait for, so on an idle machine wall
                # time equals CPU time, and on a shared one only wall time is inflated by other load.
                ok = summarize(cpu)["median"] <= TARGET_MS
                slow += not ok
                table.add_row(name, path, str(status), f"{size:.0f}", f"{s['median']:.1f}", f"{s['p95']:.1f}",
                              f"{summarize(cpu)['median']:.1f}", "[green]ok[/]" if ok else "[red]slow[/]")
        console.print(table)
        console.print(f"target: median <= {TARGET_MS:.0f} ms per page (verdict on CPU time); {slow} slow, {missing} missing or failing"
                      f" (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs during the run)")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main(repeat: int = 30, warmup: int = 3) -> None:
    asyncio.run(_run(repeat, warmup))


if __name__ == "__main__":
    main()
