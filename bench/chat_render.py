"""Chat pages: server-side render time of every page at the default scale (target: median <= 20 ms
of CPU), in-process through httpx's ASGI transport, signed in as a sales rep (as crm_render)."""

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


def _pages(world, user_id: int) -> list[tuple[str, str]]:
    """(name, path) of every page, using the busiest conversations the user is in."""
    conn = world.connect()
    try:
        def busiest(kind: str) -> int:
            return conn.execute(
                "SELECT c.id FROM chat_conversation c JOIN chat_member m ON m.conversation_id = c.id AND m.user_id = ? "
                "WHERE c.kind = ? ORDER BY (SELECT count(*) FROM chat_message x WHERE x.conversation_id = c.id) DESC, c.id LIMIT 1",
                (user_id, kind)).fetchone()[0]
        channel, chat, group = busiest("channel"), busiest("oneonone"), busiest("group")
        post = conn.execute("SELECT max(id) FROM chat_message WHERE conversation_id = ? AND parent_id IS NULL", (channel,)).fetchone()[0]
    finally:
        conn.close()
    return [("activity", "/activity"), ("chat list", "/chat"), ("teams list", "/teams"), ("channel (busiest)", f"/channels/{channel}"),
            ("channel, all posts", f"/channels/{channel}?older=1"), ("channel, thread open", f"/channels/{channel}?open={post}"),
            ("channel files", f"/channels/{channel}/files"), ("channel people", f"/channels/{channel}/people"),
            ("1:1 chat", f"/chat/{chat}"), ("group chat", f"/chat/{group}"), ("new chat", "/chat/new"),
            ("search", "/search?q=renewal"), ("API conversations", "/api/conversations"),
            ("API messages", f"/api/conversations/{channel}/messages"), ("API people", "/api/people?q=a")]


async def _run(repeat: int, warmup: int) -> None:
    console = Console(width=max(Console().width, 150))
    home = Path(tempfile.mkdtemp(prefix="bench-chat-"))
    templates = Path(os.environ.get("SANDBOX_TEST_TEMPLATES", ROOT / "var" / "test-templates"))
    try:
        store = WorldStore(home, templates_dir=templates)
        world = store.create(seed=0)
        uid, username = world.one("SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id")
        host = create_host(store, secret=SECRET, apps=registry.discover())
        transport = httpx.ASGITransport(app=host, raise_app_exceptions=False)
        cookies = {SESSION_COOKIE: session_cookie(SECRET, username, world.id)}
        table = Table(title=f"Chat server-side render (seed 0, scale 1, signed in as {username}; {repeat} runs each)")
        for col in ("page", "path", "status", "KB", "median ms", "p95 ms", "cpu median ms", "verdict"):
            table.add_column(col, justify="left" if col in ("page", "path", "verdict") else "right")
        slow = 0
        async with httpx.AsyncClient(transport=transport, base_url="http://chat.localhost", headers={"X-Sandbox-World": world.id}, cookies=cookies) as client:
            for name, path in _pages(world, uid):
                status, samples, cpu = await _measure(client, path, repeat, warmup)
                if not samples:
                    table.add_row(name, path, str(status), "", "", "", "", f"[red]error {status}[/]")
                    slow += 1
                    continue
                size = len((await client.get(path)).content) / 1024
                s, c = summarize(samples), summarize(cpu)
                ok = c["median"] <= TARGET_MS
                slow += not ok
                table.add_row(name, path, str(status), f"{size:.0f}", f"{s['median']:.1f}", f"{s['p95']:.1f}", f"{c['median']:.1f}",
                              "[green]ok[/]" if ok else "[red]slow[/]")
        console.print(table)
        console.print(f"target: median <= {TARGET_MS:.0f} ms of CPU per page; {slow} slow or failing (load average {os.getloadavg()[0]:.1f})")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main(repeat: int = 20, warmup: int = 2) -> None:
    asyncio.run(_run(repeat, warmup))


if __name__ == "__main__":
    main()
