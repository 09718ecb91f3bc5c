"""Capture the CRM's key pages into docs/img/ exactly as an agent sees them (seed 0, frozen clock).

    .venv/bin/python scripts/screenshots.py [--out docs/img]

Each page is opened in a fresh episode (its own world fork, signed in as a sales rep) through the
environment, so the images are the agent's view: 1280x800, bundled fonts, no animations. Pages that
need a click first (a dialog) use the canonical action model, like an agent would.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

from apps_web.world import WorldStore
from sandbox.env import AsyncSandboxEnv
from sandbox.spec import free_spec


def _ids(store: WorldStore) -> dict[str, object]:
    """Record ids and a persona that make good pictures in the seed-0 world."""
    with closing(sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)) as conn:
        opp, owner = conn.execute(
            "select o.id, u.username from crm_opportunity o join identity_user u on u.id = o.owner_id "
            "where o.stage = 'Negotiation/Review' order by o.amount desc limit 1").fetchone()
        account = conn.execute(
            "select a.id from crm_account a join crm_contact c on c.account_id = a.id "
            "group by a.id order by count(*) desc limit 1").fetchone()[0]
        lead = conn.execute("select id from crm_lead where status = 'Working - Contacted' order by id limit 1").fetchone()[0]
    return {"opp": opp, "owner": owner, "account": account, "lead": lead}


async def _shoot(env: AsyncSandboxEnv, path: str, out: Path, clicks: tuple[str, ...] = ()) -> None:
    await env.reset(options={"start_url": path})
    page = env.page
    for name in clicks:  # role=button by accessible name, resolved to coordinates like the oracle does
        box = await page.get_by_role("button", name=name, exact=True).first.bounding_box()
        assert box is not None, f"no button {name!r} on {path}"
        await env.step({"action": "left_click", "x": int(box["x"] + box["width"] / 2), "y": int(box["y"] + box["height"] / 2)})
    out.write_bytes(await page.screenshot(type="png"))
    print(f"{out}  ({path})")


async def main(out_dir: Path) -> None:
    store = WorldStore()
    ids = _ids(store)
    out_dir.mkdir(parents=True, exist_ok=True)
    shots = [
        ("crm-home", "/", ()),
        ("crm-opportunities-list", "/opportunities?view=all&sort=-amount", ()),
        ("crm-opportunity-record", f"/opportunities/{ids['opp']}", ()),
        ("crm-account-related", f"/accounts/{ids['account']}?tab=related", ()),
        ("crm-board", "/opportunities/board", ()),
        ("crm-new-contact", "/contacts", ("New",)),
        ("crm-lead-convert", f"/leads/{ids['lead']}", ("Convert",)),
        ("crm-report", "/reports/pipeline-by-stage-and-owner", ()),
        ("crm-search", "/search?q=lodestar", ()),
    ]
    env = AsyncSandboxEnv(free_spec("crm", "/", persona=str(ids["owner"])), runtime_options={"store": store})
    try:
        for name, path, clicks in shots:
            await _shoot(env, path, out_dir / f"{name}.png", clicks)
    finally:
        await env.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    asyncio.run(main(parser.parse_args().out))
