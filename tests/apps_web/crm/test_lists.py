"""CRM list views in real Chromium: sort, filter, page, search, view switcher, mass actions.

Every test checks what the page shows against the world database. Read-only tests share one world
and one signed-in context; tests that write get a fresh world.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import event
from starlette.datastructures import QueryParams

from apps_web.crm import sharing
from apps_web.crm.listing import ListParams, ViewContext, run_list
from apps_web.crm.views import SPECS
from apps_web.identity.models import User
from apps_web.world import WorldClock

CONTACT_NAME = "trim(coalesce(first_name, '') || ' ' || last_name)"


def rep(world) -> tuple[str, int]:
    return world.one("SELECT username, id FROM identity_user WHERE role = 'sales_rep' ORDER BY id")


def names_on_page(page: Page) -> list[str]:
    return page.locator("table.list-table tbody th[scope=row]").all_inner_texts()


def count_on_page(page: Page) -> int:
    return int(re.match(r"(\d+) items?", page.locator("#list-summary").inner_text()).group(1))


@pytest.fixture(scope="module")
def shared(browser: Browser, live_host):
    """A world nobody writes to, and a context signed in as a sales rep."""
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world)[0])
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
    context = live_host.new_context(browser, world, rep(world)[0])
    yield world, context.new_page()
    context.close()


# -- reading --------------------------------------------------------------------------------------
def test_sort_by_column_toggles_and_matches_db(page: Page, shared, live_host) -> None:
    world = shared[0]
    page.goto(live_host.url("crm", "/accounts"))
    expect(page.get_by_role("columnheader", name="Account Name")).to_have_attribute("aria-sort", "ascending")
    expected = [r[0] for r in world.query("SELECT name FROM crm_account ORDER BY name COLLATE NOCASE, id LIMIT 25")]
    assert names_on_page(page) == expected

    page.get_by_role("link", name="Billing City").click()
    header = page.get_by_role("columnheader", name="Billing City")
    expect(header).to_have_attribute("aria-sort", "ascending")
    expect(page).to_have_url(re.compile(r"sort=billing_city&dir=asc"))
    asc = [r[0] for r in world.query("SELECT name FROM crm_account ORDER BY billing_city COLLATE NOCASE ASC, id ASC LIMIT 10")]
    assert names_on_page(page)[:10] == asc

    header.get_by_role("link").click()
    expect(header).to_have_attribute("aria-sort", "descending")
    desc = [r[0] for r in world.query("SELECT name FROM crm_account ORDER BY billing_city COLLATE NOCASE DESC, id DESC LIMIT 10")]
    assert names_on_page(page)[:10] == desc
    expect(page.locator("#list-summary")).to_contain_text("Sorted by Billing City")


def test_filter_rows_apply_and_url_reproduces_view(page: Page, shared, live_host) -> None:
    world = shared[0]
    page.goto(live_host.url("crm", "/opportunities"))
    page.get_by_role("button", name="Show filters").click()
    panel = page.get_by_role("complementary", name="Filters")
    expect(panel).to_be_visible()
    panel.get_by_role("button", name="Add Filter").click()
    panel.get_by_label("Field").select_option(label="Stage")
    panel.get_by_label("Operator").select_option(label="equals")
    panel.get_by_label("Value").fill("Closed Won")
    panel.get_by_role("button", name="Add Filter").click()
    row2 = panel.locator("[data-filter-row]").nth(1)
    row2.get_by_label("Field").select_option(label="Amount")
    row2.get_by_label("Operator").select_option(label="greater than")
    row2.get_by_label("Value").fill("100000")
    panel.get_by_role("button", name="Apply").click()

    expect(page).to_have_url(re.compile(r"ff=stage&fo=equals&fv=Closed\+Won&ff=amount&fo=greater&fv=100000"))
    # Opportunities are Private: the rep's list holds their own deals and those of the people below them
    mine = "owner_id IN (SELECT id FROM identity_user WHERE id = %d OR manager_id = %d)" % (rep(world)[1], rep(world)[1])
    expected = world.query(f"SELECT count(*) FROM crm_opportunity WHERE stage = 'Closed Won' AND amount > 100000 AND {mine}")[0][0]
    assert 0 < expected < 250
    assert count_on_page(page) == expected
    expect(page.locator("#list-summary")).to_contain_text("Filtered by all opportunities - Stage, Amount")
    expect(page.locator("table.list-table tbody tr")).to_have_count(min(expected, 25))

    # Removing a filter row and applying widens the list again; the URL alone reproduces a view.
    panel.locator("[data-filter-row]").nth(1).get_by_role("button", name=re.compile("Remove filter")).click()
    panel.get_by_role("button", name="Apply").click()
    expect(page).not_to_have_url(re.compile("amount"))
    assert count_on_page(page) == world.query(f"SELECT count(*) FROM crm_opportunity WHERE stage = 'Closed Won' AND {mine}")[0][0]
    page.goto(live_host.url("crm", "/opportunities?ff=close_date&fo=less&fv=2026-01-01&ff=name&fo=contains&fv=pilot"))
    assert count_on_page(page) == world.query(f"SELECT count(*) FROM crm_opportunity WHERE close_date < '2026-01-01' AND name LIKE '%pilot%' AND {mine}")[0][0]


def test_bad_filter_value_is_flagged_not_applied(page: Page, shared, live_host) -> None:
    page.goto(live_host.url("crm", "/accounts?panel=1&ff=employees&fo=greater&fv=lots"))
    expect(page.get_by_role("complementary", name="Filters").get_by_text("Enter a number.")).to_be_visible()
    assert count_on_page(page) == shared[0].query("SELECT count(*) FROM crm_account")[0][0]


def test_pagination_to_page_two(page: Page, shared, live_host) -> None:
    world = shared[0]
    total = world.query("SELECT count(*) FROM crm_contact")[0][0]
    page.goto(live_host.url("crm", "/contacts"))
    nav = page.get_by_role("navigation", name="Pagination")
    expect(nav).to_contain_text(f"1–25 of {total}")
    expect(nav.get_by_role("button", name="Previous page")).to_be_disabled()
    nav.get_by_role("link", name="Next page").click()
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(nav).to_contain_text(f"26–50 of {total}")
    expected = [r[0] for r in world.query(f"SELECT {CONTACT_NAME} FROM crm_contact ORDER BY {CONTACT_NAME} COLLATE NOCASE, id LIMIT 25 OFFSET 25")]
    assert names_on_page(page) == expected
    assert page.locator("table.list-table tbody td.row-num").first.inner_text() == "26"


def test_search_this_list(page: Page, shared, live_host) -> None:
    world = shared[0]
    page.goto(live_host.url("crm", "/accounts?sort=phone&dir=desc"))
    box = page.get_by_role("searchbox", name="Search this list...")
    box.fill("copperleaf")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"q=copperleaf"))
    like = "%copperleaf%"
    expected = world.query("SELECT name FROM crm_account WHERE name LIKE ? OR phone LIKE ? OR website LIKE ? OR billing_city LIKE ? OR billing_state LIKE ? "
                   "ORDER BY phone COLLATE NOCASE DESC, id DESC", like, like, like, like, like)
    assert len(expected) > 1
    assert count_on_page(page) == len(expected)
    assert names_on_page(page) == [r[0] for r in expected][:25]
    expect(page.get_by_role("columnheader", name="Phone")).to_have_attribute("aria-sort", "descending")  # the sort is kept


def test_view_switcher(page: Page, shared, live_host) -> None:
    world = shared[0]
    user_id = rep(world)[1]
    page.goto(live_host.url("crm", "/opportunities"))
    page.get_by_role("button", name=re.compile("select a list view")).click()
    page.get_by_role("menuitem", name="My Opportunities").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("My Opportunities"))
    assert count_on_page(page) == world.query("SELECT count(*) FROM crm_opportunity WHERE owner_id = ?", user_id)[0][0]
    expect(page.locator("#list-summary")).to_contain_text("Filtered by my opportunities")
    page.goto(live_host.url("crm", "/cases?view=escalated"))
    assert count_on_page(page) == world.query("SELECT count(*) FROM crm_case WHERE status = 'Escalated'")[0][0]
    page.goto(live_host.url("crm", "/leads"))
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("All Open Leads"))
    assert count_on_page(page) == world.query("SELECT count(*) FROM crm_lead WHERE status IN ('Open - Not Contacted', 'Working - Contacted')")[0][0]


def test_recently_viewed_lists_visits_most_recent_first(fresh, live_host) -> None:
    world, page = fresh
    ids = [r[0] for r in world.query("SELECT id FROM crm_account ORDER BY id LIMIT 3")]
    page.goto(live_host.url("crm", "/accounts?view=recent"))
    expect(page.get_by_text("No items to display.")).to_be_visible()
    for record_id in (ids[0], ids[2], ids[1], ids[2]):  # opening the record pages records the visits
        page.goto(live_host.url("crm", f"/accounts/{record_id}"))
    page.goto(live_host.url("crm", "/accounts?view=recent"))
    expected = [world.query("SELECT name FROM crm_account WHERE id = ?", i)[0][0] for i in (ids[2], ids[1], ids[0])]
    assert names_on_page(page) == expected
    expect(page.locator("#list-summary")).to_contain_text("3 items • Sorted by Last Viewed Date • Filtered by recently viewed accounts")
    seen = world.query("SELECT record_id FROM crm_recent_view WHERE object_type = 'account' ORDER BY id DESC")
    assert [r[0] for r in seen][:3] == [ids[2], ids[1], ids[2]]


# -- writing: mass actions -----------------------------------------------------------------------------
def test_mass_change_owner_on_three_rows(fresh, live_host) -> None:
    world, page = fresh
    new_owner = world.query("SELECT id, first_name || ' ' || last_name FROM identity_user WHERE role = 'sales_manager' ORDER BY id")[0]
    page.goto(live_host.url("crm", "/accounts"))
    rows = page.locator("table.list-table tbody tr")
    ids = [int(rows.nth(i).get_attribute("data-id")) for i in range(3)]
    change = page.get_by_role("button", name="Change Owner", exact=True)
    expect(change).to_be_disabled()
    for i in range(3):
        rows.nth(i).get_by_role("checkbox").check()
    expect(page.get_by_text("3 selected")).to_be_visible()
    change.click()
    dialog = page.get_by_role("dialog", name="Change Owner")
    expect(dialog).to_contain_text("the 3 selected accounts")
    dialog.get_by_label("Select New Owner").select_option(label=new_owner[1])
    before = dict(world.query("SELECT id, owner_id FROM crm_account"))
    dialog.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("status")).to_contain_text(f"Owner changed to {new_owner[1]} for 3 accounts.")
    after = dict(world.query("SELECT id, owner_id FROM crm_account"))
    assert [after[i] for i in ids] == [new_owner[0]] * 3
    assert {k: v for k, v in after.items() if k not in ids} == {k: v for k, v in before.items() if k not in ids}


def test_mass_delete_with_confirmation(fresh, live_host) -> None:
    world, page = fresh
    page.goto(live_host.url("crm", "/leads?view=my_open"))  # a rep deletes leads they own (deleting needs ownership)
    total = count_on_page(page)
    rows = page.locator("table.list-table tbody tr")
    ids = [int(rows.nth(i).get_attribute("data-id")) for i in (1, 2)]
    for i in (1, 2):
        rows.nth(i).get_by_role("checkbox").check()
    page.get_by_role("button", name="Delete", exact=True).click()
    dialog = page.get_by_role("dialog", name="Delete Leads")
    expect(dialog).to_contain_text("Are you sure you want to delete the 2 selected leads?")
    dialog.get_by_role("button", name="Cancel").click()  # cancelling changes nothing
    expect(dialog).to_be_hidden()
    assert world.query(f"SELECT count(*) FROM crm_lead WHERE id IN ({ids[0]}, {ids[1]})")[0][0] == 2
    page.get_by_role("button", name="Delete", exact=True).click()
    dialog.get_by_role("button", name="Delete").click()
    expect(page.get_by_role("status")).to_contain_text("2 leads were deleted.")
    assert world.query(f"SELECT count(*) FROM crm_lead WHERE id IN ({ids[0]}, {ids[1]})")[0][0] == 0
    assert count_on_page(page) == total - 2


def test_row_menu_delete_acts_on_that_row_only(browser: Browser, live_host) -> None:
    world = live_host.world()  # the administrator cleans up closed cases (a rep may delete only what they own)
    context = live_host.new_context(browser, world, world.one("SELECT username FROM identity_user WHERE role = 'admin' ORDER BY id")[0])
    page = context.new_page()
    page.goto(live_host.url("crm", "/cases?view=closed"))
    rows = page.locator("table.list-table tbody tr")
    rows.nth(0).get_by_role("checkbox").check()  # a checked row elsewhere must survive
    keep = int(rows.nth(0).get_attribute("data-id"))
    target = int(rows.nth(3).get_attribute("data-id"))
    number = world.query("SELECT case_number FROM crm_case WHERE id = ?", target)[0][0]
    rows.nth(3).get_by_role("button", name=re.compile("Show Actions")).click()
    rows.nth(3).get_by_role("menuitem", name="Delete").click()
    dialog = page.get_by_role("dialog", name="Delete Cases")
    expect(dialog).to_contain_text("Are you sure you want to delete this case?")
    dialog.get_by_role("button", name="Delete").click()
    expect(page.get_by_role("status")).to_contain_text("1 case was deleted.")
    assert world.query("SELECT id FROM crm_case WHERE id IN (?, ?)", keep, target) == [(keep,)]
    expect(page.get_by_role("link", name=number, exact=True)).to_have_count(0)
    context.close()


def test_row_menu_change_owner(fresh, live_host) -> None:
    world, page = fresh
    owner_id, owner = world.query("SELECT id, first_name || ' ' || last_name FROM identity_user WHERE role = 'support_agent' ORDER BY id")[0]
    page.goto(live_host.url("crm", "/contacts?view=mine"))
    row = page.locator("table.list-table tbody tr").nth(1)
    record_id = int(row.get_attribute("data-id"))
    name = row.locator("th").inner_text()
    row.get_by_role("button", name=f"Show Actions: {name}").click()
    row.get_by_role("menuitem", name="Change Owner").click()
    dialog = page.get_by_role("dialog", name="Change Owner")
    expect(dialog).to_contain_text(f"Change the owner of {name}.")
    dialog.get_by_label("Select New Owner").select_option(label=owner)
    dialog.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("status")).to_contain_text(f"Owner changed to {owner} for 1 contact.")
    assert world.query("SELECT owner_id FROM crm_contact WHERE id = ?", record_id) == [(owner_id,)]
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("My Contacts"))  # back on the same view
    expect(page.locator("table.list-table tbody tr[data-id='%d']" % record_id)).to_have_count(0)


def test_mass_change_stage_sets_probability(fresh, live_host) -> None:
    world, page = fresh
    page.goto(live_host.url("crm", "/opportunities?view=open"))
    rows = page.locator("table.list-table tbody tr")
    ids = [int(rows.nth(i).get_attribute("data-id")) for i in (0, 1)]
    for i in (0, 1):
        rows.nth(i).get_by_role("checkbox").check()
    page.get_by_role("button", name="Change Stage").click()
    dialog = page.get_by_role("dialog", name="Change Stage")
    dialog.get_by_label("Stage").select_option("Closed Won")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Stage changed to Closed Won for 2 opportunities.")
    got = world.query(f"SELECT stage, probability, forecast_category FROM crm_opportunity WHERE id IN ({ids[0]}, {ids[1]})")
    assert got == [("Closed Won", 100, "Closed")] * 2


def test_mass_change_status_of_cases_stamps_closed(fresh, live_host) -> None:
    world, page = fresh
    page.goto(live_host.url("crm", "/cases"))
    rows = page.locator("table.list-table tbody tr")
    ids = [int(rows.nth(i).get_attribute("data-id")) for i in (0, 1, 2)]
    page.get_by_role("checkbox", name="Select all items").check()
    for i in range(3, rows.count()):
        rows.nth(i).get_by_role("checkbox").uncheck()
    page.get_by_role("button", name="Change Status").click()
    dialog = page.get_by_role("dialog", name="Change Status")
    dialog.get_by_label("Status").select_option("Closed")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Status changed to Closed for 3 cases.")
    got = world.query(f"SELECT status, closed_at IS NOT NULL FROM crm_case WHERE id IN ({','.join(map(str, ids))})")
    assert got == [("Closed", 1)] * 3


# -- machinery ---------------------------------------------------------------------------------------------
def test_one_query_per_page_and_url_round_trip(live_host) -> None:
    world = live_host.world()
    with world.session() as session:
        user = session.get(User, rep(world)[1])
        statements: list[str] = []
        engine = session.get_bind()
        listen = lambda *a: statements.append(a[2])  # noqa: E731
        event.listen(engine, "before_cursor_execute", listen)
        for object_key in ("account", "opportunity"):  # the sharing settings and the role chart: read once per session
            sharing.visible(session, user, object_key)
        try:
            for key, spec in SPECS.items():
                for view in spec.views:
                    query = QueryParams(f"view={view.key}&ff=owner&fo=contains&fv=a&q=e&sort={spec.columns[1]}&dir=desc")
                    params = ListParams.from_query(query, spec)
                    statements.clear()
                    result = run_list(session, spec, params, ViewContext(user, WorldClock()), lambda k, i: f"/{k}/{i}")
                    assert len(statements) == 1, (key, view.key, statements)
                    assert result.rows or view.recent or result.total == 0
                    again = ListParams.from_query(QueryParams(urlsplit(params.url("/x")).query), spec)
                    assert again == params
        finally:
            event.remove(engine, "before_cursor_execute", listen)
    assert parse_qs(urlsplit(ListParams(view="all", q="a b").url("/accounts")).query) == {"view": ["all"], "q": ["a b"]}
