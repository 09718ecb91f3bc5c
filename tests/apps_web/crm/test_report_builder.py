"""The report builder in real Chromium: New Report -> report type, groups, summaries, filters with
logic, chart, Save to a folder (new or built in); the saved report runs from the Reports tab.
Each test checks crm_report in the world database; refused input saves nothing."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from playwright.sync_api import Browser, expect

from apps_web.ui import money


@pytest.fixture()
def fresh(browser: Browser, live_host):
    world = live_host.world()
    username = world.one("SELECT username FROM identity_user WHERE role = 'sales_rep' ORDER BY id")[0]
    context = live_host.new_context(browser, world, username)
    yield world, context.new_page()
    context.close()


def reports(world) -> list[tuple]:
    return world.query("SELECT id, name, api_name, report_type, folder, folder_id, columns, groupings, summaries, chart, filter_logic FROM crm_report")


def test_build_group_sum_save_to_new_folder(fresh, live_host) -> None:
    world, page = fresh
    page.goto(live_host.url("crm", "/reports"))
    page.get_by_role("link", name="New Report").click()
    page.get_by_label("Opportunities", exact=True).check()
    page.get_by_role("button", name="Start Report").click()
    expect(page.get_by_role("heading", name="New Opportunities Report")).to_be_visible()

    page.get_by_label("Group Rows By").select_option(label="Stage")
    page.get_by_label("Then Group By", exact=True).select_option(label="Opportunity Owner")
    page.get_by_label("Sum of Amount").check()
    page.get_by_label("Max of Probability (%)").check()
    page.get_by_role("button", name="Add Filter", exact=True).click()
    page.locator("#ff-1").select_option(label="Type")
    page.locator("#fv-1").fill("New Business")
    page.get_by_role("button", name="Add Filter", exact=True).click()
    page.locator("#ff-2").select_option(label="Amount")
    page.locator("#fo-2").select_option(label="greater than")
    page.locator("#fv-2").fill("lots")
    page.get_by_label("Chart Type").select_option(label="Horizontal Bar")
    page.get_by_role("button", name="Update Preview").click()
    expect(page.locator("#fv-2-err")).to_have_text("Enter a number.")
    page.locator("#fv-2").fill("50000")
    page.get_by_role("button", name="Update Preview").click()
    expect(page.locator("#fv-2-err")).to_have_count(0)

    rows = world.query("SELECT o.stage, u.first_name || ' ' || u.last_name, o.amount FROM crm_opportunity o JOIN identity_user u ON u.id = o.owner_id "
                       "WHERE o.type = 'New Business' AND o.amount > 50000"  # the rep's own deals: Opportunity is Private
                       " AND o.owner_id = (SELECT id FROM identity_user WHERE role = 'sales_rep' ORDER BY id LIMIT 1)")
    total = sum(r[2] or 0 for r in rows)
    expect(page.locator("#total-records")).to_have_text(str(len(rows)))
    expect(page.locator("[data-summary='amount:sum']")).to_have_text(money(total))
    by_stage: dict[str, float] = defaultdict(float)
    for stage, _owner, amount in rows:
        by_stage[stage] += amount or 0
    top = max(by_stage, key=by_stage.get)
    expect(page.locator(f"tr.subtotal.level-1[data-group='{top}']")).to_contain_text(f"Sum: {money(by_stage[top])}")
    expect(page.locator("#report-chart")).to_be_visible()

    page.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name="Save Report")
    dialog.get_by_label("Folder", exact=True).select_option(label="New Folder...")
    dialog.get_by_role("button", name="Save").click()  # no name, no folder name: refused
    dialog = page.get_by_role("dialog", name="Save Report")
    expect(dialog.locator("#rep-name-err")).to_have_text("Complete this field.")
    expect(dialog.locator("#rep-new-folder-err")).to_have_text("Complete this field.")
    assert reports(world) == [] and world.one("SELECT count(*) FROM crm_report_folder")[0] == 0

    dialog.get_by_label("Report Name").fill("New Logo Pipeline by Stage")
    expect(dialog.get_by_label("Report Unique Name")).to_have_value("New_Logo_Pipeline_by_Stage")
    dialog.get_by_label("Folder Name").fill("Q2 Forecast")
    dialog.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(r"/reports/custom/\d+$"))
    (rid, name, api, rtype, folder, folder_id, cols, groups, sums, chart, logic), = reports(world)
    assert (name, api, rtype, folder, groups, sums, chart, logic) == (
        "New Logo Pipeline by Stage", "New_Logo_Pipeline_by_Stage", "opportunities", "Q2 Forecast", "stage,owner", "amount:sum,probability:max", "bar", None)
    assert world.one(f"SELECT name FROM crm_report_folder WHERE id = {folder_id}")[0] == "Q2 Forecast"
    assert world.query(f"SELECT position, field, operator, value FROM crm_report_filter WHERE report_id = {rid} ORDER BY position") == [
        (1, "type", "equals", "New Business"), (2, "amount", "greater", "50000")]

    # It runs from the Reports tab, in its folder.
    page.goto(live_host.url("crm", "/reports"))
    page.get_by_role("navigation", name="Report folders").get_by_role("link", name="Q2 Forecast").click()
    page.get_by_role("link", name="New Logo Pipeline by Stage").click()
    expect(page.locator("[data-summary='amount:sum']")).to_have_text(money(total))


def test_filter_logic_and_public_folder(fresh, live_host) -> None:
    world, page = fresh
    page.goto(live_host.url("crm", "/reports/builder?type=cases"))
    page.get_by_label("Group Rows By").select_option(label="Priority")
    for n, (field, value) in enumerate([("Status", "New"), ("Status", "Escalated"), ("Case Origin", "Web")], start=1):
        page.get_by_role("button", name="Add Filter", exact=True).click()
        page.locator(f"#ff-{n}").select_option(label=field)
        page.locator(f"#fv-{n}").fill(value)
    page.get_by_role("button", name="Add Filter Logic").click()
    page.get_by_label("Filter Logic").fill("(1 OR 2) AND 3 AND 4")
    page.get_by_role("button", name="Update Preview").click()
    expect(page.locator("#filter-logic-err")).to_have_text("The filter logic references an undefined filter: 4.")
    page.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name="Save Report")
    dialog.get_by_label("Report Name").fill("Open Web Cases")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert").first).to_contain_text("undefined filter: 4")
    assert reports(world) == []

    page.get_by_label("Filter Logic").fill("(1 or 2) and 3")
    page.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name="Save Report")
    dialog.get_by_label("Folder", exact=True).select_option(label="Public Reports")
    dialog.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(r"/reports/custom/\d+$"))
    row = reports(world)[0]
    assert (row[4], row[7], row[10]) == ("Public Reports", "priority", "(1 OR 2) AND 3")
    count = world.one("SELECT count(*) FROM crm_case WHERE status IN ('New', 'Escalated') AND origin = 'Web'")[0]
    expect(page.locator("#total-records")).to_have_text(str(count))
