"""List View Charts in real Chromium: the New Chart dialog (errors, save), the chart's values against
the database, tooltips and accessible names, and the chart following the list's filters."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from apps_web.ui import money

from .conftest import user_of

pytestmark = pytest.mark.browser


@pytest.fixture()
def world(live_host):
    return live_host.world()


@pytest.fixture()
def page(browser, live_host, world):
    context = live_host.new_context(browser, world, user_of(world, "sales_rep"))
    p = context.new_page()
    yield p
    context.close()


def new_chart(page: Page, name: str, chart_type: str, aggregate: str, group: str, field: str | None = None) -> None:
    page.get_by_role("button", name="New Chart").click()
    dialog = page.get_by_role("dialog", name="New Chart")
    dialog.get_by_label("Chart Name").fill(name)
    dialog.get_by_label("Chart Type").select_option(chart_type)
    dialog.get_by_label("Aggregate Type").select_option(aggregate)
    if field:
        dialog.get_by_label("Aggregate Field").select_option(field)
    dialog.get_by_label("Grouping Field").select_option(group)
    dialog.get_by_role("button", name="Save").click()


def test_donut_of_open_leads_by_source_follows_the_filters(page: Page, live_host, world) -> None:
    page.goto(live_host.url("crm", "/leads?view=all_open"))
    page.get_by_role("link", name="Show charts").click()
    expect(page.get_by_role("complementary", name="Charts")).to_contain_text("No charts for this list view yet.")
    # A chart needs a grouping field: nothing is saved without one.
    page.get_by_role("button", name="New Chart").click()
    page.get_by_role("dialog", name="New Chart").get_by_label("Chart Name").fill("Open leads by source")
    page.get_by_role("dialog", name="New Chart").get_by_role("button", name="Save").click()
    expect(page.get_by_role("dialog", name="New Chart")).to_contain_text("Select a grouping field.")
    assert world.one("SELECT count(*) FROM crm_list_view_chart")[0] == 0
    page.get_by_role("dialog", name="New Chart").get_by_label("Grouping Field").select_option("Lead Source")
    page.get_by_role("dialog", name="New Chart").get_by_label("Chart Type").select_option("Donut Chart")
    page.get_by_role("dialog", name="New Chart").get_by_role("button", name="Save").click()
    expect(page.get_by_text('Chart "Open leads by source" was created.')).to_be_visible()
    row = world.one("SELECT object_type, view_key, name, chart_type, aggregate, aggregate_field, group_field FROM crm_list_view_chart")
    assert row == ("lead", "all_open", "Open leads by source", "donut", "count", None, "source")
    counts = world.query("SELECT coalesce(source, ''), count(*) FROM crm_lead WHERE status IN ('Open - Not Contacted', 'Working - Contacted') "
                         "GROUP BY 1 ORDER BY 2 DESC, lower(coalesce(source, '')) LIMIT 1")
    top, n = counts[0]
    chart = page.get_by_role("img", name=re.compile("^Open leads by source: Count of Records by Lead Source"))
    expect(chart).to_have_accessible_name(re.compile(rf"Lead Source {re.escape(top)}: {n} \("))  # the title, then every value
    slice_link = page.get_by_role("link", name=re.compile(rf"^{re.escape(top)}: {n} \("))
    slice_link.locator("[data-tip]").hover()
    expect(page.locator("#chart-tip")).to_have_text(re.compile(rf"^{re.escape(top)}: {n} \("))
    # Filtering the list filters the chart: one state only.
    page.goto(live_host.url("crm", "/leads?view=all_open&ff=state&fo=equals&fv=CA&charts=1"))
    ca = world.query("SELECT coalesce(source, ''), count(*) FROM crm_lead WHERE status IN ('Open - Not Contacted', 'Working - Contacted') "
                     "AND lower(state) = 'ca' GROUP BY 1 ORDER BY 2 DESC, lower(coalesce(source, ''))")
    desc = page.locator("#chart-panel svg desc").text_content()
    shown = [re.sub(r" \([\d.]+%\)$", "", part) for part in desc.rstrip(".").split("; ")]
    assert ca and shown == [f"{s or '(blank)'}: {c}" for s, c in ca]


def test_sum_of_amount_by_stage_in_a_horizontal_bar(page: Page, live_host, world) -> None:
    rep_id = world.one("SELECT id FROM identity_user WHERE role = 'sales_rep' ORDER BY id")[0]
    page.goto(live_host.url("crm", "/opportunities?view=mine&charts=1"))
    new_chart(page, "My pipeline", "Horizontal Bar Chart", "Sum", "Stage", "Amount")
    expect(page.get_by_text('Chart "My pipeline" was created.')).to_be_visible()
    stage, total = world.one("SELECT stage, sum(coalesce(amount, 0)) FROM crm_opportunity WHERE owner_id = ? GROUP BY stage "
                             "ORDER BY 2 DESC, lower(stage) LIMIT 1", rep_id)
    expect(page.get_by_role("link", name=f"{stage}: {money(total)}")).to_be_visible()
    # A bar narrows the list to its group; the chart stays open and follows.
    page.get_by_role("link", name=f"{stage}: {money(total)}").click()
    n = world.one("SELECT count(*) FROM crm_opportunity WHERE owner_id = ? AND stage = ?", rep_id, stage)[0]
    expect(page.locator("#list-summary")).to_contain_text(f"{n} item")
    expect(page.get_by_role("link", name=re.compile(r": \$"))).to_have_count(1)
    # Average needs an aggregate field.
    page.get_by_role("button", name="New Chart").click()
    dialog = page.get_by_role("dialog", name="New Chart")
    dialog.get_by_label("Chart Name").fill("Average deal")
    dialog.get_by_label("Aggregate Type").select_option("Average")
    dialog.get_by_label("Grouping Field").select_option("Type")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("dialog", name="New Chart")).to_contain_text("Select a field to average.")
    assert world.one("SELECT count(*) FROM crm_list_view_chart")[0] == 1
