"""The desk's Table API against the live host and a real world: queries, the form's validation on
writes, approvals, catalog orders and the type-ahead lookups."""

from __future__ import annotations

import httpx
import pytest

from apps_web.identity import SESSION_COOKIE, session_cookie

from .conftest import agent


def client_for(live_host, world, username: str | None) -> httpx.Client:
    headers = {"Host": f"desk.localhost:{live_host.port}", "X-Sandbox-World": world.id}
    if username:
        headers["Cookie"] = f"{SESSION_COOKIE}={session_cookie(live_host.secret, username, world.id)}"
    return httpx.Client(base_url=f"http://127.0.0.1:{live_host.port}", headers=headers)


@pytest.fixture()
def api(live_host):
    world = live_host.world()
    return world, client_for(live_host, world, agent(world)[0])


def test_list_with_encoded_query_and_get(api) -> None:
    world, c = api
    r = c.get("/api/now/table/incident", params={"sysparm_query": "priority=1^ORpriority=2^state=In Progress^ORDERBYnumber", "sysparm_limit": 5})
    assert r.status_code == 200
    expected = world.query("SELECT number FROM desk_incident WHERE priority IN (1, 2) AND state = 'In Progress' ORDER BY number")
    assert int(r.headers["X-Total-Count"]) == len(expected)
    assert [x["number"] for x in r.json()["result"]] == [e[0] for e in expected[:5]]
    first = r.json()["result"][0]
    assert set(first["assignment_group"]) == {"value", "display_value"}
    one = c.get(f"/api/now/table/incident/{first['sys_id']}").json()["result"]
    assert one["number"] == first["number"]
    assert c.get("/api/now/table/incident/999999").status_code == 404
    bad = c.get("/api/now/table/incident", params={"sysparm_query": "prioritee=1"})
    assert bad.status_code == 400 and "'prioritee' is not a field" in bad.json()["error"]["message"]
    assert c.get("/api/now/table/kb_knowledge", params={"sysparm_query": "kb_knowledge_base=Company Protocols"}).json()["result"]


def test_unauthenticated_is_401(live_host) -> None:
    world = live_host.world()
    assert client_for(live_host, world, None).get("/api/now/table/incident").status_code == 401


def test_create_and_update_go_through_the_forms_rules(api) -> None:
    world, c = api
    caller = world.one("SELECT id FROM identity_user WHERE role = 'sales_rep' ORDER BY id")[0]
    net = world.one("SELECT id FROM desk_group WHERE name = 'Network'")[0]
    outsider = world.one("SELECT id FROM identity_user WHERE role = 'sales_rep' ORDER BY id DESC")[0]
    before = world.one("SELECT count(*) FROM desk_incident")[0]
    bad = c.post("/api/now/table/incident", json={"caller_id": caller, "category": "Network", "subcategory": "Laptop", "short_description": ""})
    assert bad.status_code == 422
    detail = bad.json()["error"]["detail"]
    assert "not a subcategory of Network" in detail["subcategory"] and "short_description" in detail
    bad = c.post("/api/now/table/incident", json={"caller_id": caller, "short_description": "x", "assignment_group": net, "assigned_to": outsider})
    assert bad.status_code == 422 and "is not a member of Network" in bad.json()["error"]["detail"]["assigned_to"]
    assert c.post("/api/now/table/incident", json={"colour": "red"}).status_code == 422
    assert world.one("SELECT count(*) FROM desk_incident")[0] == before
    ok = c.post("/api/now/table/incident", json={"caller_id": caller, "category": "Network", "subcategory": "VPN", "impact": 1, "urgency": 2,
                                                  "short_description": "VPN down in Denver", "work_notes": "Checking the gateway"})
    assert ok.status_code == 201, ok.text
    inc = ok.json()["result"]
    assert inc["priority"] == 2 and inc["state"] == "New" and inc["number"] == "INC0011001"
    r = c.patch(f"/api/now/table/incident/{inc['sys_id']}", json={"state": "Resolved"})
    assert r.status_code == 422 and "Resolution code" in r.json()["error"]["message"]
    r = c.patch(f"/api/now/table/incident/{inc['sys_id']}", json={"state": "Resolved", "close_code": "Solution provided", "close_notes": "Gateway restarted"})
    assert r.status_code == 200
    assert world.one("SELECT state, close_code, resolved_at IS NOT NULL FROM desk_incident WHERE id = ?", inc["sys_id"]) == ("Resolved", "Solution provided", 1)
    assert world.one("SELECT count(*) FROM desk_journal WHERE record_id = ? AND kind = 'work_notes'", inc["sys_id"])[0] == 1
    assert c.delete(f"/api/now/table/incident/{inc['sys_id']}").status_code == 405
    assert c.patch("/api/now/table/cmdb_ci/1", json={"name": "x"}).status_code == 405


def test_order_and_approve(live_host) -> None:
    world = live_host.world()
    username, user_id = agent(world)
    c = client_for(live_host, world, username)
    item = world.one("SELECT id FROM desk_catalog_item WHERE name = 'Developer Laptop'")[0]
    bad = c.post(f"/api/sn_sc/servicecatalog/items/{item}/order_now", json={"variables": {"model": "Commodore 64"}})
    assert bad.status_code == 422 and "not an option of Model" in bad.json()["error"]["detail"]["model"]
    ok = c.post(f"/api/sn_sc/servicecatalog/items/{item}/order_now",
                json={"variables": {"model": "MacBook Pro 14 M3", "memory": "64 GB", "storage": "1 TB", "justification": "Simulations"}})
    assert ok.status_code == 200, ok.text
    ritm = ok.json()["result"]["ritm_id"]
    assert world.one("SELECT price, stage FROM desk_req_item WHERE id = ?", ritm) == (3000.0, "Waiting for Approval")
    approval, approver = world.one("SELECT id, approver_id FROM desk_approval WHERE req_item_id = ?", ritm)
    assert c.patch(f"/api/now/table/sysapproval_approver/{approval}", json={"state": "approved"}).status_code == 403
    boss = client_for(live_host, world, world.one("SELECT username FROM identity_user WHERE id = ?", approver)[0])
    r = boss.patch(f"/api/now/table/sysapproval_approver/{approval}", json={"state": "rejected"})
    assert r.status_code == 422 and "Comments are required" in r.json()["error"]["detail"]["comments"]
    assert boss.patch(f"/api/now/table/sysapproval_approver/{approval}", json={"state": "rejected", "comments": "Over budget"}).status_code == 200
    assert world.one("SELECT stage, approval FROM desk_req_item WHERE id = ?", ritm) == ("Request Cancelled", "rejected")


def test_lookup_filters_by_group(api) -> None:
    world, c = api
    db = world.one("SELECT id FROM desk_group WHERE name = 'Database'")[0]
    members = {r[0] for r in world.query("SELECT user_id FROM desk_group_member WHERE group_id = ?", db)}
    got = c.get("/api/desk/lookup/sys_user", params={"q": "", "group": db}).json()
    assert got and {x["id"] for x in got} <= members
    cis = c.get("/api/desk/lookup/cmdb_ci", params={"q": "ora-"}).json()
    assert cis and all("ora-" in x["label"] for x in cis)
