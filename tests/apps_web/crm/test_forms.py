"""The CRM create/edit dialog in real Chromium: lookups, validation, Save & New, edit, escaping.

Each test writes, so each gets a fresh world; every test checks the database.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from apps_web.crm.forms import LAYOUTS, build_form, form_fields
from apps_web.crm.validation import RULES


def rep(world) -> tuple[str, int]:
    return world.one("SELECT username, id FROM identity_user WHERE role = 'sales_rep' ORDER BY id")


@pytest.fixture()
def fresh(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world)[0])
    page = context.new_page()
    page.on("dialog", lambda d: pytest.fail(f"unexpected browser dialog: {d.message}"))
    yield world, page
    context.close()


def open_new(page: Page, live_host, path: str, label: str):
    page.goto(live_host.url("crm", path))
    page.get_by_role("button", name="New", exact=True).click()
    dialog = page.get_by_role("dialog", name=f"New {label}")
    expect(dialog).to_be_visible()
    if label in ("Opportunity", "Case"):  # "Select a record type" first: Next keeps the default
        dialog.get_by_role("button", name="Next").click()
        dialog = page.get_by_role("dialog", name=re.compile(f"^New {label}: "))
        expect(dialog).to_be_visible()
    return dialog


def test_create_contact_with_account_lookup(fresh, live_host) -> None:
    world, page = fresh
    account_id, account = world.query("SELECT id, name FROM crm_account WHERE name LIKE 'Copperleaf Bank%' ORDER BY name LIMIT 1")[0]
    before = world.query("SELECT count(*) FROM crm_contact")[0][0]
    dialog = open_new(page, live_host, "/contacts", "Contact")
    expect(dialog.get_by_label("Last Name")).to_be_focused()  # the first field to type in
    dialog.get_by_label("Salutation").select_option("Ms.")
    dialog.get_by_label("First Name").fill("Ada")
    dialog.get_by_label("Last Name").fill("Quill")
    dialog.get_by_label("Email").fill("ada.quill@example.com")
    dialog.get_by_label("Title").fill("CFO")
    box = dialog.get_by_role("combobox", name="Account Name")
    box.press_sequentially(account[:12])
    option = dialog.get_by_role("option", name=re.compile("^" + re.escape(account)))
    option.click()
    expect(dialog.get_by_text(account, exact=True)).to_be_visible()  # the selected pill
    dialog.get_by_role("button", name="Save", exact=True).click()

    expect(page).to_have_url(re.compile(r"/contacts/\d+$"))
    new_id = int(page.url.rsplit("/", 1)[1])
    expect(page.get_by_role("status")).to_contain_text('Contact "Ada Quill" was created.')
    row = world.query("SELECT salutation, first_name, last_name, email, title, account_id, owner_id, created_at IS NOT NULL FROM crm_contact WHERE id = ?", new_id)
    assert row == [("Ms.", "Ada", "Quill", "ada.quill@example.com", "CFO", account_id, rep(world)[1], 1)]
    assert world.query("SELECT count(*) FROM crm_contact")[0][0] == before + 1


def test_validation_errors_keep_values_and_save_nothing(fresh, live_host) -> None:
    world, page = fresh
    before = world.query("SELECT count(*) FROM crm_contact")[0][0]
    dialog = open_new(page, live_host, "/contacts?view=mine", "Contact")
    dialog.get_by_label("First Name").fill("Nolast")
    dialog.get_by_label("Email").fill("not-an-email")
    dialog.get_by_role("button", name="Save", exact=True).click()

    dialog = page.get_by_role("dialog", name="New Contact")
    expect(dialog).to_be_visible()  # re-opened on the list, with the same view
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("My Contacts"))
    expect(dialog.get_by_role("alert")).to_contain_text("We hit a snag.")
    expect(dialog.get_by_role("alert")).to_contain_text("Last Name")
    last = dialog.get_by_label("Last Name")
    expect(last).to_have_attribute("aria-invalid", "true")
    expect(last).to_have_accessible_description("Complete this field.")
    expect(dialog.get_by_label("Email")).to_have_accessible_description(re.compile("valid email"))
    expect(dialog.get_by_label("First Name")).to_have_value("Nolast")
    expect(dialog.get_by_label("Email")).to_have_value("not-an-email")
    expect(dialog.get_by_label("Email")).to_be_focused()  # the first field in error, in reading order
    assert world.query("SELECT count(*) FROM crm_contact")[0][0] == before

    # Fixing the fields saves once.
    last.fill("Fixed")
    dialog.get_by_label("Email").fill("nolast.fixed@example.com")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page).to_have_url(re.compile(r"/contacts/\d+$"))
    assert world.query("SELECT first_name, last_name FROM crm_contact WHERE email = 'nolast.fixed@example.com'") == [("Nolast", "Fixed")]
    assert world.query("SELECT count(*) FROM crm_contact")[0][0] == before + 1


@pytest.fixture()
def manager(browser: Browser, live_host):
    """A sales manager: their profile edits Annual Revenue and Probability (read-only for reps, field-level security)."""
    world = live_host.world()
    username, user_id = world.one("SELECT username, id FROM identity_user WHERE role = 'sales_manager' ORDER BY id")
    context = live_host.new_context(browser, world, username)
    page = context.new_page()
    page.on("dialog", lambda d: pytest.fail(f"unexpected browser dialog: {d.message}"))
    yield world, page, user_id
    context.close()


def test_save_and_new_reopens_the_dialog(manager, live_host) -> None:
    world, page, user_id = manager
    dialog = open_new(page, live_host, "/accounts", "Account")
    dialog.get_by_label("Account Name").fill("Zephyr Kites Ltd.")
    dialog.get_by_label("Industry").select_option("Recreation")
    dialog.get_by_label("Annual Revenue").fill("1,250,000")
    dialog.get_by_role("button", name="Save & New").click()

    expect(page).to_have_url(re.compile(r"/accounts\?view=all&new=1$"))
    expect(page.get_by_role("status")).to_contain_text('Account "Zephyr Kites Ltd." was created.')
    dialog = page.get_by_role("dialog", name="New Account")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Account Name")).to_have_value("")
    assert world.query("SELECT industry, annual_revenue, owner_id FROM crm_account WHERE name = 'Zephyr Kites Ltd.'") == [("Recreation", 1250000.0, user_id)]
    dialog.get_by_label("Account Name").fill("Zephyr Kites GmbH")
    dialog.get_by_label("Account Name").press("Enter")  # Enter saves (not Save & New)
    expect(page).to_have_url(re.compile(r"/accounts/\d+$"))
    assert world.query("SELECT count(*) FROM crm_account WHERE name LIKE 'Zephyr Kites%'")[0][0] == 2


def test_edit_from_row_menu(fresh, live_host) -> None:
    world, page = fresh
    page.goto(live_host.url("crm", "/accounts?sort=name&dir=desc"))
    row = page.locator("table.list-table tbody tr").nth(2)
    record_id = int(row.get_attribute("data-id"))
    name = world.query("SELECT name FROM crm_account WHERE id = ?", record_id)[0][0]
    row.get_by_role("button", name=f"Show Actions: {name}").click()
    row.get_by_role("menuitem", name="Edit").click()
    dialog = page.get_by_role("dialog", name=f"Edit {name}")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Account Name")).to_have_value(name)
    expect(dialog.get_by_role("button", name="Save & New")).to_have_count(0)
    dialog.get_by_label("Phone").fill("(555) 010-4242")
    dialog.get_by_label("Employees").fill("")  # blanking an optional number clears it
    dialog.get_by_role("button", name="Save", exact=True).click()

    expect(page).to_have_url(re.compile(r"/accounts\?view=all&sort=name&dir=desc$"))  # back to the same list
    expect(page.get_by_role("status")).to_contain_text(f'Account "{name}" was saved.')
    assert world.query("SELECT phone, employees, updated_at = '2026-03-16 09:30:00.000000' FROM crm_account WHERE id = ?", record_id) == [("(555) 010-4242", None, 1)]


def test_edit_with_error_reopens_edit_dialog(fresh, live_host) -> None:
    world, page = fresh
    record_id, name = world.query("SELECT id, name FROM crm_account ORDER BY id LIMIT 1")[0]
    page.goto(live_host.url("crm", f"/accounts?edit={record_id}"))
    dialog = page.get_by_role("dialog", name=f"Edit {name}")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Account Name").fill("")
    dialog.get_by_label("Employees").fill("many")
    dialog.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name=f"Edit {name}")
    expect(dialog.get_by_label("Employees")).to_have_accessible_description(re.compile("whole number"))
    expect(dialog.get_by_label("Account Name")).to_have_accessible_description("Complete this field.")
    assert world.query("SELECT name FROM crm_account WHERE id = ?", record_id) == [(name,)]


def test_opportunity_stage_sets_default_probability(manager, live_host) -> None:
    world, page, _ = manager
    dialog = open_new(page, live_host, "/opportunities", "Opportunity")
    dialog.get_by_label("Opportunity Name").fill("Kite Fleet Renewal")
    dialog.get_by_label("Close Date").fill("2026-04-30")
    dialog.get_by_label("Stage").select_option("Needs Analysis")
    probability = dialog.get_by_label("Probability (%)")
    expect(probability).to_have_value("20")  # filled in by the stage, as in Salesforce
    probability.fill("")  # not given: the server uses the stage's default too
    dialog.get_by_label("Amount").fill("48000")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page).to_have_url(re.compile(r"/opportunities/\d+$"))
    got = world.query("SELECT stage, probability, forecast_category, amount, close_date FROM crm_opportunity WHERE name = 'Kite Fleet Renewal'")
    assert got == [("Needs Analysis", 20, "Pipeline", 48000.0, "2026-04-30")]


def test_script_in_name_renders_as_text(fresh, live_host) -> None:
    world, page = fresh
    evil = "<script>alert(1)</script>"
    dialog = open_new(page, live_host, "/accounts", "Account")
    dialog.get_by_label("Account Name").fill(evil)
    dialog.get_by_role("button", name="Save & New").click()
    expect(page.get_by_role("status")).to_contain_text(f'Account "{evil}" was created.')
    page.goto(live_host.url("crm", "/accounts?q=script"))
    link = page.get_by_role("link", name=evil, exact=True)
    expect(link).to_be_visible()
    assert world.query("SELECT count(*) FROM crm_account WHERE name = ?", evil)[0][0] == 1
    assert page.locator("table.list-table script").count() == 0


def test_layout_required_markers_match_validation_rules(live_host) -> None:
    for key in LAYOUTS:
        names = {f.name for f in form_fields(key)}
        assert names <= set(RULES[key]), key  # every form field is writable
        for f in form_fields(key):
            if f.name != "owner_id":  # the owner is required by the form (a record always has one)
                assert f.required == RULES[key][f.name].required, (key, f.name)
        assert {n for n, r in RULES[key].items() if r.required} <= names, key
    world = live_host.world()
    with world.session() as session:
        form = build_form(session, "contact", values={"account_id": 1, "reports_to_id": 999999})
        states = {s.field.name: s for _t, ss in form.sections for s in ss}
        assert states["account_id"].label and states["account_id"].value == "1"
        assert states["reports_to_id"].value == ""  # an unknown record shows the search box again
