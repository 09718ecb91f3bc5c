"""Capture the apps' key pages into docs/img/ exactly as an agent sees them (seed 0, frozen clock).

    .venv/bin/python scripts/screenshots.py [--out docs/img]

Each page is opened in a fresh episode (its own world fork, signed in as a sales rep for the CRM, mail
and chat, a Service Desk analyst for the desk, a support agent for a shared mailbox) through the
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


def _sales_ids(store: WorldStore) -> dict[str, object]:
    """A quote that went through approval, its opportunity (with products) and their owner."""
    with closing(sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)) as conn:
        quote, opp, owner = conn.execute(
            "select q.id, q.opportunity_id, u.username from crm_quote q join crm_approval_request a on a.quote_id = q.id "
            "join identity_user u on u.id = q.owner_id where a.status in ('Approved', 'Rejected') order by q.id limit 1").fetchone()
    return {"quote": quote, "opp": opp, "owner": owner}


def _crm_people(store: WorldStore) -> dict[str, object]:
    """A support agent (the case board) and the administrator (Setup's record type pages), and the Renewal type."""
    with closing(sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)) as conn:
        agent = conn.execute("select username from identity_user where role = 'support_agent' order by id limit 1").fetchone()[0]
        admin = conn.execute("select username from identity_user where role = 'admin' order by id limit 1").fetchone()[0]
        renewal = conn.execute("select id from crm_record_type where object_type = 'opportunity' and developer_name = 'Renewal'").fetchone()[0]
    return {"agent": agent, "admin": admin, "renewal": renewal}


def CRM_BOARD_AND_SETUP_SHOTS(ids: dict, people: dict) -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:  # noqa: N802 - a table of shots
    """The lead and case boards (each the board of a list view) and Setup's record type pages, by persona."""
    renewal = f"/setup/object-manager/opportunity/record-types/{people['renewal']}"
    return {
        str(ids["owner"]): [("crm-lead-board", "/leads/board?view=my_open", ())],
        str(people["agent"]): [("crm-case-board", "/cases/board?view=all_open&group=priority", ())],
        str(people["admin"]): [("crm-setup-record-types", "/setup/object-manager/opportunity/record-types", ()),
                               ("crm-setup-record-type-values", f"{renewal}/picklists/stage", ()),
                               ("crm-setup-profile-record-types", "/setup/profiles/sales_rep", ())],
    }


def _desk_ids(store: WorldStore) -> dict[str, object]:
    with closing(sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)) as conn:
        agent = conn.execute(
            "select u.username from identity_user u join desk_group_member m on m.user_id = u.id join desk_group g on g.id = m.group_id "
            "where g.name = 'Service Desk' and u.title = 'Service Desk Analyst' order by u.id limit 1").fetchone()[0]
        incident = conn.execute(
            "select i.id from desk_incident i where i.state = 'In Progress' and exists "
            "(select 1 from desk_journal j where j.record_id = i.id and j.table_name = 'incident') order by i.id desc limit 1").fetchone()[0]
        problem = conn.execute(
            "select p.id from desk_problem p where p.state = 'Root Cause Analysis' and (select count(*) from desk_incident i where i.problem_id = p.id) >= 3 "
            "order by p.id limit 1").fetchone()[0]
        change = conn.execute(
            "select a.id from desk_change a join desk_change b on a.ci_id = b.ci_id and a.id != b.id and a.start_date < b.end_date and a.end_date > b.start_date "
            "where a.state not in ('Closed', 'Canceled') and b.state not in ('Closed', 'Canceled') order by a.id limit 1").fetchone()[0]
        catalog_admin = conn.execute(
            "select u.username from identity_user u join desk_user_role r on r.user_id = u.id where r.role = 'catalog_admin' "
            "and not exists (select 1 from desk_user_role a where a.user_id = u.id and a.role = 'admin') order by u.id limit 1").fetchone()[0]
        admin = conn.execute(
            "select u.username from identity_user u join desk_user_role r on r.user_id = u.id where r.role = 'admin' order by u.id limit 1").fetchone()[0]
        caller = conn.execute(
            "select u.id from identity_user u where u.role = 'sales_rep' and not exists (select 1 from desk_user_role r where r.user_id = u.id) "
            "and (select count(*) from desk_incident i where i.caller_id = u.id) >= 2 order by u.id limit 1").fetchone()[0]
    return {"agent": agent, "incident": incident, "problem": problem, "change": change, "catalog_admin": catalog_admin, "admin": admin, "caller": caller}


def DESK_ITSM_SHOTS(desk: dict) -> list[tuple[str, str, tuple[str, ...]]]:  # noqa: N802 - a table of shots
    """Problem, change, grouped list and dashboard pages of the desk."""
    return [
        ("desk-problem-form", f"/problem.do?sys_id={desk['problem']}", ()),
        ("desk-change-conflict", f"/change_request.do?sys_id={desk['change']}", ()),
        ("desk-list-group-by", "/incident_list.do?sysparm_query=stateINNew,In Progress,On Hold^GROUPBYassignment_group", ()),
        ("desk-dashboard", "/dashboard", ()),
    ]


def _comms_ids(store: WorldStore) -> dict[str, object]:
    """A support agent of the support@ shared mailbox and a customer who wrote to it, a manager with
    reports (the people card's org chart), and a sales rep busy in chat."""
    with closing(sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)) as conn:
        agent, support = conn.execute(
            "select u.username, s.address from identity_user u join mail_mailbox_member mm on mm.user_id = u.id "
            "join mail_mailbox s on s.id = mm.mailbox_id and s.address like 'support@%' where u.role = 'support_agent' order by u.id limit 1").fetchone()
        customer = conn.execute(
            "select substr(m.from_address, instr(m.from_address, '@') + 1) from mail_message m join mail_mailbox s on s.id = m.mailbox_id "
            "where s.address = ? and m.from_address not like 'support@%' group by 1 order by count(*) desc, 1 limit 1", (support,)).fetchone()[0]
        manager = conn.execute("select m.id from identity_user m join identity_user r on r.manager_id = m.id "
                               "where m.role = 'sales_manager' group by m.id order by count(*) desc, m.id limit 1").fetchone()[0]
        rep, rep_id = conn.execute("select username, id from identity_user where role = 'sales_rep' order by id limit 1").fetchone()
        channel = conn.execute(
            "select c.id from chat_conversation c join chat_member m on m.conversation_id = c.id and m.user_id = ? where c.kind = 'channel' "
            "order by (select count(*) from chat_member x where x.conversation_id = c.id) desc, c.id limit 1", (rep_id,)).fetchone()[0]
    return {"agent": agent, "support": support, "customer": customer, "manager": manager, "rep": rep, "channel": channel}


def COMMS_SHOTS(c: dict) -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:  # noqa: N802 - a table of shots
    """Mail and chat pages the docs show that the first captures of those apps lacked, by persona."""
    return {
        c["agent"]: [("mail-shared-search", f"/mail/{c['support']}/search?q=from:{c['customer']}", ())],
        c["rep"]: [("mail-rules-and-automatic-replies", "/mail/options", ()), ("mail-people-card", f"/people/{c['manager']}", ())],
    }


def _drive_ids(store: WorldStore) -> dict[str, object]:
    """A seeded proposal with a pricing table of several products (drawn from the CRM) and its author."""
    with closing(sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)) as conn:
        doc, owner = conn.execute(
            "select i.id, u.username from drive_item i join identity_user u on u.id = i.owner_id join drive_block b on b.item_id = i.id "
            "where i.name like 'Proposal - %' and b.style = 'Table' order by length(b.text) - length(replace(b.text, char(10), '')) desc, i.id limit 1").fetchone()
    return {"proposal": doc, "owner": owner}


def CHAT_SHOTS(c: dict) -> list[tuple[str, str, tuple[str, ...]]]:  # noqa: N802 - a table of shots
    return [("chat-activity", "/activity", ()), ("chat-channel-people", f"/channels/{c['channel']}/people", ())]


async def _shoot(env: AsyncSandboxEnv, path: str, out: Path, clicks: tuple[str, ...] = ()) -> None:
    await env.reset(options={"start_url": path})
    page = env.page
    for name in clicks:  # role=button by accessible name, resolved to coordinates like the oracle does
        if name.startswith("wheel:"):  # wheel clicks down over the page's middle, as an agent scrolls
            await env.step({"action": "scroll", "x": 600, "y": 500, "direction": "down", "amount": int(name[6:])})
            continue
        box = await page.get_by_role("button", name=name, exact=True).first.bounding_box()
        assert box is not None, f"no button {name!r} on {path}"
        await env.step({"action": "left_click", "x": int(box["x"] + box["width"] / 2), "y": int(box["y"] + box["height"] / 2)})
    out.write_bytes(await page.screenshot(type="png"))
    print(f"{out}  ({path})")


async def _impersonating(env: AsyncSandboxEnv, user_id: int, out: Path) -> None:
    """The desk while an admin impersonates a caller: the Impersonate user dialog posts the user, as
    choosing them from its type-ahead does; the picture is the caller's homepage with the banner."""
    await env.reset(options={"start_url": "/"})
    page = env.page
    async with page.expect_navigation():
        await page.evaluate("""(id) => { const f = document.querySelector('form[action="/impersonate.do"]');
                                         f.querySelector('[name="user"]').value = String(id); f.submit(); }""", user_id)
    await page.get_by_role("region", name="Impersonation").wait_for()
    out.write_bytes(await page.screenshot(type="png"))
    print(f"{out}  (impersonating user {user_id})")


async def _run(app: str, persona: str, shots: list, out_dir: Path, store: WorldStore, only: set[str]) -> None:
    shots = [s for s in shots if not only or s[0] in only]
    if not shots:
        return
    env = AsyncSandboxEnv(free_spec(app, "/", persona=persona), runtime_options={"store": store})
    try:
        for name, path, clicks in shots:
            await _shoot(env, path, out_dir / f"{name}.png", clicks)
    finally:
        await env.close()


async def main(out_dir: Path, only: set[str]) -> None:
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
        ("crm-list-view-controls", "/opportunities?view=mine", ("List View Controls",)),
        ("crm-report-builder", "/reports/builder?type=opportunities&g1=stage&g2=owner&sum=amount:sum&ff=type&fo=equals"
                               "&fv=New+Business&chart=bar&cols=1&col=name&col=account&col=amount&col=close_date", ()),
    ]
    await _run("crm", str(ids["owner"]), shots, out_dir, store, only)
    sales = _sales_ids(store)
    sales_shots = [
        ("crm-opportunity-products", f"/opportunities/{sales['opp']}?tab=related", ()),
        ("crm-quote", f"/quotes/{sales['quote']}", ()),
        ("crm-dashboard", "/dashboards/1", ()),
    ]
    await _run("crm", str(sales["owner"]), sales_shots, out_dir, store, only)
    for persona, crm_shots in CRM_BOARD_AND_SETUP_SHOTS(ids, _crm_people(store)).items():
        await _run("crm", persona, crm_shots, out_dir, store, only)
    desk = _desk_ids(store)
    desk_shots = [
        ("desk-home", "/", ("All",)),
        ("desk-incident-list", "/incident_list.do?sysparm_query=category=Network^state=In Progress^ORstate=On Hold", ("Show / hide filter",)),
        ("desk-incident-form", f"/incident.do?sys_id={desk['incident']}", ()),
        ("desk-kb-article", "/kb_view.do?sysparm_article=KB0010001", ()),
        ("desk-catalog-item", "/sc_cat_item.do?sys_id=1", ()),
    ] + DESK_ITSM_SHOTS(desk)
    await _run("desk", str(desk["agent"]), desk_shots, out_dir, store, only)
    await _run("desk", str(desk["catalog_admin"]), [("desk-catalog-maintain", "/sc_cat_item_maintain.do?sys_id=1", ())], out_dir, store, only)
    if not only or "desk-impersonation" in only:
        env = AsyncSandboxEnv(free_spec("desk", "/", persona=str(desk["admin"])), runtime_options={"store": store})
        try:
            await _impersonating(env, int(desk["caller"]), out_dir / "desk-impersonation.png")
        finally:
            await env.close()
    comms = _comms_ids(store)
    for persona, mail_shots in COMMS_SHOTS(comms).items():
        await _run("mail", str(persona), mail_shots, out_dir, store, only)
    await _run("chat", str(comms["rep"]), CHAT_SHOTS(comms), out_dir, store, only)
    drive = _drive_ids(store)
    await _run("drive", str(drive["owner"]), [("drive-proposal-table", f"/doc/{drive['proposal']}", ("wheel:4",))], out_dir, store, only)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    parser.add_argument("--only", nargs="*", default=[], help="names of the images to capture (default: all)")
    args = parser.parse_args()
    asyncio.run(main(args.out, set(args.only)))
