"""The activity timeline and notes of CRM record pages in real Chromium: log a call, new task, new
event, complete a task, add a note; every test checks the rows in the world database."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

NOW = "2026-03-16 09:30:00.000000"  # the world clock, as SQLite stores it


def rep(world) -> tuple[str, int]:
    with world.connect() as conn:
        return conn.execute("SELECT username, id FROM identity_user WHERE role = 'sales_rep' ORDER BY id").fetchone()


def sql(world, query: str, *args) -> list[tuple]:
    with world.connect() as conn:
        return conn.execute(query, args).fetchall()


def one(world, query: str, *args):
    rows = sql(world, query, *args)
    return rows[0] if rows else None


@pytest.fixture()
def fresh(browser: Browser, live_host):
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world)[0])
    yield world, context.new_page()
    context.close()


def test_log_a_call_from_the_timeline(fresh, live_host) -> None:
    world, page = fresh
    user_id = rep(world)[1]
    acct_id = one(world, "SELECT id FROM crm_account ORDER BY id LIMIT 1")[0]
    before = one(world, "SELECT max(id) FROM crm_activity")[0]
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
    rows = sql(world, """SELECT kind, subject, status, call_result, description, related_type, related_id, assignee_id, due_date, completed_at
        FROM crm_activity WHERE id > ?""", before)
    assert rows == [("call", "Call about the renewal", "Completed", "Connected", "Asked for a quote by Friday.", "account", acct_id, user_id, "2026-03-16", NOW)]


def test_new_task_and_new_event_from_the_composer(fresh, live_host) -> None:
    world, page = fresh
    opp_id = one(world, "SELECT id FROM crm_opportunity WHERE stage = 'Prospecting' ORDER BY id LIMIT 1")[0]
    before = one(world, "SELECT max(id) FROM crm_activity")[0]
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
    rows = sql(world, """SELECT kind, subject, status, priority, due_date, start_at, end_at, location, related_type, related_id
        FROM crm_activity WHERE id > ? ORDER BY id""", before)
    assert rows == [
        ("task", "Send the pricing sheet", "Not Started", "High", "2026-03-20", None, None, None, "opportunity", opp_id),
        ("meeting", "On-site demo", "Not Started", "Normal", "2026-03-18", "2026-03-18 14:00:00.000000", "2026-03-18 15:00:00.000000", "Customer HQ", "opportunity", opp_id),
    ]


def test_composer_requires_a_subject_and_saves_nothing_without_one(fresh, live_host) -> None:
    world, page = fresh
    case_id = one(world, "SELECT id FROM crm_case ORDER BY id LIMIT 1")[0]
    n = one(world, "SELECT count(*) FROM crm_activity")[0]
    page.goto(live_host.url("crm", f"/cases/{case_id}?tab=activity"))
    composer = page.get_by_role("region", name="Activity composer")
    composer.get_by_role("tab", name="New Task").click()
    panel = composer.get_by_role("tabpanel", name="New Task")
    panel.get_by_role("button", name="Save").click()
    panel = page.get_by_role("region", name="Activity composer").get_by_role("tabpanel", name="New Task")
    expect(panel).to_be_visible()
    expect(panel.locator(".error-text")).to_have_text("Complete this field.")
    assert one(world, "SELECT count(*) FROM crm_activity")[0] == n


def test_complete_a_task_from_the_timeline(fresh, live_host) -> None:
    world, page = fresh
    task_id, subject, rtype, rid = one(world, """SELECT id, subject, related_type, related_id FROM crm_activity
        WHERE kind = 'task' AND status <> 'Completed' AND related_type = 'contact' ORDER BY id LIMIT 1""")
    page.goto(live_host.url("crm", f"/contacts/{rid}?tab=activity"))
    upcoming = page.get_by_role("region", name="Upcoming & Overdue")
    upcoming.get_by_role("checkbox", name=f"Mark complete: {subject}").click()  # submits at once
    expect(page.locator(".toast")).to_contain_text(f'Task "{subject}" was marked complete.')
    expect(page.get_by_role("region", name="Past Activities").get_by_role("checkbox", name=f"Completed task: {subject}")).to_be_checked()
    assert one(world, "SELECT status, completed_at FROM crm_activity WHERE id = ?", task_id) == ("Completed", NOW)


def test_new_task_from_the_related_list_dialog(fresh, live_host) -> None:
    world, page = fresh
    lead_id = one(world, "SELECT id FROM crm_lead WHERE status = 'Working - Contacted' ORDER BY id LIMIT 1")[0]
    page.goto(live_host.url("crm", f"/leads/{lead_id}?tab=related"))
    page.get_by_role("article", name=re.compile("^Activities")).get_by_role("button", name="New Task").click()
    dialog = page.get_by_role("dialog", name="New Task")
    dialog.get_by_label("Subject").fill("Qualify budget")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text('Task "Qualify budget" was created.')
    n = one(world, "SELECT count(*) FROM crm_activity WHERE related_type = 'lead' AND related_id = ?", lead_id)[0]
    expect(page.get_by_role("heading", name=f"Activities ({n})")).to_be_visible()
    assert one(world, "SELECT kind, status FROM crm_activity WHERE subject = 'Qualify budget' AND related_type = 'lead' AND related_id = ?", lead_id) == ("task", "Not Started")


def test_add_a_note(fresh, live_host) -> None:
    world, page = fresh
    user_id = rep(world)[1]
    case_id = one(world, "SELECT id FROM crm_case ORDER BY id LIMIT 1")[0]
    n = one(world, "SELECT count(*) FROM crm_note WHERE related_type = 'case' AND related_id = ?", case_id)[0]
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
    assert sql(world, "SELECT title, body, owner_id, created_at FROM crm_note WHERE related_type = 'case' AND related_id = ? ORDER BY id DESC LIMIT 1", case_id) == [
        ("Customer escalation <b>call</b>", "Agreed on a workaround.\nFollow up Monday.", user_id, NOW)]
