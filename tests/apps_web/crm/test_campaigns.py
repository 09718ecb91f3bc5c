"""Campaigns in real Chromium: the Campaigns tab and its views, New Campaign (with its errors, saving
nothing), Add to Campaign from a lead and a contact, and member statuses; each checks the database."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from .conftest import user_of


@pytest.fixture()
def fresh(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, user_of(world, "marketing"))
    yield world, context.new_page()
    context.close()


def test_seeded_campaigns_are_coherent(live_host) -> None:
    world = live_host.world()
    assert world.one("SELECT count(*) FROM crm_campaign")[0] >= 8
    assert world.one("SELECT count(*) FROM crm_campaign WHERE end_date < start_date")[0] == 0
    assert world.one("SELECT count(*) FROM crm_campaign_member WHERE (lead_id IS NULL) = (contact_id IS NULL)")[0] == 0
    assert world.one("SELECT count(*) FROM crm_campaign_member WHERE has_responded != (status = 'Responded')")[0] == 0
    assert world.one("SELECT count(DISTINCT status) FROM crm_campaign")[0] >= 2


def test_new_campaign_checks_dates_then_saves(fresh, live_host) -> None:
    world, page = fresh
    before = world.one("SELECT count(*) FROM crm_campaign")[0]
    page.goto(live_host.url("crm", "/campaigns"))
    expect(page.get_by_role("navigation", name="Sales Cloud").get_by_role("link", name="Campaigns")).to_be_visible()
    page.get_by_role("group", name="List actions").get_by_role("button", name="New").click()
    dialog = page.get_by_role("dialog", name="New Campaign")
    dialog.get_by_label("Campaign Name").fill("Q3 Field Marketing Dinners")
    dialog.get_by_label("Type").select_option("Conference")
    dialog.get_by_label("Start Date").fill("2026-07-10")
    dialog.get_by_label("End Date").fill("2026-07-01")
    dialog.get_by_label("Budgeted Cost in Campaign").fill("18,500")
    dialog.get_by_role("button", name="Save").click()
    dialog = page.get_by_role("dialog", name="New Campaign")
    expect(dialog).to_contain_text("The End Date can't be earlier than the Start Date.")
    expect(dialog.get_by_label("Campaign Name")).to_have_value("Q3 Field Marketing Dinners")
    assert world.one("SELECT count(*) FROM crm_campaign")[0] == before
    dialog.get_by_label("End Date").fill("2026-07-31")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="Q3 Field Marketing Dinners", level=1)).to_be_visible()
    row = world.one("SELECT type, status, start_date, end_date, budgeted_cost FROM crm_campaign WHERE name = 'Q3 Field Marketing Dinners'")
    assert row == ("Conference", "Planned", "2026-07-10", "2026-07-31", 18500.0)


def test_add_a_lead_to_a_campaign_and_mark_responded(fresh, live_host) -> None:
    world, page = fresh
    lead = world.one("SELECT id, first_name || ' ' || last_name FROM crm_lead l WHERE converted_at IS NULL AND first_name IS NOT NULL"
                     " AND NOT EXISTS (SELECT 1 FROM crm_campaign_member m WHERE m.lead_id = l.id) ORDER BY id")
    camp = world.one("SELECT id, name FROM crm_campaign WHERE is_active = 1 ORDER BY id DESC")
    page.goto(live_host.url("crm", f"/leads/{lead[0]}"))
    page.get_by_role("button", name="Add to Campaign").click()
    dialog = page.get_by_role("dialog", name="Add to Campaign")
    dialog.get_by_role("button", name="Save").click()  # no campaign chosen: refused, nothing saved
    expect(page.get_by_role("dialog", name="Add to Campaign")).to_contain_text("Complete this field.")
    assert world.one("SELECT count(*) FROM crm_campaign_member WHERE lead_id = ?", lead[0])[0] == 0
    dialog = page.get_by_role("dialog", name="Add to Campaign")
    dialog.get_by_label("Campaign").select_option(label=camp[1])
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_text(f'was added to the campaign "{camp[1]}"')).to_be_visible()
    assert world.one("SELECT status, has_responded FROM crm_campaign_member WHERE lead_id = ? AND campaign_id = ?", lead[0], camp[0]) == ("Sent", 0)
    page.goto(live_host.url("crm", f"/campaigns/{camp[0]}"))
    members = page.get_by_role("table", name="Campaign Members")
    members.get_by_role("combobox", name=f"Status of {lead[1]}").select_option("Responded")
    members.get_by_role("button", name=f"Save status of {lead[1]}").click()
    expect(page.get_by_text("Member status was updated.")).to_be_visible()
    assert world.one("SELECT status, has_responded FROM crm_campaign_member WHERE lead_id = ? AND campaign_id = ?", lead[0], camp[0]) == ("Responded", 1)
    # The campaign is no longer offered to that lead.
    page.goto(live_host.url("crm", f"/leads/{lead[0]}"))
    page.get_by_role("button", name="Add to Campaign").click()
    expect(page.get_by_role("dialog", name="Add to Campaign").get_by_role("option", name=camp[1])).to_have_count(0)


# -- campaign influence: Primary Campaign Source ------------------------------------------------------------------
def test_primary_campaign_source_feeds_the_campaign_statistics(browser, live_host) -> None:
    world = live_host.world()
    camp_id, camp_name = world.one("""SELECT c.id, c.name FROM crm_campaign c WHERE (SELECT count(*) FROM crm_opportunity o WHERE o.campaign_id = c.id
                                      AND o.stage = 'Closed Won') > 0 ORDER BY c.id LIMIT 1""")
    opps = world.query("SELECT id, name, stage, amount FROM crm_opportunity WHERE campaign_id = ? ORDER BY id", camp_id)
    won = [o for o in opps if o[2] == "Closed Won"]
    # The VP of Sales: every deal's owner is below them (Opportunities are Private; a rep would see only their own)
    context = live_host.new_context(browser, world, world.one("SELECT username FROM identity_user WHERE title = 'VP of Sales' ORDER BY id")[0])
    page = context.new_page()
    page.goto(live_host.url("crm", f"/campaigns/{camp_id}"))
    table = page.get_by_role("table", name="Opportunities")
    expect(table.get_by_role("row")).to_have_count(len(opps) + 1)
    details = page.locator("dl.details")
    expect(details.locator(".detail-row", has_text="Opportunities in Campaign").first).to_contain_text(str(len(opps)))
    expect(details.locator(".detail-row", has_text="Value Won Opportunities in Campaign")).to_contain_text(f"${sum(o[3] for o in won):,.0f}")
    # A deal without a source gets this campaign from its record page (the lookup, inline).
    opp_id, opp_name, amount = world.one("""SELECT id, name, amount FROM crm_opportunity WHERE campaign_id IS NULL AND stage = 'Closed Won'
                                            AND amount > 0 ORDER BY id LIMIT 1""")
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    page.get_by_role("button", name="Edit Primary Campaign Source", exact=True).click()
    form = page.get_by_role("form", name="Edit Primary Campaign Source")
    form.get_by_role("combobox", name="Primary Campaign Source").fill(camp_name)
    form.get_by_role("option", name=re.compile("^" + re.escape(camp_name))).first.click()
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#detail-campaign_id .detail-value")).to_have_text(camp_name)
    assert world.one("SELECT campaign_id FROM crm_opportunity WHERE id = ?", opp_id)[0] == camp_id
    page.locator("#detail-campaign_id .detail-value a").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(camp_name)
    expect(page.get_by_role("table", name="Opportunities").get_by_role("link", name=opp_name, exact=True)).to_be_visible()
    expect(details.locator(".detail-row", has_text="Won Opportunities in Campaign").first).to_contain_text(str(len(won) + 1))
    expect(details.locator(".detail-row", has_text="Value Won Opportunities in Campaign")).to_contain_text(f"${sum(o[3] for o in won) + amount:,.0f}")
    # The API reads and writes it too; an unknown campaign is refused.
    assert page.evaluate("async (id) => (await (await fetch(`/api/opportunities/${id}`)).json()).campaign_id", opp_id) == camp_id
    status = page.evaluate("""async (id) => (await fetch(`/api/opportunities/${id}`, {method: "PATCH", headers: {"Content-Type": "application/json"},
                                body: JSON.stringify({campaign_id: 99999})})).status""", opp_id)
    assert status == 422 and world.one("SELECT campaign_id FROM crm_opportunity WHERE id = ?", opp_id)[0] == camp_id
    context.close()
