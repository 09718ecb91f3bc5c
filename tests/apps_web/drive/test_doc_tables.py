"""Tables in documents, in real Chromium and checked in the world's database: Insert > Table from the
grid picker, typing with Tab from cell to cell (Tab in the last cell adds a row), Table Layout's
Delete Column, the stored table block, the .docx download holding the table, and the Insert Table
dialog refusing 0 rows with Word's kind of message."""

from __future__ import annotations

import io
import json
import re

import docx
import pytest
from playwright.sync_api import Page, expect

from .conftest import my_root, rows, signed_in_page, user

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def me(world):
    return user(world, "sales_rep", 2)


@pytest.fixture(scope="module")
def page(browser, live_host, world, me):
    with signed_in_page(browser, live_host, world, me[1], accept_downloads=True) as (_context, page):
        yield page


def new_document(page: Page, live_host, world, me, name: str) -> int:
    page.goto(live_host.url("drive", "/my"))
    page.get_by_role("button", name="New").click()
    page.get_by_role("menuitem", name="Word document").click()
    page.get_by_role("dialog").get_by_label("Name").fill(name)
    page.get_by_role("button", name="Create").click()
    page.wait_for_url(re.compile(r"/doc/\d+"))
    return world.one("SELECT id FROM drive_item WHERE parent_id = ? AND name = ?", my_root(world, me[0]), name)[0]


def table_block(world, did: int) -> tuple[int, str, list]:
    pos, text, runs = world.one("SELECT position, text, runs FROM drive_block WHERE item_id = ? AND style = 'Table'", did)
    return pos, text, json.loads(runs)


def test_insert_table_type_with_tab_add_row_delete_column_and_download(page: Page, live_host, world, me) -> None:
    did = new_document(page, live_host, world, me, "Q3 pricing")
    page.locator(".ql-editor").click()
    page.keyboard.type("Pricing")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Table Layout")).to_be_disabled()
    page.get_by_role("button", name="Table", exact=True).click()
    page.get_by_role("menuitem", name="3x2 Table").hover()
    expect(page.locator("#table-picker-label")).to_have_text("3x2 Table")
    page.get_by_role("menuitem", name="3x2 Table").click()
    expect(page.locator(".ql-editor table tr")).to_have_count(2)
    expect(page.locator(".ql-editor table tr").first.locator("td")).to_have_count(3)
    expect(page.get_by_role("button", name="Table Layout")).to_be_enabled()
    for i, word in enumerate(["Product", "Qty", "Note", "Cloud Suite", "12", "annual"]):
        if i:
            page.keyboard.press("Tab")
        page.keyboard.type(word)
    page.keyboard.press("Tab")  # the last cell: a new row below, the cursor in its first cell
    expect(page.locator(".ql-editor table tr")).to_have_count(3)
    page.keyboard.type("Onboarding")
    page.keyboard.press("Tab")
    page.keyboard.type("1")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    pos, text, cells = table_block(world, did)
    assert pos == 1 and text == "Product\tQty\tNote\nCloud Suite\t12\tannual\nOnboarding\t1\t"
    assert cells[1] == [[{"text": "Cloud Suite"}], [{"text": "12"}], [{"text": "annual"}]]
    assert "Cloud Suite\t12" in world.one("SELECT text FROM drive_item WHERE id = ?", did)[0]  # what drive search reads
    # Table Layout > Delete Column on the "Note" column.
    page.locator(".ql-editor td", has_text="annual").click()
    page.get_by_role("button", name="Table Layout").click()
    page.get_by_role("menuitem", name="Delete Column").click()
    expect(page.locator(".ql-editor table tr").first.locator("td")).to_have_count(2)
    page.get_by_role("button", name="Table Layout").click()
    page.get_by_role("menuitem", name="Insert Above").click()
    expect(page.locator(".ql-editor table tr")).to_have_count(4)
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    _, text, _ = table_block(world, did)
    assert text == "Product\tQty\n\t\nCloud Suite\t12\nOnboarding\t1"
    # the table survives a reload (the editor is drawn from the stored blocks)
    page.reload()
    expect(page.locator(".ql-editor table tr")).to_have_count(4)
    expect(page.locator(".ql-editor td").nth(4)).to_have_text("Cloud Suite")
    with page.expect_download() as dl:
        page.get_by_role("link", name="Download (.docx)").click()
    got = docx.Document(io.BytesIO(open(dl.value.path(), "rb").read()))
    assert [[c.text for c in r.cells] for r in got.tables[0].rows] == [["Product", "Qty"], ["", ""], ["Cloud Suite", "12"], ["Onboarding", "1"]]
    assert got.paragraphs[0].text == "Pricing"


def test_insert_table_dialog_refuses_zero_rows(page: Page, live_host, world, me) -> None:
    did = new_document(page, live_host, world, me, "Staffing plan")
    page.locator(".ql-editor").click()
    page.keyboard.type("Roles we are hiring for")  # a paragraph with text: the table goes below it, the paragraph whole
    page.get_by_role("button", name="Table", exact=True).click()
    page.get_by_role("menuitem", name="Insert Table...").click()
    dlg = page.get_by_role("dialog", name="Insert Table")
    dlg.get_by_label("Number of columns").fill("4")
    dlg.get_by_label("Number of rows").fill("0")
    dlg.get_by_role("button", name="OK").click()
    expect(dlg.get_by_role("alert")).to_have_text("The number of rows must be between 1 and 500.")
    expect(dlg).to_be_visible()
    expect(page.locator(".ql-editor table")).to_have_count(0)
    dlg.get_by_label("Number of rows").fill("3")
    dlg.get_by_role("button", name="OK").click()
    expect(dlg).to_be_hidden()
    expect(page.locator(".ql-editor table tr")).to_have_count(3)
    expect(page.locator(".ql-editor table tr").first.locator("td")).to_have_count(4)
    page.keyboard.type("Role")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    assert table_block(world, did)[:2] == (1, "Role\t\t\t\n\t\t\t\n\t\t\t")
    assert rows(world, "SELECT style, text FROM drive_block WHERE item_id = ? ORDER BY position", did)[0] == ("Normal", "Roles we are hiring for")
