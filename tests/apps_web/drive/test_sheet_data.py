"""Sort, filter and freeze panes in the workbook, in real Chromium, each checked in the database: the
rows' order in ``drive_cell``, the AutoFilter's range and criteria and the frozen panes on
``drive_sheet`` (what verifiers read)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from .conftest import rows, user

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def me(world):
    return user(world, "finance", 0)


def column(world, item: int, col: int) -> list[tuple]:
    return rows(world, "SELECT row, value, number FROM drive_cell WHERE item_id = ? AND col = ? AND row BETWEEN 2 AND 31 ORDER BY row", item, col)


def test_sort_filter_and_freeze_expenses(page: Page, live_host, world, me) -> None:
    wb = world.one("SELECT i.id FROM drive_item i JOIN drive_site s ON s.id = i.site_id WHERE s.owner_id = ? AND i.name = 'Expense Review'", me[0])[0]
    before = {r: tuple(x[1] for x in rows(world, "SELECT col, input FROM drive_cell WHERE item_id = ? AND row = ? AND col <= 5 ORDER BY col", wb, r))
              for r in range(2, 32)}
    totals = rows(world, "SELECT ref, number FROM drive_cell WHERE item_id = ? AND col = 8 ORDER BY row", wb)
    page.goto(live_host.url("drive", f"/sheet/{wb}"))
    grid = page.get_by_role("grid")
    data = page.get_by_role("toolbar", name="Data")
    # Sort Z to A by Amount: the rows move whole, the header stays, the summary beside the data stays.
    grid.locator("td[data-ref=D5]").click()
    data.get_by_role("button", name="Sort Z to A").click()
    expect(grid.locator("td[data-ref=D1]")).to_have_text("Amount")
    amounts = [n for _r, _v, n in column(world, wb, 4)]
    assert amounts == sorted(amounts, reverse=True)
    after = {tuple(x[1] for x in rows(world, "SELECT col, input FROM drive_cell WHERE item_id = ? AND row = ? AND col <= 5 ORDER BY col", wb, r)) for r in range(2, 32)}
    assert after == set(before.values())  # every row kept together
    assert rows(world, "SELECT ref, number FROM drive_cell WHERE item_id = ? AND col = 8 ORDER BY row", wb) == totals
    assert world.one("SELECT sort_state FROM drive_sheet WHERE item_id = ?", wb)[0] == "D2:D31 desc"
    expect(grid.locator("td[data-ref=D2]")).to_have_text(str(int(amounts[0])))
    # Sort A to Z by Employee.
    grid.locator("td[data-ref=A3]").click()
    data.get_by_role("button", name="Sort A to Z").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    names = [v for _r, v, _n in column(world, wb, 1)]
    assert names == sorted(names, key=str.lower)
    # Filter: the header row gets buttons; keep two categories.
    grid.locator("td[data-ref=B4]").click()
    data.get_by_role("button", name="Filter").click()
    expect(data.get_by_role("button", name="Filter")).to_have_attribute("aria-pressed", "true")
    assert world.one("SELECT filter_range, filter_criteria FROM drive_sheet WHERE item_id = ?", wb) == ("A1:E31", "{}")
    grid.get_by_role("button", name="Filter Category").click()
    dlg = page.get_by_role("dialog", name="Filter Category")
    dlg.get_by_label("(Select All)").uncheck()
    dlg.get_by_label("Travel", exact=True).check()
    dlg.get_by_label("Meals", exact=True).check()
    dlg.get_by_role("button", name="OK").click()
    expect(page.locator("#status-bar")).to_have_text("Filter Mode")
    assert json.loads(world.one("SELECT filter_criteria FROM drive_sheet WHERE item_id = ?", wb)[0]) == {"C": ["Meals", "Travel"]}
    cats = {r: v for r, v, _n in column(world, wb, 3)}
    for r, v in cats.items():
        row = grid.locator(f"td[data-ref=C{r}]")
        if v in ("Meals", "Travel"):
            expect(row).to_be_visible()
        else:
            expect(row).to_be_hidden()
    # Sorting from the filter list sorts the filtered range; clearing shows every row again.
    grid.get_by_role("button", name="Filter Amount").click()
    page.get_by_role("dialog", name="Filter Amount").get_by_role("button", name="Sort A to Z").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    amounts = [n for _r, _v, n in column(world, wb, 4)]
    assert amounts == sorted(amounts)
    grid.get_by_role("button", name="Filter Category").click()
    page.get_by_role("dialog", name="Filter Category").get_by_role("button", name="Clear Filter From “Category”").click()
    expect(page.locator("#status-bar")).to_have_text("")
    assert world.one("SELECT filter_criteria FROM drive_sheet WHERE item_id = ?", wb)[0] == "{}"
    # Freeze the top row, then panes at B2; unfreeze.
    page.get_by_role("button", name="Freeze Panes").click()
    page.get_by_role("menuitem", name="Freeze Top Row").click()
    expect(grid).to_have_attribute("data-freeze-rows", "1")
    assert world.one("SELECT freeze_rows, freeze_cols FROM drive_sheet WHERE item_id = ?", wb) == (1, 0)
    page.locator(".grid-wrap").evaluate("el => el.scrollTop = 400")
    expect(grid.locator("td[data-ref=A1]")).to_be_in_viewport()
    grid.locator("td[data-ref=B2]").click()
    page.get_by_role("button", name="Freeze Panes").click()
    page.get_by_role("menuitem", name="Freeze Panes", exact=True).click()
    expect(grid).to_have_attribute("data-freeze-cols", "1")
    assert world.one("SELECT freeze_rows, freeze_cols FROM drive_sheet WHERE item_id = ?", wb) == (1, 1)
    page.get_by_role("button", name="Freeze Panes").click()
    page.get_by_role("menuitem", name="Unfreeze Panes").click()
    expect(grid).to_have_attribute("data-freeze-rows", "0")
    # Turning the filter off keeps the sorted order.
    data.get_by_role("button", name="Filter").click()
    expect(data.get_by_role("button", name="Filter")).to_have_attribute("aria-pressed", "false")
    assert world.one("SELECT filter_range FROM drive_sheet WHERE item_id = ?", wb)[0] == ""
