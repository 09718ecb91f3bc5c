"""The drive in real Chromium, each step checked in the world's database: the file list (new folder,
upload through the file input, download, rename, move, delete to the recycle bin and restore), the
share dialog, the document editor (typing, formatting, saving as blocks, comments) and the
spreadsheet grid (cell edits recalculated on the server, keyboard navigation, sheets)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import my_root, rows, signed_in_page, user

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def me(world):
    return user(world, "sales_rep", 1)


@pytest.fixture(scope="module")
def page(browser, live_host, world, me):
    with signed_in_page(browser, live_host, world, me[1], accept_downloads=True) as (_context, page):
        yield page


def goto(page: Page, live_host, path: str) -> None:
    page.goto(live_host.url("drive", path))


def toast(page: Page, text: str) -> None:
    expect(page.locator(".toast")).to_contain_text(text)


def test_files_folders_upload_recycle_and_share(page: Page, live_host, world, me, tmp_path) -> None:
    root = my_root(world, me[0])
    goto(page, live_host, "/my")
    expect(page.get_by_role("navigation", name="Breadcrumb")).to_contain_text("My files")
    # New folder
    page.get_by_role("button", name="New").click()
    page.get_by_role("menuitem", name="Folder").click()
    page.get_by_role("dialog").get_by_label("Name").fill("Q3 Deals")
    page.get_by_role("button", name="Create").click()
    toast(page, "Created folder “Q3 Deals”")
    fid = world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = 'Q3 Deals' AND kind = 'folder'", root)[0]
    # Sort by name descending puts it in order (folders first).
    page.get_by_role("link", name="Name").click()
    page.wait_for_url(re.compile(r"sort=name&dir=desc"))
    names = page.locator("table[aria-label=Files] td.c-name").all_inner_texts()
    folders = [n for n in names if "." not in n]
    assert folders == sorted(folders, key=str.lower, reverse=True)
    # Upload through the real file input into the new folder, then download it.
    page.get_by_role("link", name="Q3 Deals").click()
    expect(page.get_by_role("navigation", name="Breadcrumb")).to_contain_text("Q3 Deals")
    src = tmp_path / "pricing-notes.txt"
    src.write_text("Discount approved up to 12%.")
    page.set_input_files("#upload-input", str(src))
    toast(page, "Uploaded 1 item to Q3 Deals")
    fileid = world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = 'pricing-notes.txt'", fid)[0]
    assert world.one("SELECT data FROM drive_item WHERE id = ?", fileid)[0] == b"Discount approved up to 12%."
    page.get_by_role("button", name="More actions for pricing-notes.txt").click()
    with page.expect_download() as dl:
        page.get_by_role("menuitem", name="Download").click()
    assert open(dl.value.path(), "rb").read() == b"Discount approved up to 12%."
    # Rename, with a bad name refused first.
    page.get_by_role("button", name="More actions for pricing-notes.txt").click()
    page.get_by_role("menuitem", name="Rename").click()
    page.locator("#rename-name").fill("notes?.txt")
    page.locator("#dlg-rename").get_by_role("button", name="Rename").click()
    toast(page, "can't contain")
    page.get_by_role("button", name="More actions for pricing-notes.txt").click()
    page.get_by_role("menuitem", name="Rename").click()
    page.locator("#rename-name").fill("Pricing notes.txt")
    page.locator("#dlg-rename").get_by_role("button", name="Rename").click()
    toast(page, "Renamed")
    assert world.one("SELECT name FROM drive_item WHERE id = ?", fileid)[0] == "Pricing notes.txt"
    # Move to the Proposals folder, through the folder chooser.
    proposals = world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = 'Proposals'", root)[0]
    page.get_by_role("button", name="More actions for Pricing notes.txt").click()
    page.get_by_role("menuitem", name="Move to").click()
    page.locator("#move-target").select_option(label="My files / Proposals")
    page.get_by_role("button", name="Move here").click()
    toast(page, "Moved")
    assert world.one("SELECT parent_id FROM drive_item WHERE id = ?", fileid)[0] == proposals
    # Delete the folder -> recycle bin -> restore.
    goto(page, live_host, "/my")
    page.get_by_role("button", name="More actions for Q3 Deals").click()
    page.get_by_role("menuitem", name="Delete").click()
    page.locator("#dlg-delete").get_by_role("button", name="Delete").click()
    toast(page, "recycle bin")
    assert world.one("SELECT deleted_at IS NOT NULL FROM drive_item WHERE id = ?", fid)[0] == 1
    page.get_by_role("navigation", name="Navigation").get_by_role("link", name="Recycle bin").click()
    page.get_by_role("button", name="Restore Q3 Deals").click()
    toast(page, "Restored “Q3 Deals”")
    assert world.one("SELECT deleted_at FROM drive_item WHERE id = ?", fid)[0] is None
    # Share the folder with a colleague (type-ahead) and a group, Can view.
    colleague = world.one("SELECT id, first_name || ' ' || last_name, last_name FROM identity_user WHERE role = 'finance' ORDER BY id")
    goto(page, live_host, "/my")
    page.get_by_role("button", name="More actions for Q3 Deals").click()
    page.get_by_role("menuitem", name="Share").click()
    picker = page.get_by_role("combobox", name="Add a name or group")
    picker.press_sequentially(colleague[2])
    page.get_by_role("option", name=re.compile(re.escape(colleague[1]))).click()
    picker.press_sequentially("Marketing")
    page.get_by_role("option", name=re.compile("^Marketing")).click()
    page.get_by_label("Permission").select_option(label="Can view")
    page.get_by_role("button", name="Send").click()
    toast(page, "Shared “Q3 Deals”")
    assert sorted(rows(world, "SELECT user_id, group_name, role FROM drive_share WHERE item_id = ?", fid), key=str) == sorted(
        [(colleague[0], None, "view"), (None, "Marketing", "view")], key=str)
    # The details page lists them, and the activity log has every step.
    goto(page, live_host, f"/files/{fid}/details")
    expect(page.get_by_role("list", name="Has access")).to_contain_text(colleague[1])
    expect(page.get_by_role("list", name="Activity")).to_contain_text("Shared with")
    assert {a for (a,) in rows(world, "SELECT action FROM drive_activity WHERE item_id = ?", fid)} >= {"created", "deleted", "restored", "shared"}


def test_document_editor_formatting_and_comments(page: Page, live_host, world, me) -> None:
    root = my_root(world, me[0])
    goto(page, live_host, "/my")
    page.get_by_role("button", name="New").click()
    page.get_by_role("menuitem", name="Word document").click()
    page.get_by_role("dialog").get_by_label("Name").fill("Board memo")
    page.get_by_role("button", name="Create").click()
    page.wait_for_url(re.compile(r"/doc/\d+"))
    did = world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = 'Board memo'", root)[0]
    editor = page.locator(".ql-editor")
    editor.click()
    page.get_by_role("button", name="Style").click()
    page.get_by_role("button", name="Heading 1").click()
    page.keyboard.type("Recommendation")
    page.keyboard.press("Enter")
    page.keyboard.type("We should ")
    page.keyboard.press("Control+b")
    page.keyboard.type("approve")
    page.keyboard.press("Control+b")
    page.keyboard.type(" the renewal.")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Bullets").click()
    page.keyboard.type("Price held for two years")
    expect(page.locator("#save-state")).to_have_text("Unsaved changes")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    got = rows(world, "SELECT style, text, runs FROM drive_block WHERE item_id = ? ORDER BY position", did)
    assert [(s, t) for s, t, _ in got] == [("Heading 1", "Recommendation"), ("Normal", "We should approve the renewal."), ("List Bullet", "Price held for two years")]
    assert json.loads(got[1][2]) == [{"text": "We should "}, {"text": "approve", "bold": True}, {"text": " the renewal."}]
    # A comment on selected text, then a reply and resolving it.
    page.reload()
    page.locator(".ql-editor p").first.click()
    page.keyboard.press("Home")
    page.keyboard.press("Shift+End")  # selects the paragraph's line
    selected = "We should approve the renewal."
    page.get_by_role("button", name="New comment").click()
    expect(page.get_by_label("On the text")).to_have_value(selected)
    page.get_by_label("Comment", exact=True).fill("Check the renewal price with Finance.")
    page.get_by_role("button", name="Post").click()
    toast(page, "Comment posted")
    cid, anchor, pos = world.one("SELECT id, anchor, block_position FROM drive_comment WHERE item_id = ? AND parent_id IS NULL", did)
    assert anchor == selected and pos == 1
    page.get_by_role("textbox", name="Reply").fill("Finance agreed.")
    page.get_by_role("button", name="Reply").click()
    toast(page, "Reply posted")
    assert world.one("SELECT body FROM drive_comment WHERE parent_id = ?", cid)[0] == "Finance agreed."
    page.get_by_role("button", name="Resolve").click()
    toast(page, "Comment resolved")
    assert world.one("SELECT resolved FROM drive_comment WHERE id = ?", cid)[0] == 1


def test_sheet_grid_formulas_navigation_and_tabs(page: Page, live_host, world, me) -> None:
    root = my_root(world, me[0])
    goto(page, live_host, "/my")
    page.get_by_role("button", name="New").click()
    page.get_by_role("menuitem", name="Excel workbook").click()
    page.get_by_role("dialog").get_by_label("Name").fill("Forecast")
    page.get_by_role("button", name="Create").click()
    page.wait_for_url(re.compile(r"/sheet/\d+"))
    sid = world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = 'Forecast'", root)[0]
    grid = page.get_by_role("grid")
    grid.locator("td[data-ref=A1]").click()
    page.keyboard.type("120")
    page.keyboard.press("Enter")  # commits and moves to A2
    expect(page.get_by_label("Name Box")).to_have_value("A2")
    page.keyboard.type("80")
    page.keyboard.press("Tab")  # commits and moves to B2
    expect(page.get_by_label("Name Box")).to_have_value("B2")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowLeft")  # A3
    page.keyboard.type("=SUM(A1:A2)")
    page.keyboard.press("Enter")
    expect(grid.locator("td[data-ref=A3]")).to_have_text("200")
    assert world.one("SELECT input, number FROM drive_cell WHERE item_id = ? AND ref = 'A3'", sid) == ("=SUM(A1:A2)", 200)
    # Changing a precedent recalculates the formula on the server and repaints it.
    grid.locator("td[data-ref=A1]").click()
    page.keyboard.type("20")
    page.keyboard.press("Enter")
    expect(grid.locator("td[data-ref=A3]")).to_have_text("100")
    assert world.one("SELECT number FROM drive_cell WHERE item_id = ? AND ref = 'A3'", sid)[0] == 100
    # Errors show as Excel shows them; a circular reference shows 0 and the status bar names it.
    grid.locator("td[data-ref=B1]").click()
    page.keyboard.type("=A1/0")
    page.keyboard.press("Enter")
    expect(grid.locator("td[data-ref=B1]")).to_have_text("#DIV/0!")
    page.keyboard.type("=B2")  # in B2: refers to itself
    page.keyboard.press("Enter")
    expect(page.locator("#status-bar")).to_have_text("Circular References: B2")
    expect(grid.locator("td[data-ref=B2]")).to_have_text("0")
    # The formula bar shows the selected cell's formula.
    grid.locator("td[data-ref=A3]").click()
    expect(page.get_by_label("Formula Bar")).to_have_value("=SUM(A1:A2)")
    # A second sheet, and a formula across sheets.
    page.get_by_role("button", name="New sheet").click()
    page.wait_for_url(re.compile(r"s=Sheet2"))
    expect(page.get_by_role("navigation", name="Sheets").get_by_role("link", name="Sheet2")).to_have_attribute("aria-current", "page")
    page.get_by_role("grid").locator("td[data-ref=A1]").click()
    page.keyboard.type("=Sheet1!A3*2")
    page.keyboard.press("Enter")
    expect(page.get_by_role("grid").locator("td[data-ref=A1]")).to_have_text("200")
    page.get_by_role("navigation", name="Sheets").get_by_role("link", name="Sheet1").click()
    expect(page.get_by_role("grid")).to_have_attribute("data-sheet", "Sheet1")
    expect(page.get_by_role("grid").locator("td[data-ref=A3]")).to_have_text("100")
    assert rows(world, "SELECT s.name, c.ref, c.number FROM drive_cell c JOIN drive_sheet s ON s.id = c.sheet_id WHERE c.item_id = ? AND c.ref = 'A1' ORDER BY s.position", sid) == [
        ("Sheet1", "A1", 20), ("Sheet2", "A1", 200)]
