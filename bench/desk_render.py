"""Service desk pages: server-side render time at the default scale (target: median <= 20 ms CPU).

Same method as ``crm_render`` (in-process ASGI calls, signed in with a session cookie), on the desk's
main pages: lists (plain, grouped), forms of incidents, problems and changes, the dashboard.
"""

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


def _pages(conn) -> list[tuple[str, str]]:
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    inc = one("SELECT id FROM desk_incident WHERE state = 'In Progress' ORDER BY id DESC LIMIT 1")
    prb = one("SELECT p.id FROM desk_problem p ORDER BY (SELECT count(*) FROM desk_incident i WHERE i.problem_id = p.id) DESC, p.id LIMIT 1")
    chg = one("SELECT id FROM desk_change WHERE state = 'Scheduled' ORDER BY id LIMIT 1")
    return [
        ("home", "/"), ("dashboard", "/dashboard"),
        ("incident list", "/incident_list.do"), ("incident list filtered", "/incident_list.do?sysparm_query=stateINNew,In Progress,On Hold^priority<=3"),
        ("incident list grouped", "/incident_list.do?sysparm_query=stateINNew,In Progress,On Hold^GROUPBYassignment_group"),
        ("incident list breached", "/incident_list.do?sysparm_query=sla_breached=true"),
        ("incident form", f"/incident.do?sys_id={inc}"), ("problem list", "/problem_list.do"), ("problem form", f"/problem.do?sys_id={prb}"),
        ("change list", "/change_request_list.do"), ("change form", f"/change_request.do?sys_id={chg}"),
        ("task SLA list", "/task_sla_list.do?sysparm_query=has_breached=true"), ("CI form", "/cmdb_ci.do?sys_id=420"),
        ("kb article", "/kb_view.do?sysparm_article=KB0010118"),
    ]


async def _run(repeat: int, warmup: int) -> None:
    console = Console(width=max(Console().width, 150))
    home = Path(tempfile.mkdtemp(prefix="bench-desk-"))
    templates = Path(os.environ.get("SANDBOX_TEST_TEMPLATES", ROOT / "var" / "test-templates"))
    try:
        store = WorldStore(home, templates_dir=templates)
        world = store.create(seed=0)
        conn = world.connect()
        username = conn.execute("""SELECT u.username FROM identity_user u JOIN desk_group_member m ON m.user_id = u.id JOIN desk_group g ON g.id = m.group_id
                                   WHERE g.name = 'Service Desk' AND u.title = 'Service Desk Analyst' ORDER BY u.id""").fetchone()[0]
        pages = _pages(conn)
        conn.close()
        host = create_host(store, secret=SECRET, apps=registry.discover())
        transport = httpx.ASGITransport(app=host, raise_app_exceptions=False)
        cookies = {SESSION_COOKIE: session_cookie(SECRET, username, world.id)}
        table = Table(title=f"Desk server-side render (seed 0, scale 1, signed in as {username}; {repeat} runs each)")
        for col in ("page", "status", "KB", "median ms", "cpu median ms", "verdict"):
            table.add_column(col, justify="left" if col in ("page", "verdict") else "right")
        slow = 0
        async with httpx.AsyncClient(transport=transport, base_url="http://desk.localhost", headers={"X-Sandbox-World": world.id}, cookies=cookies) as client:
            for name, path in pages:
                status, samples, cpu = await _measure(client, path, repeat, warmup)
                if not samples:
                    table.add_row(name, str(status), "", "", "", "[red]error[/]")
                    slow += 1
                    continue
                size = len((await client.get(path)).content) / 1024
                ok = summarize(cpu)["median"] <= TARGET_MS
                slow += not ok
                table.add_row(name, str(status), f"{size:.0f}", f"{summarize(samples)['median']:.1f}", f"{summarize(cpu)['median']:.1f}",
                              "[green]ok[/]" if ok else "[red]slow[/]")
        console.print(table)
        console.print(f"target: median <= {TARGET_MS:.0f} ms CPU per page; {slow} slow or failing (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main(repeat: int = 15, warmup: int = 2) -> None:
    asyncio.run(_run(repeat, warmup))
