"""Campaign History on leads and contacts in real Chromium: the campaigns a person is in with their
member status, Add to Campaign from the related list with a status choice, and the product's message for
a person already in the campaign (nothing saved). Each checks the database."""

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


def test_contact_campaign_history_and_add_with_status(fresh, live_host) -> None:
    world, page = fresh
    member = world.one("SELECT m.contact_id, c.name, m.status FROM crm_campaign_member m JOIN crm_campaign c ON c.id = m.campaign_id"
                       " WHERE m.contact_id IS NOT NULL ORDER BY m.id")
    contact_id = member[0]
    joined = {r[0] for r in world.query("SELECT campaign_id FROM crm_campaign_member WHERE contact_id = ?", contact_id)}
    target = next(r for r in world.query("SELECT id, name FROM crm_campaign WHERE is_active = 1 ORDER BY name") if r[0] not in joined)
    page.goto(live_host.url("crm", f"/contacts/{contact_id}?tab=related"))
    history = page.get_by_role("article", name=re.compile("^Campaign History"))
    expect(history.get_by_role("link", name=member[1])).to_be_visible()
    expect(history).to_contain_text(member[2])
    history.get_by_role("button", name="Add to Campaign").click()
    dialog = page.get_by_role("dialog", name="Add to Campaign")
    dialog.get_by_label("Campaign").select_option(label=target[1])
    dialog.get_by_label("Member Status").select_option("Responded")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_text(f'was added to the campaign "{target[1]}"')).to_be_visible()
    row = world.one("SELECT status, has_responded, first_responded_date IS NOT NULL FROM crm_campaign_member WHERE contact_id = ? AND campaign_id = ?",
                    contact_id, target[0])
    assert row == ("Responded", 1, 1)
    page.goto(live_host.url("crm", f"/contacts/{contact_id}?tab=related"))
    history = page.get_by_role("article", name=re.compile("^Campaign History"))
    expect(history.get_by_role("link", name=target[1])).to_be_visible()
    # Adding the same campaign again (a second tab, a stale dialog): the product's message, nothing saved.
    before = world.one("SELECT count(*) FROM crm_campaign_member")[0]
    status = page.evaluate("""async ([url, body]) => { const r = await fetch(url, {method: 'POST', body: new URLSearchParams(body)});
                               return [r.status, await r.text()]; }""", [f"/contacts/{contact_id}/campaigns", {"campaign_id": str(target[0]), "status": "Sent"}])
    assert status[0] == 422 and "This contact is already a member of this campaign." in status[1]
    assert world.one("SELECT count(*) FROM crm_campaign_member")[0] == before


def test_lead_campaign_history_lists_its_campaigns(fresh, live_host) -> None:
    world, page = fresh
    lead_id = world.one("SELECT m.lead_id FROM crm_campaign_member m JOIN crm_lead l ON l.id = m.lead_id WHERE l.converted_at IS NULL"
                        " GROUP BY m.lead_id ORDER BY count(*) DESC, m.lead_id")[0]
    names = [r[0] for r in world.query("SELECT c.name FROM crm_campaign_member m JOIN crm_campaign c ON c.id = m.campaign_id"
                                       " WHERE m.lead_id = ? ORDER BY c.start_date DESC, c.name", lead_id)]
    page.goto(live_host.url("crm", f"/leads/{lead_id}?tab=related"))
    history = page.get_by_role("article", name=re.compile("^Campaign History"))
    expect(history).to_contain_text(f"({len(names)})")
    expect(history.locator("tbody tr > :first-child")).to_have_text(names[:5])
