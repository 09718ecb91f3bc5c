"""CRM record pages in real Chromium: header, highlights, tabs, inline edit, path, clone, delete, 404.

Every test checks the world database, not only the page. Read-only tests share one world; tests
that write get a fresh world (a file copy of the cached template).
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import event
from sqlalchemy.engine import Engine

from apps_web.identity.session import SESSION_COOKIE, Signer

from .conftest import write


def rep(world) -> str:
    """The VP of Sales: above every deal's, account's and contact's owner in the role hierarchy, so every
    record page here opens with all its actions (sharing itself is tested in test_sharing.py)."""
    return world.one("SELECT username FROM identity_user WHERE title = 'VP of Sales' ORDER BY id")[0]


@pytest.fixture(scope="module")
def shared(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world))
    yield world, context
    context.close()


@pytest.fixture()
def page(shared) -> Page:
    p = shared[1].new_page()
    yield p
    p.close()


@pytest.fixture()
def fresh(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world))
    yield world, context.new_page()
    context.close()


# -- reading ------------------------------------------------------------------------------------------
def test_account_page_header_highlights_related_counts_and_recent_view(page: Page, shared, live_host) -> None:
    world = shared[0]
    acct_id, name, industry = world.one("""SELECT a.id, a.name, a.industry FROM crm_account a
        WHERE (SELECT count(*) FROM crm_contact c WHERE c.account_id = a.id) >= 4 AND a.industry IS NOT NULL ORDER BY a.id LIMIT 1""")
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    expect(page.locator(".record-header .eyebrow")).to_have_text("Account")
    expect(page.get_by_role("region", name="Highlights")).to_contain_text(industry)
    expect(page.get_by_role("tab", name="Details")).to_have_attribute("aria-selected", "true")
    for label in ("Edit Account", "Clone Account", "Delete Account"):
        expect(page.get_by_role("button", name=label, exact=True)).to_be_visible()

    page.get_by_role("tab", name="Related").click()
    expect(page).to_have_url(re.compile(r"\?tab=related$"))
    n_contacts = world.one("SELECT count(*) FROM crm_contact WHERE account_id = ?", acct_id)[0]
    n_opps = world.one("SELECT count(*) FROM crm_opportunity WHERE account_id = ?", acct_id)[0]
    n_cases = world.one("SELECT count(*) FROM crm_case WHERE account_id = ?", acct_id)[0]
    related = page.get_by_role("tabpanel", name="Related")
    expect(related.get_by_role("heading", name=f"Contacts ({n_contacts})")).to_be_visible()
    expect(related.get_by_role("heading", name=f"Opportunities ({n_opps})")).to_be_visible()
    expect(related.get_by_role("heading", name=f"Cases ({n_cases})")).to_be_visible()
    contacts = related.get_by_role("article", name=re.compile(r"^Contacts"))
    expected = [r[0] for r in world.query("""SELECT trim(coalesce(first_name, '') || ' ' || last_name) FROM crm_contact
        WHERE account_id = ? ORDER BY last_name, first_name, id LIMIT 5""", acct_id)]
    assert contacts.locator("tbody th[scope=row]").all_inner_texts() == expected

    page.reload()  # the tab survives a reload through ?tab=
    expect(page.get_by_role("tab", name="Related")).to_have_attribute("aria-selected", "true")

    contacts.get_by_role("link", name="View All Contacts").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Contacts")
    assert page.locator("table.data tbody tr").count() == n_contacts
    viewed = world.one("SELECT object_type, record_id FROM crm_recent_view ORDER BY id DESC LIMIT 1")
    assert viewed == ("account", acct_id)


def test_opportunity_contact_and_case_pages_render(page: Page, shared, live_host) -> None:
    world = shared[0]
    opp_id, opp_name, stage = world.one("SELECT id, name, stage FROM crm_opportunity WHERE stage = 'Qualification' ORDER BY id LIMIT 1")
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    expect(page.get_by_role("heading", level=1)).to_have_text(opp_name)
    path = page.get_by_role("region", name="Stage path")
    expect(path.get_by_role("button", name=f"Current stage: {stage}")).to_have_attribute("aria-pressed", "true")
    expect(path.get_by_role("button", name="Mark Stage as Complete")).to_be_visible()

    contact_id, contact_name = world.one("""SELECT c.id, trim(coalesce(c.first_name, '') || ' ' || c.last_name) FROM crm_contact c
        JOIN crm_opportunity_contact_role r ON r.contact_id = c.id ORDER BY c.id LIMIT 1""")
    page.goto(live_host.url("crm", f"/contacts/{contact_id}?tab=related"))
    expect(page.get_by_role("heading", level=1)).to_have_text(contact_name)
    n_opps = world.one("SELECT count(*) FROM crm_opportunity_contact_role WHERE contact_id = ?", contact_id)[0]
    expect(page.get_by_role("heading", name=f"Opportunities ({n_opps})")).to_be_visible()

    case_id, number, subject = world.one("SELECT id, case_number, subject FROM crm_case WHERE status = 'New' ORDER BY id LIMIT 1")
    page.goto(live_host.url("crm", f"/cases/{case_id}"))
    expect(page.get_by_role("heading", level=1)).to_have_text(number)
    expect(page.get_by_role("region", name="Highlights")).to_contain_text(subject)
    expect(page.get_by_role("button", name="Close Case")).to_be_visible()


def test_unknown_record_is_a_404_in_the_app_look(page: Page, shared, live_host) -> None:
    response = page.goto(live_host.url("crm", "/opportunities/987654"))
    assert response.status == 404
    expect(page.get_by_role("heading", name="We can't find that page")).to_be_visible()
    expect(page.get_by_role("navigation", name="Sales Cloud")).to_be_visible()  # the CRM's own navigation bar
    expect(page.get_by_role("alert")).to_contain_text("This opportunity doesn't exist or has been deleted.")


def test_markup_in_a_field_renders_as_text(fresh, live_host) -> None:
    world, page = fresh
    evil = "<script>alert(1)</script><b>bold</b>"
    acct_id = world.one("SELECT id FROM crm_account ORDER BY id LIMIT 1")[0]
    write(world, "UPDATE crm_account SET name = ?, description = ? WHERE id = ?", evil, evil, acct_id)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    expect(page.get_by_role("heading", level=1)).to_have_text(evil)
    expect(page.locator("#detail-description .detail-value")).to_have_text(evil)
    assert page.locator("b", has_text="bold").count() == 0
    assert dialogs == []


# -- inline edit ------------------------------------------------------------------------------------------
def test_inline_edit_saves_one_field(fresh, live_host) -> None:
    world, page = fresh
    acct_id, name = world.one("SELECT id, name FROM crm_account ORDER BY id LIMIT 1")
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    page.get_by_role("button", name="Edit Phone", exact=True).click()
    form = page.get_by_role("form", name="Edit Phone")
    field = form.get_by_label("Phone")
    expect(field).to_be_focused()
    field.fill("(415) 555-0199")
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#detail-phone .detail-value")).to_have_text("(415) 555-0199")
    expect(page.get_by_role("form", name="Edit Phone")).to_be_hidden()
    assert world.one("SELECT phone, name FROM crm_account WHERE id = ?", acct_id) == ("(415) 555-0199", name)

    # A picklist and a lookup edit the same way.
    page.get_by_role("button", name="Edit Industry", exact=True).click()
    page.get_by_role("form", name="Edit Industry").get_by_label("Industry").select_option("Biotechnology")
    page.get_by_role("form", name="Edit Industry").get_by_role("button", name="Save").click()
    expect(page.locator("#detail-industry .detail-value")).to_have_text("Biotechnology")
    parent_id, parent_name = world.one("SELECT id, name FROM crm_account WHERE id <> ? AND parent_id IS NULL ORDER BY name LIMIT 1", acct_id)
    other_name = world.one("SELECT name FROM crm_account WHERE id NOT IN (?, ?) ORDER BY name DESC LIMIT 1", acct_id, parent_id)[0]
    page.get_by_role("button", name="Edit Parent Account", exact=True).click()
    form = page.get_by_role("form", name="Edit Parent Account")
    form.get_by_role("combobox", name="Parent Account").fill(other_name)  # chosen, then cancelled: forgotten
    form.get_by_role("option", name=re.compile("^" + re.escape(other_name))).first.click()
    form.get_by_role("button", name="Cancel").click()
    page.get_by_role("button", name="Edit Parent Account", exact=True).click()
    expect(form.get_by_role("combobox", name="Parent Account")).to_have_value("")
    expect(form.locator("input[type=hidden][name=parent_id]")).to_have_value("")
    form.get_by_role("combobox", name="Parent Account").fill(parent_name)
    form.get_by_role("option", name=re.compile("^" + re.escape(parent_name))).first.click()
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#detail-parent_id .detail-value")).to_have_text(parent_name)
    assert world.one("SELECT industry, parent_id FROM crm_account WHERE id = ?", acct_id) == ("Biotechnology", parent_id)


def test_inline_edit_cancel_saves_nothing(fresh, live_host) -> None:
    world, page = fresh
    acct_id, website = world.one("SELECT id, website FROM crm_account WHERE website IS NOT NULL ORDER BY id LIMIT 1")
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    page.get_by_role("button", name="Edit Website", exact=True).click()
    form = page.get_by_role("form", name="Edit Website")
    form.get_by_label("Website").fill("www.changed.example")
    form.get_by_role("button", name="Cancel").click()
    expect(form).to_be_hidden()
    page.get_by_role("button", name="Edit Website", exact=True).click()
    expect(form.get_by_label("Website")).to_have_value(website)  # the editor starts again from the saved value
    form.get_by_label("Website").fill("www.other.example")
    form.get_by_label("Website").press("Escape")
    expect(form).to_be_hidden()
    expect(page.locator("#detail-website .detail-value")).to_have_text(website)
    page.reload()
    expect(page.locator("#detail-website .detail-value")).to_have_text(website)
    assert world.one("SELECT website FROM crm_account WHERE id = ?", acct_id)[0] == website


def test_inline_edit_invalid_value_shows_message_and_saves_nothing(fresh, live_host) -> None:
    world, page = fresh
    contact_id, email = world.one("SELECT id, email FROM crm_contact WHERE email IS NOT NULL ORDER BY id LIMIT 1")
    before = world.query("SELECT * FROM crm_contact WHERE id = ?", contact_id)
    page.goto(live_host.url("crm", f"/contacts/{contact_id}"))
    page.get_by_role("button", name="Edit Email", exact=True).click()
    form = page.get_by_role("form", name="Edit Email")
    form.get_by_label("Email").fill("not-an-email")
    form.get_by_role("button", name="Save").click()
    form = page.get_by_role("form", name="Edit Email")
    expect(form).to_be_visible()  # still editing, with the message in place
    expect(form.get_by_label("Email")).to_have_value("not-an-email")
    expect(form.get_by_label("Email")).to_have_attribute("aria-invalid", "true")
    expect(form.locator(".error-text")).to_contain_text("email")
    assert world.query("SELECT * FROM crm_contact WHERE id = ?", contact_id) == before

    # A required part of a compound field: the last name can't be blanked.
    page.goto(live_host.url("crm", f"/contacts/{contact_id}"))
    page.get_by_role("button", name="Edit Name", exact=True).click()
    form = page.get_by_role("form", name="Edit Name")
    form.get_by_label("Last Name").fill("")
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_role("form", name="Edit Name").locator(".error-text")).to_have_text("Complete this field.")
    assert world.query("SELECT * FROM crm_contact WHERE id = ?", contact_id) == before


# -- path ----------------------------------------------------------------------------------------------------
def test_path_moves_an_opportunity_to_a_later_stage(fresh, live_host) -> None:
    world, page = fresh
    opp_id = world.one("SELECT id FROM crm_opportunity WHERE stage = 'Prospecting' ORDER BY id LIMIT 1")[0]
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    path = page.get_by_role("region", name="Stage path")
    step = path.get_by_role("button", name="Negotiation/Review")
    step.click()
    expect(step).to_have_attribute("aria-pressed", "true")
    path.get_by_role("button", name="Mark as Current Stage").click()
    expect(page.locator(".toast")).to_contain_text("Stage changed successfully.")
    expect(path.get_by_role("button", name="Current stage: Negotiation/Review")).to_be_visible()
    assert world.one("SELECT stage, probability, forecast_category FROM crm_opportunity WHERE id = ?", opp_id) == ("Negotiation/Review", 90, "Commit")

    # "Mark Stage as Complete" moves on to the next stage... and from the last open one asks how it closed.
    path.get_by_role("button", name="Mark Stage as Complete").click()
    dialog = page.get_by_role("dialog", name="Close This Opportunity")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp_id)[0] == "Negotiation/Review"


def test_close_an_opportunity_as_closed_lost_through_the_dialog(fresh, live_host) -> None:
    world, page = fresh
    opp_id = world.one("SELECT id FROM crm_opportunity WHERE stage = 'Value Proposition' ORDER BY id LIMIT 1")[0]
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    path = page.get_by_role("region", name="Stage path")
    path.get_by_role("button", name="Closed", exact=True).click()
    path.get_by_role("button", name="Select Closed Stage").click()
    dialog = page.get_by_role("dialog", name="Close This Opportunity")
    dialog.get_by_label("Stage").select_option("Closed Lost")
    dialog.get_by_label("Loss Reason").select_option("No Decision / Non-Responsive")
    dialog.get_by_role("button", name="Save").click()
    expect(path.get_by_role("button", name="Current stage: Closed Lost")).to_be_visible()
    assert world.one("SELECT stage, probability, forecast_category, loss_reason FROM crm_opportunity WHERE id = ?", opp_id) == \
        ("Closed Lost", 0, "Omitted", "No Decision / Non-Responsive")


def test_close_case_and_lead_status_path(fresh, live_host) -> None:
    world, page = fresh
    case_id = world.one("SELECT id FROM crm_case WHERE status = 'Working' ORDER BY id LIMIT 1")[0]
    page.goto(live_host.url("crm", f"/cases/{case_id}"))
    page.get_by_role("button", name="Close Case").click()
    dialog = page.get_by_role("dialog", name="Close Case")
    dialog.get_by_label("Case Reason").select_option("User Training")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text("was closed")
    assert world.one("SELECT status, reason, closed_at FROM crm_case WHERE id = ?", case_id) == ("Closed", "User Training", "2026-03-16 09:30:00.000000")

    lead_id = world.one("SELECT id FROM crm_lead WHERE status = 'Open - Not Contacted' ORDER BY id LIMIT 1")[0]
    page.goto(live_host.url("crm", f"/leads/{lead_id}"))
    path = page.get_by_role("region", name="Status path")
    path.get_by_role("button", name="Mark Status as Complete").click()
    expect(path.get_by_role("button", name="Current status: Working - Contacted")).to_be_visible()
    assert world.one("SELECT status FROM crm_lead WHERE id = ?", lead_id)[0] == "Working - Contacted"


# -- clone, new from a related list, contact roles, delete ------------------------------------------------------
def test_clone_an_account(fresh, live_host) -> None:
    world, page = fresh
    acct_id, name, industry, city = world.one("SELECT id, name, industry, billing_city FROM crm_account WHERE industry IS NOT NULL AND billing_city IS NOT NULL ORDER BY id LIMIT 1")
    n_before = world.one("SELECT count(*) FROM crm_account")[0]
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    page.get_by_role("button", name="Clone Account").click()
    dialog = page.get_by_role("dialog", name="New Account")
    expect(dialog.get_by_label("Account Name")).to_have_value(name)
    expect(dialog.get_by_label("Industry")).to_have_value(industry)
    dialog.get_by_label("Account Name").fill(f"{name} (EMEA)")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".toast")).to_contain_text(f'Account "{name} (EMEA)" was created.')
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{name} (EMEA)")  # the new record opens
    assert world.one("SELECT count(*) FROM crm_account")[0] == n_before + 1
    new_id = world.one("SELECT id FROM crm_account WHERE name = ?", f"{name} (EMEA)")[0]
    expect(page).to_have_url(re.compile(rf"/accounts/{new_id}$"))
    clone = world.one("SELECT industry, billing_city FROM crm_account WHERE name = ?", f"{name} (EMEA)")
    assert clone == (industry, city)
    assert world.one("SELECT name FROM crm_account WHERE id = ?", acct_id)[0] == name


def test_new_contact_from_account_related_list_has_account_prefilled(fresh, live_host) -> None:
    world, page = fresh
    acct_id, name = world.one("SELECT id, name FROM crm_account ORDER BY id LIMIT 1")
    page.goto(live_host.url("crm", f"/accounts/{acct_id}?tab=related"))
    page.get_by_role("article", name=re.compile("^Contacts")).get_by_role("button", name="New: Contacts").click()
    dialog = page.get_by_role("dialog", name="New Contact")
    expect(dialog.locator("[id$='account_id-box'] .pill-label")).to_have_text(name)
    dialog.get_by_label("Last Name").fill("Okonkwo")
    dialog.get_by_label("First Name").fill("Ada")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".toast")).to_contain_text('Contact "Ada Okonkwo" was created.')
    expect(page).to_have_url(re.compile(rf"/accounts/{acct_id}\?tab=related$"))
    n = world.one("SELECT count(*) FROM crm_contact WHERE account_id = ?", acct_id)[0]
    expect(page.get_by_role("heading", name=f"Contacts ({n})")).to_be_visible()
    assert world.one("SELECT account_id FROM crm_contact WHERE last_name = 'Okonkwo' AND first_name = 'Ada'") == (acct_id,)


def test_add_a_contact_role_to_an_opportunity(fresh, live_host) -> None:
    world, page = fresh
    opp_id = world.one("""SELECT o.id FROM crm_opportunity o WHERE NOT EXISTS
        (SELECT 1 FROM crm_opportunity_contact_role r WHERE r.opportunity_id = o.id) ORDER BY o.id LIMIT 1""")[0]
    contact_id, last, first = world.one("SELECT id, last_name, first_name FROM crm_contact WHERE first_name IS NOT NULL ORDER BY id LIMIT 1")
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=related"))
    expect(page.get_by_role("heading", name="Contact Roles (0)")).to_be_visible()
    page.get_by_role("button", name="Add Contact Roles").click()
    dialog = page.get_by_role("dialog", name="Add Contact Role")
    dialog.get_by_role("combobox", name="Contact").fill(f"{first} {last}")
    dialog.get_by_role("option", name=re.compile(f"^{first} {last}")).first.click()
    dialog.get_by_label("Role").select_option("Decision Maker")
    dialog.get_by_label("Primary").check()
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="Contact Roles (1)")).to_be_visible()
    assert world.query("SELECT contact_id, role, is_primary FROM crm_opportunity_contact_role WHERE opportunity_id = ?", opp_id) == [(contact_id, "Decision Maker", 1)]


def test_delete_a_contact_after_confirmation(fresh, live_host) -> None:
    world, page = fresh
    contact_id, acct_id, name = world.one("""SELECT id, account_id, trim(coalesce(first_name, '') || ' ' || last_name) FROM crm_contact
        WHERE account_id IS NOT NULL ORDER BY id LIMIT 1""")
    page.goto(live_host.url("crm", f"/contacts/{contact_id}"))
    page.get_by_role("button", name="Delete Contact").click()
    dialog = page.get_by_role("dialog", name="Delete Contact")
    expect(dialog).to_contain_text("Are you sure you want to delete this contact?")
    dialog.get_by_role("button", name="Cancel").click()
    assert world.one("SELECT count(*) FROM crm_contact WHERE id = ?", contact_id)[0] == 1

    page.get_by_role("button", name="Delete Contact").click()
    dialog.get_by_role("button", name="Delete").click()
    page.wait_for_url(re.compile(r"/contacts$"))
    expect(page.locator(".toast")).to_contain_text(f'Contact "{name}" was deleted.')
    assert world.one("SELECT count(*) FROM crm_contact WHERE id = ?", contact_id)[0] == 0
    assert world.one("SELECT count(*) FROM crm_account WHERE id = ?", acct_id)[0] == 1
    assert page.goto(live_host.url("crm", f"/contacts/{contact_id}")).status == 404


def test_edit_dialog_from_the_record_page(fresh, live_host) -> None:
    world, page = fresh
    opp_id, name = world.one("SELECT id, name FROM crm_opportunity WHERE stage = 'Qualification' AND pricebook_id IS NULL ORDER BY id LIMIT 1")
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))  # no products: the amount is typed, not rolled up
    page.get_by_role("button", name="Edit Opportunity", exact=True).click()
    dialog = page.get_by_role("dialog", name=f"Edit {name}")
    expect(dialog.get_by_label("Opportunity Name")).to_have_value(name)
    dialog.get_by_label("Opportunity Name").fill("")
    dialog.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name=f"Edit {name}")  # the record page again, the dialog open with the message
    expect(dialog.get_by_role("alert")).to_contain_text("Opportunity Name")
    assert world.one("SELECT name FROM crm_opportunity WHERE id = ?", opp_id)[0] == name
    dialog.get_by_label("Opportunity Name").fill(f"{name} v2")
    dialog.get_by_label("Amount").fill("125000")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{name} v2")
    expect(page).to_have_url(re.compile(rf"/opportunities/{opp_id}$"))
    assert world.one("SELECT name, amount FROM crm_opportunity WHERE id = ?", opp_id) == (f"{name} v2", 125000.0)


def test_deleting_an_account_says_what_goes_with_it(fresh, live_host) -> None:
    world, page = fresh
    acct_id = world.one("""SELECT a.id FROM crm_account a WHERE (SELECT count(*) FROM crm_contact c WHERE c.account_id = a.id) > 1
        AND NOT EXISTS (SELECT 1 FROM crm_opportunity o WHERE o.account_id = a.id) AND NOT EXISTS (SELECT 1 FROM crm_case k WHERE k.account_id = a.id)
        ORDER BY a.id LIMIT 1""")
    if acct_id is None:
        acct_id = world.one("SELECT account_id FROM crm_contact GROUP BY account_id HAVING count(*) > 1 ORDER BY account_id LIMIT 1")
    acct_id = acct_id[0]
    n_contacts = world.one("SELECT count(*) FROM crm_contact WHERE account_id = ?", acct_id)[0]
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    page.get_by_role("button", name="Delete Account").click()
    dialog = page.get_by_role("dialog", name="Delete Account")
    expect(dialog).to_contain_text(f"Its {n_contacts} contacts")
    dialog.get_by_role("button", name="Delete").click()
    page.wait_for_url(re.compile(r"/accounts$"))
    assert world.one("SELECT count(*) FROM crm_account WHERE id = ?", acct_id)[0] == 0
    assert world.one("SELECT count(*) FROM crm_contact WHERE account_id = ?", acct_id)[0] == 0


# -- cost: a record page is a bounded number of queries, whatever the size of the world ----------------------
@pytest.mark.parametrize("path", ["/accounts/{account}", "/contacts/{contact}", "/leads/{lead}", "/opportunities/{opportunity}", "/cases/{case}"])
def test_record_page_query_count_is_bounded(shared, live_host, path: str) -> None:
    world = shared[0]
    ids = {k: world.one(f"SELECT id FROM crm_{k} ORDER BY id LIMIT 1")[0] for k in ("account", "contact", "lead", "opportunity", "case")}
    ids["account"] = world.one("SELECT account_id FROM crm_contact GROUP BY account_id ORDER BY count(*) DESC, account_id LIMIT 1")[0]
    client = TestClient(live_host.app, base_url="http://crm.localhost")
    client.headers["X-Sandbox-World"] = world.id
    client.cookies.set(SESSION_COOKIE, Signer(live_host.secret).session_value(rep(world), world.id), domain="crm.localhost")
    url = path.format(**ids)
    assert client.get(url).status_code == 200
    statements: list[str] = []

    def count(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    event.listen(Engine, "before_cursor_execute", count)
    try:
        assert client.get(url).status_code == 200
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    # 40, plus the three reads of record sharing made once per request (Org-Wide Defaults, the role chart,
    # field-level security), whatever the number of related lists
    assert len(statements) <= 43, statements
