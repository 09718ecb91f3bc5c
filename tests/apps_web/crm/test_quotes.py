"""Quotes and discount approval in real Chromium, each step checked in the database: New Quote copies the
products, bad input saves nothing, a discount over the threshold blocks Presented until the owner's manager
approves from Items to Approve; nobody else can decide; resubmitting is refused as Salesforce refuses it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect


@pytest.fixture(scope="module")
def setup(browser: Browser, live_host):
    world = live_host.world()
    opp_id, owner, manager_id = world.one("""SELECT o.id, u.username, u.manager_id FROM crm_opportunity o JOIN identity_user u ON u.id = o.owner_id
        WHERE o.pricebook_id IS NOT NULL AND u.manager_id IS NOT NULL AND o.stage NOT IN ('Closed Won', 'Closed Lost')
        AND (SELECT count(*) FROM crm_opportunity_line_item l WHERE l.opportunity_id = o.id) >= 1 ORDER BY o.id LIMIT 1""")
    manager = world.one("SELECT username FROM identity_user WHERE id = ?", manager_id)[0]
    rep_ctx = live_host.new_context(browser, world, owner)
    mgr_ctx = live_host.new_context(browser, world, manager)
    yield world, opp_id, manager_id, rep_ctx.new_page(), mgr_ctx.new_page()
    rep_ctx.close()
    mgr_ctx.close()


def test_quote_discount_approval(setup, live_host) -> None:
    world, opp_id, manager_id, rep, mgr = setup
    n_quotes = world.one("SELECT count(*) FROM crm_quote")[0]
    rep.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=related"))
    rep.get_by_role("article", name=re.compile(r"^Quotes")).get_by_role("link", name="New Quote").click()
    rep.get_by_label("Quote Name").fill("")
    rep.get_by_role("button", name="Save").click()
    expect(rep.get_by_text("Complete this field.")).to_be_visible()
    assert world.one("SELECT count(*) FROM crm_quote")[0] == n_quotes
    rep.get_by_label("Quote Name").fill("Spring proposal")
    rep.get_by_role("button", name="Save").click()
    expect(rep.get_by_role("heading", name="Spring proposal")).to_be_visible()
    quote_id = world.one("SELECT id FROM crm_quote WHERE name = 'Spring proposal'")[0]
    assert world.query("SELECT product_id, quantity, unit_price, total_price FROM crm_quote_line_item WHERE quote_id = ? ORDER BY sort_order", quote_id) == \
        world.query("SELECT product_id, quantity, unit_price, total_price FROM crm_opportunity_line_item WHERE opportunity_id = ? ORDER BY sort_order", opp_id)

    # No discount above the threshold: no approval process applies.
    rep.get_by_role("button", name="Submit for Approval").click()
    rep.get_by_role("dialog", name="Submit for Approval").get_by_role("button", name="Submit").click()
    expect(rep.get_by_role("alert").first).to_contain_text("No applicable approval process was found.")

    # 25% off the first line: Presented is refused until approved.
    first = world.one("SELECT p.name FROM crm_quote_line_item l JOIN crm_product p ON p.id = l.product_id WHERE quote_id = ? ORDER BY sort_order LIMIT 1", quote_id)[0]
    rep.goto(live_host.url("crm", f"/quotes/{quote_id}/lines/edit"))
    rep.get_by_label(f"Discount for {first}").fill("25")
    rep.get_by_role("button", name="Save").click()
    expect(rep.get_by_text("Your changes are saved.")).to_be_visible()
    sub, total = world.one("SELECT subtotal, total_price FROM crm_quote WHERE id = ?", quote_id)
    assert total < sub
    rep.get_by_label("Status").select_option("Presented")
    rep.get_by_role("button", name="Save Status").click()
    expect(rep.get_by_text(re.compile("must be approved before it can be presented"))).to_be_visible()
    assert world.one("SELECT status FROM crm_quote WHERE id = ?", quote_id)[0] == "Draft"

    rep.get_by_role("button", name="Submit for Approval").click()
    dialog = rep.get_by_role("dialog", name="Submit for Approval")
    dialog.get_by_label("Comments").fill("Three-year term offsets the discount.")
    dialog.get_by_role("button", name="Submit").click()
    expect(rep.get_by_text("Quote was submitted for approval.")).to_be_visible()
    step_id, status, approver = world.one("SELECT id, status, approver_id FROM crm_approval_request WHERE quote_id = ?", quote_id)
    assert (status, approver) == ("Pending", manager_id)
    assert world.one("SELECT status FROM crm_quote WHERE id = ?", quote_id)[0] == "In Review"
    expect(rep.get_by_role("table", name="Approval History")).to_contain_text("Three-year term offsets the discount.")
    # Submitting again, or deciding as the submitter, is refused.
    rep.get_by_role("button", name="Submit for Approval").click()
    rep.get_by_role("dialog", name="Submit for Approval").get_by_role("button", name="Submit").click()
    expect(rep.get_by_role("alert").first).to_contain_text("This record is currently in an approval process.")
    code = rep.evaluate("async (id) => (await fetch(`/approvals/${id}/approve`, {method: 'POST', body: new URLSearchParams({comments: 'me'})})).status", step_id)
    assert code == 403 and world.one("SELECT status FROM crm_approval_request WHERE id = ?", step_id)[0] == "Pending"

    # The manager sees it on Home, opens it and approves with a comment.
    mgr.goto(live_host.url("crm", "/"))
    mgr.get_by_role("region", name=re.compile("Items to Approve")).get_by_role("link", name="Spring proposal").click()
    mgr.get_by_label("Comments").fill("OK for a three-year term.")
    mgr.get_by_role("button", name="Approve").click()
    expect(mgr.get_by_text('Quote "Spring proposal" was approved.')).to_be_visible()
    expect(mgr.get_by_role("table", name="Items to Approve")).not_to_contain_text("Spring proposal")
    assert world.one("SELECT status, comments FROM crm_approval_request WHERE id = ?", step_id) == ("Approved", "OK for a three-year term.")
    assert world.one("SELECT status FROM crm_quote WHERE id = ?", quote_id)[0] == "Approved"

    rep.goto(live_host.url("crm", f"/quotes/{quote_id}"))
    rep.get_by_label("Status").select_option("Presented")
    rep.get_by_role("button", name="Save Status").click()
    expect(rep.get_by_text('Status changed to "Presented".')).to_be_visible()
    assert world.one("SELECT status FROM crm_quote WHERE id = ?", quote_id)[0] == "Presented"
    rep.get_by_role("link", name="Create PDF").click()
    expect(rep.get_by_role("heading", name=re.compile(r"^Quote \d{8}$"))).to_be_visible()
    expect(rep.get_by_role("table", name="Quote Line Items")).to_contain_text("25%")
