"""Inline edit in list views, in real Chromium: pencil and double-click, the edited-cell count, Save with
the record form's checks (a refused row keeps its edits and shows its error; the others are saved),
Cancel, Escape, and field history. Every test checks the database."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

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


def open_deals(world, n: int) -> list[tuple]:
    rep_id = world.one("SELECT id FROM identity_user WHERE role = 'sales_rep' ORDER BY id")[0]
    return world.query(
        "SELECT id, name, close_date, stage FROM crm_opportunity WHERE owner_id = ? AND stage NOT IN ('Closed Won', 'Closed Lost') "
        "AND id NOT IN (SELECT opportunity_id FROM crm_opportunity_line_item) ORDER BY name COLLATE NOCASE, id LIMIT ?", rep_id, n)


def bar(page: Page):
    return page.get_by_role("form", name="Inline edit")


def test_edit_two_close_dates_and_a_stage_in_one_save(page: Page, live_host, world) -> None:
    (a_id, a, a_close, _), (b_id, b, _b_close, _), (c_id, c, _c_close, c_stage) = open_deals(world, 3)
    page.goto(live_host.url("crm", "/opportunities?view=mine"))
    later = world.clock.today + timedelta(days=45)
    # The pencil opens a date editor; a double-click does too.
    page.get_by_role("button", name=f"Edit Close Date: {a}").click()
    page.get_by_label(f"Close Date: {a}", exact=True).fill(later.isoformat())
    expect(bar(page)).to_be_visible()
    expect(bar(page)).to_contain_text("1 item edited")
    page.locator(f"tr[data-id='{b_id}'] td[data-field=close_date]").dblclick()
    page.get_by_label(f"Close Date: {b}", exact=True).fill((later + timedelta(days=1)).isoformat())
    page.get_by_role("button", name=f"Edit Stage: {c}").click()
    target_stage = "Needs Analysis" if c_stage != "Needs Analysis" else "Qualification"
    page.get_by_label(f"Stage: {c}", exact=True).select_option(target_stage)
    expect(bar(page)).to_contain_text("3 items edited")
    expect(page.locator("td.editable.edited")).to_have_count(3)
    # Columns that aren't fields of the edit form have no pencil.
    expect(page.get_by_role("button", name=re.compile(r"^Edit (Opportunity Owner|Account Name): "))).to_have_count(0)
    bar(page).get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your changes to 3 opportunities were saved.")).to_be_visible()
    assert world.one("SELECT close_date FROM crm_opportunity WHERE id = ?", a_id)[0] == later.isoformat()
    assert world.one("SELECT close_date FROM crm_opportunity WHERE id = ?", b_id)[0] == (later + timedelta(days=1)).isoformat()
    stage, probability = world.one("SELECT stage, probability FROM crm_opportunity WHERE id = ?", c_id)
    assert (stage, probability) == (target_stage, {"Needs Analysis": 20, "Qualification": 10}[target_stage])
    history = world.query("SELECT record_id, field, old_value, new_value FROM crm_field_history WHERE record_id IN (?, ?, ?) "
                          "AND object_type = 'opportunity' ORDER BY record_id, field", a_id, b_id, c_id)
    assert (a_id, "close_date", a_close, later.isoformat()) in history
    assert (c_id, "stage", c_stage, target_stage) in history
    expect(bar(page)).to_be_hidden()


def test_a_refused_row_keeps_its_edit_and_error_the_others_save(page: Page, live_host, world) -> None:
    (a_id, a, a_close, _), (b_id, b, _, _) = open_deals(world, 2)
    page.goto(live_host.url("crm", "/opportunities?view=mine"))
    past = world.clock.today - timedelta(days=3)
    page.get_by_role("button", name=f"Edit Close Date: {a}").click()
    page.get_by_label(f"Close Date: {a}", exact=True).fill(past.isoformat())
    page.get_by_role("button", name=f"Edit Amount: {b}").click()
    page.get_by_label(f"Amount: {b}", exact=True).fill("48250")
    bar(page).get_by_role("button", name="Save").click()
    alert = bar(page).get_by_role("alert")
    expect(alert).to_contain_text("1 record was saved. Fix the errors on 1 record and save again.")
    expect(alert).to_contain_text(f"{a}: Close Date: The Close Date of an open opportunity can't be in the past.")
    assert world.one("SELECT amount FROM crm_opportunity WHERE id = ?", b_id)[0] == 48250
    assert world.one("SELECT close_date FROM crm_opportunity WHERE id = ?", a_id)[0] == a_close
    error = page.get_by_role("button", name=re.compile(rf"has errors: {re.escape(a)}$"))
    expect(error).to_be_visible()
    expect(error).to_have_accessible_description(re.compile("can't be in the past"))
    editor = page.get_by_label(f"Close Date: {a}", exact=True)
    expect(editor).to_have_value(past.isoformat())  # the refused row keeps its edit
    expect(bar(page)).to_contain_text("1 item edited")
    fixed = world.clock.today + timedelta(days=10)
    editor.fill(fixed.isoformat())
    bar(page).get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your changes to 1 opportunity were saved.")).to_be_visible()
    assert world.one("SELECT close_date FROM crm_opportunity WHERE id = ?", a_id)[0] == fixed.isoformat()


def test_keyboard_escape_and_cancel_save_nothing(page: Page, live_host, world) -> None:
    before = world.query("SELECT id, last_name, company, status, updated_at FROM crm_lead ORDER BY id")
    page.goto(live_host.url("crm", "/leads"))
    first = page.locator("table.list-table tbody tr").first
    name = first.get_attribute("data-name")
    pencil = page.get_by_role("button", name=f"Edit Company: {name}")
    pencil.focus()
    page.keyboard.press("Enter")
    editor = page.get_by_label(f"Company: {name}", exact=True)
    expect(editor).to_be_focused()
    page.keyboard.type(" Holdings")
    expect(bar(page)).to_contain_text("1 item edited")
    page.keyboard.press("Escape")  # undoes the cell's edit
    expect(editor).to_have_count(0)
    expect(bar(page)).to_be_hidden()
    expect(pencil).to_be_focused()
    # Lead Status is a picklist; Cancel drops every edit.
    page.get_by_role("button", name=f"Edit Lead Status: {name}").click()
    status = page.locator("table.list-table tbody tr").first.locator("td[data-field=status]").get_attribute("data-value")
    page.get_by_label(f"Lead Status: {name}", exact=True).select_option("Working - Contacted" if status != "Working - Contacted" else "Open - Not Contacted")
    expect(bar(page)).to_contain_text("1 item edited")
    bar(page).get_by_role("button", name="Cancel").click()
    expect(bar(page)).to_be_hidden()
    expect(page.get_by_label(f"Lead Status: {name}", exact=True)).to_have_count(0)
    assert world.query("SELECT id, last_name, company, status, updated_at FROM crm_lead ORDER BY id") == before
    # The lead's name (a formula of first and last name) and Created Date have no pencil.
    expect(page.get_by_role("button", name=f"Edit Name: {name}")).to_have_count(0)
    expect(page.get_by_role("button", name=f"Edit Created Date: {name}")).to_have_count(0)
