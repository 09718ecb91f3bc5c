"""Calendar and People pages of the mail app: server-side render time at the default scale (target:
CPU median <= 20 ms), measured in-process like ``crm_render`` (routing + queries + templates)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from apps_web import registry
from apps_web.host import create_host
from apps_web.identity import SESSION_COOKIE, session_cookie
from apps_web.world import WorldStore

from .crm_render import ROOT, SECRET, TARGET_MS, _measure
from .stats import summarize


def _pages(conn, user_id: int) -> list[tuple[str, str]]:
    ev = conn.execute("SELECT id FROM mail_event WHERE organizer_id = ? AND recurrence = 'none' ORDER BY start DESC", (user_id,)).fetchone()[0]
    invite = conn.execute("SELECT m.id FROM mail_message m JOIN mail_mailbox b ON b.id = m.mailbox_id WHERE b.user_id = ? "
                          "AND m.meeting_type = 'request' ORDER BY m.id", (user_id,)).fetchone()
    mates = [r[0] for r in conn.execute("SELECT lower(email) FROM identity_user WHERE id != ? ORDER BY id LIMIT 3", (user_id,))]
    pages = [("work week", "/calendar/view/workweek"), ("day", "/calendar/view/day"), ("month", "/calendar/view/month"),
             ("event details", f"/calendar/item/{ev}"), ("new event", "/calendar/deeplink/compose"),
             ("scheduling assistant (4 people, a room)", "/calendar/scheduling?room=3&duration=60&attendees=" + ";".join(mates)),
             ("people", "/people"), ("person card", f"/people/{user_id}"), ("people search", "/people?q=sales"),
             ("api events (week)", "/api/events")]
    if invite:
        pages.append(("invitation in the inbox", f"/mail/inbox/id/{invite[0]}"))
    return pages


async def _run(repeat: int, warmup: int) -> None:
    console = Console(width=max(Console().width, 150))
    home = Path(tempfile.mkdtemp(prefix="bench-cal-"))
    templates = Path(os.environ.get("SANDBOX_TEST_TEMPLATES", ROOT / "var" / "test-templates"))
    try:
        store = WorldStore(home, templates_dir=templates)
        world = store.create(seed=0)
        conn = world.connect()
        user_id, username = conn.execute("SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id").fetchone()
        pages = _pages(conn, user_id)
        conn.close()
        host = create_host(store, secret=SECRET, apps=registry.discover())
        transport = httpx.ASGITransport(app=host, raise_app_exceptions=False)
        cookies = {SESSION_COOKIE: session_cookie(SECRET, username, world.id)}
        table = Table(title=f"Calendar and People server-side render (seed 0, scale 1, signed in as {username}; {repeat} runs each)")
        for col in ("page", "status", "KB", "median ms", "cpu median ms", "verdict"):
            table.add_column(col, justify="left" if col in ("page", "verdict") else "right")
        async with httpx.AsyncClient(transport=transport, base_url="http://mail.localhost", headers={"X-Sandbox-World": world.id}, cookies=cookies) as client:
            for name, path in pages:
                status, samples, cpu = await _measure(client, path, repeat, warmup)
                if not samples:
                    table.add_row(name, str(status), "", "", "", "[red]error[/]")
                    continue
                size = len((await client.get(path)).content) / 1024
                ok = summarize(cpu)["median"] <= TARGET_MS
                table.add_row(name, str(status), f"{size:.0f}", f"{summarize(samples)['median']:.1f}", f"{summarize(cpu)['median']:.1f}",
                              "[green]ok[/]" if ok else "[red]slow[/]")
        console.print(table)
        console.print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs during the run)")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main(repeat: int = 20, warmup: int = 3) -> None:
    asyncio.run(_run(repeat, warmup))


if __name__ == "__main__":
    main()
