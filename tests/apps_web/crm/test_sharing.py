"""Sharing and permissions in real Chromium and through the API: Organization-Wide Defaults (Opportunity
Private), the role hierarchy, View All Data, field-level security. Every test checks the database."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import write
from .test_api import client_for

INSUFFICIENT = "Insufficient Privileges"


def _rep_and_colleague_deal(world) -> tuple[str, int, int, str, int, str]:
    """A rep, an open deal of a rep under another manager, and that deal's name; the rep's own first open deal."""
    rep_id, rep = world.one("SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id LIMIT 1")
    opp_id, name = world.one("""SELECT o.id, o.name FROM crm_opportunity o JOIN identity_user u ON u.id = o.owner_id
        WHERE u.role = 'sales_rep' AND u.manager_id != (SELECT manager_id FROM identity_user WHERE id = ?)
        AND o.stage NOT LIKE 'Closed%' ORDER BY o.id LIMIT 1""", rep_id)
    own_id, own_name = world.one("SELECT id, name FROM crm_opportunity WHERE owner_id = ? AND stage NOT LIKE 'Closed%' ORDER BY id LIMIT 1", rep_id)
    return rep, rep_id, opp_id, name, own_id, own_name


@pytest.fixture()
def world(live_host):
    return live_host.world()


def _post(page: Page, path: str, form: dict) -> tuple[int, str]:
    """A form posted from the page (as a crafted request would be): the final status and body."""
    return tuple(page.evaluate("""async ([path, form]) => {
        const res = await fetch(path, {method: "POST", body: new URLSearchParams(form)});
        return [res.status, await res.text()];
    }""", [path, form]))


def _page(browser: Browser, live_host, world, username: str) -> Page:
    return live_host.new_context(browser, world, username).new_page()


def test_rep_cannot_open_find_or_report_a_colleagues_deal(browser: Browser, live_host, world) -> None:
    rep, rep_id, opp_id, name, own_id, own_name = _rep_and_colleague_deal(world)
    page = _page(browser, live_host, world, rep)
    res = page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    assert res.status == 403
    expect(page.get_by_role("heading", name=INSUFFICIENT, exact=True)).to_be_visible()  # the product's heading, not a generic one
    expect(page.get_by_text("You don't have the level of access necessary")).to_be_visible()
    # Not in the list view, global search or the pipeline report; the rep's own deal is.
    page.goto(live_host.url("crm", "/opportunities?view=all&q=" + name.split(" ")[0]))
    expect(page.get_by_role("link", name=name, exact=True)).to_have_count(0)
    page.goto(live_host.url("crm", "/search?q=" + name))
    expect(page.get_by_role("link", name=name, exact=True)).to_have_count(0)
    page.goto(live_host.url("crm", "/search?q=" + own_name))
    expect(page.get_by_role("link", name=own_name, exact=True).first).to_be_visible()
    page.goto(live_host.url("crm", "/reports/pipeline-by-stage-and-owner?details=1"))
    expect(page.get_by_role("link", name=name, exact=True)).to_have_count(0)
    # An edit posted anyway is refused and saves nothing.
    before = world.one("SELECT stage, updated_at FROM crm_opportunity WHERE id = ?", opp_id)
    status, _ = _post(page, f"/opportunities/{opp_id}/path", {"value": "Negotiation/Review"})
    assert status == 403
    assert world.one("SELECT stage, updated_at FROM crm_opportunity WHERE id = ?", opp_id) == before
    page.context.close()


def test_manager_sees_and_edits_the_teams_deal_not_another_teams(browser: Browser, live_host, world) -> None:
    owner_id, manager = world.one("""SELECT u.id, m.username FROM identity_user u JOIN identity_user m ON m.id = u.manager_id
        WHERE u.role = 'sales_rep' ORDER BY u.id LIMIT 1""")
    mine, = world.one("SELECT id FROM crm_opportunity WHERE owner_id = ? AND stage NOT LIKE 'Closed%' ORDER BY id LIMIT 1", owner_id)
    other, = world.one("""SELECT o.id FROM crm_opportunity o JOIN identity_user u ON u.id = o.owner_id
        WHERE u.role = 'sales_rep' AND u.manager_id != (SELECT manager_id FROM identity_user WHERE id = ?) ORDER BY o.id LIMIT 1""", owner_id)
    page = _page(browser, live_host, world, manager)
    assert page.goto(live_host.url("crm", f"/opportunities/{mine}")).status == 200
    page.get_by_role("button", name="Edit Next Step").click()
    page.locator("#detail-next_step").get_by_role("textbox").fill("Manager review on Friday")
    page.locator("#detail-next_step").get_by_role("button", name="Save").click()
    expect(page.locator("#detail-next_step")).to_contain_text("Manager review on Friday")
    assert world.one("SELECT next_step FROM crm_opportunity WHERE id = ?", mine)[0] == "Manager review on Friday"
    assert page.goto(live_host.url("crm", f"/opportunities/{other}")).status == 403
    page.context.close()


def test_admin_opens_opportunities_read_only_and_the_rep_reads_without_edit(browser: Browser, live_host, world) -> None:
    rep, rep_id, opp_id, name, _own, _own_name = _rep_and_colleague_deal(world)
    admin, = world.one("SELECT username FROM identity_user WHERE role = 'admin' ORDER BY id LIMIT 1")
    page = _page(browser, live_host, world, admin)
    page.goto(live_host.url("crm", "/setup/sharing"))
    page.get_by_role("link", name="Edit").click()
    page.get_by_label("Opportunity Default Internal Access").select_option("Public Read Only")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status").or_(page.get_by_role("alert")).first).to_contain_text("Sharing settings were saved")
    assert world.one("SELECT access FROM crm_org_wide_default WHERE object_type = 'opportunity'")[0] == "Public Read Only"
    page.context.close()

    page = _page(browser, live_host, world, rep)
    assert page.goto(live_host.url("crm", f"/opportunities/{opp_id}")).status == 200
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    expect(page.get_by_role("button", name="Edit Opportunity", exact=True)).to_have_count(0)
    expect(page.get_by_role("button", name="Delete Opportunity", exact=True)).to_have_count(0)
    expect(page.get_by_role("button", name="Edit Next Step")).to_have_count(0)
    status, _ = _post(page, f"/opportunities/{opp_id}/inline", {"_field": "next_step", "next_step": "x"})
    assert status == 403
    assert world.one("SELECT next_step FROM crm_opportunity WHERE id = ?", opp_id)[0] != "x"
    page.context.close()


def test_rep_may_not_edit_annual_revenue(browser: Browser, live_host, world) -> None:
    rep, = world.one("SELECT username FROM identity_user WHERE role = 'sales_rep' ORDER BY id LIMIT 1")
    acct_id, revenue = world.one("SELECT id, annual_revenue FROM crm_account WHERE annual_revenue IS NOT NULL ORDER BY id LIMIT 1")
    page = _page(browser, live_host, world, rep)
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    expect(page.get_by_role("button", name="Edit Industry")).to_be_visible()
    expect(page.get_by_role("button", name="Edit Annual Revenue")).to_have_count(0)
    page.get_by_role("button", name="Edit Account", exact=True).click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("group", name="Annual Revenue")).to_contain_text("Read only")  # shown as text with a lock, no input
    expect(dialog.get_by_role("textbox", name="Annual Revenue")).to_have_count(0)
    dialog.get_by_label("Phone").fill("(415) 555-0199")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("dialog")).to_be_hidden()
    assert world.one("SELECT phone, annual_revenue FROM crm_account WHERE id = ?", acct_id) == ("(415) 555-0199", revenue)
    # A change posted anyway: Salesforce's field-level security message, nothing saved.
    _status, body = _post(page, f"/accounts/{acct_id}/inline", {"_field": "annual_revenue", "annual_revenue": "1"})
    assert "Unable to create/update fields: Annual Revenue." in body
    assert world.one("SELECT annual_revenue FROM crm_account WHERE id = ?", acct_id)[0] == revenue
    page.context.close()


def test_api_hides_private_deals_and_refuses_changes(live_host, world) -> None:
    rep, rep_id, opp_id, name, own_id, _own_name = _rep_and_colleague_deal(world)
    client = client_for(live_host, world, rep)
    items = client.get("/api/opportunities", params={"limit": 200}).json()
    assert items["total"] == world.one("SELECT count(*) FROM crm_opportunity WHERE owner_id = ?", rep_id)[0]
    assert {i["owner_id"] for i in items["items"]} == {rep_id}
    assert client.get(f"/api/opportunities/{opp_id}").status_code == 404
    assert client.patch(f"/api/opportunities/{opp_id}", json={"next_step": "x"}).status_code == 404
    res = client.patch(f"/api/opportunities/{own_id}", json={"probability": 95})
    assert res.status_code == 400 and res.json()["errors"][0]["errorCode"] == "INVALID_FIELD_FOR_INSERT_UPDATE"
    write(world, "UPDATE crm_org_wide_default SET access = 'Public Read Only' WHERE object_type = 'opportunity'")
    assert client.get(f"/api/opportunities/{opp_id}").json()["name"] == name
    res = client.patch(f"/api/opportunities/{opp_id}", json={"next_step": "x"})
    assert res.status_code == 403 and res.json()["errors"][0]["errorCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"
    assert client.delete(f"/api/opportunities/{opp_id}").status_code == 403
    assert world.one("SELECT next_step != 'x' OR next_step IS NULL FROM crm_opportunity WHERE id = ?", opp_id)[0]


def test_setup_pages_read_only_for_others(browser: Browser, live_host, world) -> None:
    rep, = world.one("SELECT username FROM identity_user WHERE role = 'sales_rep' ORDER BY id LIMIT 1")
    page = _page(browser, live_host, world, rep)
    page.goto(live_host.url("crm", "/setup/sharing"))
    expect(page.get_by_role("row", name=re.compile("^Opportunity"))).to_contain_text("Private")
    expect(page.get_by_role("link", name="Edit")).to_have_count(0)
    assert _post(page, "/setup/sharing", {"opportunity": "Public Read/Write"})[0] == 403
    assert world.one("SELECT access FROM crm_org_wide_default WHERE object_type = 'opportunity'")[0] == "Private"
    page.goto(live_host.url("crm", "/setup/roles"))
    expect(page.get_by_role("treeitem", name=re.compile("VP of Sales")).first).to_be_visible()
    page.context.close()
