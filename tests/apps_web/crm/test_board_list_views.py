"""The Kanban board as a display of a list view, in real Chromium: a saved view with filters and filter logic
shows exactly its records on the board (checked against the database and against the list's own count), a
card moved out of the view's filters stays until the board is loaded again, the board's picker switches
views, a saved view's filter on a lookup's field (Case Record Type) works on the case board, sharing still
bounds a shared view, and Recently Viewed has no board."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from apps_web.crm.routes.board import RECENT_UNAVAILABLE

from .conftest import user_of

pytestmark = pytest.mark.browser


@pytest.fixture()
def world(live_host):
    return live_host.world()  # a fresh world per test: they save views and move cards


def signed_in(browser: Browser, live_host, world, username: str) -> Page:  # noqa: ANN001
    return live_host.new_context(browser, world, username).new_page()


def post(page: Page, url: str, pairs: list[tuple[str, str]]) -> str:
    """Submit a form of the app from the page (the list view controls' own POSTs); the URL it lands on."""
    return page.evaluate("""async ([url, body]) => (await fetch(url, {method: 'POST', body: new URLSearchParams(body)})).url""",
                         [url, pairs])


def save_view(page: Page, objects: str, name: str, filters: list[tuple[str, str, str]], logic: str = "",
              visibility: str = "only_me") -> int:
    """New list view, then its filters, as the List View Controls and the filter panel's Save send them."""
    landed = post(page, f"/listviews/{objects}/new", [("name", name), ("api_name", name.replace(" ", "_")), ("visibility", visibility)])
    view_id = int(re.search(r"view=lv(\d+)", landed).group(1))
    pairs = [("scope", "all"), ("logic", logic)]
    for field, op, value in filters:
        pairs += [("ff", field), ("fo", op), ("fv", value)]
    post(page, f"/listviews/{view_id}/filters", pairs)
    return view_id


def card_ids(page: Page) -> list[int]:
    return sorted(int(x) for x in page.locator("#kanban .kanban-card").evaluate_all("els => els.map(e => e.dataset.id)"))


def column(page: Page, value: str):
    return page.locator(f'#kanban .kanban-col[data-value="{value}"]')


def test_a_saved_views_filters_and_logic_decide_the_cards(browser: Browser, live_host, world) -> None:
    vp = world.one("SELECT username FROM identity_user WHERE title = 'VP of Sales' ORDER BY id")[0]  # every deal is below them
    page = signed_in(browser, live_host, world, vp)
    page.goto(live_host.url("crm", "/opportunities"))
    floor = world.one("SELECT CAST(avg(amount) AS INTEGER) FROM crm_opportunity WHERE stage = 'Prospecting'")[0]
    view_id = save_view(page, "opportunities", "Big early deals", [("stage", "equals", "Prospecting, Qualification"),
                                                                    ("amount", "greater", str(floor)), ("lead_source", "equals", "Web")],
                        logic="1 AND (2 OR 3)")
    assert world.one("SELECT filter_logic FROM crm_list_view WHERE id = ?", view_id) == ("1 AND (2 OR 3)",)
    expected = [r for r, in world.query("""SELECT id FROM crm_opportunity WHERE stage IN ('Prospecting', 'Qualification')
                                           AND (amount > ? OR lead_source = 'Web') ORDER BY id""", floor)]
    assert 3 <= len(expected) < world.one("SELECT count(*) FROM crm_opportunity")[0]
    # From the list view, "Display as Kanban" opens the board of that view, titled with its name.
    page.goto(live_host.url("crm", f"/opportunities?view=lv{view_id}"))
    listed = int(re.match(r"(\d+) items?", page.locator("#list-summary").inner_text()).group(1))
    page.get_by_role("link", name="Display as Kanban").click()
    expect(page).to_have_url(re.compile(rf"/opportunities/board\?view=lv{view_id}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"^\s*Big early deals,"))
    expect(page.locator("#kanban .kanban-card")).to_have_count(len(expected))
    assert card_ids(page) == expected and listed == len(expected)
    expect(page.locator("[data-board-count]")).to_have_text(str(len(expected)))
    # A card moved out of the view's filters stays where it was dropped, counts follow; a reload drops it.
    opp_id, name = world.one("SELECT id, name FROM crm_opportunity WHERE id IN (%s) AND stage = 'Prospecting' AND record_type_id = "
                             "(SELECT id FROM crm_record_type WHERE developer_name = 'New_Business') ORDER BY id LIMIT 1"
                             % ",".join(map(str, expected)))
    card = page.locator(f'#kanban .kanban-card[data-id="{opp_id}"]')
    card.drag_to(column(page, "Needs Analysis").locator(".kanban-cards"))
    expect(page.locator("#kanban-live")).to_contain_text(f"{name} moved to Needs Analysis.")
    expect(column(page, "Needs Analysis").locator(f'.kanban-card[data-id="{opp_id}"]')).to_be_visible()
    expect(column(page, "Needs Analysis").locator(".kanban-count")).to_have_text("(1)")
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp_id) == ("Needs Analysis",)
    page.reload()
    expect(page.locator("#kanban .kanban-card")).to_have_count(len(expected) - 1)
    expect(column(page, "Needs Analysis").locator(".kanban-count")).to_have_text("(0)")
    # "Display as Table" goes back to the view; its count agrees with the board's.
    page.get_by_role("link", name="Display as Table").click()
    expect(page).to_have_url(re.compile(rf"/opportunities\?view=lv{view_id}$"))
    expect(page.locator("#list-summary")).to_contain_text(f"{len(expected) - 1} items")
    page.context.close()


def test_the_boards_picker_switches_views_and_sharing_bounds_a_shared_view(browser: Browser, live_host, world) -> None:
    manager = user_of(world, "sales_manager")
    page = signed_in(browser, live_host, world, manager)
    page.goto(live_host.url("crm", "/opportunities"))
    view_id = save_view(page, "opportunities", "Team Negotiations", [("stage", "equals", "Negotiation/Review")], visibility="all_users")
    page.context.close()
    rep_id, rep = world.one("SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id")
    page = signed_in(browser, live_host, world, rep)
    page.goto(live_host.url("crm", "/opportunities/board?scope=mine"))  # the first version's URL: My Opportunities
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"^\s*My Opportunities,"))
    page.get_by_role("button", name=re.compile("select a list view")).click()
    page.get_by_role("menuitem", name="Team Negotiations").click()
    expect(page).to_have_url(re.compile(rf"/opportunities/board\?view=lv{view_id}&closed=1$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"^\s*Team Negotiations,"))
    # The manager's shared view, read by a rep: its filter, and only the deals the rep may see.
    expected = [r for r, in world.query("""SELECT id FROM crm_opportunity WHERE stage = 'Negotiation/Review' AND owner_id IN
        (SELECT id FROM identity_user WHERE id = ? OR manager_id = ?) ORDER BY id""", rep_id, rep_id)]
    everyone = world.one("SELECT count(*) FROM crm_opportunity WHERE stage = 'Negotiation/Review'")[0]
    assert len(expected) < everyone
    expect(page.locator("#kanban .kanban-card")).to_have_count(len(expected))
    assert card_ids(page) == expected
    # Recently Viewed has no board: the product's message, no columns; the list's Kanban switch is off there.
    page.get_by_role("button", name=re.compile("select a list view")).click()
    page.get_by_role("menuitem", name="Recently Viewed").click()
    expect(page.get_by_role("status").filter(has_text="Kanban")).to_have_text(RECENT_UNAVAILABLE)
    expect(page.locator("#kanban .kanban-col")).to_have_count(0)
    page.get_by_role("link", name="Display as Table").click()
    expect(page.get_by_role("link", name="Display as Kanban")).to_have_attribute("aria-disabled", "true")
    page.context.close()


def test_a_case_view_filtered_by_record_type_on_the_case_board(browser: Browser, live_host, world) -> None:
    """A saved view's filter on a lookup's field (Case Record Type, a join) and Status, on the board grouped by Priority."""
    page = signed_in(browser, live_host, world, user_of(world, "support_manager"))
    page.goto(live_host.url("crm", "/cases"))
    view_id = save_view(page, "cases", "Open billing cases", [("record_type", "equals", "Billing"), ("status", "not_equal", "Closed")])
    page.goto(live_host.url("crm", f"/cases/board?view=lv{view_id}&group=priority"))
    expected = [r for r, in world.query("""SELECT c.id FROM crm_case c JOIN crm_record_type r ON r.id = c.record_type_id
        WHERE r.name = 'Billing' AND c.status != 'Closed' ORDER BY c.id""")]
    assert expected
    expect(page.locator("#kanban .kanban-card")).to_have_count(len(expected))
    assert card_ids(page) == expected
    high = world.one("""SELECT count(*) FROM crm_case c JOIN crm_record_type r ON r.id = c.record_type_id
        WHERE r.name = 'Billing' AND c.status != 'Closed' AND c.priority = 'High'""")[0]
    expect(column(page, "High").locator(".kanban-count")).to_have_text(f"({high})")
    expect(page.locator("#board-summary")).to_contain_text("Grouped by Priority")
    page.context.close()
