"""Record types come from the world, not from constants, in real Chromium: a type an administrator creates in
Setup > Object Manager > Record Types is offered and accepted by list view filters (saved and ad hoc), by the
report builder's filters and groupings and by the standard reports' record type grouping, in Setup's order;
once deactivated it is still offered and found (records keep it). Bad values get the product's message and
save nothing. Each step checks the database or the page's rows against it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import user_of, write

pytestmark = pytest.mark.browser
TYPE = "Channel Partner"


def post(page: Page, url: str, pairs: list[tuple[str, str]]) -> tuple[int, str, str]:
    """A form of the app submitted from the page; (status, final URL, body)."""
    return tuple(page.evaluate("""async ([url, body]) => { const r = await fetch(url, {method: 'POST', body: new URLSearchParams(body)});
                                  return [r.status, r.url, await r.text()]; }""", [url, pairs]))


@pytest.fixture()
def admin(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, user_of(world, "admin"))  # sees every record; edits Setup
    yield world, context.new_page()
    context.close()


def create_type(page: Page, live_host) -> None:
    page.goto(live_host.url("crm", "/setup/object-manager/opportunity/record-types"))
    page.get_by_role("link", name="New", exact=True).click()
    form = page.get_by_role("form", name="Record Type Edit")
    form.get_by_label("Existing Record Type").select_option(label="Renewal")
    form.get_by_label("Record Type Label").fill(TYPE)
    form.get_by_label("Make Available: System Administrator").check()
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name=TYPE, level=1)).to_be_visible()


def give_type(page: Page, live_host, opp_id: int) -> None:
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    page.get_by_role("button", name="Change Record Type").click()
    chooser = page.get_by_role("dialog", name="Change Record Type")
    chooser.get_by_role("radio", name=TYPE, exact=True).check()
    chooser.get_by_role("button", name="Next").click()
    page.get_by_role("dialog", name=re.compile("^Edit ")).get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text(re.compile(r'Opportunity ".*" was saved\.'))).to_be_visible()


def test_a_type_made_in_setup_is_filtered_and_grouped_by(admin, live_host) -> None:
    world, page = admin
    create_type(page, live_host)
    new_id = world.one("SELECT id FROM crm_record_type WHERE object_type = 'opportunity' AND name = ?", TYPE)[0]
    # Two open deals in a stage the new type's sales process has (a Renewal's) take the type.
    deals = world.query("""SELECT id, name FROM crm_opportunity WHERE stage = 'Qualification' AND record_type_id =
                           (SELECT id FROM crm_record_type WHERE developer_name = 'New_Business') ORDER BY id LIMIT 2""")
    for opp_id, _name in deals:
        give_type(page, live_host, opp_id)
    assert [r for r, in world.query("SELECT id FROM crm_opportunity WHERE record_type_id = ? ORDER BY id", new_id)] == [d[0] for d in deals]

    # A list view: the filter panel offers the type and a saved view keeps the filter; its rows are the two deals.
    page.goto(live_host.url("crm", "/opportunities?view=all&panel=1"))
    assert TYPE in page.locator("#dl-record_type option").evaluate_all("els => els.map(e => e.value)")
    status, landed, _ = post(page, "/listviews/opportunities/new", [("name", "Partner deals"), ("api_name", "Partner_deals"),
                                                                    ("visibility", "only_me")])
    view_id = int(re.search(r"view=lv(\d+)", landed).group(1))
    status, _url, body = post(page, f"/listviews/{view_id}/filters", [("scope", "all"), ("logic", ""), ("ff", "record_type"),
                                                                      ("fo", "equals"), ("fv", TYPE)])
    assert status == 200 and "Bad value" not in body
    assert world.query("SELECT field, operator, value FROM crm_list_view_filter WHERE list_view_id = ?", view_id) == [
        ("record_type", "equals", TYPE)]
    page.goto(live_host.url("crm", f"/opportunities?view=lv{view_id}"))
    expect(page.locator("#list-summary")).to_contain_text("2 items")
    expect(page.get_by_role("table", name="Partner deals").locator("tbody tr")).to_have_text(
        [re.compile(re.escape(name)) for name in sorted(name for _id, name in deals)])  # sorted by name
    # A value that is no record type is still refused with the product's message, and nothing is saved.
    status, _url, body = post(page, f"/listviews/{view_id}/filters", [("scope", "all"), ("logic", ""), ("ff", "record_type"),
                                                                      ("fo", "equals"), ("fv", "Reseller")])
    assert status == 422 and "Bad value for restricted picklist field: Reseller" in body
    assert world.one("SELECT value FROM crm_list_view_filter WHERE list_view_id = ?", view_id) == (TYPE,)

    # Deactivated, the type is still offered and found: its records keep it.
    page.goto(live_host.url("crm", f"/setup/object-manager/opportunity/record-types/{new_id}/edit"))
    form = page.get_by_role("form", name="Record Type Edit")
    form.get_by_label("Active").uncheck()
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name=TYPE, level=1)).to_be_visible()
    assert world.one("SELECT active FROM crm_record_type WHERE id = ?", new_id) == (0,)
    page.goto(live_host.url("crm", f"/opportunities?view=all&ff=record_type&fo=equals&fv={TYPE.replace(' ', '+')}&panel=1"))
    expect(page.locator("#list-summary")).to_contain_text("2 items")
    expect(page.locator("#fv-1-err")).to_have_count(0)
    assert TYPE in page.locator("#dl-record_type option").evaluate_all("els => els.map(e => e.value)")


def test_the_builder_and_the_standard_reports_group_and_filter_by_it(admin, live_host) -> None:
    world, page = admin
    # The type as Setup saves it (its creation through Setup is the test above), on two open deals.
    write(world, "INSERT INTO crm_record_type (object_type, name, developer_name, description, active, is_default) "
                 "VALUES ('opportunity', ?, 'Channel_Partner', 'Deals sold through resellers.', 1, 0)", TYPE)
    new_id = world.one("SELECT id FROM crm_record_type WHERE name = ?", TYPE)[0]
    write(world, "UPDATE crm_opportunity SET record_type_id = ? WHERE id IN (SELECT id FROM crm_opportunity "
                 "WHERE stage = 'Qualification' ORDER BY id LIMIT 2)", new_id)
    # The report builder: the filter offers and accepts the type; grouping by record type follows Setup's order.
    page.goto(live_host.url("crm", "/reports/builder?type=opportunities&cols=1&col=name&col=amount&g1=record_type"
                            f"&ff=record_type&fo=equals&fv={TYPE.replace(' ', '+')}"))
    expect(page.locator("#fv-1-err")).to_have_count(0)
    expect(page.locator("#total-records")).to_have_text("2")
    expect(page.locator("tr.subtotal.level-1")).to_have_count(1)
    expect(page.locator(f"tr.subtotal.level-1[data-group='{TYPE}']")).to_have_attribute("data-count", "2")
    assert TYPE in page.locator("#dl-record_type option").evaluate_all("els => els.map(e => e.value)")
    page.goto(live_host.url("crm", "/reports/builder?type=opportunities&cols=1&col=name&g1=record_type&ff=record_type&fo=equals&fv=Reseller"))
    expect(page.locator("#fv-1-err")).to_have_text("Bad value for restricted picklist field: Reseller")
    page.goto(live_host.url("crm", "/reports/builder?type=opportunities&cols=1&col=name&g1=record_type"))
    counts = dict(world.query("SELECT r.name, count(*) FROM crm_opportunity o JOIN crm_record_type r ON r.id = o.record_type_id GROUP BY 1"))
    got = page.locator("tr.subtotal.level-1").evaluate_all("els => els.map(e => [e.dataset.group, Number(e.dataset.count)])")
    assert got == [[n, counts[n]] for n in ("New Business", "Renewal", "Upsell", TYPE)]

    # The standard report groups by it too, in Setup's order (open deals only: the pipeline).
    page.goto(live_host.url("crm", "/reports/pipeline-by-stage-and-owner?g1=record_type&g2="))
    open_counts = dict(world.query("""SELECT r.name, count(*) FROM crm_opportunity o JOIN crm_record_type r ON r.id = o.record_type_id
                                      WHERE o.stage NOT IN ('Closed Won', 'Closed Lost') GROUP BY 1"""))
    got = page.locator("tr.subtotal.level-1").evaluate_all("els => els.map(e => [e.dataset.group, Number(e.dataset.count)])")
    assert got == [[n, open_counts[n]] for n in ("New Business", "Renewal", "Upsell", TYPE)]

