"""Workbook editing in real Chromium, each step checked in the world's database: sheet tabs (rename
in place by double-click, right-click Insert / Delete with Excel's confirmation; formulas follow a
renamed sheet), fill down (Ctrl+D over a selection: relative references shift) and paste of a range
(Ctrl+V of tab-separated text fills the grid; cells copied in the workbook keep their formulas)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import client_for, my_root, rows, signed_in_page, user

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def me(world):
    return user(world, "sales_rep", 2)


@pytest.fixture(scope="module")
def page(browser, live_host, world, me):
    with signed_in_page(browser, live_host, world, me[1]) as (context, page):
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_host.url("drive"))
        yield page


def cells(world, item_id: int, sheet: str) -> dict[str, tuple]:
    return {ref: (inp, num) for ref, inp, num in rows(
        world, "SELECT c.ref, c.input, c.number FROM drive_cell c JOIN drive_sheet s ON s.id = c.sheet_id WHERE c.item_id = ? AND s.name = ?", item_id, sheet)}


def idle(page: Page) -> None:
    expect(page.get_by_role("grid")).not_to_have_attribute("data-busy", "1")
    expect(page.locator("#save-state")).to_have_text("Saved")


def test_fill_down_copy_paste_and_sheet_tabs(page: Page, live_host, world, me) -> None:
    with client_for(live_host, world, me[1]) as api:
        wb = api.post("/api/items", json={"parent_id": my_root(world, me[0]), "kind": "sheet", "name": "Unit Economics"}).json()["id"]
        edits = [("A1", "Region"), ("B1", "Units"), ("C1", "Price"), ("D1", "Revenue"), ("D2", "=B2*C2")]
        edits += [(f"{c}{r}", v) for r, (a, b, p) in enumerate([("East", 10, 5), ("West", 4, 2.5), ("North", 7, 3)], start=2) for c, v in zip("ABC", (a, b, p))]
        assert api.patch(f"/api/sheets/{wb}/cells", json={"edits": [{"sheet": "Sheet1", "ref": r, "input": str(v)} for r, v in edits]}).status_code == 200
    page.goto(live_host.url("drive", f"/sheet/{wb}"))
    grid = page.get_by_role("grid")
    # Fill down: select D2:D4 (click, Shift+click), Ctrl+D; the formula's rows shift.
    grid.locator("td[data-ref=D2]").click()
    grid.locator("td[data-ref=D4]").click(modifiers=["Shift"])
    expect(grid).to_have_attribute("data-selection", "D2:D4")
    page.keyboard.press("Control+d")
    expect(grid.locator("td[data-ref=D4]")).to_have_text("21")
    idle(page)
    got = cells(world, wb, "Sheet1")
    assert got["D3"] == ("=B3*C3", 10) and got["D4"] == ("=B4*C4", 21)
    # The Name Box selects a typed range; Ctrl+D over it again changes nothing.
    page.get_by_label("Name Box").fill("d2:D4")
    page.keyboard.press("Enter")
    expect(grid).to_have_attribute("data-selection", "D2:D4")
    # Ctrl+D on one cell copies the cell above it.
    grid.locator("td[data-ref=D5]").click()
    page.keyboard.press("Control+d")
    expect(grid.locator("td[data-ref=D5]")).to_have_text("0")
    idle(page)
    assert cells(world, wb, "Sheet1")["D5"] == ("=B5*C5", 0)
    page.keyboard.press("Delete")
    idle(page)
    assert "D5" not in cells(world, wb, "Sheet1")
    # Copy A1:D2 with Shift+arrows and Ctrl+C; paste at A8: values as typed, formulas shifted 6 rows.
    grid.locator("td[data-ref=A1]").click()
    page.keyboard.press("Shift+ArrowDown")
    for _ in range(3):
        page.keyboard.press("Shift+ArrowRight")
    expect(grid).to_have_attribute("data-selection", "A1:D2")
    page.keyboard.press("Control+c")
    grid.locator("td[data-ref=A8]").click()
    page.keyboard.press("Control+v")
    expect(grid.locator("td[data-ref=D9]")).to_have_text("50")
    idle(page)
    got = cells(world, wb, "Sheet1")
    assert got["A8"][0] == "Region" and got["A9"][0] == "East" and got["D9"] == ("=B9*C9", 50)
    # Text copied elsewhere (a mail's table): tab-separated lines fill the grid from the active cell.
    page.evaluate("navigator.clipboard.writeText('South\\t12\\t4\\r\\nCentral\\t3\\t9\\r\\n')")
    grid.locator("td[data-ref=A5]").click()
    page.keyboard.press("Control+v")
    expect(grid.locator("td[data-ref=C6]")).to_have_text("9")
    idle(page)
    got = cells(world, wb, "Sheet1")
    assert [got[r][0] for r in ("A5", "B5", "C5", "A6", "B6", "C6")] == ["South", "12", "4", "Central", "3", "9"] and got["B6"][1] == 3
    # A second sheet refers to Sheet1; renaming Sheet1 (double-click its tab) rewrites the formula.
    tabs = page.get_by_role("navigation", name="Sheets")
    page.get_by_role("button", name="New sheet").click()
    page.wait_for_url(re.compile(r"s=Sheet2"))
    page.get_by_role("grid").locator("td[data-ref=A1]").click()
    page.keyboard.type("=SUM(Sheet1!D2:D4)")
    page.keyboard.press("Enter")
    expect(page.get_by_role("grid").locator("td[data-ref=A1]")).to_have_text("81")
    idle(page)
    tabs.get_by_role("link", name="Sheet1").click()
    expect(page.get_by_role("grid")).to_have_attribute("data-sheet", "Sheet1")
    tabs.get_by_role("link", name="Sheet1").dblclick()
    page.get_by_label("Sheet name").fill("Q3 Units")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"s=Q3%20Units"))
    assert rows(world, "SELECT name FROM drive_sheet WHERE item_id = ? ORDER BY position", wb) == [("Q3 Units",), ("Sheet2",)]
    assert cells(world, wb, "Sheet2")["A1"] == ("=SUM('Q3 Units'!D2:D4)", 81)
    # A bad name is refused with Excel's rule; the tab keeps its name.
    tabs.get_by_role("link", name="Q3 Units").click(button="right")
    page.get_by_role("menu", name="Sheet options").get_by_role("menuitem", name="Rename").click()
    page.get_by_label("Sheet name").fill("Q3/Q4")
    page.keyboard.press("Enter")
    expect(page.locator(".toast")).to_contain_text("can't contain")
    # Right-click > Insert adds a sheet; right-click > Delete asks first, Cancel keeps it.
    tabs.get_by_role("link", name="Sheet2").click(button="right")
    page.get_by_role("menu", name="Sheet options").get_by_role("menuitem", name="Insert").click()
    page.wait_for_url(re.compile(r"s=Sheet3"))
    tabs.get_by_role("link", name="Sheet2").click(button="right")
    page.get_by_role("menu", name="Sheet options").get_by_role("menuitem", name="Delete").click()
    dialog = page.get_by_role("dialog", name="Delete sheet")
    expect(dialog).to_contain_text("permanently delete the sheet “Sheet2”")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert len(rows(world, "SELECT id FROM drive_sheet WHERE item_id = ?", wb)) == 3
    tabs.get_by_role("link", name="Sheet2").click(button="right")
    page.get_by_role("menu", name="Sheet options").get_by_role("menuitem", name="Delete").click()
    dialog.get_by_role("button", name="Delete").click()
    expect(page.locator(".toast")).to_contain_text("Deleted sheet “Sheet2”")
    assert rows(world, "SELECT name, position FROM drive_sheet WHERE item_id = ? ORDER BY position", wb) == [("Q3 Units", 0), ("Sheet3", 1)]
    assert not rows(world, "SELECT c.id FROM drive_cell c LEFT JOIN drive_sheet s ON s.id = c.sheet_id WHERE c.item_id = ? AND s.id IS NULL", wb)
    assert rows(world, "SELECT detail FROM drive_activity WHERE item_id = ? AND detail LIKE '%sheet%' ORDER BY id", wb) == [
        ("Renamed sheet Sheet1 to Q3 Units",), ("Deleted sheet Sheet2",)]


def test_sharing_links_grant_access_when_opened(browser, page: Page, live_host, world, me) -> None:
    """Copy link with its settings; another person opening an organisation link gets its access (a
    drive_share row through the link, logged in the activity); a link for specific people works only
    for them."""
    doc = world.one("SELECT i.id, i.name FROM drive_item i JOIN drive_site s ON s.id = i.site_id WHERE s.kind = 'personal' AND s.owner_id = ? "
                    "AND i.kind = 'document' AND i.deleted_at IS NULL ORDER BY i.id", me[0])
    colleague = user(world, "sales_rep", 3)
    outsider = user(world, "sales_rep", 4)
    page.goto(live_host.url("drive", f"/files/{doc[0]}/details"))
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="Copy link").click()
    dialog = page.get_by_role("dialog", name="Link settings")
    dialog.get_by_label("People in").check()
    dialog.get_by_label("Other settings").select_option(label="Can edit")
    dialog.get_by_role("button", name="Copy link").click()
    expect(page.locator(".toast")).to_contain_text("Link copied. People in")
    link = world.one("SELECT id, token, scope, role FROM drive_link WHERE item_id = ?", doc[0])
    assert link[2:] == ("organization", "edit")
    url = page.get_by_role("textbox", name=re.compile("Link: People in .* with the link can edit")).input_value()
    assert url.endswith(f"/s/{link[1]}")
    # A colleague with the link: before, the file is not theirs to see; opening the link grants edit.
    ctx = live_host.new_context(browser, world, colleague[1])
    try:
        other = ctx.new_page()
        assert other.goto(live_host.url("drive", f"/doc/{doc[0]}")).status == 404
        other.goto(live_host.url("drive", f"/s/{link[1]}"))
        expect(other).to_have_url(re.compile(rf"/doc/{doc[0]}"))
        assert rows(world, "SELECT role, link_id FROM drive_share WHERE item_id = ? AND user_id = ?", doc[0], colleague[0]) == [("edit", link[0])]
        assert world.one("SELECT action, detail FROM drive_activity WHERE item_id = ? AND user_id = ? ORDER BY id DESC", doc[0], colleague[0])[0] == "link-opened"
    finally:
        ctx.close()
    # A link for specific people: only the person picked gets access; someone else is refused.
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="Copy link").click()
    dialog.get_by_label("Specific people").check()
    picker = dialog.get_by_label("Add a name or email")
    picker.fill(world.one("SELECT first_name || ' ' || last_name FROM identity_user WHERE id = ?", outsider[0])[0])
    dialog.get_by_role("listbox", name="People").get_by_role("option").first.click()
    dialog.get_by_label("Other settings").select_option(label="Can view")
    dialog.get_by_role("button", name="Copy link").click()
    expect(page.locator(".toast")).to_contain_text("Specific people can view")
    people_link = world.one("SELECT id, token FROM drive_link WHERE item_id = ? AND scope = 'people'", doc[0])
    assert rows(world, "SELECT role, link_id FROM drive_share WHERE item_id = ? AND user_id = ?", doc[0], outsider[0]) == [("view", people_link[0])]
    third = user(world, "sales_rep", 5)
    ctx = live_host.new_context(browser, world, third[1])
    try:
        r = ctx.new_page().goto(live_host.url("drive", f"/s/{people_link[1]}"))
        assert r.status == 403
        assert not rows(world, "SELECT id FROM drive_share WHERE item_id = ? AND user_id = ?", doc[0], third[0])
    finally:
        ctx.close()
    # Removing the organisation link: it no longer opens.
    page.get_by_role("button", name=re.compile("Remove link: People in")).click()
    expect(page.locator(".toast")).to_contain_text("Link removed")
    assert not rows(world, "SELECT id FROM drive_link WHERE id = ?", link[0])
    assert not rows(world, "SELECT id FROM drive_share WHERE item_id = ? AND user_id = ?", doc[0], colleague[0])
