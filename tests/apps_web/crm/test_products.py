"""Opportunity products, loss reason and field history in real Chromium, each checked in the database:
Add Products (price book, search, grid), the amount roll-up and its lock, bad grid input refused with
nothing saved, Edit Products, deleting a line; Closed Lost without a loss reason refused; the History list."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect


@pytest.fixture(scope="module")
def world_page(browser: Browser, live_host):
    world = live_host.world()
    # An open deal without products, and its owner.
    opp_id, owner = world.one("""SELECT o.id, u.username FROM crm_opportunity o JOIN identity_user u ON u.id = o.owner_id
        WHERE o.pricebook_id IS NULL AND o.stage NOT IN ('Closed Won', 'Closed Lost') ORDER BY o.id LIMIT 1""")
    context = live_host.new_context(browser, world, owner)
    page = context.new_page()
    yield world, page, opp_id
    context.close()


def lines(world, opp_id: int) -> list[tuple]:
    return world.query("""SELECT p.name, l.quantity, l.unit_price, l.discount, l.total_price FROM crm_opportunity_line_item l
        JOIN crm_product p ON p.id = l.product_id WHERE l.opportunity_id = ? ORDER BY l.sort_order, l.id""", opp_id)


def amount(world, opp_id: int) -> float:
    return world.one("SELECT amount FROM crm_opportunity WHERE id = ?", opp_id)[0]


def test_add_edit_delete_products_roll_up_the_amount(world_page, live_host) -> None:
    world, page, opp_id = world_page
    before = amount(world, opp_id)
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=related"))
    products = page.get_by_role("article", name=re.compile(r"^Products"))
    expect(products.get_by_role("heading", name="Products (0)")).to_be_visible()
    products.get_by_role("link", name="Add Products").click()

    # Step 1: the price book; step 2: search and pick.
    expect(page.get_by_role("heading", name="Choose Price Book")).to_be_visible()
    page.get_by_label("Price Book").select_option(label="Partner Price Book")
    page.get_by_role("button", name="Save").click()
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("alert")).to_contain_text("Select at least one product.")
    page.get_by_placeholder("Search Products...").fill("sensor")
    page.get_by_role("button", name="Search").click()
    table = page.get_by_role("table", name="Products")
    expect(table.locator("tbody th")).to_have_count(2)  # the search's results have loaded
    assert sorted(table.locator("tbody th").all_inner_texts()) == ["Sensor Kits", "Sensor Mounting Hardware"]
    page.get_by_label("Select Sensor Kits").check()
    page.get_by_placeholder("Search Products...").fill("Edge")
    page.get_by_role("button", name="Search").click()  # the pick survives a new search
    expect(page.get_by_text("1 selected")).to_be_visible()
    page.get_by_label("Select Edge Gateways").check()
    page.get_by_role("button", name="Next").click()

    # Step 3: the grid starts at the Partner list price; bad cells are refused, nothing saved.
    expect(page.get_by_label("Sales Price for Sensor Kits")).to_have_value("340")
    page.get_by_label("Quantity for Sensor Kits").fill("0")
    page.get_by_label("Quantity for Edge Gateways").fill("4")
    page.get_by_label("Discount for Edge Gateways").fill("120")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("Sensor Kits: Quantity must be greater than zero.")
    expect(page.locator(".field-error", has_text="Discount must be between 0% and 100%.")).to_be_visible()
    assert lines(world, opp_id) == [] and amount(world, opp_id) == before
    page.get_by_label("Quantity for Sensor Kits").fill("50")
    page.get_by_label("Discount for Edge Gateways").fill("10")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("2 products were added to the opportunity.")).to_be_visible()
    assert lines(world, opp_id) == [("Edge Gateways", 4.0, 2125.0, 10.0, 7650.0), ("Sensor Kits", 50.0, 340.0, None, 17000.0)]
    assert amount(world, opp_id) == 24650.0
    assert world.one("SELECT pricebook_id FROM crm_opportunity WHERE id = ?", opp_id)[0] == 2

    # The amount is read-only now: no pencil on the page, and a forged inline edit is refused.
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    expect(page.get_by_role("button", name="Edit Amount")).to_have_count(0)
    expect(page.get_by_role("button", name="Edit Close Date")).to_have_count(1)
    status = page.evaluate("""async (id) => (await fetch(`/opportunities/${id}/inline`, {method: 'POST',
        body: new URLSearchParams({_field: 'amount', amount: '5'})})).status""", opp_id)
    assert status == 422 and amount(world, opp_id) == 24650.0

    # Edit Products: a new discount recomputes the line and the amount; History records the amount.
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}/products/edit"))
    page.get_by_label("Discount for Sensor Kits").fill("25")
    page.get_by_label("Sales Price for Edge Gateways").fill("-3")
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".field-error", has_text="Sales Price can't be negative.")).to_be_visible()
    assert amount(world, opp_id) == 24650.0
    page.get_by_label("Sales Price for Edge Gateways").fill("2125")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your changes are saved.")).to_be_visible()
    assert lines(world, opp_id)[1][3:] == (25.0, 12750.0) and amount(world, opp_id) == 20400.0
    history = page.get_by_role("article", name=re.compile(r"^Opportunity History"))
    expect(history.locator("tbody tr").first).to_contain_text("$24,650")
    assert world.query("""SELECT old_value, new_value FROM crm_field_history WHERE record_id = ? AND object_type = 'opportunity'
        AND field = 'amount' ORDER BY id""", opp_id)[-2:] == [(f"{before:g}" if before else None, "24650"), ("24650", "20400")]

    # Delete one line: the amount follows.
    page.get_by_role("button", name="Delete Sensor Kits").click()
    expect(page.get_by_text('Opportunity Product "Sensor Kits" was deleted.')).to_be_visible()
    assert [r[0] for r in lines(world, opp_id)] == ["Edge Gateways"] and amount(world, opp_id) == 7650.0


def test_closed_lost_needs_a_loss_reason(world_page, live_host) -> None:
    world, page, opp_id = world_page
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    stage = world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp_id)[0]
    page.get_by_role("region", name="Stage path").get_by_role("button", name="Closed").click()
    page.get_by_role("button", name="Select Closed Stage").click()
    dialog = page.get_by_role("dialog", name="Close This Opportunity")
    dialog.get_by_label("Stage").select_option("Closed Lost")
    dialog.get_by_role("button", name="Save").click()
    dialog = page.get_by_role("dialog", name="Close This Opportunity")
    expect(dialog.get_by_text("Select a Loss Reason before you mark this opportunity Closed Lost.")).to_be_visible()
    assert world.one("SELECT stage, loss_reason FROM crm_opportunity WHERE id = ?", opp_id) == (stage, None)
    dialog.get_by_label("Loss Reason").select_option("Lost to Competitor")
    dialog.get_by_label("Main Competitor(s)").fill("Initrode")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("button", name=re.compile("Current stage: Closed Lost"))).to_be_visible()
    assert world.one("SELECT stage, loss_reason, main_competitors FROM crm_opportunity WHERE id = ?", opp_id) == \
        ("Closed Lost", "Lost to Competitor", "Initrode")
    # The edit form applies the same rule: back to Closed Lost without a reason is refused.
    page.get_by_role("tab", name="Related").click()
    history = page.get_by_role("article", name=re.compile(r"^Opportunity History"))
    expect(history.locator("tbody tr").first).to_contain_text("Closed Lost")
    assert world.one("SELECT old_value, new_value FROM crm_field_history WHERE record_id = ? AND field = 'stage' ORDER BY id DESC",
                     opp_id) == (stage, "Closed Lost")


def api_patch(page, path: str, data: dict) -> tuple[int, str]:
    """A JSON API call from the signed-in page (the browser resolves the app's host name)."""
    return tuple(page.evaluate("""async ([path, data]) => { const r = await fetch(path, {method: 'PATCH',
        headers: {'content-type': 'application/json'}, body: JSON.stringify(data)}); return [r.status, await r.text()]; }""", [path, data]))


def test_api_saves_write_history_and_respect_the_rules(world_page, live_host) -> None:
    """The JSON API: a case's status and priority write Case History (shown on the page); a rolled-up
    amount and Closed Lost without a reason are refused with the forms' messages, nothing saved."""
    world, page, _opp = world_page
    case_id, status, priority = world.one("SELECT id, status, priority FROM crm_case WHERE status = 'New' ORDER BY id LIMIT 1")
    me = world.one("SELECT id FROM identity_user WHERE username = (SELECT u.username FROM identity_user u JOIN crm_opportunity o ON o.owner_id = u.id WHERE o.id = ?)", _opp)[0]
    page.goto(live_host.url("crm", "/"))
    code, text = api_patch(page, f"/api/cases/{case_id}", {"status": "Working", "priority": "High"})
    assert code == 200, text
    rows = world.query("SELECT field, old_value, new_value, user_id FROM crm_field_history WHERE object_type = 'case' AND record_id = ? ORDER BY field", case_id)
    assert rows == [("priority", priority, "High", me), ("status", status, "Working", me)]
    page.goto(live_host.url("crm", f"/cases/{case_id}?tab=related"))
    history = page.get_by_role("article", name=re.compile(r"^Case History"))
    expect(history.get_by_role("heading", name="Case History (2)")).to_be_visible()
    expect(history).to_contain_text("Working")

    locked = world.one("""SELECT o.id, o.amount FROM crm_opportunity o WHERE o.stage NOT IN ('Closed Won', 'Closed Lost')
        AND EXISTS (SELECT 1 FROM crm_opportunity_line_item l WHERE l.opportunity_id = o.id)
        AND o.owner_id = ? ORDER BY o.id LIMIT 1""", me)  # one of the user's own deals (Opportunities are Private)
    code, text = api_patch(page, f"/api/opportunities/{locked[0]}", {"amount": 1})
    assert code == 422 and "Edit the products instead" in text
    code, text = api_patch(page, f"/api/opportunities/{locked[0]}", {"stage": "Closed Lost"})
    assert code == 422 and "Select a Loss Reason" in text
    assert world.one("SELECT amount, stage != 'Closed Lost' FROM crm_opportunity WHERE id = ?", locked[0]) == (locked[1], 1)
    code, text = api_patch(page, f"/api/opportunities/{locked[0]}", {"stage": "Closed Lost", "loss_reason": "Timing"})
    assert code == 200 and world.one("SELECT stage, loss_reason FROM crm_opportunity WHERE id = ?", locked[0]) == ("Closed Lost", "Timing")


def test_territory_pages_list_accounts_and_owners(world_page, live_host) -> None:
    world, page, _opp = world_page
    acct_id, name, territory = world.one("""SELECT a.id, a.name, t.name FROM crm_account a JOIN crm_territory t ON t.id = a.territory_id
        ORDER BY a.id LIMIT 1""")
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    page.get_by_role("link", name=territory, exact=True).click()
    expect(page.get_by_role("heading", name=territory, level=1)).to_be_visible()
    n = world.one("SELECT count(*) FROM crm_account a JOIN crm_territory t ON t.id = a.territory_id WHERE t.name = ?", territory)[0]
    table = page.get_by_role("table", name=f"Accounts ({n})")
    expect(table.locator("tbody tr")).to_have_count(n)
    expect(table).to_contain_text(name)
