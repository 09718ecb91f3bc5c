"""Desk lists in real Chromium: the condition builder (AND/OR, operators by type), breadcrumbs, sort,
paging and the navigator, each checked against the world database."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, expect


def query_of(page: Page) -> str:
    return parse_qs(urlsplit(page.url).query).get("sysparm_query", [""])[0]


def total_of(page: Page) -> int:
    text = page.locator("#list-range").inner_text()
    return int(re.search(r"of (\d+)$", text).group(1))


def test_condition_builder_and_or(page: Page, shared, live_host) -> None:
    world, _ = shared
    page.goto(live_host.url("desk", "/incident_list.do"))
    page.get_by_role("button", name="Show / hide filter").click()
    builder = page.get_by_role("region", name="Condition builder")
    c1 = builder.get_by_role("group", name="Condition 1")
    c1.get_by_label("Field").select_option(label="Category")
    expect(c1.get_by_label("Operator")).to_have_value("=")
    c1.get_by_label("Value").select_option("Network")
    c1.get_by_role("button", name="AND").click()
    c2 = builder.get_by_role("group", name="Condition 2")
    c2.get_by_label("Field").select_option(label="State")
    c2.get_by_label("Value").select_option("In Progress")
    c2.get_by_role("button", name="OR").click()
    c3 = builder.get_by_role("group", name="Condition 3")
    c3.get_by_label("Field").select_option(label="State")
    c3.get_by_label("Value").select_option("On Hold")
    expect(c3).to_contain_text("or")
    builder.get_by_role("button", name="Run").click()
    expect(page).to_have_url(re.compile("sysparm_query="))
    assert query_of(page) == "category=Network^state=In Progress^ORstate=On Hold"
    expected = world.one("SELECT count(*) FROM desk_incident WHERE category = 'Network' AND state IN ('In Progress', 'On Hold')")[0]
    assert total_of(page) == expected > 0
    crumbs = page.get_by_role("navigation", name="Filter breadcrumbs")
    expect(crumbs).to_contain_text("Category = Network")
    expect(crumbs).to_contain_text("State = In Progress .or. State = On Hold")
    states = set(page.locator("table.sn-list tbody tr td:nth-child(6)").all_inner_texts())
    assert states <= {"In Progress", "On Hold"}
    # A breadcrumb goes back to the list filtered up to it.
    crumbs.get_by_role("link", name="Category = Network").click()
    expect(page).to_have_url(re.compile(r"sysparm_query=category%3DNetwork$|sysparm_query=category=Network$"))
    assert total_of(page) == world.one("SELECT count(*) FROM desk_incident WHERE category = 'Network'")[0]


def test_operators_follow_the_field_type(page: Page, shared, live_host) -> None:
    world, _ = shared
    page.goto(live_host.url("desk", "/incident_list.do"))
    page.get_by_role("button", name="Show / hide filter").click()
    c1 = page.get_by_role("group", name="Condition 1")
    c1.get_by_label("Field").select_option(label="Short description")
    ops = c1.get_by_label("Operator").locator("option").all_inner_texts()
    assert "contains" in ops and "starts with" in ops and "is empty" in ops and "greater than" not in ops
    c1.get_by_label("Field").select_option(label="Priority")
    ops = c1.get_by_label("Operator").locator("option").all_inner_texts()
    assert "less than" in ops and "contains" not in ops
    c1.get_by_label("Field").select_option(label="Short description")
    c1.get_by_label("Operator").select_option(label="contains")
    c1.get_by_label("Value").fill("vpn")
    c1.get_by_label("Value").press("Enter")
    expect(page).to_have_url(re.compile("sysparm_query="))
    assert total_of(page) == world.one("SELECT count(*) FROM desk_incident WHERE lower(short_description) LIKE '%vpn%'")[0] > 0
    # "is empty" needs no value.
    page.get_by_role("button", name="Show / hide filter").click()
    c1 = page.get_by_role("group", name="Condition 1")
    c1.get_by_label("Field").select_option(label="Assigned to")
    c1.get_by_label("Operator").select_option(label="is empty")
    expect(c1.get_by_label("Value")).to_have_count(0)
    page.get_by_role("button", name="Run").click()
    expect(page).to_have_url(re.compile("assigned_toISEMPTY"))
    assert total_of(page) == world.one("SELECT count(*) FROM desk_incident WHERE assigned_to_id IS NULL")[0]


def test_reference_condition_compares_display_values(page: Page, shared, live_host) -> None:
    world, _ = shared
    page.goto(live_host.url("desk", "/incident_list.do?sysparm_query=assignment_group=database^priority<=3"))
    expected = world.one("""SELECT count(*) FROM desk_incident i JOIN desk_group g ON g.id = i.assignment_group_id
                            WHERE lower(g.name) = 'database' AND priority <= 3""")[0]
    assert total_of(page) == expected > 0
    expect(page.get_by_role("navigation", name="Filter breadcrumbs")).to_contain_text("Priority less than or is 3 - Moderate")


def test_sort_by_column_and_paging(page: Page, shared, live_host) -> None:
    world, _ = shared
    page.goto(live_host.url("desk", "/incident_list.do?sysparm_query=state=Closed"))
    total = world.one("SELECT count(*) FROM desk_incident WHERE state = 'Closed'")[0]
    expect(page.locator("#list-range")).to_have_text(f"1 to 20 of {total}")
    page.get_by_role("link", name="Opened", exact=True).click()
    expect(page).to_have_url(re.compile("ORDERBYopened_at"))
    oldest = [r[0] for r in world.query("SELECT number FROM desk_incident WHERE state = 'Closed' ORDER BY opened_at, id LIMIT 21")]
    expect(page.locator("table.sn-list tbody tr td:first-child a").first).to_have_text(oldest[0])
    page.get_by_role("link", name="Opened", exact=True).click()  # again: descending
    expect(page).to_have_url(re.compile("ORDERBYDESCopened_at"))
    page.get_by_role("link", name="Next page").click()
    expect(page.locator("#list-range")).to_have_text(f"21 to 40 of {total}")
    newest = [r[0] for r in world.query("SELECT number FROM desk_incident WHERE state = 'Closed' ORDER BY opened_at DESC, id DESC LIMIT 40")]
    assert page.locator("table.sn-list tbody tr td:first-child a").all_inner_texts() == newest[20:40]
    assert "sysparm_first_row=21" in page.url and "ORDERBYDESCopened_at" in query_of(page)


def test_invalid_query_says_what_is_wrong(page: Page, live_host) -> None:
    page.goto(live_host.url("desk", "/incident_list.do?sysparm_query=colour=red"))
    expect(page.get_by_role("alert")).to_contain_text("'colour' is not a field of incidents")


def test_navigator_filters_modules(page: Page, shared, live_host) -> None:
    world, _ = shared
    page.goto(live_host.url("desk", "/"))
    page.get_by_role("button", name="All", exact=True).click()
    nav = page.get_by_role("navigation", name="Application navigator")
    expect(nav).to_be_visible()
    page.get_by_label("Filter navigator").fill("unassigned")
    expect(nav.get_by_role("link")).to_have_count(1)
    nav.get_by_role("link", name="Open - Unassigned").click()
    expect(page.get_by_role("heading", name="Incidents")).to_be_visible()
    expected = world.one("SELECT count(*) FROM desk_incident WHERE state IN ('New', 'In Progress', 'On Hold') AND assigned_to_id IS NULL")[0]
    assert total_of(page) == expected
    # User Administration is for admins: an itil agent's navigator has no Groups module.
    page.get_by_role("button", name="All", exact=True).click()
    page.get_by_label("Filter navigator").fill("groups")
    expect(nav.get_by_text("No modules match.")).to_be_visible()
    # Enter in the filter opens the first module shown.
    page.get_by_label("Filter navigator").fill("scheduled")
    page.get_by_label("Filter navigator").press("Enter")
    expect(page.get_by_role("heading", name="Change Requests")).to_be_visible()
    assert total_of(page) == world.one("SELECT count(*) FROM desk_change WHERE state = 'Scheduled'")[0]


def test_unknown_record_is_a_404_in_the_apps_look(page: Page, live_host) -> None:
    response = page.goto(live_host.url("desk", "/incident.do?sys_id=987654"))
    assert response.status == 404
    expect(page.get_by_role("alert")).to_contain_text("no incident with sys_id '987654'")
    expect(page.get_by_role("button", name="All", exact=True)).to_be_visible()  # the desk's banner
