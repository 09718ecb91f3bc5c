"""The activity timeline and notes of CRM record pages in real Chromium: log a call, new task, new
event, complete a task, add a note; and the page of one activity: open it from Home, the timeline or
a related list, edit it in place, mark it complete, delete it. Every test checks the world database."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import Browser, expect

NOW = "2026-03-16 09:30:00.000000"  # the world clock, as SQLite stores it


def rep(world) -> tuple[str, int]:
    return world.one("SELECT username, id FROM identity_user WHERE role = 'sales_rep' ORDER BY id")


@pytest.fixture()
def fresh(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world)[0])
    yield world, context.new_page()
    context.close()


def test_log_a_call_from_the_timeline(fresh, live_host) -> None:
    world, page = fresh
    user_id = rep(world)[1]
    acct_id = world.one("SELECT id FROM crm_account ORDER BY id LIMIT 1")[0]
    before = world.one("SELECT max(id) FROM crm_activity")[0]
    page.goto(live_host.url("crm", f"/accounts/{acct_id}"))
    page.get_by_role("tab", name="Activity", exact=True).click()
    composer = page.get_by_role("region", name="Activity composer")
    expect(composer.get_by_role("tab", name="Log a Call")).to_have_attribute("aria-selected", "true")
    panel = composer.get_by_role("tabpanel", name="Log a Call")
    panel.get_by_label("Subject").fill("Call about the renewal")
    panel.get_by_label("Call Result").select_option("Connected")
    panel.get_by_label("Comments").fill("Asked for a quote by Friday.")
    panel.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text('Call "Call about the renewal" was logged.')
    expect(page).to_have_url(re.compile(r"\?tab=activity$"))
    past = page.get_by_role("region", name="Past Activities")
    expect(past.get_by_text("Call about the renewal")).to_be_visible()
    rows = world.query("""SELECT kind, subject, status, call_result, description, related_type, related_id, assignee_id, due_date, completed_at
        FROM crm_activity WHERE id > ?""", before)
    assert rows == [("call", "Call about the renewal", "Completed", "Connected", "Asked for a quote by Friday.", "account", acct_id, user_id, "2026-03-16", NOW)]


def test_new_task_and_new_event_from_the_composer(fresh, live_host) -> None:
    world, page = fresh
    opp_id = world.one("SELECT id FROM crm_opportunity WHERE stage = 'Prospecting' AND owner_id = ? ORDER BY id LIMIT 1", rep(world)[1])[0]  # their own deal
    before = world.one("SELECT max(id) FROM crm_activity")[0]
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=activity"))
    composer = page.get_by_role("region", name="Activity composer")
    composer.get_by_role("tab", name="New Task").click()
    panel = composer.get_by_role("tabpanel", name="New Task")
    panel.get_by_label("Subject").fill("Send the pricing sheet")
    panel.get_by_label("Due Date").fill("2026-03-20")
    panel.get_by_label("Priority").select_option("High")
    panel.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text('Task "Send the pricing sheet" was created.')
    upcoming = page.get_by_role("region", name="Upcoming & Overdue")
    expect(upcoming.get_by_text("Send the pricing sheet")).to_be_visible()

    composer.get_by_role("tab", name="New Event").click()
    panel = composer.get_by_role("tabpanel", name="New Event")
    panel.get_by_label("Subject").fill("On-site demo")
    panel.get_by_label("Location").fill("Customer HQ")
    panel.get_by_label("Start").fill("2026-03-18T14:00")
    panel.get_by_role("button", name="Save").click()
    expect(upcoming.get_by_text("On-site demo")).to_be_visible()
    rows = world.query("""SELECT kind, subject, status, priority, due_date, start_at, end_at, location, related_type, related_id
        FROM crm_activity WHERE id > ? ORDER BY id""", before)
    assert rows == [
        ("task", "Send the pricing sheet", "Not Started", "High", "2026-03-20", None, None, None, "opportunity", opp_id),
        ("meeting", "On-site demo", "Not Started", "Normal", "2026-03-18", "2026-03-18 14:00:00.000000", "2026-03-18 15:00:00.000000", "Customer HQ", "opportunity", opp_id),
    ]


def test_composer_requires_a_subject_and_saves_nothing_without_one(fresh, live_host) -> None:
    world, page = fresh
    case_id = world.one("SELECT id FROM crm_case ORDER BY id LIMIT 1")[0]
    n = world.one("SELECT count(*) FROM crm_activity")[0]
    page.goto(live_host.url("crm", f"/cases/{case_id}?tab=activity"))
    composer = page.get_by_role("region", name="Activity composer")
    composer.get_by_role("tab", name="New Task").click()
    panel = composer.get_by_role("tabpanel", name="New Task")
    panel.get_by_role("button", name="Save").click()
    panel = page.get_by_role("region", name="Activity composer").get_by_role("tabpanel", name="New Task")
    expect(panel).to_be_visible()
    expect(panel.locator(".error-text")).to_have_text("Complete this field.")
    assert world.one("SELECT count(*) FROM crm_activity")[0] == n


def test_complete_a_task_from_the_timeline(fresh, live_host) -> None:
    world, page = fresh
    task_id, subject, rtype, rid = world.one("""SELECT id, subject, related_type, related_id FROM crm_activity
        WHERE kind = 'task' AND status <> 'Completed' AND related_type = 'contact' ORDER BY id LIMIT 1""")
    page.goto(live_host.url("crm", f"/contacts/{rid}?tab=activity"))
    upcoming = page.get_by_role("region", name="Upcoming & Overdue")
    upcoming.get_by_role("checkbox", name=f"Mark complete: {subject}").click()  # submits at once
    expect(page.locator(".toast")).to_contain_text(f'Task "{subject}" was marked complete.')
    expect(page.get_by_role("region", name="Past Activities").get_by_role("checkbox", name=f"Completed task: {subject}")).to_be_checked()
    assert world.one("SELECT status, completed_at FROM crm_activity WHERE id = ?", task_id) == ("Completed", NOW)


def test_new_task_from_the_related_list_dialog(fresh, live_host) -> None:
    world, page = fresh
    lead_id = world.one("SELECT id FROM crm_lead WHERE status = 'Working - Contacted' ORDER BY id LIMIT 1")[0]
    page.goto(live_host.url("crm", f"/leads/{lead_id}?tab=related"))
    page.get_by_role("article", name=re.compile("^Activities")).get_by_role("button", name="New Task").click()
    dialog = page.get_by_role("dialog", name="New Task")
    dialog.get_by_label("Subject").fill("Qualify budget")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text('Task "Qualify budget" was created.')
    n = world.one("SELECT count(*) FROM crm_activity WHERE related_type = 'lead' AND related_id = ?", lead_id)[0]
    expect(page.get_by_role("heading", name=f"Activities ({n})")).to_be_visible()
    assert world.one("SELECT kind, status FROM crm_activity WHERE subject = 'Qualify budget' AND related_type = 'lead' AND related_id = ?", lead_id) == ("task", "Not Started")


def test_add_a_note(fresh, live_host) -> None:
    world, page = fresh
    user_id = rep(world)[1]
    case_id = world.one("SELECT id FROM crm_case ORDER BY id LIMIT 1")[0]
    n = world.one("SELECT count(*) FROM crm_note WHERE related_type = 'case' AND related_id = ?", case_id)[0]
    page.goto(live_host.url("crm", f"/cases/{case_id}?tab=related"))
    notes = page.get_by_role("article", name=re.compile("^Notes"))
    expect(notes.get_by_role("heading", name=f"Notes ({n})")).to_be_visible()
    notes.get_by_role("button", name="New: Notes").click()
    dialog = page.get_by_role("dialog", name="New Note")
    dialog.get_by_role("button", name="Save").click()  # a title is required
    dialog = page.get_by_role("dialog", name="New Note")
    expect(dialog.locator(".error-text")).to_have_text("Complete this field.")
    dialog.get_by_label("Title").fill("Customer escalation <b>call</b>")
    dialog.get_by_label("Body").fill("Agreed on a workaround.\nFollow up Monday.")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text('Note "Customer escalation <b>call</b>" was created.')
    notes = page.get_by_role("article", name=re.compile("^Notes"))
    expect(notes.get_by_role("heading", name=f"Notes ({n + 1})")).to_be_visible()
    expect(notes.get_by_text("Customer escalation <b>call</b>")).to_be_visible()
    assert world.query("SELECT title, body, owner_id, created_at FROM crm_note WHERE related_type = 'case' AND related_id = ? ORDER BY id DESC LIMIT 1", case_id) == [
        ("Customer escalation <b>call</b>", "Agreed on a workaround.\nFollow up Monday.", user_id, NOW)]


# -- the activity page ---------------------------------------------------------------------------------------
def related_name(world, related_type: str, related_id: int) -> str:
    query = {
        "account": "SELECT name FROM crm_account WHERE id = ?",
        "opportunity": "SELECT name FROM crm_opportunity WHERE id = ?",
        "contact": "SELECT trim(coalesce(first_name, '') || ' ' || last_name) FROM crm_contact WHERE id = ?",
        "lead": "SELECT trim(coalesce(first_name, '') || ' ' || last_name) FROM crm_lead WHERE id = ?",
        "case": "SELECT case_number FROM crm_case WHERE id = ?",
    }[related_type]
    return world.one(query, related_id)[0]


def open_task(world, user_id: int, *where: str) -> tuple:
    """(id, subject, related_type, related_id) of one of the user's open tasks."""
    extra = "".join(f" AND {w}" for w in where)
    return world.one(f"""SELECT id, subject, related_type, related_id FROM crm_activity
        WHERE kind = 'task' AND status <> 'Completed' AND assignee_id = ?{extra} ORDER BY id LIMIT 1""", user_id)


def test_open_a_task_from_home_and_see_its_details(fresh, live_host) -> None:
    world, page = fresh
    user_id = rep(world)[1]
    task_id, subject, rtype, rid = open_task(world, user_id, "related_type = 'opportunity'", "description IS NOT NULL")
    status, priority, description = world.one("SELECT status, priority, description FROM crm_activity WHERE id = ?", task_id)
    page.goto(live_host.url("crm", "/"))
    page.locator(f'.task-item[data-task-id="{task_id}"]').get_by_role("link", name=subject, exact=True).click()
    expect(page).to_have_url(re.compile(rf"/activities/{task_id}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(subject)
    expect(page.locator(".record-header .eyebrow")).to_have_text("Task")
    highlights = page.get_by_role("region", name="Highlights")
    expect(highlights).to_contain_text(status)
    expect(highlights).to_contain_text(priority)
    details = page.get_by_role("region", name="Details")
    expect(details.locator("#detail-kind .detail-value")).to_have_text("Task")
    expect(details.locator("#detail-description .detail-value")).to_have_text(description)
    expect(page.get_by_role("button", name="Mark Complete")).to_be_visible()
    assert world.one("SELECT object_type, record_id FROM crm_recent_view ORDER BY id DESC LIMIT 1") == ("activity", task_id)

    # "Related To" leads to the record the task is about.
    highlights.get_by_role("link", name=related_name(world, rtype, rid)).click()
    expect(page).to_have_url(re.compile(rf"/opportunities/{rid}$"))


def test_inline_edit_a_task(fresh, live_host) -> None:
    world, page = fresh
    task_id, subject, _, _ = open_task(world, rep(world)[1], "status = 'Not Started'")
    page.goto(live_host.url("crm", f"/activities/{task_id}"))
    page.get_by_role("button", name="Edit Status", exact=True).click()
    form = page.get_by_role("form", name="Edit Status")
    form.get_by_label("Status").select_option("In Progress")
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#detail-status .detail-value")).to_have_text("In Progress")
    expect(page.get_by_role("region", name="Highlights")).to_contain_text("In Progress")
    assert world.one("SELECT status, completed_at, updated_at FROM crm_activity WHERE id = ?", task_id) == ("In Progress", None, NOW)

    # A blank subject is refused with the field's message; nothing is saved.
    page.get_by_role("button", name="Edit Subject", exact=True).click()
    page.get_by_role("form", name="Edit Subject").get_by_label("Subject").fill("")
    page.get_by_role("form", name="Edit Subject").get_by_role("button", name="Save").click()
    expect(page.get_by_role("form", name="Edit Subject").locator(".error-text")).to_have_text("Complete this field.")
    assert world.one("SELECT subject FROM crm_activity WHERE id = ?", task_id)[0] == subject

    page.get_by_role("form", name="Edit Subject").get_by_label("Subject").fill("Send the signed order form")
    page.get_by_role("form", name="Edit Subject").get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Send the signed order form")
    page.get_by_role("button", name="Edit Due Date", exact=True).click()
    page.get_by_role("form", name="Edit Due Date").get_by_label("Due Date").fill("2026-03-27")
    page.get_by_role("form", name="Edit Due Date").get_by_role("button", name="Save").click()
    expect(page.get_by_role("form", name="Edit Due Date")).to_be_hidden()
    assert world.one("SELECT subject, due_date, status FROM crm_activity WHERE id = ?", task_id) == ("Send the signed order form", "2026-03-27", "In Progress")


def test_mark_complete_from_the_activity_page(fresh, live_host) -> None:
    world, page = fresh
    task_id, subject, _, _ = open_task(world, rep(world)[1])
    page.goto(live_host.url("crm", f"/activities/{task_id}"))
    page.get_by_role("group", name="Task actions").get_by_role("button", name="Mark Complete").click()
    expect(page.locator(".toast")).to_contain_text(f'Task "{subject}" was marked complete.')
    expect(page).to_have_url(re.compile(rf"/activities/{task_id}$"))  # back on the task, not on its record
    expect(page.locator("#detail-status .detail-value")).to_have_text("Completed")
    expect(page.get_by_role("button", name="Mark Complete")).to_have_count(0)
    assert world.one("SELECT status, completed_at FROM crm_activity WHERE id = ?", task_id) == ("Completed", NOW)


def test_delete_an_activity_after_confirmation(fresh, live_host) -> None:
    world, page = fresh
    task_id, subject, rtype, rid = open_task(world, rep(world)[1], "related_type = 'account'")
    page.goto(live_host.url("crm", f"/activities/{task_id}"))
    page.get_by_role("button", name="Delete Task").click()
    dialog = page.get_by_role("dialog", name="Delete Task")
    expect(dialog).to_contain_text("Are you sure you want to delete this task?")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert world.one("SELECT count(*) FROM crm_activity WHERE id = ?", task_id)[0] == 1

    page.get_by_role("button", name="Delete Task").click()
    dialog.get_by_role("button", name="Delete").click()
    expect(page).to_have_url(re.compile(rf"/accounts/{rid}\?tab=activity$"))  # the record it was about
    expect(page.locator(".toast")).to_contain_text(f'Task "{subject}" was deleted.')
    assert world.one("SELECT count(*) FROM crm_activity WHERE id = ?", task_id)[0] == 0
    assert world.one("SELECT count(*) FROM crm_account WHERE id = ?", rid)[0] == 1
    assert page.goto(live_host.url("crm", f"/activities/{task_id}")).status == 404


def test_unknown_activity_is_a_404_in_the_app_look(fresh, live_host) -> None:
    _, page = fresh
    response = page.goto(live_host.url("crm", "/activities/987654"))
    assert response.status == 404
    expect(page.get_by_role("heading", name="We can't find that page")).to_be_visible()
    expect(page.get_by_role("navigation", name="Sales Cloud")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("This activity doesn't exist or has been deleted.")


def test_timeline_and_related_list_open_an_event_whose_start_edits_in_place(fresh, live_host) -> None:
    world, page = fresh
    event_id, subject, opp_id, start, end, location = world.one("""SELECT a.id, a.subject, a.related_id, a.start_at, a.end_at, a.location
        FROM crm_activity a WHERE a.kind = 'meeting' AND a.related_type = 'opportunity' AND a.location IS NOT NULL
        AND (SELECT count(*) FROM crm_activity b WHERE b.related_type = 'opportunity' AND b.related_id = a.related_id AND b.subject = a.subject) = 1
        AND a.related_id IN (SELECT id FROM crm_opportunity WHERE owner_id = ?)
        ORDER BY a.id LIMIT 1""", rep(world)[1])  # a meeting on one of the rep's own deals (Opportunities are Private)
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=activity"))
    page.get_by_role("tabpanel", name="Activity").get_by_role("link", name=subject, exact=True).click()
    expect(page).to_have_url(re.compile(rf"/activities/{event_id}$"))
    expect(page.locator(".record-header .eyebrow")).to_have_text("Event")
    expect(page.get_by_role("region", name="Highlights")).to_contain_text(location)
    expect(page.get_by_role("button", name="Mark Complete")).to_have_count(0)  # events end, they aren't completed

    # The related list's rows link to the activity page too.
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=related"))
    rows = page.get_by_role("article", name=re.compile("^Activities")).locator("tbody th[scope=row] a")
    first_href = rows.first.get_attribute("href")
    assert re.fullmatch(r"/activities/\d+", first_href)
    rows.first.click()
    expect(page).to_have_url(re.compile(re.escape(first_href) + "$"))

    # A new start moves the event's date with it; the end stays.
    page.goto(live_host.url("crm", f"/activities/{event_id}"))
    new_start = datetime.fromisoformat(start) - timedelta(days=1)
    page.get_by_role("button", name="Edit Start", exact=True).click()
    page.get_by_role("form", name="Edit Start").get_by_label("Start").fill(f"{new_start:%Y-%m-%dT%H:%M}")
    page.get_by_role("form", name="Edit Start").get_by_role("button", name="Save").click()
    expect(page.get_by_role("form", name="Edit Start")).to_be_hidden()
    assert world.one("SELECT start_at, end_at, due_date FROM crm_activity WHERE id = ?", event_id) == (
        f"{new_start:%Y-%m-%d %H:%M}:00.000000", end, f"{new_start:%Y-%m-%d}")
