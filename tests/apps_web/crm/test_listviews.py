"""List views people manage, in real Chromium: New, filters with filter logic, Select Fields to
Display, Clone, Rename, Sharing Settings, Delete. Each test checks crm_list_view in the world
database; refused input shows Salesforce's message and saves nothing."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from apps_web.crm.filterlogic import LogicError, normalize, parse


def user_of(world, role: str) -> tuple[str, int]:
    return world.one(f"SELECT username, id FROM identity_user WHERE role = '{role}' ORDER BY id")


@pytest.fixture()
def fresh(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, user_of(world, "sales_manager")[0])
    yield world, context.new_page()
    context.close()


def lv_rows(world) -> list[tuple]:
    return world.query("SELECT id, object_type, name, api_name, visibility, scope, columns, filter_logic FROM crm_list_view ORDER BY id")


def filters(world, view_id: int) -> list[tuple]:
    return world.query(f"SELECT position, field, operator, value FROM crm_list_view_filter WHERE list_view_id = {view_id} ORDER BY position")


def controls(page: Page, item: str) -> None:
    page.get_by_role("button", name="List View Controls").click()
    page.get_by_role("menuitem", name=item).click()


def add_filter(page: Page, n: int, field: str, op: str, value: str) -> None:
    panel = page.get_by_role("form", name="Filters")
    panel.get_by_role("button", name="Add Filter", exact=True).click()
    panel.locator(f"#ff-{n}").select_option(label=field)
    panel.locator(f"#fo-{n}").select_option(label=op)
    panel.locator(f"#fv-{n}").fill(value)


def test_filter_logic_parser() -> None:
    assert normalize(" 1 and ( 2 or not 3 ) ") == "1 AND (2 OR NOT 3)"
    assert parse("1 AND (2 OR 3)", 3) is not None
    for logic, count, message in [
        ("1 AND 2 OR 3", 3, "Your filter must use parentheses around successive AND and OR expressions."),
        ("1 AND (2 OR 3", 3, "Your filter is missing a parenthesis."),
        ("1 AND 2)", 2, "Your filter has extra parentheses."),
        ("1 AND 4", 3, "The filter logic references an undefined filter: 4."),
        ("1 AND 2", 3, "Some filter conditions are defined but not referenced in your filter logic."),
        ("1 ANDD 2", 2, "Check the spelling in your filter logic."),
        ("1 AND", 1, "Your filter logic is incomplete."),
    ]:
        with pytest.raises(LogicError, match=re.escape(message)):
            parse(logic, count)


def test_new_view_with_filter_logic_and_fields(fresh, live_host) -> None:
    world, page = fresh
    page.goto(live_host.url("crm", "/accounts"))
    controls(page, "New")
    dialog = page.get_by_role("dialog", name="New List View")
    dialog.get_by_label("List Name").fill("West Coast Tech")
    expect(dialog.get_by_label("List API Name")).to_have_value("West_Coast_Tech")
    dialog.get_by_label("All users can see this list view").check()
    dialog.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(r"/accounts\?view=lv\d+&panel=1"))
    (view_id, obj, name, api, vis, scope, cols, logic), = lv_rows(world)
    assert (obj, name, api, vis, scope, logic) == ("account", "West Coast Tech", "West_Coast_Tech", "all_users", "all", None)
    expect(page.get_by_role("button", name=re.compile("West Coast Tech"))).to_be_visible()

    add_filter(page, 1, "Industry", "equals", "Technology")
    add_filter(page, 2, "Billing State/Province", "equals", "CA")
    add_filter(page, 3, "Billing State/Province", "equals", "WA")
    panel = page.get_by_role("form", name="Filters")
    panel.get_by_role("button", name="Add Filter Logic").click()
    panel.get_by_label("Filter Logic").fill("1 AND 2 OR 3")
    panel.get_by_role("button", name="Save", exact=True).click()
    expect(panel.get_by_role("alert")).to_have_text("Your filter must use parentheses around successive AND and OR expressions.")
    assert filters(world, view_id) == [] and lv_rows(world)[0][7] is None  # nothing saved
    expect(panel.locator("#fv-3")).to_have_value("WA")  # nothing typed is lost

    panel.get_by_label("Filter Logic").fill("1 and (2 or 3)")
    panel.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status").or_(page.locator(".toast")).first).to_contain_text("was saved")
    assert lv_rows(world)[0][7] == "1 AND (2 OR 3)"
    assert filters(world, view_id) == [(1, "industry", "equals", "Technology"), (2, "billing_state", "equals", "CA"),
                                        (3, "billing_state", "equals", "WA")]
    expected = world.query("SELECT name FROM crm_account WHERE lower(industry) = 'technology' AND lower(billing_state) IN ('ca', 'wa') "
                           "ORDER BY name COLLATE NOCASE, id")
    expect(page.locator("#list-summary")).to_contain_text(f"{len(expected)} item")
    assert page.locator("table.list-table tbody th[scope=row]").all_inner_texts() == [r[0] for r in expected][:25]

    # Select Fields to Display: add Annual Revenue, move it up to third place, remove Phone.
    controls(page, "Select Fields to Display")
    dialog = page.get_by_role("dialog", name="Select Fields to Display")
    dialog.get_by_role("listbox", name="Available Fields").get_by_role("option", name="Annual Revenue", exact=True).click()
    dialog.get_by_role("button", name="Move selection to Visible Fields").click()
    visible = dialog.get_by_role("listbox", name="Visible Fields")
    for _ in range(5):
        dialog.get_by_role("button", name="Move selection up").click()
    visible.get_by_role("option", name="Phone", exact=True).click()
    dialog.get_by_role("button", name="Move selection to Available Fields").click()
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("columnheader").nth(4)).to_have_text("Annual Revenue")
    assert lv_rows(world)[0][6] == "name,billing_city,annual_revenue,billing_state,type,industry,owner"


def test_bad_names_and_rep_cannot_share(browser: Browser, live_host) -> None:
    world = live_host.world()
    context = live_host.new_context(browser, world, user_of(world, "sales_rep")[0])
    page = context.new_page()
    try:
        page.goto(live_host.url("crm", "/opportunities?view=mine"))
        controls(page, "New")
        dialog = page.get_by_role("dialog", name="New List View")
        expect(dialog.get_by_label("All users can see this list view")).to_have_count(0)  # no Manage Public List Views
        dialog.get_by_label("List API Name").fill("2026__Deals_")
        dialog.get_by_role("button", name="Save").click()
        dialog = page.get_by_role("dialog", name="New List View")
        expect(dialog).to_be_visible()
        expect(dialog.locator("#lv-new-name-err")).to_have_text("Complete this field.")
        expect(dialog.locator("#lv-new-api-err")).to_contain_text("can only contain underscores and alphanumeric characters")
        assert lv_rows(world) == []
        # the server refuses sharing too, whatever the form sends
        status = page.evaluate("""() => fetch('/listviews/opportunities/new', {method: 'POST',
            body: new URLSearchParams({name: 'Shared', api_name: 'Shared', visibility: 'all_users'})}).then(r => r.status)""")
        assert status == 422 and lv_rows(world) == []
    finally:
        context.close()


def test_clone_rename_share_delete(fresh, live_host) -> None:
    world, page = fresh
    page.goto(live_host.url("crm", "/opportunities?view=mine"))
    controls(page, "Clone")
    dialog = page.get_by_role("dialog", name="Clone List View")
    expect(dialog.get_by_label("List Name")).to_have_value("Copy of My Opportunities")
    expect(dialog.get_by_label("List API Name")).to_have_value("Copy_of_My_Opportunities")
    dialog.get_by_label("List Name").fill("My Q2 Deals")
    dialog.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(r"view=lv\d+"))
    (view_id, _o, name, api, vis, scope, _c, _l), = lv_rows(world)
    assert (name, api, vis, scope) == ("My Q2 Deals", "My_Q2_Deals", "only_me", "mine")
    mine = world.one(f"SELECT count(*) FROM crm_opportunity WHERE owner_id = {user_of(world, 'sales_manager')[1]}")[0]
    expect(page.locator("#list-summary")).to_contain_text(f"{mine} item")

    controls(page, "Rename")
    dialog = page.get_by_role("dialog", name="Rename List View")
    dialog.get_by_label("List Name").fill("Team Q2 Deals")
    dialog.get_by_label("List API Name").fill("Team_Q2_Deals")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("button", name=re.compile("Team Q2 Deals"))).to_be_visible()
    controls(page, "Sharing Settings")
    dialog = page.get_by_role("dialog", name="Sharing Settings")
    dialog.get_by_label("All users can see this list view").check()
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".toast").first).to_contain_text("Sharing settings")
    assert lv_rows(world)[0][2:5] == ("Team Q2 Deals", "Team_Q2_Deals", "all_users")

    controls(page, "Delete")
    page.get_by_role("dialog", name="Delete List View").get_by_role("button", name="Delete").click()
    expect(page).to_have_url(re.compile(r"/opportunities$"))
    assert lv_rows(world) == [] and filters(world, view_id) == []
