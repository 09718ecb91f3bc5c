"""Record types in real Chromium: "New" asks "Select a record type", a Renewal offers its own stages and
the server refuses another with the product's message (saving nothing), Change Record Type on a case limits
its reasons, the list filter and the report grouping by record type, and the API; each checks the database."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from .conftest import user_of


def post(page, url: str, form: dict) -> tuple[int, str]:  # noqa: ANN001
    """A form post from the page (what a hand-made request sends), as the browser would send it."""
    return tuple(page.evaluate("""async ([url, body]) => { const r = await fetch(url, {method: 'POST', body: new URLSearchParams(body)});
                                   return [r.status, await r.text()]; }""", [url, form]))


def patch(page, url: str, data: dict) -> tuple[int, str]:  # noqa: ANN001
    return tuple(page.evaluate("""async ([url, body]) => { const r = await fetch(url, {method: 'PATCH', headers: {'Content-Type': 'application/json'},
                                   body: JSON.stringify(body)}); return [r.status, await r.text()]; }""", [url, data]))


def rt_id(world, object_type: str, name: str) -> int:  # noqa: ANN001
    return world.one("SELECT id FROM crm_record_type WHERE object_type = ? AND name = ?", object_type, name)[0]


def test_seeded_rows_get_a_type_by_rule(live_host) -> None:
    world = live_host.world()
    assert world.query("SELECT object_type, name, is_default FROM crm_record_type WHERE is_default = 1 ORDER BY object_type") == [
        ("case", "Technical Support", 1), ("opportunity", "New Business", 1)]
    assert world.one("SELECT count(*) FROM crm_opportunity WHERE record_type_id IS NULL")[0] == 0
    assert world.one("SELECT count(*) FROM crm_case WHERE record_type_id IS NULL")[0] == 0
    renewal = rt_id(world, "opportunity", "Renewal")
    assert world.one("SELECT count(*) FROM crm_opportunity WHERE instr(name, 'Renewal') > 0 AND record_type_id != ?", renewal)[0] == 0
    assert world.one("SELECT count(*) FROM crm_case WHERE type = 'Billing' AND record_type_id != ?", rt_id(world, "case", "Billing"))[0] == 0


def test_new_renewal_offers_its_stages_only(fresh, live_host) -> None:
    world, page = fresh
    acct = world.one("SELECT name FROM crm_account WHERE type LIKE 'Customer%' ORDER BY id")[0]
    page.goto(live_host.url("crm", "/opportunities"))
    page.get_by_role("group", name="List actions").get_by_role("button", name="New").click()
    chooser = page.get_by_role("dialog", name="New Opportunity")
    expect(chooser).to_contain_text("Select a record type")
    expect(chooser.get_by_role("radio", name="New Business", exact=True)).to_be_checked()
    expect(chooser).to_contain_text("Renewing a customer's subscription")
    chooser.get_by_role("radio", name="Renewal", exact=True).check()
    chooser.get_by_role("button", name="Next").click()
    dialog = page.get_by_role("dialog", name="New Opportunity: Renewal")
    stage = dialog.get_by_label("Stage")
    expect(stage.locator("option", has_text="Negotiation/Review")).to_have_count(1)  # the dialog has loaded
    options = stage.locator("option").all_inner_texts()
    assert "Prospecting" not in options and "Value Proposition" not in options and "Negotiation/Review" in options
    dialog.get_by_label("Opportunity Name").fill(f"{acct} - Support Renewal 2027")
    dialog.get_by_label("Close Date").fill("2027-01-31")
    stage.select_option("Negotiation/Review")
    dialog.get_by_label("Next Step").fill("Send the renewal order form")  # a seeded validation rule asks for it at this stage
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name=f"{acct} - Support Renewal 2027")).to_be_visible()
    row = world.one("SELECT stage, record_type_id FROM crm_opportunity WHERE name = ?", f"{acct} - Support Renewal 2027")
    assert row == ("Negotiation/Review", rt_id(world, "opportunity", "Renewal"))
    details = page.locator("#detail-record_type_id")
    expect(details).to_contain_text("Renewal")
    # The path shows the renewal's stages only.
    path = page.get_by_role("region", name="Stage path")
    expect(path.get_by_role("button", name="Value Proposition", exact=False)).to_have_count(0)


def test_server_refuses_a_stage_the_record_type_lacks(fresh, live_host) -> None:
    world, page = fresh
    renewal = rt_id(world, "opportunity", "Renewal")
    opp = world.one("SELECT id, stage FROM crm_opportunity WHERE record_type_id = ? AND stage = 'Qualification' ORDER BY id", renewal)
    page.goto(live_host.url("crm", f"/opportunities/{opp[0]}"))
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    # A hand-made post (the page doesn't offer the value): refused with the product's message, nothing saved.
    status, body = post(page, f"/opportunities/{opp[0]}/inline", {"_field": "stage", "stage": "Value Proposition"})
    assert status == 422
    assert "Stage: bad value for restricted picklist field: Value Proposition" in body
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp[0])[0] == "Qualification"
    # The API refuses it too, and takes an allowed one.
    status, body = patch(page, f"/api/opportunities/{opp[0]}", {"stage": "Prospecting"})
    assert status == 422 and "bad value for restricted picklist field: Prospecting" in body
    status, body = patch(page, f"/api/opportunities/{opp[0]}", {"stage": "Needs Analysis"})
    assert status == 200 and f'"record_type_id":{renewal}' in body.replace(" ", "")
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp[0])[0] == "Needs Analysis"


def test_change_a_cases_record_type_and_pick_its_reason(browser: Browser, live_host) -> None:
    world = live_host.world()
    context = live_host.new_context(browser, world, user_of(world, "support_agent"))
    page = context.new_page()
    support, billing = rt_id(world, "case", "Technical Support"), rt_id(world, "case", "Billing")
    case = world.one("SELECT id, case_number, reason FROM crm_case WHERE record_type_id = ? AND status != 'Closed' AND reason = 'Performance' ORDER BY id", support)
    page.goto(live_host.url("crm", f"/cases/{case[0]}"))
    page.get_by_role("button", name="Change Record Type").click()
    chooser = page.get_by_role("dialog", name="Change Record Type")
    expect(chooser.get_by_role("radio", name="Technical Support", exact=True)).to_be_checked()
    chooser.get_by_role("radio", name="Billing", exact=True).check()
    chooser.get_by_role("button", name="Next").click()
    dialog = page.get_by_role("dialog", name=f"Edit {case[1]}")
    expect(dialog).to_contain_text("Billing")
    reasons = dialog.get_by_label("Case Reason").locator("option").all_inner_texts()
    assert "Invoice Dispute" in reasons and "Performance" not in reasons
    dialog.get_by_label("Case Reason").select_option("Invoice Dispute")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text(f'Case "{case[1]}" was saved.')).to_be_visible()
    assert world.one("SELECT record_type_id, reason FROM crm_case WHERE id = ?", case[0]) == (billing, "Invoice Dispute")
    expect(page.locator("#detail-record_type_id")).to_contain_text("Billing")
    # Inline edit now offers the Billing reasons only, and the server refuses a support reason.
    page.get_by_role("button", name="Edit Case Reason").click()
    form = page.get_by_role("form", name="Edit Case Reason")
    expect(form.get_by_label("Case Reason").locator("option", has_text="Breakdown")).to_have_count(0)
    status, body = post(page, f"/cases/{case[0]}/inline", {"_field": "reason", "reason": "Breakdown"})
    assert status == 422 and "Case Reason: bad value for restricted picklist field: Breakdown" in body
    assert world.one("SELECT reason FROM crm_case WHERE id = ?", case[0])[0] == "Invoice Dispute"
    context.close()


def test_list_filter_and_report_grouping_by_record_type(fresh, live_host) -> None:
    world, page = fresh
    # Opportunities are Private: the rep's All Opportunities holds their own deals (and their reports', if any)
    n = world.one("""SELECT count(*) FROM crm_opportunity o JOIN crm_record_type r ON r.id = o.record_type_id WHERE r.name = 'Upsell'
        AND o.owner_id IN (SELECT id FROM identity_user WHERE username = ? OR manager_id = (SELECT id FROM identity_user WHERE username = ?))""",
                  user_of(world, "sales_rep"), user_of(world, "sales_rep"))[0]
    assert n > 0
    page.goto(live_host.url("crm", "/opportunities?view=all&ff=record_type&fo=equals&fv=Upsell"))
    expect(page.locator("#list-summary")).to_contain_text(f"{n} items")
    page.goto(live_host.url("crm", "/reports/cases-by-status-and-priority"))
    page.get_by_label("Group Rows By").select_option(label="Case Record Type")
    page.get_by_label("Then Group By").select_option(label="--None--")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"g1=record_type"))
    rows = dict(world.query("SELECT r.name, count(*) FROM crm_case c JOIN crm_record_type r ON r.id = c.record_type_id GROUP BY 1"))
    got = page.locator("tr.subtotal.level-1").evaluate_all("els => els.map(e => [e.dataset.group, Number(e.dataset.count)])")
    assert got == [[name, rows[name]] for name in ("Technical Support", "Billing", "Onboarding")]
