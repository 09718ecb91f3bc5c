"""Problems, changes, SLAs, list group-by and inline edit, and dashboard tooltips in real Chromium,
each checked against the world database. One world and one page for the module: each test works on
records the others leave alone."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from .conftest import agent


@pytest.fixture(scope="module")
def desk(browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, agent(world)[0])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield world, page
    context.close()
    assert not errors, errors


def pick(scope, field: str, text: str, option: str | None = None) -> None:
    box = scope.get_by_role("combobox", name=field, exact=True)
    box.press_sequentially(text)
    scope.get_by_role("listbox", name=f"{field} results").get_by_role("option", name=re.compile(re.escape(option or text))).first.click()


def test_problem_from_incident_link_and_mark_duplicate(desk, live_host) -> None:
    world, page = desk
    inc_id, inc_no = world.one("SELECT id, number FROM desk_incident WHERE state = 'In Progress' AND problem_id IS NULL ORDER BY id")
    page.goto(live_host.url("desk", f"/incident.do?sys_id={inc_id}"))
    page.get_by_role("button", name="Create Problem", exact=True).click()
    expect(page).to_have_url(re.compile(r"/problem\.do\?sys_id=\d+"))
    prb_id, prb_no, first, short = world.one("SELECT id, number, first_reported_by_id, short_description FROM desk_problem ORDER BY id DESC LIMIT 1")
    assert prb_no == "PRB0040061" and first == inc_id
    assert world.one("SELECT problem_id, short_description FROM desk_incident WHERE id = ?", inc_id) == (prb_id, short)
    related = page.get_by_role("table", name=f"Incidents of {prb_no}")
    expect(related.get_by_role("link", name=inc_no)).to_be_visible()
    # Link a second incident from the related list.
    other_id, other_no = world.one("SELECT id, number FROM desk_incident WHERE state = 'New' AND problem_id IS NULL ORDER BY id DESC")
    link = page.get_by_role("form", name="Link an incident")
    pick(link, "Incident to link", other_no)
    link.get_by_role("button", name="Link", exact=True).click()
    expect(related.get_by_role("link", name=other_no)).to_be_visible()
    assert world.one("SELECT problem_id FROM desk_incident WHERE id = ?", other_id)[0] == prb_id
    # Mark Duplicate: a duplicate cannot be the original; then the right original closes the problem.
    dup_no, dup_of = world.one("""SELECT p.number, o.number FROM desk_problem p JOIN desk_problem o ON o.id = p.duplicate_of_id
                                  WHERE p.resolution_code = 'Duplicate' ORDER BY p.id""")
    page.get_by_role("button", name="Mark Duplicate", exact=True).click()
    dialog = page.get_by_role("dialog", name="Mark Duplicate")
    pick(dialog, "Duplicate of", dup_no)
    dialog.get_by_role("button", name="Mark Duplicate", exact=True).click()
    dialog = page.get_by_role("dialog", name="Mark Duplicate")
    expect(dialog).to_contain_text(f"{dup_no} is itself a duplicate of {dup_of}")
    assert world.one("SELECT state, resolution_code FROM desk_problem WHERE id = ?", prb_id) == ("New", None)
    orig_id, orig_no = world.one("SELECT id, number FROM desk_problem WHERE state = 'Fix in Progress' ORDER BY id")
    pick(dialog, "Duplicate of", orig_no)
    dialog.get_by_role("button", name="Mark Duplicate", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text(f"closed as a duplicate of {orig_no}")
    assert world.one("SELECT state, resolution_code, duplicate_of_id, closed_at IS NOT NULL FROM desk_problem WHERE id = ?", prb_id) == ("Closed", "Duplicate", orig_id, 1)
    expect(page.get_by_role("button", name="Mark Duplicate", exact=True)).to_have_count(0)  # closed: read-only


def test_change_conflict_warning_request_approval_and_cab_approve(desk, browser, live_host) -> None:
    world, page = desk
    a_no, ci_id, ci_name, a_start, a_end = world.one("""SELECT c.number, c.ci_id, ci.name, c.start_date, c.end_date FROM desk_change c
                                                       JOIN desk_ci ci ON ci.id = c.ci_id WHERE c.state = 'Scheduled' ORDER BY c.start_date DESC""")
    b_id, b_no, group_id = world.one("""SELECT id, number, assignment_group_id FROM desk_change WHERE state = 'New' AND type = 'Normal'
                                       AND assignment_group_id IS NOT NULL ORDER BY id""")
    start = datetime.fromisoformat(a_start) + timedelta(minutes=30)
    page.goto(live_host.url("desk", f"/change_request.do?sys_id={b_id}"))
    form = page.get_by_role("form", name="Change request form")
    if form.get_by_role("button", name=re.compile("Clear selection: Configuration item")).is_visible():
        form.get_by_role("button", name=re.compile("Clear selection: Configuration item")).click()
    pick(form, "Configuration item", ci_name)
    form.get_by_role("textbox", name="Planned start date").fill(start.strftime("%Y-%m-%d %H:%M:%S"))
    form.get_by_role("textbox", name="Planned end date").fill((start + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S"))
    for plan in ("Implementation plan", "Backout plan", "Test plan"):
        form.get_by_role("textbox", name=plan).fill(f"{plan}: step one, step two.")
    form.get_by_role("button", name="Save", exact=True).click()
    warning = page.get_by_role("note", name="Conflict warning")
    expect(warning).to_contain_text(a_no)
    expect(page.get_by_role("table", name=f"Conflicts of {b_no}").get_by_role("link", name=a_no)).to_be_visible()
    assert world.one("SELECT ci_id, start_date FROM desk_change WHERE id = ?", b_id) == (ci_id, start.strftime("%Y-%m-%d %H:%M:%S.000000"))
    # An end before the start is refused and nothing is saved.
    form.get_by_role("textbox", name="Planned end date").fill((start - timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S"))
    form.get_by_role("button", name="Save", exact=True).click()
    expect(form.get_by_text("The planned end date must be after the planned start date.").first).to_be_visible()
    assert world.one("SELECT end_date FROM desk_change WHERE id = ?", b_id)[0] == (start + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S.000000")
    # Move it clear of the other change: no warning; then ask the CAB.
    later = datetime.fromisoformat(a_end) + timedelta(days=7)
    form.get_by_role("textbox", name="Planned start date").fill(later.strftime("%Y-%m-%d %H:%M:%S"))
    form.get_by_role("textbox", name="Planned end date").fill((later + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S"))
    form.get_by_role("button", name="Request Approval", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Approval requested")
    expect(page.get_by_role("note", name="Conflict warning")).to_have_count(0)
    assert world.one("SELECT state, approval FROM desk_change WHERE id = ?", b_id) == ("Authorize", "requested")
    manager, appr_id = world.one("""SELECT u.username, a.id FROM desk_approval a JOIN identity_user u ON u.id = a.approver_id
                                    JOIN desk_group g ON g.manager_id = u.id WHERE a.change_id = ? AND g.id = ? AND a.state = 'requested'""", b_id, group_id)
    # The group's manager approves it from My Approvals.
    ctx = live_host.new_context(browser, world, manager)
    mp = ctx.new_page()
    mp.goto(live_host.url("desk", "/sysapproval_approver_list.do?sysparm_query=approver=javascript:gs.getUserID()^state=requested"))
    mp.get_by_role("row").filter(has_text=b_no).get_by_role("link").first.click()
    expect(mp.get_by_role("heading", name=f"Approval for {b_no}")).to_be_visible()
    mp.get_by_role("button", name="Approve", exact=True).click()
    expect(mp.get_by_role("status").first).to_contain_text(f"Change {b_no} approved")
    ctx.close()
    assert world.one("SELECT state FROM desk_approval WHERE id = ?", appr_id)[0] == "approved"
    assert world.one("SELECT state, approval FROM desk_change WHERE id = ?", b_id) == ("Scheduled", "approved")


def test_sla_timers_against_the_world_clock(desk, live_host) -> None:
    world, page = desk
    caller = world.one("SELECT first_name || ' ' || last_name FROM identity_user WHERE role = 'sales_rep' ORDER BY id")[0]
    page.goto(live_host.url("desk", "/incident.do?sys_id=-1"))
    form = page.get_by_role("form", name="Incident form")
    pick(form, "Caller", caller)
    form.get_by_role("combobox", name="Impact", exact=True).select_option(label="1 - High")
    form.get_by_role("combobox", name="Urgency", exact=True).select_option(label="1 - High")
    form.get_by_role("textbox", name="Short description", exact=True).fill("Order API returns 503 for every customer")
    form.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("created")
    inc_id, opened = world.one("SELECT id, opened_at FROM desk_incident ORDER BY id DESC LIMIT 1")
    rows = world.query("SELECT sla, stage, start_time, breach_time FROM desk_task_sla WHERE task_id = ? ORDER BY id", inc_id)
    t0 = datetime.fromisoformat(opened)
    assert [(r[0], r[1]) for r in rows] == [("Priority 1 response (30 minute)", "In progress"), ("Priority 1 resolution (4 hour)", "In progress")]
    assert [datetime.fromisoformat(r[3]) - t0 for r in rows] == [timedelta(minutes=30), timedelta(hours=4)]
    page.goto(live_host.url("desk", f"/incident.do?sys_id={inc_id}"))
    slas = page.get_by_role("table", name=re.compile("Task SLAs of INC"))
    expect(slas.get_by_role("meter", name="Priority 1 response (30 minute) elapsed")).to_have_attribute("aria-valuetext", "0.0%")
    # Assigning stops the response timer.
    page.get_by_role("button", name="Assign to me", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("updated")
    assert world.one("SELECT stage, stop_time IS NOT NULL FROM desk_task_sla WHERE task_id = ? AND target = 'Response'", inc_id) == ("Completed", 1)
    # A running timer past its breach time has breached: shown on the form and counted by the list filter.
    now = world.clock.now.strftime("%Y-%m-%d %H:%M:%S.000000")
    late_id, late_no = world.one("""SELECT i.id, i.number FROM desk_incident i JOIN desk_task_sla t ON t.task_id = i.id
                                    WHERE t.stage = 'In progress' AND t.target = 'Resolution' AND t.breach_time < ? ORDER BY i.id""", now)
    page.goto(live_host.url("desk", f"/incident.do?sys_id={late_id}"))
    row = page.get_by_role("table", name=f"Task SLAs of {late_no}").locator("tr[data-sla=Resolution]")
    expect(row).to_contain_text("true")
    assert float(row.get_by_role("meter").get_attribute("aria-valuetext").rstrip("%")) > 100
    page.goto(live_host.url("desk", "/task_sla_list.do?sysparm_query=has_breached=true"))
    expected = world.one("SELECT count(*) FROM desk_task_sla WHERE stage != 'Cancelled' AND coalesce(stop_time, ?) > breach_time", now)[0]
    expect(page.locator("#list-range")).to_have_text(re.compile(rf"of {expected}$"))


def test_list_group_by_inline_edit_and_show_matching(desk, live_host) -> None:
    world, page = desk
    page.goto(live_host.url("desk", "/incident_list.do?sysparm_query=stateINNew,In Progress,On Hold"))
    page.get_by_label("Group by").select_option(label="Group by Assignment group")
    expect(page).to_have_url(re.compile("GROUPBYassignment_group"))
    counts = dict(world.query("""SELECT g.name, count(*) FROM desk_incident i JOIN desk_group g ON g.id = i.assignment_group_id
                                 WHERE i.state IN ('New', 'In Progress', 'On Hold') GROUP BY g.name"""))
    toggle = page.get_by_role("button", name=f"Assignment group: Network ({counts['Network']})")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_role("button", name=f"Assignment group: Database ({counts['Database']})")).to_be_visible()
    toggle.click()
    group_rows = toggle.locator("xpath=ancestor::tbody").locator("tr[data-id]")
    expect(group_rows).to_have_count(min(counts["Network"], 20))
    toggle.click()
    expect(group_rows.first).to_be_hidden()
    # Inline edit on the plain list: a valid change saves, an invalid one saves nothing.
    inc_id, inc_no = world.one("SELECT id, number FROM desk_incident WHERE state = 'In Progress' ORDER BY id DESC")
    page.goto(live_host.url("desk", f"/incident_list.do?sysparm_query=number={inc_no}"))
    row = page.get_by_role("row").filter(has_text=inc_no)
    row.locator("td[data-field=short_description]").dblclick()
    editor = page.get_by_role("form", name=f"Edit Short description of {inc_no}")
    editor.get_by_role("textbox", name="Short description").fill("VPN drops every hour <i>again</i>")
    editor.get_by_role("button", name="Save Short description", exact=True).click()
    expect(row.locator("td[data-field=short_description]")).to_have_text("VPN drops every hour <i>again</i>")
    assert world.one("SELECT short_description FROM desk_incident WHERE id = ?", inc_id)[0] == "VPN drops every hour <i>again</i>"
    row.locator("td[data-field=state]").dblclick()
    editor = page.get_by_role("form", name=f"Edit State of {inc_no}")
    editor.get_by_role("combobox", name="State").select_option("Resolved")
    editor.get_by_role("button", name="Save State", exact=True).click()
    expect(editor.get_by_role("alert")).to_contain_text("Resolution code")
    assert world.one("SELECT state FROM desk_incident WHERE id = ?", inc_id)[0] == "In Progress"
    editor.get_by_role("button", name="Cancel editing State", exact=True).click()
    expect(row.locator("td[data-field=state]")).to_have_text("In Progress")
    # Show Matching from a cell's context menu adds "field = value" to the filter.
    category = world.one("SELECT category FROM desk_incident WHERE id = ?", inc_id)[0]
    page.goto(live_host.url("desk", "/incident_list.do?sysparm_query=state=In Progress"))
    page.locator(f"tr:has(td[data-field=category][data-cond='category={category}']) td[data-field=category]").first.click(button="right")
    page.get_by_role("menuitem", name="Show Matching").click()
    expect(page).to_have_url(re.compile("category"))
    n = world.one("SELECT count(*) FROM desk_incident WHERE state = 'In Progress' AND category = ?", category)[0]
    expect(page.locator("#list-range")).to_have_text(re.compile(rf"of {n}$"))
    page.locator("td[data-field=category]").first.click(button="right")
    page.get_by_role("menuitem", name="Filter Out").click()
    expect(page.locator("#list-range")).to_have_text("0 to 0 of 0")


def test_dashboard_chart_tooltips(desk, live_host) -> None:
    world, page = desk
    page.goto(live_host.url("desk", "/dashboard"))
    n = world.one("""SELECT count(*) FROM desk_incident i JOIN desk_group g ON g.id = i.assignment_group_id
                     WHERE g.name = 'Hardware' AND i.state IN ('New', 'In Progress', 'On Hold')""")[0]
    chart = page.get_by_role("img", name=re.compile("^Open incidents by assignment group"))
    expect(chart).to_have_accessible_name(re.compile(rf"Hardware: {n};"))  # the values are in the chart's accessible text
    chart.locator("[data-tip^='Hardware:']").hover()
    expect(page.get_by_role("tooltip")).to_have_text(f"Hardware: {n}")
    states = dict(world.query("SELECT state, count(*) FROM desk_change GROUP BY state"))
    pct = f"{100 * states['Scheduled'] / sum(states.values()):.1f}%"
    page.get_by_role("img", name=re.compile("^Changes by state")).locator("[data-tip^='Scheduled:']").hover()
    expect(page.get_by_role("tooltip")).to_have_text(f"Scheduled: {states['Scheduled']} ({pct})")
    page.get_by_role("link", name=f"Hardware: {n}").click()
    expect(page.locator("#list-range")).to_have_text(re.compile(rf"of {n}$"))
