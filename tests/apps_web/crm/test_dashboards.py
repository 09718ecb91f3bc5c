"""Dashboards in real Chromium: the seeded dashboards' values (tooltips, accessible names, metrics)
match the database, dashboard filters change every component, the builder saves what it shows and
refuses bad input with Salesforce's messages, and a user without edit access is refused by the server."""

from __future__ import annotations

import re
from contextlib import closing

import pytest
from playwright.sync_api import Browser, expect

from apps_web.ui import money

OPEN = "o.stage NOT IN ('Closed Won', 'Closed Lost')"


def _user(world, role: str) -> tuple[str, str]:
    return world.one(f"SELECT username, first_name || ' ' || last_name FROM identity_user WHERE role = '{role}' AND active ORDER BY id")


@pytest.fixture()
def as_role(browser: Browser, live_host):
    contexts = []

    def open_as(role: str):
        world = live_host.world()
        username, name = _user(world, role)
        context = live_host.new_context(browser, world, username)
        contexts.append(context)
        return world, context.new_page(), name

    yield open_as
    for c in contexts:
        c.close()


def test_seeded_dashboard_values_tooltips_and_filters(as_role, live_host) -> None:
    world, page, me = as_role("sales_manager")
    page.goto(live_host.url("crm", "/"))
    page.get_by_role("link", name="Dashboards", exact=True).first.click()
    page.get_by_role("link", name="Sales Pipeline").click()
    expect(page.get_by_role("heading", name="Sales Pipeline", level=1)).to_be_visible()
    expect(page.locator("#dash-asof")).to_contain_text(f"Viewing as {me}")

    by_stage = dict(world.query(f"SELECT o.stage, SUM(o.amount) FROM crm_opportunity o WHERE {OPEN} GROUP BY o.stage"))
    stage, amount = max(by_stage.items(), key=lambda kv: kv[1])
    card = page.locator("section.dash-component", has=page.get_by_role("heading", name="Open Pipeline by Stage"))
    bar = card.get_by_role("link", name=f"{stage}: {money(amount)}")
    expect(bar).to_have_count(1)
    bar.locator("rect").hover()
    expect(page.locator("#chart-tip")).to_have_text(f"{stage}: {money(amount)}")

    total = sum(by_stage.values())
    metric = page.get_by_role("img", name=f"Open Pipeline: {money(total)}")
    expect(metric).to_be_visible()

    owner_id, owner = world.one(f"SELECT o.owner_id, u.first_name || ' ' || u.last_name FROM crm_opportunity o JOIN identity_user u ON u.id = o.owner_id "
                                f"WHERE {OPEN} GROUP BY o.owner_id ORDER BY COUNT(*) DESC, o.owner_id LIMIT 1")
    mine = world.one(f"SELECT SUM(o.amount) FROM crm_opportunity o WHERE {OPEN} AND o.owner_id = ?", owner_id)[0]
    page.get_by_label("Owner").select_option(label=owner)
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_role("img", name=f"Open Pipeline: {money(mine)}")).to_be_visible()
    top = page.get_by_role("table", name="Top Reps by Open Pipeline")
    expect(top.locator("tbody tr")).to_have_count(1)
    expect(top.locator("tbody tr td").first).to_have_text(owner)


def test_builder_creates_dashboard_with_gauge_and_order(as_role, live_host) -> None:
    world, page, _me = as_role("sales_rep")
    before = world.one("SELECT COUNT(*) FROM crm_dashboard")[0]
    page.goto(live_host.url("crm", "/dashboards"))
    page.get_by_role("link", name="New Dashboard").click()
    # A rep may not save in Public Dashboards or a read-only folder: they are not offered.
    expect(page.locator("#dash-folder option", has_text="Sales Leadership")).to_have_count(0)
    page.get_by_role("button", name="Create").click()
    expect(page.locator("#dash-name-err")).to_have_text("A dashboard must have a name.")
    assert world.one("SELECT COUNT(*) FROM crm_dashboard")[0] == before
    page.get_by_label("Name").fill("My Quarter")
    page.get_by_label("Description").fill("Where my deals stand")
    page.get_by_role("button", name="Create").click()
    expect(page).to_have_url(re.compile(r"/dashboards/\d+/edit$"))
    dash_id = int(page.url.rsplit("/", 2)[-2])

    page.get_by_role("link", name="+ Component").click()
    page.get_by_label("Report").select_option(label="Pipeline by Stage and Owner")
    page.get_by_role("button", name="Select").click()
    page.get_by_label("Display As").select_option(label="Gauge")
    page.get_by_label("Title").fill("Open Pipeline Gauge")
    page.get_by_label("Measure (Y-Axis)").select_option(label="Sum of Amount")
    for label, value in (("Minimum", "0"), ("Breakpoint 1", "900000"), ("Breakpoint 2", "500000"), ("Maximum", "2000000")):
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.locator("#comp-b1-err")).to_have_text("Breakpoints must be in ascending order, between the minimum and maximum values.")
    assert world.one("SELECT COUNT(*) FROM crm_dashboard_component WHERE dashboard_id = ?", dash_id)[0] == 0
    page.get_by_label("Breakpoint 1", exact=True).fill("300000")
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.get_by_text('Component "Open Pipeline Gauge" was added.')).to_be_visible()

    page.get_by_role("link", name="+ Component").click()
    page.get_by_label("Report").select_option(label="Pipeline by Stage and Owner")
    page.get_by_role("button", name="Select").click()
    page.get_by_label("Display As").select_option(label="Lightning Table")
    page.get_by_label("Title").fill("Biggest Stages")
    page.get_by_label("Group By (X-Axis)").select_option(label="Stage")
    page.get_by_label("Measure (Y-Axis)").select_option(label="Sum of Amount")
    page.get_by_label("Maximum Groups Displayed").fill("3")
    page.get_by_role("button", name="Add", exact=True).click()
    page.get_by_role("button", name="Move Biggest Stages up").click()
    expect(page.get_by_text('"Biggest Stages" was moved up.')).to_be_visible()
    rows = world.query("SELECT position, title, display, standard_report, group_by, measure, max_rows, min_value, breakpoint1, breakpoint2, max_value "
                       "FROM crm_dashboard_component WHERE dashboard_id = ? ORDER BY position", dash_id)
    assert rows == [(1, "Biggest Stages", "table", "pipeline-by-stage-and-owner", "stage", "amount:sum", 3, None, None, None, None),
                    (2, "Open Pipeline Gauge", "gauge", "pipeline-by-stage-and-owner", None, "amount:sum", None, 0, 300000, 500000, 2000000)]
    assert world.one("SELECT name, description, folder FROM crm_dashboard WHERE id = ?", dash_id) == ("My Quarter", "Where my deals stand", "Private Dashboards")

    page.get_by_role("link", name="Done").click()
    # A new dashboard runs as its owner, a rep: their own deals (Opportunity is Private).
    total = world.one(f"SELECT SUM(o.amount) FROM crm_opportunity o WHERE {OPEN} AND o.owner_id = "
                      "(SELECT id FROM identity_user WHERE role = 'sales_rep' ORDER BY id LIMIT 1)")[0]
    expect(page.locator("svg.gauge-chart")).to_have_attribute("data-value", f"{total:.2f}")
    expect(page.get_by_role("table", name="Biggest Stages").locator("tbody tr")).to_have_count(3)


def test_read_only_folder_refuses_edits_on_the_server(as_role, live_host) -> None:
    world, page, _me = as_role("sales_rep")
    page.goto(live_host.url("crm", "/dashboards/1"))
    expect(page.get_by_role("heading", name="Sales Pipeline", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="Edit")).to_have_count(0)
    before = world.query("SELECT * FROM crm_dashboard_component ORDER BY id")
    post = "async ([url, body]) => (await fetch(url, {method: 'POST', body: new URLSearchParams(body)})).status"
    form = {"report": "std:pipeline-by-stage-and-owner", "display": "metric", "measure": "count", "title": "Mine"}
    assert page.evaluate(post, ["/dashboards/1/components", form]) == 403
    assert page.evaluate(post, ["/dashboards/1/delete", {}]) == 403
    assert page.evaluate(post, ["/dashboards/1/properties", {"name": "Renamed", "folder": "f1"}]) == 403
    assert page.evaluate("async () => (await fetch('/dashboards/1/edit')).status") == 403
    assert world.query("SELECT * FROM crm_dashboard_component ORDER BY id") == before
    assert world.one("SELECT COUNT(*) FROM crm_dashboard WHERE id = 1")[0] == 1
    # The Service Team folder is shared with Editor access: the rep may change its dashboards.
    page.goto(live_host.url("crm", "/dashboards/2"))
    expect(page.get_by_role("link", name="Edit")).to_be_visible()


def test_rename_refuses_blank_name_and_delete_cascades(as_role, live_host) -> None:
    world, page, _me = as_role("support_manager")
    page.goto(live_host.url("crm", "/dashboards/2"))
    page.get_by_role("link", name="Edit").click()
    page.get_by_label("Name").fill("")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#dash-name-err")).to_have_text("A dashboard must have a name.")
    assert world.one("SELECT name FROM crm_dashboard WHERE id = 2")[0] == "Service Overview"
    page.get_by_label("Name").fill("Service Overview (EMEA)")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text('Dashboard "Service Overview (EMEA)" was saved.')).to_be_visible()
    page.get_by_role("button", name="Remove filter Owner").click()
    expect(page.get_by_text('Filter "Owner" was removed.')).to_be_visible()
    assert world.one("SELECT count(*) FROM crm_dashboard_filter WHERE dashboard_id = 2")[0] == 0
    page.get_by_role("link", name="Done").click()
    page.get_by_role("button", name="Delete").click()
    page.get_by_role("dialog", name="Delete Dashboard").get_by_role("button", name="Delete").click()
    expect(page.get_by_text('Dashboard "Service Overview (EMEA)" was deleted.')).to_be_visible()
    assert world.one("SELECT count(*) FROM crm_dashboard WHERE id = 2")[0] == 0
    assert world.one("SELECT count(*) FROM crm_dashboard_component WHERE dashboard_id = 2")[0] == 0


def test_component_from_a_saved_report_uses_its_filters(as_role, live_host) -> None:
    world, page, _me = as_role("sales_rep")
    uid = world.one("SELECT id FROM identity_user WHERE role = 'sales_rep' AND active ORDER BY id")[0]
    with closing(world.connect(readonly=False)) as conn:
        rid = conn.execute(
            "INSERT INTO crm_report (name, api_name, report_type, folder, owner_id, columns, groupings, summaries, chart, created_at, updated_at) "
            "VALUES ('New Business by Stage', 'NB_Stage', 'opportunities', 'Private Reports', ?, 'name,amount', 'stage', 'amount:sum', 'none', "
            "'2026-03-01 09:00:00', '2026-03-01 09:00:00')", (uid,)).lastrowid
        conn.execute("INSERT INTO crm_report_filter (report_id, position, field, operator, value) VALUES (?, 1, 'type', 'equals', 'New Business')", (rid,))
        dash = conn.execute("INSERT INTO crm_dashboard (name, folder, owner_id, created_at, updated_at) VALUES ('Mine', 'Private Dashboards', ?, "
                            "'2026-03-01 09:00:00', '2026-03-01 09:00:00')", (uid,)).lastrowid
        conn.commit()
    page.goto(live_host.url("crm", f"/dashboards/{dash}/edit?add=1"))
    page.get_by_label("Report").select_option(label="New Business by Stage")
    page.get_by_role("button", name="Select").click()
    page.get_by_label("Display As").select_option(label="Donut Chart")
    page.get_by_label("Group By (X-Axis)").select_option(label="Stage")
    page.get_by_label("Measure (Y-Axis)").select_option(label="Sum of Amount")
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.get_by_text('Component "New Business by Stage" was added.')).to_be_visible()
    assert world.one("SELECT report_id, standard_report, display FROM crm_dashboard_component WHERE dashboard_id = ?", dash) == (rid, None, "donut")
    page.get_by_role("link", name="Done").click()
    # The dashboard runs as its owner, a rep: their own deals only (Opportunity is Private).
    stage, amount = world.one("SELECT stage, SUM(amount) FROM crm_opportunity WHERE type = 'New Business' AND owner_id = ? "
                              "GROUP BY stage ORDER BY SUM(amount) DESC LIMIT 1", uid)
    total = world.one("SELECT SUM(amount) FROM crm_opportunity WHERE type = 'New Business' AND owner_id = ?", uid)[0]
    expect(page.get_by_role("link", name=re.compile(rf"^{re.escape(stage)}: {re.escape(money(amount))} \(\d+\.\d%\)$"))).to_have_count(1)
    expect(page.locator("section.dash-component")).to_have_attribute("data-total", f"{total:.2f}")
    # The report can't be deleted while the component reads it.
    code = page.evaluate("async (url) => (await fetch(url, {method: 'POST'})).url", f"/reports/custom/{rid}/delete")
    assert code.endswith(f"/reports/custom/{rid}") and world.one("SELECT count(*) FROM crm_report WHERE id = ?", rid)[0] == 1
