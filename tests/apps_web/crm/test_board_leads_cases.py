"""The lead and case Kanban boards in real Chromium: the list's Display as switch, columns by Lead Status /
Status with counts, Kanban Settings' Group By, mouse and keyboard moves saved by the record's save (validation
rules, field history), the Converted column refused, and sharing (a read-only card doesn't move; the server
refuses). Each checks the database and the product's wording."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from apps_web.crm.picklists import CASE_STATUSES, LEAD_OPEN_STATUSES, LEAD_STATUSES
from apps_web.crm.routes.board import CONVERT_REFUSED
from apps_web.crm.sharing import INSUFFICIENT

from .conftest import user_of, write

pytestmark = pytest.mark.browser


@pytest.fixture()
def world(live_host):
    return live_host.world()  # a fresh world per test: every test moves cards


def signed_in(browser: Browser, live_host, world, username: str) -> Page:  # noqa: ANN001
    return live_host.new_context(browser, world, username).new_page()


def column(page: Page, value: str):
    return page.locator(f'#kanban .kanban-col[data-value="{value}"]')


def card(page: Page, record_id: int):
    return page.locator(f'#kanban .kanban-card[data-id="{record_id}"]')


def test_lead_board_from_the_list_drag_saves_and_converted_is_refused(browser: Browser, live_host, world) -> None:
    rep = world.one("SELECT id, username, first_name || ' ' || last_name FROM identity_user WHERE role = 'sales_rep' ORDER BY id")
    page = signed_in(browser, live_host, world, rep[1])
    page.goto(live_host.url("crm", "/leads?view=my_open"))
    page.get_by_role("link", name="Display as Kanban").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"^\s*My Open Leads,"))  # the board of the list view shown
    expect(page).to_have_url(re.compile(r"/leads/board\?view=my_open$"))
    assert [c.get_attribute("data-value") for c in page.locator("#kanban .kanban-col").all()] == LEAD_STATUSES
    for status in LEAD_STATUSES:  # each column's count is the rep's open leads in that status (the view's filter): none closed
        n = world.one("SELECT count(*) FROM crm_lead WHERE owner_id = ? AND status = ? AND status IN (?, ?)", rep[0], status,
                      *LEAD_OPEN_STATUSES)[0]
        expect(column(page, status).locator(".kanban-count")).to_have_text(f"({n})")
    expect(page.locator("#board-summary")).to_contain_text("Grouped by Lead Status")
    lead_id, name, company = world.one("SELECT id, first_name || ' ' || last_name, company FROM crm_lead WHERE owner_id = ? "
                                       "AND status = 'Open - Not Contacted' ORDER BY last_name, first_name, id LIMIT 1", rep[0])
    moving = card(page, lead_id)
    expect(moving).to_have_attribute("aria-label", name)
    expect(moving.locator(".kc-fields")).to_contain_text(company)
    expect(moving.get_by_role("img", name=f"Lead Owner: {rep[2]}", exact=True)).to_be_visible()
    moving.drag_to(column(page, "Working - Contacted").locator(".kanban-cards"))
    expect(column(page, "Working - Contacted").locator(f'.kanban-card[data-id="{lead_id}"]')).to_be_visible()
    expect(page.locator("#kanban-live")).to_have_text(f"{name} moved to Working - Contacted.")
    status, updated = world.one("SELECT status, updated_at FROM crm_lead WHERE id = ?", lead_id)
    assert status == "Working - Contacted" and updated.startswith(world.clock.now.strftime("%Y-%m-%d %H:%M"))
    # Converting has its own page: the Converted column refuses the card with the product's message.
    card(page, lead_id).drag_to(column(page, "Closed - Converted").locator(".kanban-cards"))
    expect(page.get_by_role("alert")).to_contain_text(CONVERT_REFUSED)
    expect(column(page, "Working - Contacted").locator(f'.kanban-card[data-id="{lead_id}"]')).to_be_visible()
    assert world.one("SELECT status, converted_at FROM crm_lead WHERE id = ?", lead_id) == ("Working - Contacted", None)
    # The Move to menu offers every status but Converted; a choice posts and comes back with the product's toast.
    card(page, lead_id).get_by_role("button", name=f"Move {name} to another lead status").click()
    menu = card(page, lead_id).get_by_role("menu", name="Move to")
    expect(menu.get_by_role("menuitem")).to_have_text([s for s in LEAD_STATUSES if s != "Closed - Converted"])
    menu.get_by_role("menuitem", name="Closed - Not Converted").click()
    expect(page.get_by_text(f'Lead Status changed to "Closed - Not Converted" for "{name}".')).to_be_visible()
    assert world.one("SELECT status FROM crm_lead WHERE id = ?", lead_id)[0] == "Closed - Not Converted"
    page.context.close()


def test_case_board_group_by_priority_and_keyboard_move_writes_history(browser: Browser, live_host, world) -> None:
    agent = world.one("SELECT id, username FROM identity_user WHERE role = 'support_agent' ORDER BY id")
    page = signed_in(browser, live_host, world, agent[1])
    page.goto(live_host.url("crm", "/cases/board?scope=mine"))
    assert [c.get_attribute("data-value") for c in page.locator("#kanban .kanban-col").all()] == CASE_STATUSES
    page.get_by_role("button", name="Kanban Settings").click()
    dialog = page.get_by_role("dialog", name="Kanban Settings")
    expect(dialog.get_by_label("Summarize By")).to_have_count(0)  # nothing to add up on cases
    dialog.get_by_label("Group By").select_option(label="Priority")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator("#board-summary")).to_contain_text("Grouped by Priority")
    case_id, number, subject, account = world.one(
        "SELECT c.id, c.case_number, c.subject, a.name FROM crm_case c JOIN crm_account a ON a.id = c.account_id "
        "WHERE c.owner_id = ? AND c.priority = 'Medium' AND c.status != 'Closed' ORDER BY c.case_number LIMIT 1", agent[0])
    moving = card(page, case_id)
    for text in (number, subject, account, "Medium"):  # the card's fields, as the product shows them
        expect(moving).to_contain_text(text)
    moving.focus()
    page.keyboard.press("Space")
    expect(page.locator("#kanban-live")).to_contain_text(f"Picked up {number} in Medium")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(column(page, "High").locator(f'.kanban-card[data-id="{case_id}"]')).to_be_visible()
    expect(page.locator("#kanban-live")).to_have_text(f"{number} moved to High.")
    assert world.one("SELECT priority FROM crm_case WHERE id = ?", case_id)[0] == "High"
    assert world.one("SELECT old_value, new_value, user_id FROM crm_field_history WHERE object_type = 'case' AND record_id = ? "
                     "AND field = 'priority'", case_id) == ("Medium", "High", agent[0])
    page.context.close()


def test_case_move_obeys_validation_rules_and_sharing(browser: Browser, live_host, world) -> None:
    agent = world.one("SELECT u.id, u.username FROM identity_user u JOIN crm_case c ON c.owner_id = u.id WHERE u.role = 'support_agent' "
                      "AND c.status = 'New' ORDER BY u.id")  # an agent with a new case of their own
    message = "Put a case On Hold from its record page, with the reason in the description."
    write(world, "INSERT INTO crm_validation_rule (object_type, name, active, error_condition, error_message, error_field, created_at, updated_at) "
                 "VALUES ('case', 'No_Hold_From_Board', 1, 'ISPICKVAL(Status, \"On Hold\")', ?, NULL, '2026-01-01', '2026-01-01')", message)
    write(world, "UPDATE crm_org_wide_default SET access = 'Public Read Only' WHERE object_type = 'case'")
    page = signed_in(browser, live_host, world, agent[1])
    page.goto(live_host.url("crm", "/cases/board?scope=all&closed=0"))
    mine = world.one("SELECT id, case_number FROM crm_case WHERE owner_id = ? AND status = 'New' ORDER BY case_number LIMIT 1", agent[0])
    theirs = world.one("SELECT id, case_number FROM crm_case WHERE owner_id != ? AND status = 'New' ORDER BY case_number LIMIT 1", agent[0])
    # The validation rule refuses the move: the card goes back, the rule's message shows, nothing is saved.
    card(page, mine[0]).drag_to(column(page, "On Hold").locator(".kanban-cards"))
    expect(page.get_by_role("alert")).to_contain_text(f"We hit a snag. {mine[1]} wasn't moved to On Hold. {message}")
    expect(column(page, "New").locator(f'.kanban-card[data-id="{mine[0]}"]')).to_be_visible()
    assert world.one("SELECT status FROM crm_case WHERE id = ?", mine[0])[0] == "New"
    # A colleague's case under Public Read Only: shown, marked Read Only, no menu; a drag doesn't move it.
    other = card(page, theirs[0])
    expect(other).to_contain_text("Read Only")
    expect(other.get_by_role("button")).to_have_count(0)
    other.drag_to(column(page, "Working").locator(".kanban-cards"))
    expect(column(page, "New").locator(f'.kanban-card[data-id="{theirs[0]}"]')).to_be_visible()
    other.focus()
    page.keyboard.press("Space")
    expect(page.locator("#kanban-live")).to_have_text(f"{theirs[1]} is read only: you can't move it.")
    # The server refuses too, with the product's message.
    got = page.evaluate("""async (id) => { const r = await fetch(`/cases/board/${id}/move`, {method: "POST",
        headers: {Accept: "application/json"}, body: new URLSearchParams({field: "status", value: "Working"})});
        return [r.status, (await r.json()).message]; }""", theirs[0])
    assert got == [403, INSUFFICIENT]
    assert world.one("SELECT status FROM crm_case WHERE id = ?", theirs[0])[0] == "New"
    page.context.close()


def test_finance_reads_the_whole_opportunity_board_and_moves_nothing(browser: Browser, live_host, world) -> None:
    """View All Data, read only: every deal shows as a Read Only card with no menu, and the server refuses a move."""
    page = signed_in(browser, live_host, world, user_of(world, "finance"))
    page.goto(live_host.url("crm", "/opportunities/board?closed=0"))
    n = world.one("SELECT count(*) FROM crm_opportunity WHERE stage NOT IN ('Closed Won', 'Closed Lost')")[0]
    expect(page.locator("#kanban .kanban-card")).to_have_count(n)
    expect(page.locator("#kanban .kanban-card.read-only")).to_have_count(n)
    expect(page.locator("#kanban .kc-menu-btn")).to_have_count(0)
    opp_id, stage = world.one("SELECT id, stage FROM crm_opportunity WHERE stage = 'Prospecting' ORDER BY id")
    got = page.evaluate("""async (id) => { const r = await fetch(`/opportunities/board/${id}/move`, {method: "POST",
        headers: {Accept: "application/json"}, body: new URLSearchParams({field: "stage", value: "Qualification"})});
        return [r.status, (await r.json()).message]; }""", opp_id)
    assert got == [403, INSUFFICIENT]
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp_id)[0] == stage
    page.context.close()


def test_a_lead_move_is_kept_in_lead_history(browser: Browser, live_host, world) -> None:
    """Lead Status, Rating and Owner are tracked like a deal's stage: a board move writes the row and the
    lead's Related tab lists it under Lead History."""
    import re

    rep = world.one("SELECT id, username, first_name || ' ' || last_name FROM identity_user WHERE role = 'sales_rep' ORDER BY id")
    lead_id, name = world.one("SELECT id, first_name || ' ' || last_name FROM crm_lead WHERE owner_id = ? "
                              "AND status = 'Open - Not Contacted' AND converted_at IS NULL ORDER BY id LIMIT 1", rep[0])
    page = signed_in(browser, live_host, world, rep[1])
    page.goto(live_host.url("crm", "/leads/board?view=my_open"))
    card(page, lead_id).drag_to(column(page, "Working - Contacted").locator(".kanban-cards"))
    expect(page.locator("#kanban-live")).to_have_text(f"{name} moved to Working - Contacted.")
    assert world.query("SELECT field, old_value, new_value, user_id FROM crm_field_history WHERE object_type = 'lead' "
                       "AND record_id = ?", lead_id) == [("status", "Open - Not Contacted", "Working - Contacted", rep[0])]
    page.goto(live_host.url("crm", f"/leads/{lead_id}"))
    page.get_by_role("tab", name="Related").click()
    history = page.get_by_role("article", name=re.compile(r"^Lead History"))
    expect(history.get_by_role("heading", name="Lead History (1)")).to_be_visible()
    expect(history.locator("tbody tr").first).to_contain_text("Lead Status")
    expect(history.locator("tbody tr").first).to_contain_text("Working - Contacted")
    assert world.query("SELECT count(*) FROM crm_field_history WHERE object_type = 'lead'") == [(1,)]  # only that move
