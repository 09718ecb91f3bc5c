"""Lead conversion in real Chromium (and the conversion module directly): new or existing account and
contact, optional opportunity, the result page, and refusing a lead that is already converted."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import select

from apps_web.crm.conversion import ConversionError, ConvertRequest, convert_lead
from apps_web.crm.models import Contact, Lead
from apps_web.identity.models import User

from .conftest import write

NOW = "2026-03-16 09:30:00.000000"


def rep(world) -> tuple[str, int]:
    return world.one("SELECT username, id FROM identity_user WHERE role = 'sales_rep' ORDER BY id")


def count(world, table: str) -> int:
    return world.one(f"SELECT count(*) FROM {table}")[0]


def open_lead(world) -> tuple:
    """An open lead whose company matches no account."""
    return world.one("""SELECT l.id, l.company, l.first_name, l.last_name, l.owner_id FROM crm_lead l
        WHERE l.status = 'Open - Not Contacted' AND l.first_name IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM crm_account a WHERE lower(a.name) = lower(l.company)) ORDER BY l.id LIMIT 1""")


@pytest.fixture()
def fresh(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world)[0])
    yield world, context.new_page()
    context.close()


def test_convert_into_new_account_contact_and_opportunity(fresh, live_host) -> None:
    world, page = fresh
    lead_id, company, first, last, _ = open_lead(world)
    owner_id = rep(world)[1]  # the rep converts a lead assigned to them: the new deal is theirs (Opportunities are Private)
    write(world, "UPDATE crm_lead SET owner_id = ? WHERE id = ?", owner_id, lead_id)
    write(world, "INSERT INTO crm_activity (kind, subject, status, priority, related_type, related_id) VALUES ('task', 'Intro call prep', 'Not Started', 'Normal', 'lead', ?)", lead_id)
    n_acct, n_contact, n_opp = count(world, "crm_account"), count(world, "crm_contact"), count(world, "crm_opportunity")
    page.goto(live_host.url("crm", f"/leads/{lead_id}"))
    page.get_by_role("button", name="Convert", exact=True).click()
    dialog = page.get_by_role("dialog", name="Convert Lead")
    expect(dialog.get_by_label("Account Name")).to_have_value(company)
    expect(dialog.get_by_label("First Name")).to_have_value(first)
    expect(dialog.get_by_label("Last Name")).to_have_value(last)
    expect(dialog.get_by_label("Opportunity Name")).to_have_value(f"{company}-")
    dialog.get_by_label("Opportunity Name").fill(f"{company}-Platform")
    dialog.get_by_role("button", name="Convert").click()
    page.wait_for_url(re.compile(rf"/leads/{lead_id}/converted$"))
    expect(page.get_by_role("heading", name="Your lead has been converted")).to_be_visible()

    lead = world.one("SELECT status, converted_account_id, converted_contact_id, converted_opportunity_id, converted_at FROM crm_lead WHERE id = ?", lead_id)
    status, acct_id, contact_id, opp_id, converted_at = lead
    assert (status, converted_at) == ("Closed - Converted", NOW)
    assert (count(world, "crm_account"), count(world, "crm_contact"), count(world, "crm_opportunity")) == (n_acct + 1, n_contact + 1, n_opp + 1)
    assert world.one("SELECT name, owner_id FROM crm_account WHERE id = ?", acct_id) == (company, owner_id)
    assert world.one("SELECT first_name, last_name, account_id, owner_id FROM crm_contact WHERE id = ?", contact_id) == (first, last, acct_id, owner_id)
    assert world.one("SELECT name, account_id, stage, probability, close_date FROM crm_opportunity WHERE id = ?", opp_id) == (
        f"{company}-Platform", acct_id, "Prospecting", 10, "2026-03-31")
    assert world.query("SELECT contact_id, is_primary FROM crm_opportunity_contact_role WHERE opportunity_id = ?", opp_id) == [(contact_id, 1)]
    # The lead's history follows the customer.
    assert world.one("SELECT related_type, related_id, contact_id FROM crm_activity WHERE subject = 'Intro call prep'") == ("opportunity", opp_id, contact_id)

    for name in (company, f"{first} {last}", f"{company}-Platform"):
        expect(page.get_by_role("link", name=name, exact=True)).to_be_visible()
    page.get_by_role("link", name=f"{company}-Platform", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{company}-Platform")


def test_convert_into_an_existing_account_without_an_opportunity(fresh, live_host) -> None:
    world, page = fresh
    lead_id, _company, first, last, _owner = open_lead(world)
    acct_id, acct_name = world.one("SELECT id, name FROM crm_account ORDER BY id LIMIT 1")
    write(world, "UPDATE crm_lead SET company = ? WHERE id = ?", acct_name, lead_id)  # the company is already a customer
    n_acct, n_opp = count(world, "crm_account"), count(world, "crm_opportunity")
    page.goto(live_host.url("crm", f"/leads/{lead_id}"))
    page.get_by_role("button", name="Convert", exact=True).click()
    dialog = page.get_by_role("dialog", name="Convert Lead")
    matches = dialog.get_by_role("group", name="Account matches")
    expect(matches).to_contain_text("1 Account Match")
    matches.get_by_label(acct_name).check()
    expect(dialog.get_by_role("radio", name="Choose Existing").first).to_be_checked()
    dialog.get_by_label("Don't create an opportunity upon conversion").check()
    expect(dialog.get_by_label("Opportunity Name")).to_be_disabled()
    dialog.get_by_role("button", name="Convert").click()
    page.wait_for_url(re.compile(rf"/leads/{lead_id}/converted$"))
    expect(page.get_by_text("No opportunity was created.")).to_be_visible()

    status, conv_acct, contact_id, opp_id = world.one("SELECT status, converted_account_id, converted_contact_id, converted_opportunity_id FROM crm_lead WHERE id = ?", lead_id)
    assert (status, conv_acct, opp_id) == ("Closed - Converted", acct_id, None)
    assert (count(world, "crm_account"), count(world, "crm_opportunity")) == (n_acct, n_opp)
    assert world.one("SELECT first_name, last_name, account_id FROM crm_contact WHERE id = ?", contact_id) == (first, last, acct_id)


def test_convert_with_searched_account_and_existing_contact(fresh, live_host) -> None:
    world, page = fresh
    lead_id = open_lead(world)[0]
    acct_id, acct_name = world.one("SELECT a.id, a.name FROM crm_account a WHERE (SELECT count(*) FROM crm_contact c WHERE c.account_id = a.id) >= 2 ORDER BY a.id LIMIT 1")
    contact_id, contact_last = world.one("SELECT id, last_name FROM crm_contact WHERE account_id = ? ORDER BY id LIMIT 1", acct_id)
    n_contact = count(world, "crm_contact")
    page.goto(live_host.url("crm", f"/leads/{lead_id}/convert"))  # the Convert dialog opens with the page
    dialog = page.get_by_role("dialog", name="Convert Lead")
    dialog.get_by_role("combobox", name="Account Search").fill(acct_name)
    dialog.get_by_role("option", name=re.compile("^" + re.escape(acct_name))).first.click()
    dialog.get_by_role("combobox", name="Contact Search").fill(contact_last)
    wanted = dialog.locator(f"#cv-contact-list .option[data-value='{contact_id}']")
    expect(wanted).to_be_visible()
    options = dialog.locator("#cv-contact-list .option")
    ids = [int(v) for v in options.evaluate_all("els => els.map(e => e.dataset.value)")]
    assert contact_id in ids and all(world.one("SELECT account_id FROM crm_contact WHERE id = ?", i)[0] == acct_id for i in ids)
    wanted.click()
    radios = dialog.get_by_role("radio", name="Choose Existing")
    expect(radios.nth(0)).to_be_checked()
    expect(radios.nth(1)).to_be_checked()
    dialog.get_by_role("button", name="Convert").click()
    page.wait_for_url(re.compile(rf"/leads/{lead_id}/converted$"))
    assert world.one("SELECT converted_account_id, converted_contact_id FROM crm_lead WHERE id = ?", lead_id) == (acct_id, contact_id)
    assert count(world, "crm_contact") == n_contact


def test_convert_errors_keep_the_dialog_open_and_save_nothing(fresh, live_host) -> None:
    world, page = fresh
    lead_id = open_lead(world)[0]
    before = world.query("SELECT * FROM crm_lead WHERE id = ?", lead_id)
    n_acct = count(world, "crm_account")
    page.goto(live_host.url("crm", f"/leads/{lead_id}"))
    path = page.get_by_role("region", name="Status path")  # the path's last step converts too
    path.get_by_role("button", name="Converted", exact=True).click()
    path.get_by_role("button", name="Select Converted Status").click()
    dialog = page.get_by_role("dialog", name="Convert Lead")
    dialog.get_by_label("Account Name").fill("")
    dialog.get_by_role("button", name="Convert").click()
    dialog = page.get_by_role("dialog", name="Convert Lead")
    expect(dialog.get_by_role("alert")).to_contain_text("Review the errors")
    expect(dialog.get_by_label("Account Name")).to_have_attribute("aria-invalid", "true")
    assert count(world, "crm_account") == n_acct
    assert world.query("SELECT * FROM crm_lead WHERE id = ?", lead_id) == before


def test_an_already_converted_lead_is_refused(fresh, live_host) -> None:
    world, page = fresh
    lead_id = world.one("SELECT id FROM crm_lead WHERE status = 'Closed - Converted' ORDER BY id LIMIT 1")[0]
    before = world.query("SELECT * FROM crm_lead WHERE id = ?", lead_id)
    n_acct = count(world, "crm_account")
    page.goto(live_host.url("crm", f"/leads/{lead_id}"))
    expect(page.get_by_role("status").filter(has_text="This lead was converted")).to_be_visible()
    expect(page.get_by_role("button", name="Convert", exact=True)).to_have_count(0)
    page.goto(live_host.url("crm", f"/leads/{lead_id}/convert"))
    expect(page).to_have_url(re.compile(rf"/leads/{lead_id}/converted$"))
    # A stale form posted again is refused with a message.
    page.goto(live_host.url("crm", f"/leads/{lead_id}"))
    page.evaluate("""id => { const f = document.createElement('form'); f.method = 'post'; f.action = `/leads/${id}/convert`;
        for (const [k, v] of [['account_mode', 'new'], ['account_name', 'Dup Co'], ['contact_mode', 'new'], ['last_name', 'Dup'], ['opportunity_name', 'Dup-'], ['owner_id', '1'], ['status', 'Closed - Converted']]) {
          const i = document.createElement('input'); i.name = k; i.value = v; f.appendChild(i); }
        document.body.appendChild(f); f.submit(); }""", lead_id)
    page.wait_for_url(re.compile(rf"/leads/{lead_id}/converted$"))
    expect(page.locator(".toast")).to_contain_text("This lead has already been converted.")
    assert world.query("SELECT * FROM crm_lead WHERE id = ?", lead_id) == before
    assert count(world, "crm_account") == n_acct


def test_conversion_rules_without_a_browser(store) -> None:
    world = store.create(seed=0)
    with world.session() as session:
        lead = session.get(Lead, open_lead(world)[0])
        user = session.get(User, rep(world)[1])
        other = session.exec(select(Contact).where(Contact.account_id == 2)).first()
        with pytest.raises(ConversionError) as err:
            convert_lead(session, lead, ConvertRequest(account_id=1, contact_id=other.id, opportunity_name=None, owner_id=user.id), user=user, clock=world.clock)
        assert "contact_id" in err.value.errors
        with pytest.raises(ConversionError) as err:
            convert_lead(session, lead, ConvertRequest(account_name="", last_name="X", opportunity_name="  ", owner_id=user.id), user=user, clock=world.clock)
        assert set(err.value.errors) == {"account_name", "opportunity_name"}
        result = convert_lead(session, lead, ConvertRequest(account_name="Acme", last_name="X", opportunity_name=None, owner_id=user.id), user=user, clock=world.clock)
        assert result.opportunity is None and result.contact.account_id == result.account.id
        with pytest.raises(ConversionError) as err:
            convert_lead(session, lead, ConvertRequest(account_name="Acme", last_name="X", owner_id=user.id), user=user, clock=world.clock)
        assert err.value.errors == {"__all__": "This lead has already been converted."}
