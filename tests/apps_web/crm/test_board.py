"""Opportunity board (Kanban) in real Chromium: mouse drag, drag_to, keyboard, "Move to" menu; DB checks."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from apps_web.crm.picklists import OPEN_STAGES, STAGE_FORECAST, STAGE_PROBABILITY
from apps_web.ui import money

pytestmark = pytest.mark.browser


def rep_of(world) -> tuple[int, str]:
    return world.one("SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id")


def vp_of(world) -> tuple[int, str]:
    """The VP of Sales: every deal is owned by someone below them in the role hierarchy, so the whole board shows."""
    return world.one("SELECT id, username FROM identity_user WHERE title = 'VP of Sales' ORDER BY id")


@pytest.fixture()
def world(live_host):
    return live_host.world()  # a fresh world per test: every test moves cards


@pytest.fixture()
def page(browser, live_host, world):
    context = live_host.new_context(browser, world, vp_of(world)[1])
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    yield page
    context.close()


def opp_row(world, opp_id: int) -> tuple:
    return world.one("SELECT stage, probability, forecast_category, updated_at FROM crm_opportunity WHERE id = ?", opp_id)


def first_in(world, stage: str) -> tuple[int, str]:
    # A New Business deal: its record type runs the full sales process, so every column takes it.
    return world.one("SELECT id, name FROM crm_opportunity WHERE stage = ? AND record_type_id = (SELECT id FROM crm_record_type"
                     " WHERE object_type = 'opportunity' AND developer_name = 'New_Business') ORDER BY close_date, id LIMIT 1", stage)


def column(page: Page, stage: str):
    return page.locator(f'.kanban-col[data-stage="{stage}"]')


def expect_column_matches_db(page: Page, world, stage: str, owner_id: int | None = None) -> None:
    sql = "SELECT count(*), coalesce(sum(amount), 0) FROM crm_opportunity WHERE stage = ?"
    args: tuple = (stage,)
    if owner_id is not None:
        sql += " AND owner_id = ?"
        args += (owner_id,)
    with world.connect() as conn:
        n, total = conn.execute(sql, args).fetchone()
    col = column(page, stage)
    expect(col.locator(".kanban-count")).to_have_text(f"({n})")
    expect(col.locator(".kanban-total")).to_have_text(money(total))
    expect(col.locator(".kanban-card")).to_have_count(n)


def expect_moved(world, opp_id: int, stage: str) -> None:
    stage_now, probability, forecast, updated_at = opp_row(world, opp_id)
    assert (stage_now, probability, forecast) == (stage, STAGE_PROBABILITY[stage], STAGE_FORECAST[stage])
    assert updated_at.startswith(world.clock.now.strftime("%Y-%m-%d %H:%M"))  # stamped with the world clock


def open_board(page: Page, live_host, query: str = "") -> None:
    page.goto(live_host.url("crm", "/opportunities/board" + query))
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("Opportunities"))


def test_columns_show_stage_counts_and_totals(page: Page, live_host, world) -> None:
    page.goto(live_host.url("crm", "/opportunities"))  # the list view switches to the board
    page.get_by_role("link", name="Display as Kanban").click()
    page.wait_for_url(re.compile(r"/opportunities/board\?view=all$"))  # the board of the list view shown
    stages = page.locator(".kanban-col .stage-name")
    expect(stages).to_have_text(OPEN_STAGES + ["Closed Won", "Closed Lost"])
    for stage in OPEN_STAGES + ["Closed Won", "Closed Lost"]:
        expect_column_matches_db(page, world, stage)
    # The list view links here and back ("Display as").
    expect(page.get_by_role("link", name="Display as Table")).to_have_attribute("href", "/opportunities?view=all")
    page.get_by_role("link", name="Hide Closed Stages").click()
    expect(page.locator(".kanban-col")).to_have_count(len(OPEN_STAGES))


def test_my_opportunities_filter(browser, live_host, world) -> None:
    user_id, username = rep_of(world)
    page = live_host.new_context(browser, world, username).new_page()  # a rep: their own deals (Opportunity is Private)
    open_board(page, live_host)
    page.get_by_role("button", name=re.compile("select a list view")).click()  # the board's list view picker
    page.get_by_role("menuitem", name="My Opportunities").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"^\s*My Opportunities,"))
    expect(page).to_have_url(re.compile(r"/opportunities/board\?view=mine"))
    with world.connect() as conn:
        mine = [r[0] for r in conn.execute("SELECT id FROM crm_opportunity WHERE owner_id = ? ORDER BY id", (user_id,))]
    cards = page.locator(".kanban-card")
    expect(cards).to_have_count(len(mine))
    assert sorted(int(x) for x in cards.evaluate_all("els => els.map(e => e.dataset.id)")) == mine
    for stage in OPEN_STAGES:
        expect_column_matches_db(page, world, stage, owner_id=user_id)


def test_drag_with_the_mouse_moves_the_card_and_saves(page: Page, live_host, world) -> None:
    opp_id, name = first_in(world, "Prospecting")
    open_board(page, live_host)
    card = page.locator(f'.kanban-card[data-id="{opp_id}"]')
    target = column(page, "Value Proposition")
    src, dst = card.bounding_box(), target.locator(".kanban-cards").bounding_box()
    page.mouse.move(src["x"] + src["width"] / 2, src["y"] + src["height"] / 2)
    page.mouse.down()
    page.mouse.move(dst["x"] + dst["width"] / 2, dst["y"] + 60, steps=8)
    expect(target).to_have_class(re.compile("drop-target"))
    expect(target.locator(".drop-indicator")).to_be_visible()  # where the card will land
    with page.expect_response(re.compile(rf"/opportunities/board/{opp_id}/move$")) as response:
        page.mouse.up()
    assert response.value.ok
    expect(target.locator(f'.kanban-card[data-id="{opp_id}"]')).to_be_visible()
    expect(page.locator(".drop-indicator")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"/opportunities/board$"))  # the press on the title link did not navigate
    expect_moved(world, opp_id, "Value Proposition")
    expect_column_matches_db(page, world, "Value Proposition")
    expect_column_matches_db(page, world, "Prospecting")
    expect(page.locator("#kanban-live")).to_have_text(f"{name} moved to Value Proposition. Probability 50%.")
    page.reload()  # the server agrees with what the page showed
    expect(column(page, "Value Proposition").locator(f'.kanban-card[data-id="{opp_id}"]')).to_be_visible()


def test_drag_to_locator_and_drop_back_home_changes_nothing(page: Page, live_host, world) -> None:
    opp_id, _ = first_in(world, "Needs Analysis")
    before = opp_row(world, opp_id)
    open_board(page, live_host)
    card = page.locator(f'.kanban-card[data-id="{opp_id}"]')
    # Dropped on its own column: nothing is saved.
    card.drag_to(column(page, "Needs Analysis").locator(".kanban-col-header"))
    assert opp_row(world, opp_id) == before
    with page.expect_response(re.compile(r"/move$")):
        card.drag_to(column(page, "Qualification").locator(".kanban-col-header"))
    expect(column(page, "Qualification").locator(f'.kanban-card[data-id="{opp_id}"]')).to_be_visible()
    expect_moved(world, opp_id, "Qualification")
    expect_column_matches_db(page, world, "Qualification")
    expect_column_matches_db(page, world, "Needs Analysis")


def test_keyboard_pick_up_move_and_drop(page: Page, live_host, world) -> None:
    opp_id, name = first_in(world, "Qualification")
    before = opp_row(world, opp_id)
    open_board(page, live_host)
    card = page.locator(f'.kanban-card[data-id="{opp_id}"]')
    live = page.locator("#kanban-live")
    card.focus()
    page.keyboard.press("Space")
    expect(live).to_contain_text(f"Picked up {name} in Qualification")
    page.keyboard.press("ArrowRight")
    expect(live).to_have_text("Needs Analysis, stage 3 of 10.")
    expect(column(page, "Needs Analysis")).to_have_class(re.compile("drop-target"))
    page.keyboard.press("Escape")  # cancel: nothing saved
    expect(live).to_have_text(f"Move of {name} cancelled.")
    assert opp_row(world, opp_id) == before

    card.focus()
    page.keyboard.press("Space")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    expect(live).to_have_text("Perception Analysis, stage 6 of 10.")
    with page.expect_response(re.compile(r"/move$")):
        page.keyboard.press("Enter")
    expect(live).to_have_text(f"{name} moved to Perception Analysis. Probability 70%.")
    expect(column(page, "Perception Analysis").locator(f'.kanban-card[data-id="{opp_id}"]')).to_be_focused()
    expect_moved(world, opp_id, "Perception Analysis")
    expect_column_matches_db(page, world, "Perception Analysis")
    expect_column_matches_db(page, world, "Qualification")


def test_move_to_menu_closes_won_directly(page: Page, live_host, world) -> None:
    opp_id, name = first_in(world, "Negotiation/Review")
    open_board(page, live_host, "?scope=all")
    card = page.locator(f'.kanban-card[data-id="{opp_id}"]')
    card.get_by_role("button", name=f"Move {name} to another stage").click()
    menu = card.get_by_role("menu", name="Move to")
    expect(menu).to_be_visible()
    expect(menu.get_by_role("menuitem", name="Negotiation/Review")).to_be_disabled()  # where it is now
    menu.get_by_role("menuitem", name="Closed Won").click()
    expect(page.locator(".toast")).to_contain_text(f'Stage changed to "Closed Won" for "{name}".')
    expect(page).to_have_url(re.compile(r"/opportunities/board\?view=all&closed=1$"))
    expect(column(page, "Closed Won").locator(f'.kanban-card[data-id="{opp_id}"]')).to_be_visible()
    expect_moved(world, opp_id, "Closed Won")
    expect_column_matches_db(page, world, "Closed Won")
    expect_column_matches_db(page, world, "Negotiation/Review")


def test_names_render_as_text(page: Page, live_host, world) -> None:
    with world.connect(readonly=False) as conn:
        conn.execute("UPDATE crm_opportunity SET name = ? WHERE id = (SELECT min(id) FROM crm_opportunity WHERE stage = 'Prospecting')",
                     ("<script>alert(1)</script>",))
    open_board(page, live_host)
    expect(page.get_by_role("link", name="<script>alert(1)</script>")).to_be_visible()
    assert page.dialogs == []


def test_kanban_settings_group_by_type_and_move_sets_the_type(browser, live_host, world) -> None:
    from apps_web.crm.picklists import OPPORTUNITY_TYPES

    user_id, username = rep_of(world)  # a rep's own open deals (My Opportunities), which they may move
    page = live_host.new_context(browser, world, username).new_page()
    open_board(page, live_host, "?scope=mine&closed=0")
    page.get_by_role("button", name="Kanban Settings").click()
    dialog = page.get_by_role("dialog", name="Kanban Settings")
    dialog.get_by_label("Group By").select_option("Type")
    dialog.get_by_label("Summarize By").select_option("None")
    dialog.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"group=type"))
    open_in = "stage NOT IN ('Closed Won', 'Closed Lost') AND owner_id = ?"
    blanks = world.one(f"SELECT count(*) FROM crm_opportunity WHERE {open_in} AND coalesce(type, '') = ''", user_id)[0]
    expect(page.locator(".kanban-col .stage-name")).to_have_text(OPPORTUNITY_TYPES + (["--None--"] if blanks else []))
    expect(page.locator(".kanban-total").first).to_be_hidden()  # Summarize By: None
    expect(page.locator("#board-summary")).not_to_contain_text("Sum of Amount")
    for t in OPPORTUNITY_TYPES:
        n = world.one(f"SELECT count(*) FROM crm_opportunity WHERE {open_in} AND type = ?", user_id, t)[0]
        expect(page.locator(f'.kanban-col[data-value="{t}"] .kanban-card')).to_have_count(n)
    opp_id, name, old_type, stage = world.one(
        f"SELECT id, name, type, stage FROM crm_opportunity WHERE {open_in} AND type = 'New Business' ORDER BY close_date, id LIMIT 1", user_id)
    card = page.locator(f'.kanban-card[data-id="{opp_id}"]')
    card.drag_to(page.locator('.kanban-col[data-value="Existing Business - Upgrade"]'))
    expect(page.locator('.kanban-col[data-value="Existing Business - Upgrade"]').locator(f'.kanban-card[data-id="{opp_id}"]')).to_be_visible()
    expect(page.locator("#kanban-live")).to_have_text(f"{name} moved to Existing Business - Upgrade.")
    assert world.one("SELECT type, stage FROM crm_opportunity WHERE id = ?", opp_id) == ("Existing Business - Upgrade", stage)
    # The Move to menu sets the grouping field too.
    card.get_by_role("button", name=f"Move {name} to another type").click()
    card.get_by_role("menuitem", name="New Business").click()
    expect(page.get_by_text(f'Type changed to "New Business" for "{name}".')).to_be_visible()
    assert world.one("SELECT type FROM crm_opportunity WHERE id = ?", opp_id)[0] == old_type
    expect(page.locator("#kanban-group")).to_have_value("type")  # the settings stay
    expect(page.locator("#board-summary")).to_contain_text("Grouped by Type")
    page.context.close()


def test_a_rep_sees_only_their_deals_and_cannot_move_a_colleagues(browser, live_host, world) -> None:
    user_id, username = rep_of(world)
    page = live_host.new_context(browser, world, username).new_page()
    open_board(page, live_host)
    expect(page.locator(".kanban-card").first).to_be_visible()
    ids = {int(x) for x in page.locator(".kanban-card").evaluate_all("els => els.map(e => e.dataset.id)")}
    with world.connect() as conn:
        assert ids <= {r[0] for r in conn.execute("SELECT id FROM crm_opportunity WHERE owner_id = ?", (user_id,))}
        other, stage = conn.execute("SELECT id, stage FROM crm_opportunity WHERE owner_id != ? AND stage = 'Prospecting' ORDER BY id LIMIT 1", (user_id,)).fetchone()
    status = page.evaluate("""async (id) => (await fetch(`/opportunities/board/${id}/move`, {method: "POST",
        body: new URLSearchParams({stage: "Qualification"})})).status""", other)
    assert status == 403
    assert opp_row(world, other)[0] == stage
    page.context.close()
