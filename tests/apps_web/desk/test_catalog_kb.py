"""Service catalog, approvals and knowledge in real Chromium, each checked against the database."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Browser, expect

from .conftest import agent


def test_order_laptop_with_variables(fresh, live_host) -> None:
    world, page = fresh
    me = agent(world)[1]
    page.goto(live_host.url("desk", "/catalog"))
    page.get_by_role("link", name="Standard Laptop").click()
    order = page.get_by_role("form", name="Standard Laptop")
    order.get_by_label("Model").select_option("Lenovo ThinkPad T14 Gen 4")
    order.get_by_role("button", name="Order Now").click()  # the justification is mandatory
    expect(order.get_by_text("Business justification is mandatory.")).to_be_visible()
    assert world.one("SELECT count(*) FROM desk_request WHERE opened_at >= '2026-03-16 09:30:00'")[0] == 0
    order = page.get_by_role("form", name="Standard Laptop")
    expect(order.get_by_label("Model")).to_have_value("Lenovo ThinkPad T14 Gen 4")  # kept
    order.get_by_label("Memory").select_option("32 GB")
    order.get_by_role("checkbox", name="Docking station").check()
    order.get_by_label("Business justification").fill("Out of warranty")
    order.get_by_role("button", name="Order Now").click()
    expect(page.get_by_role("status")).to_contain_text("your request has been submitted: REQ")
    req = world.one("SELECT id, number, requested_for_id, total, state FROM desk_request ORDER BY id DESC LIMIT 1")
    assert req[2:] == (me, 1350.0, "Approved")
    ritm = world.one("SELECT request_id, variables, stage, approval, assignment_group_id IS NOT NULL FROM desk_req_item ORDER BY id DESC LIMIT 1")
    assert ritm[0] == req[0] and ritm[2:] == ("Fulfillment", "approved", 1)
    assert json.loads(ritm[1]) == {"model": "Lenovo ThinkPad T14 Gen 4", "memory": "32 GB", "docking_station": True, "justification": "Out of warranty"}
    expect(page.get_by_role("heading", name=req[1])).to_be_visible()


def test_expensive_order_waits_for_the_managers_approval(browser: Browser, fresh, live_host) -> None:
    world, page = fresh
    me, manager = world.one("SELECT id, manager_id FROM identity_user WHERE username = ?", agent(world)[0])
    item = world.one("SELECT id FROM desk_catalog_item WHERE name = 'Developer Laptop'")[0]
    page.goto(live_host.url("desk", f"/sc_cat_item.do?sys_id={item}"))
    order = page.get_by_role("form", name="Developer Laptop")
    order.get_by_label("Model").select_option("MacBook Pro 14 M3")
    order.get_by_label("Memory").select_option("32 GB")
    order.get_by_label("Storage").select_option("512 GB")
    order.get_by_label("Business justification").fill("Model training")
    order.get_by_role("button", name="Order Now").click()
    expect(page.get_by_role("status")).to_contain_text("submitted")
    ritm_id, number, stage = world.one("SELECT id, number, stage FROM desk_req_item ORDER BY id DESC LIMIT 1")
    assert stage == "Waiting for Approval"
    approval_id, approver = world.one("SELECT id, approver_id FROM desk_approval WHERE req_item_id = ?", ritm_id)
    assert approver == manager
    # The manager rejects without a comment (refused), then approves from My Approvals.
    username = world.one("SELECT username FROM identity_user WHERE id = ?", manager)[0]
    context = live_host.new_context(browser, world, username)
    boss = context.new_page()
    boss.goto(live_host.url("desk", "/"))
    boss.get_by_role("button", name="All", exact=True).click()
    boss.get_by_label("Filter navigator").fill("approvals")
    boss.get_by_role("region", name="Self-Service").get_by_role("link", name="My Approvals").click()
    boss.get_by_role("link", name=number).click()
    boss.get_by_role("button", name="Reject").click()
    expect(boss.get_by_role("alert")).to_contain_text("Comments are required when rejecting")
    assert world.one("SELECT state FROM desk_approval WHERE id = ?", approval_id)[0] == "requested"
    boss.get_by_role("button", name="Approve").click()
    expect(boss.get_by_role("status")).to_contain_text(f"{number} approved")
    assert world.one("SELECT state FROM desk_approval WHERE id = ?", approval_id)[0] == "approved"
    assert world.one("SELECT stage, approval FROM desk_req_item WHERE id = ?", ritm_id) == ("Fulfillment", "approved")
    context.close()


def test_knowledge_search_and_article(page, shared, live_host) -> None:
    world, _ = shared
    page.goto(live_host.url("desk", "/kb"))
    page.get_by_role("searchbox", name="Search Knowledge").fill("assignment category")
    page.get_by_role("searchbox", name="Search Knowledge").press("Enter")
    results = page.get_by_role("region", name="Search results")
    expect(results.get_by_role("article").first).to_contain_text("Incident assignment by category")
    results.get_by_role("link", name="Incident assignment by category").click()
    article = page.get_by_role("article")
    expect(article.get_by_role("heading", name="Incident assignment by category")).to_be_visible()
    expect(article.get_by_role("row", name=re.compile("Software Email Messaging"))).to_be_visible()
    total = world.one("SELECT count(*) FROM desk_kb_article WHERE workflow_state = 'Published' AND (lower(title) LIKE '%vpn%' OR lower(body) LIKE '%vpn%')")[0]
    page.goto(live_host.url("desk", "/kb?q=VPN"))
    expect(page.get_by_role("heading", name=f"{total} results for \"VPN\"")).to_be_visible()
