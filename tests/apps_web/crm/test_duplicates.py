"""Duplicate rules and the merge wizard in real Chromium. Each test checks the world database: the
alert saves nothing until the user saves again, a Block rule refuses, a merge keeps the master with
the chosen values, moves the related records and deletes the others; refused merges change nothing."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from apps_web.crm.duplicates import company_key

from .conftest import user_of, write


def seeded_pair(world) -> tuple[tuple, tuple]:
    """The last seeded near-duplicate account and the original it duplicates (same company key and city)."""
    dup = world.one("SELECT id, name, billing_city, phone FROM crm_account ORDER BY id DESC LIMIT 1")
    for row in world.query("SELECT id, name, billing_city, phone FROM crm_account WHERE billing_city = ? AND id != ? ORDER BY id", dup[2], dup[0]):
        if company_key(row[1]) == company_key(dup[1]):
            return row, dup
    raise AssertionError("no seeded duplicate account")


def test_company_names_match_across_case_punctuation_and_suffixes() -> None:
    assert company_key("ACME Corp.") == company_key("Acme Corporation") == company_key("Acme, Inc") == "acme"
    assert company_key("Blue Ridge Partners LLC") == "blue ridge partners"
    assert company_key("Acme Tools") != company_key("Acme")


def test_seeded_worlds_have_rules_and_near_duplicates(live_host) -> None:
    world = live_host.world()
    assert world.query("SELECT object_type, action_on_create FROM crm_duplicate_rule ORDER BY id") == [
        ("account", "Allow"), ("contact", "Allow"), ("lead", "Allow")]
    original, dup = seeded_pair(world)
    assert original[1] != dup[1] and world.one("SELECT count(*) FROM crm_contact WHERE account_id = ?", dup[0])[0] == 3


def test_alert_then_save_anyway(fresh, live_host) -> None:
    world, page = fresh
    original, _dup = seeded_pair(world)
    before = world.one("SELECT count(*) FROM crm_account")[0]
    typed = company_key(original[1]).upper() + " Corp"
    page.goto(live_host.url("crm", "/accounts?new=1"))
    dialog = page.get_by_role("dialog", name="New Account")
    dialog.get_by_label("Account Name").fill(typed)
    dialog.get_by_label("Billing City").fill(original[2])
    dialog.get_by_role("button", name="Save", exact=True).click()
    alert = dialog.get_by_role("alert")
    expect(alert).to_contain_text("It looks like you're creating a duplicate Account. We recommend you use an existing record instead.")
    assert world.one("SELECT count(*) FROM crm_account")[0] == before  # nothing saved yet
    alert.get_by_text("View Duplicates").click()
    expect(alert.get_by_role("link", name=original[1], exact=True)).to_be_visible()
    expect(dialog.get_by_label("Account Name")).to_have_value(typed)  # nothing typed is lost
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name=typed, level=1)).to_be_visible()
    assert world.one("SELECT count(*) FROM crm_account WHERE name = ?", typed)[0] == 1
    # Another city is another company: no alert.
    page.goto(live_host.url("crm", "/accounts?new=1"))
    dialog = page.get_by_role("dialog", name="New Account")
    dialog.get_by_label("Account Name").fill(original[1] + " Inc")
    dialog.get_by_label("Billing City").fill("Reykjavik")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name=original[1] + " Inc", level=1)).to_be_visible()


def test_block_rule_refuses_with_its_message(fresh, live_host) -> None:
    world, page = fresh
    write(world, "UPDATE crm_duplicate_rule SET action_on_create = 'Block', alert_text = ? WHERE object_type = 'lead'",
          "This lead already exists. Work the existing lead instead of creating another one.")
    lead = world.one("SELECT id, last_name, company, email FROM crm_lead WHERE email IS NOT NULL AND status != 'Closed - Converted' ORDER BY id")
    before = world.one("SELECT count(*) FROM crm_lead")[0]
    page.goto(live_host.url("crm", "/leads?new=1"))
    dialog = page.get_by_role("dialog", name="New Lead")
    dialog.get_by_label("Last Name").fill(lead[1])
    dialog.get_by_label("Company").fill("Someone Else Ltd")
    dialog.get_by_label("Email").fill(lead[3].upper())
    for _ in range(2):  # saving again does not get past a Block rule
        dialog.get_by_role("button", name="Save", exact=True).click()
        expect(dialog.get_by_role("alert")).to_contain_text("This lead already exists. Work the existing lead instead of creating another one.")
    assert world.one("SELECT count(*) FROM crm_lead")[0] == before


def test_card_view_duplicates_and_merge_moves_related_records(fresh, live_host) -> None:
    world, page = fresh
    original, dup = seeded_pair(world)
    dup_contacts = [r[0] for r in world.query("SELECT id FROM crm_contact WHERE account_id = ?", dup[0])]
    page.goto(live_host.url("crm", f"/accounts/{dup[0]}"))
    card = page.get_by_role("region", name="Duplicates")
    expect(card).to_contain_text("We found 1 potential duplicate of this Account.")
    card.get_by_role("link", name="View Duplicates").click()
    page.get_by_role("checkbox", name=f"Select {original[1]}", exact=True).check()
    page.get_by_role("button", name="Next").click()
    page.get_by_role("radio", name=f"Master Record: {original[1]}", exact=True).check()
    expect(page.get_by_role("radio", name=f"Phone: {original[3]}", exact=True)).to_be_checked()  # the master's values by default
    page.get_by_role("radio", name=f"Phone: {dup[3]}", exact=True).check()
    page.get_by_role("button", name="Merge").click()
    expect(page.get_by_role("heading", name=original[1], level=1)).to_be_visible()
    assert world.one("SELECT count(*) FROM crm_account WHERE id = ?", dup[0])[0] == 0
    assert world.one("SELECT phone, billing_city FROM crm_account WHERE id = ?", original[0]) == (dup[3], original[2])
    moved = world.query(f"SELECT account_id FROM crm_contact WHERE id IN ({','.join(map(str, dup_contacts))})")
    assert moved == [(original[0],)] * 3
    assert world.one("SELECT count(*) FROM crm_activity WHERE related_type = 'account' AND related_id = ?", dup[0])[0] == 0
    assert world.one("SELECT count(*) FROM crm_note WHERE related_type = 'account' AND related_id = ?", original[0])[0] >= 1
    assert world.one("SELECT new_value FROM crm_field_history WHERE object_type = 'account' AND record_id = ? AND field = 'phone'", original[0]) == (dup[3],)
    expect(page.get_by_role("region", name="Duplicates")).to_have_count(0)  # no duplicate left


def test_merge_limits_and_messages(fresh, live_host) -> None:
    world, page = fresh
    ids = [r[0] for r in world.query("SELECT id FROM crm_account ORDER BY id LIMIT 4")]
    count = world.one("SELECT count(*) FROM crm_account")[0]
    page.goto(live_host.url("crm", "/accounts/merge?" + "&".join(f"ids={i}" for i in ids)))
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("alert")).to_contain_text("You can merge up to 3 records at a time.")
    page.get_by_role("checkbox").nth(1).uncheck()
    page.get_by_role("checkbox").nth(2).uncheck()
    page.get_by_role("checkbox").nth(3).uncheck()
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("alert")).to_contain_text("Select at least 2 records to merge.")
    # A converted lead can't be merged.
    conv = world.one("SELECT id, first_name || ' ' || last_name FROM crm_lead WHERE status = 'Closed - Converted' ORDER BY id")
    other = world.one("SELECT id FROM crm_lead WHERE status != 'Closed - Converted' ORDER BY id")[0]
    page.goto(live_host.url("crm", f"/leads/merge?ids={conv[0]}&ids={other}&step=compare"))
    expect(page.get_by_role("alert")).to_contain_text(f"You can't merge converted leads: {conv[1]} was converted.")
    assert world.one("SELECT count(*) FROM crm_account")[0] == count
    assert world.one("SELECT count(*) FROM crm_lead WHERE id IN (?, ?)", conv[0], other)[0] == 2


def test_contact_merge_moves_tasks_and_keeps_chosen_email(fresh, live_host) -> None:
    world, page = fresh
    dup = world.one("SELECT id, first_name, last_name, email, account_id FROM crm_contact c WHERE EXISTS"
                    " (SELECT 1 FROM crm_contact o WHERE o.id < c.id AND o.first_name = c.first_name AND o.last_name = c.last_name"
                    " AND o.account_id = c.account_id) ORDER BY id DESC LIMIT 1")
    orig = world.one("SELECT id, email FROM crm_contact WHERE first_name = ? AND last_name = ? AND account_id = ? AND id != ?", dup[1], dup[2], dup[4], dup[0])
    task = world.one("SELECT id FROM crm_activity WHERE related_type = 'contact' AND related_id = ?", dup[0])[0]
    camp = world.one("SELECT id FROM crm_campaign ORDER BY id DESC")[0]
    write(world, "DELETE FROM crm_campaign_member WHERE contact_id IN (?, ?)", dup[0], orig[0])
    write(world, "INSERT INTO crm_campaign_member (campaign_id, contact_id, status, has_responded) VALUES (?, ?, 'Responded', 1)", camp, dup[0])
    page.goto(live_host.url("crm", "/contacts"))
    page.get_by_role("link", name="Merge Contacts").click()
    page.get_by_role("searchbox", name="Search Contacts").fill(f"{dup[1]} {dup[2]}")
    page.get_by_role("button", name="Find Contacts").click()
    page.get_by_role("checkbox", name=re.compile(re.escape(orig[1]))).check()
    page.get_by_role("checkbox", name=re.compile(re.escape(dup[3]))).check()
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("radio", name=re.compile(r"^Master Record: .*\(Record 1\)$"))).to_be_checked()
    page.get_by_role("radio", name=f"Email: {dup[3]}").check()
    page.get_by_role("button", name="Merge").click()
    expect(page.get_by_role("heading", name=f"{dup[1]} {dup[2]}", level=1)).to_be_visible()
    assert world.one("SELECT email FROM crm_contact WHERE id = ?", orig[0]) == (dup[3],)
    assert world.one("SELECT count(*) FROM crm_contact WHERE id = ?", dup[0])[0] == 0
    assert world.one("SELECT related_id, contact_id FROM crm_activity WHERE id = ?", task) == (orig[0], orig[0])
    assert world.query("SELECT campaign_id, status FROM crm_campaign_member WHERE contact_id = ?", orig[0]) == [(camp, "Responded")]


def test_a_profile_without_delete_cannot_merge(browser: Browser, live_host) -> None:
    world = live_host.world()
    context = live_host.new_context(browser, world, user_of(world, "support_agent"))
    page = context.new_page()
    original, dup = seeded_pair(world)
    page.goto(live_host.url("crm", f"/accounts/{dup[0]}/duplicates"))
    expect(page.locator(".notice")).to_contain_text("You don't have permission to merge accounts.")
    expect(page.get_by_role("button", name="Next")).to_be_disabled()
    # The server refuses it too (a form posted by hand).
    status, text = page.evaluate("""async ([a, b]) => {
        const body = new URLSearchParams([["ids", a], ["ids", b], ["master", a]]);
        const r = await fetch("/accounts/merge", {method: "POST", body});
        return [r.status, await r.text()];
    }""", [str(original[0]), str(dup[0])])
    assert status == 422 and "You don&#39;t have permission to merge accounts." in text.replace("'", "&#39;")
    assert world.one("SELECT count(*) FROM crm_account WHERE id IN (?, ?)", original[0], dup[0])[0] == 2
    context.close()
